//! pi's resource patterns, as used by package filters and manifests: a plain entry includes
//! what it matches (glob), `!glob` excludes, `+path` includes one exact path even when
//! excluded, `-path` excludes one exact path whatever else says. A glob is tried against the
//! path relative to the package root, the file name and the absolute path; a `SKILL.md`
//! also matches through its folder.

use std::path::{Component, Path, PathBuf};

/// `path` relative to `base` with `/` separators, `..` where it leaves `base` (node's
/// `path.relative`).
pub fn relative(base: &Path, path: &Path) -> String {
    let base: Vec<Component> = base.components().collect();
    let target: Vec<Component> = path.components().collect();
    let common = base.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let ups = std::iter::repeat_n("..".to_string(), base.len() - common);
    let downs = target[common..]
        .iter()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    ups.chain(downs).collect::<Vec<_>>().join("/")
}

fn posix(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// A glob with minimatch's rule that `*` stays within one path segment; `None` when invalid.
fn glob(pattern: &str) -> Option<globset::GlobMatcher> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .ok()
        .map(|g| g.compile_matcher())
}

/// The names a file answers to: relative path, file name, absolute path, and for a
/// `SKILL.md` the same of its folder.
fn names(file: &Path, base: &Path) -> Vec<String> {
    let mut out = vec![
        relative(base, file),
        file.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        posix(file),
    ];
    if file.file_name().is_some_and(|n| n == "SKILL.md") {
        if let Some(dir) = file.parent() {
            out.push(relative(base, dir));
            out.push(
                dir.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            );
            out.push(posix(dir));
        }
    }
    out
}

fn pattern_text(pattern: &str) -> String {
    let expanded = rho_session::paths::expand_tilde(pattern, &rho_session::paths::process_env);
    posix(&expanded)
}

/// Globs compiled once, for matching many files.
pub struct Globs(Vec<globset::GlobMatcher>);

impl Globs {
    /// Compiles `patterns` (`~` expanded; invalid ones never match).
    pub fn new(patterns: &[&str]) -> Self {
        Self(
            patterns
                .iter()
                .filter_map(|p| glob(&pattern_text(p)))
                .collect(),
        )
    }

    /// Whether any glob matches `file` by one of its names.
    pub fn matches(&self, file: &Path, base: &Path) -> bool {
        if self.0.is_empty() {
            return false;
        }
        let names = names(file, base);
        self.0.iter().any(|g| names.iter().any(|n| g.is_match(n)))
    }
}

/// Exact paths, prepared once (`./` dropped, `~` expanded).
pub struct Exact(Vec<String>);

impl Exact {
    /// Prepares `patterns`.
    pub fn new(patterns: &[&str]) -> Self {
        Self(
            patterns
                .iter()
                .map(|p| pattern_text(p.strip_prefix("./").unwrap_or(p)))
                .collect(),
        )
    }

    /// Whether one of the paths names `file` (relative to `base` or absolute; a `SKILL.md`
    /// also by its folder).
    pub fn matches(&self, file: &Path, base: &Path) -> bool {
        if self.0.is_empty() {
            return false;
        }
        let mut names = vec![relative(base, file), posix(file)];
        if file.file_name().is_some_and(|n| n == "SKILL.md") {
            if let Some(dir) = file.parent() {
                names.push(relative(base, dir));
                names.push(posix(dir));
            }
        }
        self.0.iter().any(|p| names.contains(p))
    }
}

/// Whether any glob of `patterns` matches `file`.
pub fn matches_any(file: &Path, patterns: &[&str], base: &Path) -> bool {
    Globs::new(patterns).matches(file, base)
}

/// Whether any of `patterns` names `file` exactly (relative or absolute; `./` allowed; a
/// `SKILL.md` also by its folder).
pub fn matches_exact(file: &Path, patterns: &[&str], base: &Path) -> bool {
    Exact::new(patterns).matches(file, base)
}

/// A pattern that changes a selection rather than naming what to collect.
pub fn is_override(pattern: &str) -> bool {
    pattern.starts_with(['!', '+', '-'])
}

/// Whether `entry` is any pattern (an override or a glob) rather than a plain path.
pub fn is_pattern(entry: &str) -> bool {
    is_override(entry) || has_glob(entry)
}

/// Whether `entry` holds glob characters.
pub fn has_glob(entry: &str) -> bool {
    entry.contains(['*', '?'])
}

/// Which of `all` the `patterns` select, in `all`'s order: the plain globs (all when none),
/// less `!` matches, plus `+` exact paths, less `-` exact paths.
pub fn apply(all: &[PathBuf], patterns: &[String], base: &Path) -> Vec<PathBuf> {
    let with = |prefix: char| -> Vec<&str> {
        patterns
            .iter()
            .filter_map(|p| p.strip_prefix(prefix))
            .collect()
    };
    let includes: Vec<&str> = patterns
        .iter()
        .filter(|p| !is_override(p))
        .map(String::as_str)
        .collect();
    let (excludes, force_in, force_out) = (with('!'), with('+'), with('-'));
    let (globs, excluded) = (Globs::new(&includes), Globs::new(&excludes));
    let (force_in, force_out) = (Exact::new(&force_in), Exact::new(&force_out));
    all.iter()
        .filter(|f| {
            let chosen =
                (includes.is_empty() || globs.matches(f, base)) && !excluded.matches(f, base);
            (chosen || force_in.matches(f, base)) && !force_out.matches(f, base)
        })
        .cloned()
        .collect()
}

/// An `autoload: false` entry's patterns as explicit switches: each file a pattern names is
/// on (plain, `+`) or off (`!`, `-`), the last pattern naming it deciding; files no pattern
/// names are left to the entry it narrows.
pub fn switches(all: &[PathBuf], patterns: &[String], base: &Path) -> Vec<(PathBuf, bool)> {
    let mut out: Vec<(PathBuf, bool)> = Vec::new();
    for pattern in patterns {
        let (target, on, exact) = match pattern.chars().next() {
            Some('+') => (&pattern[1..], true, true),
            Some('-') => (&pattern[1..], false, true),
            Some('!') => (&pattern[1..], false, false),
            _ => (pattern.as_str(), true, false),
        };
        for file in all {
            let hit = if exact {
                matches_exact(file, &[target], base)
            } else {
                matches_any(file, &[target], base)
            };
            if !hit {
                continue;
            }
            match out.iter_mut().find(|(f, _)| f == file) {
                Some(slot) => slot.1 = on,
                None => out.push((file.clone(), on)),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(root: &Path, rels: &[&str]) -> Vec<PathBuf> {
        rels.iter().map(|r| root.join(r)).collect()
    }

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn relative_paths_are_nodes() {
        let base = Path::new("/a/b");
        assert_eq!(relative(base, Path::new("/a/b/c/d.ts")), "c/d.ts");
        assert_eq!(relative(base, Path::new("/a/x.ts")), "../x.ts");
        assert_eq!(relative(base, base), "");
    }

    #[test]
    fn globs_stay_in_a_segment_and_match_names_too() {
        let root = Path::new("/pkg");
        let file = root.join("extensions/sub/a.ts");
        assert!(matches_any(&file, &["extensions/**/*.ts"], root));
        assert!(!matches_any(&file, &["extensions/*.ts"], root));
        assert!(matches_any(&file, &["a.ts"], root), "by file name");
        let skill = root.join("skills/review/SKILL.md");
        assert!(matches_any(&skill, &["review"], root), "by its folder");
        assert!(matches_exact(&skill, &["./skills/review"], root));
        assert!(
            !matches_exact(&file, &["a.ts"], root),
            "exact means the path"
        );
    }

    #[test]
    fn filters_include_exclude_and_force_as_pi_documents() {
        let root = Path::new("/pkg");
        let all = paths(
            root,
            &["extensions/a.ts", "extensions/legacy.ts", "extensions/b.ts"],
        );
        let keep = |p: &[&str]| -> Vec<String> {
            apply(&all, &strings(p), root)
                .iter()
                .map(|f| relative(root, f))
                .collect()
        };
        assert_eq!(
            keep(&["extensions/*.ts", "!extensions/legacy.ts"]),
            ["extensions/a.ts", "extensions/b.ts"]
        );
        assert_eq!(
            keep(&["!extensions/*.ts", "+extensions/b.ts"]),
            ["extensions/b.ts"]
        );
        assert_eq!(
            keep(&["+extensions/legacy.ts", "-extensions/legacy.ts"]),
            ["extensions/a.ts", "extensions/b.ts"]
        );
        assert_eq!(keep(&[]).len(), 3);
    }

    #[test]
    fn narrowing_switches_name_only_what_they_match() {
        let root = Path::new("/pkg");
        let all = paths(root, &["prompts/a.md", "prompts/b.md"]);
        let got = switches(&all, &strings(&["prompts/*.md", "-prompts/b.md"]), root);
        assert_eq!(
            got,
            [
                (root.join("prompts/a.md"), true),
                (root.join("prompts/b.md"), false)
            ]
        );
        assert!(switches(&all, &strings(&["!nothing"]), root).is_empty());
    }
}
