//! Context files (`AGENTS.md` / `CLAUDE.md`) that go into the system prompt (interfaces spec §6.8).

use std::path::{Path, PathBuf};

/// One context file: where it is and its raw content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextFile {
    /// Absolute path.
    pub path: PathBuf,
    /// Raw content.
    pub content: String,
}

/// pi 1.6's candidates, first found wins: `AGENTS.override.md` replaces the folder's
/// `AGENTS.md` / `CLAUDE.md` (only in its own folder).
const NAMES: [&str; 5] = [
    "AGENTS.override.md",
    "AGENTS.md",
    "AGENTS.MD",
    "CLAUDE.md",
    "CLAUDE.MD",
];

/// The first existing candidate name in `dir`, without a leading byte-order mark (editors on
/// Windows write one; it is not part of the instructions).
fn context_file_in(dir: &Path) -> Option<ContextFile> {
    NAMES.iter().find_map(|name| {
        let path = dir.join(name);
        let content = std::fs::read_to_string(&path).ok()?;
        let content = match content.strip_prefix('\u{feff}') {
            Some(rest) => rest.to_string(),
            None => content,
        };
        Some(ContextFile { path, content })
    })
}

/// The agent dir's file first, then every directory from the root down to `cwd`, one file per
/// directory, each path once.
pub fn load_context_files(agent_dir: &Path, cwd: &Path) -> Vec<ContextFile> {
    let mut files: Vec<ContextFile> = Vec::new();
    let push = |f: ContextFile, files: &mut Vec<ContextFile>| {
        let canonical = std::fs::canonicalize(&f.path).unwrap_or_else(|_| f.path.clone());
        let dup = files.iter().any(|g| {
            std::fs::canonicalize(&g.path).unwrap_or_else(|_| g.path.clone()) == canonical
        });
        if !dup {
            files.push(f);
        }
    };
    if let Some(f) = context_file_in(agent_dir) {
        push(f, &mut files);
    }
    let mut dirs: Vec<&Path> = cwd.ancestors().collect();
    dirs.reverse();
    for dir in dirs {
        if let Some(f) = context_file_in(dir) {
            push(f, &mut files);
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_dir_first_then_outermost_to_cwd_one_per_dir() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let agent = tmp.path().join("agent");
        let project = tmp.path().join("proj");
        let sub = project.join("sub");
        std::fs::create_dir_all(&agent).expect("mkdir");
        std::fs::create_dir_all(&sub).expect("mkdir");
        std::fs::write(agent.join("AGENTS.md"), "global").expect("write");
        std::fs::write(project.join("AGENTS.md"), "project").expect("write");
        std::fs::write(project.join("CLAUDE.md"), "shadowed").expect("write");
        std::fs::write(sub.join("CLAUDE.md"), "sub").expect("write");
        let files = load_context_files(&agent, &sub);
        let contents: Vec<&str> = files.iter().map(|f| f.content.as_str()).collect();
        assert_eq!(contents, ["global", "project", "sub"]);
        let again = load_context_files(&project, &project);
        assert_eq!(again.len(), 1, "the same file is included once");
    }

    #[test]
    fn an_override_replaces_its_own_folders_file_only() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let agent = tmp.path().join("agent");
        let project = tmp.path().join("proj");
        let sub = project.join("sub");
        std::fs::create_dir_all(&agent).expect("mkdir");
        std::fs::create_dir_all(&sub).expect("mkdir");
        std::fs::write(agent.join("AGENTS.md"), "global").expect("write");
        std::fs::write(project.join("CLAUDE.md"), "project").expect("write");
        std::fs::write(sub.join("AGENTS.md"), "sub").expect("write");
        std::fs::write(sub.join("AGENTS.override.md"), "\u{feff}sub override").expect("write");
        let files = load_context_files(&agent, &sub);
        let contents: Vec<&str> = files.iter().map(|f| f.content.as_str()).collect();
        assert_eq!(contents, ["global", "project", "sub override"]);
        assert!(files[2].path.ends_with("sub/AGENTS.override.md"));
    }
}
