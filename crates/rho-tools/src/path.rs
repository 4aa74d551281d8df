//! Path arguments as models write them: a leading `@` (from file mentions), Unicode spaces
//! pasted from other apps, `~`, relative paths, and macOS screenshot names.

use std::path::{Path, PathBuf};

use unicode_normalization::UnicodeNormalization;

const NARROW_NO_BREAK_SPACE: char = '\u{202F}';

fn is_unicode_space(c: char) -> bool {
    matches!(
        c,
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}'
    )
}

fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// Strips one leading `@`, maps Unicode spaces to ASCII space and expands `~` / `~/`.
pub fn expand_path(input: &str) -> PathBuf {
    let stripped = input.strip_prefix('@').unwrap_or(input);
    let normalized: String = stripped
        .chars()
        .map(|c| if is_unicode_space(c) { ' ' } else { c })
        .collect();
    if let Some(home) = home_dir() {
        if normalized == "~" {
            return home;
        }
        if let Some(rest) = normalized.strip_prefix("~/") {
            return home.join(rest);
        }
    }
    PathBuf::from(normalized)
}

/// Resolves a path argument against `cwd` (absolute paths stay as they are), normalizing `.`
/// and `..` lexically like Node's `path.resolve`.
pub fn resolve_to_cwd(input: &str, cwd: &Path) -> PathBuf {
    let expanded = expand_path(input);
    let joined = if expanded.is_absolute() {
        expanded
    } else {
        cwd.join(expanded)
    };
    normalize_lexically(&joined)
}

/// `path` with `.` and `..` folded without touching the file system, as node's
/// `path.resolve` does.
pub fn normalize_lexically(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Like [`resolve_to_cwd`], but when the file does not exist tries the spellings macOS uses in
/// screenshot names: narrow no-break space before AM/PM, NFD, and a curly apostrophe.
pub fn resolve_read_path(input: &str, cwd: &Path) -> PathBuf {
    let resolved = resolve_to_cwd(input, cwd);
    if resolved.exists() {
        return resolved;
    }
    let Some(text) = resolved.to_str() else {
        return resolved;
    };
    let am_pm = text
        .replace(" AM.", &format!("{NARROW_NO_BREAK_SPACE}AM."))
        .replace(" PM.", &format!("{NARROW_NO_BREAK_SPACE}PM."));
    let nfd: String = text.nfd().collect();
    let curly = text.replace('\'', "\u{2019}");
    let nfd_curly = nfd.replace('\'', "\u{2019}");
    [am_pm, nfd, curly, nfd_curly]
        .into_iter()
        .map(PathBuf::from)
        .find(|candidate| candidate != &resolved && candidate.exists())
        .unwrap_or(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_at_and_normalizes_spaces() {
        let cwd = Path::new("/work");
        assert_eq!(
            resolve_to_cwd("@src/a\u{00A0}b.rs", cwd),
            PathBuf::from("/work/src/a b.rs")
        );
        assert_eq!(
            resolve_to_cwd("x\u{3000}y", cwd),
            PathBuf::from("/work/x y")
        );
    }

    #[test]
    fn keeps_absolute_and_resolves_dots() {
        let cwd = Path::new("/work/sub");
        assert_eq!(
            resolve_to_cwd("/etc/hosts", cwd),
            PathBuf::from("/etc/hosts")
        );
        assert_eq!(resolve_to_cwd("../a/./b", cwd), PathBuf::from("/work/a/b"));
    }

    #[test]
    fn expands_home() {
        let home = home_dir().expect("HOME is set in tests");
        assert_eq!(expand_path("~"), home);
        assert_eq!(expand_path("~/x"), home.join("x"));
        assert_eq!(expand_path("~x"), PathBuf::from("~x"));
    }
}
