//! Wildcards for rules: `*` matches any run of characters (except `/` in a path pattern),
//! `**` matches anything, everything else matches itself.

use super::shell_line::DYNAMIC;

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

/// Whether `pattern` (non-path) could match `text` once its [`DYNAMIC`] parts are known:
/// each stands for any text. The same as [`matches`] for text without dynamic parts.
pub(crate) fn could_match(pattern: &str, text: &str) -> bool {
    // The literal starts must agree before anything else is worth checking.
    let fixed = |s: &str, stop: char| s.chars().take_while(|&c| c != stop).collect::<Vec<_>>();
    let (p_start, t_start) = (fixed(pattern, '*'), fixed(text, DYNAMIC));
    if p_start.iter().zip(&t_start).any(|(a, b)| a != b) {
        return false;
    }
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let width = t.len() + 1;
    // reach[i * width + j]: pattern[..i] and text[..j] can describe the same string.
    let mut reach = vec![false; (p.len() + 1) * width];
    reach[0] = true;
    for i in 0..=p.len() {
        for j in 0..=t.len() {
            if !reach[i * width + j] {
                continue;
            }
            let star = p.get(i) == Some(&'*');
            let dynamic = t.get(j) == Some(&DYNAMIC);
            if star {
                reach[(i + 1) * width + j] = true;
                if j < t.len() {
                    reach[i * width + j + 1] = true;
                }
            }
            if dynamic {
                reach[i * width + j + 1] = true;
                if i < p.len() {
                    reach[(i + 1) * width + j] = true;
                }
            }
            if let (Some(a), Some(b)) = (p.get(i), t.get(j)) {
                if a == b && !star && !dynamic {
                    reach[(i + 1) * width + j + 1] = true;
                }
            }
        }
    }
    reach[p.len() * width + t.len()]
}

#[cfg(test)]
mod tests {
    use super::{could_match, matches, DYNAMIC};

    #[test]
    fn a_dynamic_part_may_stand_for_anything() {
        let d = DYNAMIC;
        assert!(could_match("rm -rf*", &format!("{d} -rf x")));
        assert!(could_match("rm -rf*", &format!("rm -rf {d}")));
        assert!(could_match("git push*", &format!("git {d}")));
        assert!(!could_match("rm -rf*", &format!("echo {d}")));
        assert!(could_match("rm -rf*", "rm -rf x") && !could_match("rm -rf*", "rm x"));
        assert!(could_match("*", &d.to_string()));
    }

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
