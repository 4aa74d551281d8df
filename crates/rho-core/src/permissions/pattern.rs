//! Wildcards for rules: `*` matches any run of characters (except `/` in a path pattern),
//! `**` matches anything, everything else matches itself.

/// Whether `text` matches `pattern`. `path` makes a single `*` stop at `/`.
pub(crate) fn matches(pattern: &str, text: &str, path: bool) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    go(&p, &t, path)
}

fn go(p: &[char], t: &[char], path: bool) -> bool {
    match p.first() {
        None => t.is_empty(),
        Some('*') => {
            let double = p.get(1) == Some(&'*');
            let rest = if double { &p[2..] } else { &p[1..] };
            let crosses = double || !path;
            for i in 0..=t.len() {
                if go(rest, &t[i..], path) {
                    return true;
                }
                if i < t.len() && t[i] == '/' && !crosses {
                    return false;
                }
            }
            false
        }
        Some(c) => t.first() == Some(c) && go(&p[1..], &t[1..], path),
    }
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn stars_match_runs_and_double_stars_cross_folders() {
        assert!(matches("git status*", "git status --short", false));
        assert!(!matches("git status*", "git push", false));
        assert!(matches("src/**", "src/a/b.rs", true));
        assert!(!matches("src/*", "src/a/b.rs", true));
        assert!(matches("src/*", "src/b.rs", true));
        assert!(matches(
            "mcp__github__*",
            "mcp__github__create_issue",
            false
        ));
        assert!(matches("*.env", "prod.env", true));
    }
}
