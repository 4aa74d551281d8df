//! The footer's facts that do not come from the session (the directory as shown, the git
//! branch) and the theme choice.

use std::path::{Path, PathBuf};

use rho_core::agent_session::AgentSession;
use rho_tui::Theme;

use crate::options::InteractiveOptions;

/// The working directory as displayed and its git branch.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FooterInfo {
    /// `~`-abbreviated working directory.
    pub cwd: String,
    /// The checked-out branch (or short commit when detached).
    pub git_branch: Option<String>,
    root: PathBuf,
}

impl FooterInfo {
    /// Reads the branch from `.git/HEAD` (a file read, no `git` process).
    pub fn read(cwd: &Path) -> Self {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let shown = match home.as_deref().and_then(|h| cwd.strip_prefix(h).ok()) {
            Some(rest) if rest.as_os_str().is_empty() => "~".to_string(),
            Some(rest) => format!("~/{}", rest.display()),
            None => cwd.display().to_string(),
        };
        Self {
            cwd: shown,
            git_branch: git_branch(cwd),
            root: cwd.to_path_buf(),
        }
    }

    /// Reads the branch again (after a `!` command, which may have switched it).
    pub fn refresh_branch(&mut self) {
        self.git_branch = git_branch(&self.root);
    }
}

/// The branch named by the nearest `.git/HEAD` above `dir`.
pub fn git_branch(dir: &Path) -> Option<String> {
    for d in dir.ancestors() {
        let git = d.join(".git");
        let head_path = if git.is_file() {
            // A worktree or submodule: `.git` names the real git dir.
            let text = std::fs::read_to_string(&git).ok()?;
            let target = text.trim().strip_prefix("gitdir:")?.trim();
            d.join(target).join("HEAD")
        } else if git.is_dir() {
            git.join("HEAD")
        } else {
            continue;
        };
        let head = std::fs::read_to_string(head_path).ok()?;
        let head = head.trim();
        return Some(match head.strip_prefix("ref: refs/heads/") {
            Some(branch) => branch.to_string(),
            None => head.chars().take(7).collect(),
        });
    }
    None
}

/// `--use-theme <name>`, else the settings' `theme`: a built-in name, else a loaded theme file
/// of that name (`--theme`, the settings' `themes`, the `themes/` folders, packages), else
/// `<agentDir>/themes/<name>.json`; dark without either. Of a light/dark pair (`"a/b"`) the
/// dark one is used. A theme that fails to load is reported (stderr before the screen starts)
/// and dark is used.
pub fn load_theme(session: &AgentSession, options: &InteractiveOptions) -> Theme {
    let name = options
        .theme
        .clone()
        .or_else(|| session.with_settings(|s| s.theme().map(str::to_string)));
    let Some(name) = name else {
        return Theme::dark();
    };
    let name = name.rsplit('/').next().unwrap_or(&name).to_string();
    if let Some(theme) = Theme::builtin(&name) {
        return theme;
    }
    let file = options.host.theme_file(&name).unwrap_or_else(|| {
        options
            .agent_dir
            .join("themes")
            .join(format!("{name}.json"))
    });
    Theme::from_file(&file).unwrap_or_else(|e| {
        rho_extension_host::diagnostics::warn(e.to_string());
        Theme::dark()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_comes_from_head_of_the_nearest_repository() {
        let dir = tempfile::tempdir().expect("tempdir");
        let git = dir.path().join(".git");
        std::fs::create_dir_all(&git).expect("mkdir");
        std::fs::write(git.join("HEAD"), "ref: refs/heads/feature/x\n").expect("write");
        let sub = dir.path().join("a/b");
        std::fs::create_dir_all(&sub).expect("mkdir");
        assert_eq!(git_branch(&sub).as_deref(), Some("feature/x"));
        std::fs::write(git.join("HEAD"), "0123456789abcdef\n").expect("write");
        assert_eq!(git_branch(&sub).as_deref(), Some("0123456"));
    }
}
