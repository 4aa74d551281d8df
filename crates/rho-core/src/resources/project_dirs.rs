//! A project's folders for rho's files (D17): `.rho/`, and for pi users `.pi/`. Both are
//! read; where both define the same thing (a skill, a template, a settings key, SYSTEM.md)
//! `.rho/` wins, so the list is in precedence order.

use std::path::{Path, PathBuf};

/// The folder names, highest precedence first.
pub const PROJECT_DIR_NAMES: [&str; 2] = [".rho", ".pi"];

/// `<cwd>/.rho` and `<cwd>/.pi`, highest precedence first.
pub fn project_dirs(cwd: &Path) -> Vec<PathBuf> {
    PROJECT_DIR_NAMES.iter().map(|d| cwd.join(d)).collect()
}

/// The folders to read for a project whose `.rho/` is `project_dir` (given when the project
/// is trusted): it and its sibling `.pi/`, highest precedence first; none when `None`.
pub fn folders_of(project_dir: Option<&Path>) -> Vec<PathBuf> {
    match project_dir {
        Some(dir) => match dir.parent() {
            Some(root) => project_dirs(root),
            None => vec![dir.to_path_buf()],
        },
        None => Vec::new(),
    }
}

/// `rel` under each project folder, highest precedence first (e.g. `skills`, `SYSTEM.md`).
pub fn in_project_dirs(cwd: &Path, rel: &str) -> Vec<PathBuf> {
    project_dirs(cwd).into_iter().map(|d| d.join(rel)).collect()
}

/// The project file `rel` that applies: the first that exists (e.g. `mcp.json`).
pub fn project_file(cwd: &Path, rel: &str) -> Option<PathBuf> {
    in_project_dirs(cwd, rel).into_iter().find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rho_comes_first_and_a_file_found_in_either_applies() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let cwd = tmp.path();
        assert_eq!(project_dirs(cwd), [cwd.join(".rho"), cwd.join(".pi")]);
        assert_eq!(folders_of(Some(&cwd.join(".rho"))), project_dirs(cwd));
        assert!(folders_of(None).is_empty());
        assert_eq!(project_file(cwd, "mcp.json"), None);
        std::fs::create_dir_all(cwd.join(".pi")).expect("mkdir");
        std::fs::write(cwd.join(".pi/mcp.json"), "{}").expect("write");
        assert_eq!(
            project_file(cwd, "mcp.json"),
            Some(cwd.join(".pi/mcp.json"))
        );
        std::fs::create_dir_all(cwd.join(".rho")).expect("mkdir");
        std::fs::write(cwd.join(".rho/mcp.json"), "{}").expect("write");
        assert_eq!(
            project_file(cwd, "mcp.json"),
            Some(cwd.join(".rho/mcp.json"))
        );
    }
}
