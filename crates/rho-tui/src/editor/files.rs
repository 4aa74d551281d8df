//! The paths `@` completion offers: everything under the working directory that git would not
//! ignore, hidden directories (`.git`, caches) left out, walked once per completion session.

use std::path::Path;

use ignore::WalkBuilder;

use super::fuzzy;

/// Walking stops after this many paths, so huge trees stay responsive.
pub(crate) const MAX_PATHS: usize = 20_000;

/// Paths under `root`, relative, `/`-separated, directories ending in `/`, in sorted walk
/// order. Unreadable entries are skipped.
pub(crate) fn walk(root: &Path, limit: usize) -> Vec<String> {
    let walker = WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .filter_entry(|e| {
            let hidden = e.file_name().to_string_lossy().starts_with('.');
            !(hidden && e.depth() > 0 && e.file_type().is_some_and(|t| t.is_dir()))
        })
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    walker
        .filter_map(Result::ok)
        .filter(|e| e.depth() > 0)
        .filter_map(|e| {
            let rel = e.path().strip_prefix(root).ok()?;
            let mut s = rel.to_string_lossy().replace('\\', "/");
            if e.file_type().is_some_and(|t| t.is_dir()) {
                s.push('/');
            }
            Some(s)
        })
        .take(limit)
        .collect()
}

/// Score of `path` for the typed `query`. The query's part up to its last `/` must be a prefix
/// of the path (so `@src/` completes inside `src`); the rest is fuzzy-matched, preferring the
/// file name and shallow paths.
pub(crate) fn score(query: &str, path: &str) -> Option<i64> {
    let split = query.rfind('/').map_or(0, |i| i + 1);
    let (dir, name) = query.split_at(split);
    let head = path.get(..dir.len())?;
    if !head.eq_ignore_ascii_case(dir) || path.len() == dir.len() {
        return None;
    }
    let rest = &path[dir.len()..];
    let trimmed = rest.trim_end_matches('/');
    let depth = trimmed.matches('/').count() as i64;
    let base = trimmed.rsplit('/').next().unwrap_or(trimmed);
    let by_name = fuzzy::score(name, base).map(|s| s + 500);
    let by_path = fuzzy::score(name, rest);
    Some(by_name.max(by_path)? - 100 * depth)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn walk_honours_gitignore_and_skips_hidden_dirs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("src/deep")).unwrap();
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::create_dir_all(root.join("target")).unwrap();
        fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
        fs::write(root.join("src/main.rs"), "").unwrap();
        fs::write(root.join("src/deep/x.rs"), "").unwrap();
        fs::write(root.join("target/out"), "").unwrap();
        fs::write(root.join("debug.log"), "").unwrap();
        fs::write(root.join(".git/HEAD"), "").unwrap();
        fs::write(root.join(".env"), "").unwrap();
        let paths = walk(root, MAX_PATHS);
        assert_eq!(
            paths,
            vec![
                ".env",
                ".gitignore",
                "src/",
                "src/deep/",
                "src/deep/x.rs",
                "src/main.rs"
            ]
        );
        assert_eq!(walk(root, 2).len(), 2);
    }

    #[test]
    fn directory_part_of_the_query_is_a_prefix() {
        assert!(score("src/", "src/main.rs").is_some());
        assert!(score("src/", "src/").is_none());
        assert!(score("src/", "tests/src/a.rs").is_none());
        assert!(score("SRC/ma", "src/main.rs").is_some());
    }

    #[test]
    fn file_names_and_shallow_paths_rank_first() {
        let direct = score("main", "src/main.rs").unwrap();
        let in_dir = score("main", "domain/x.rs").unwrap();
        assert!(direct > in_dir);
        let child = score("src/", "src/a.rs").unwrap();
        let grandchild = score("src/", "src/deep/a.rs").unwrap();
        assert!(child > grandchild);
    }
}
