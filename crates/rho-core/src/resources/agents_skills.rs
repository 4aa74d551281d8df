//! The Agent Skills locations pi 1.x reads besides its own folders: `.agents/skills` in the
//! project folder and each of its ancestors up to the repository root (a folder holding
//! `.git`), or up to `/` outside a repository; and the user's `~/.agents/skills`. Their
//! top-level `*.md` files are not skills, only folders holding a `SKILL.md` are.

use std::path::{Path, PathBuf};

use super::skills::SkillSource;

/// The user's Agent Skills folder, `<home>/.agents/skills`.
pub fn user_agents_skills(home: &Path) -> PathBuf {
    home.join(".agents").join("skills")
}

/// `.agents/skills` of `cwd` and its ancestors, nearest first, stopping at the repository
/// root; the user's own folder (`home`'s) is left out, as it is not the project's.
pub fn project_agents_skills(cwd: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let user = home.map(user_agents_skills);
    let root = cwd.ancestors().find(|dir| dir.join(".git").exists());
    let mut dirs = Vec::new();
    for dir in cwd.ancestors() {
        let skills = dir.join(".agents").join("skills");
        if user.as_deref() != Some(skills.as_path()) {
            dirs.push(skills);
        }
        if Some(dir) == root {
            break;
        }
    }
    dirs
}

/// `dirs` as skill sources with pi's Agent Skills rule (no top-level `*.md` skills).
pub fn agents_sources(dirs: impl IntoIterator<Item = PathBuf>) -> Vec<SkillSource> {
    dirs.into_iter()
        .map(|path| SkillSource {
            path,
            top_level_md: false,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_folders_run_from_cwd_up_to_the_repository_root() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let repo = tmp.path().join("repo");
        let cwd = repo.join("a/b");
        std::fs::create_dir_all(&cwd).expect("dirs");
        std::fs::create_dir_all(repo.join(".git")).expect("git");
        let dirs = project_agents_skills(&cwd, None);
        let skills = |d: &Path| d.join(".agents/skills");
        assert_eq!(
            dirs,
            [skills(&cwd), skills(&repo.join("a")), skills(&repo)],
            "nothing above the repository root"
        );
    }

    #[test]
    fn outside_a_repository_every_ancestor_counts_but_the_users_own_folder() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let home = tmp.path().join("home");
        let cwd = home.join("proj");
        std::fs::create_dir_all(&cwd).expect("dirs");
        let dirs = project_agents_skills(&cwd, Some(&home));
        assert_eq!(dirs[0], cwd.join(".agents/skills"));
        assert!(!dirs.contains(&user_agents_skills(&home)), "{dirs:?}");
        assert_eq!(dirs.last(), Some(&PathBuf::from("/.agents/skills")));
    }
}
