//! Library errors are typed (`thiserror` enums with sources), not strings: a `Result<_,
//! String>` outside tests loses the error's kind and source for every caller. A string is
//! right only where it is the protocol (an extension's own error text, a run's
//! `errorMessage`), and such a line says so in a comment on it or on the line just above.
//! This test holds the count where it is, fails on a new one, and fails on one without its
//! comment. Lower `LIMIT` as more are turned into typed errors.

use std::path::{Path, PathBuf};

/// The most `Result<_, String>` lines the crates' non-test sources may hold.
const LIMIT: usize = 20;

/// Whether `line` names a `Result` whose error type is `String` (`Result<T, String>` with no
/// `>` inside `T`, as `grep 'Result<[^>]*, String>'` finds them).
fn names_a_string_error(line: &str) -> bool {
    line.match_indices("Result<").any(|(at, _)| {
        let rest = &line[at + "Result<".len()..];
        rest.find('>')
            .is_some_and(|end| rest[..end].ends_with(", String"))
    })
}

/// A file's numbered lines up to its unit-test module (`#[cfg(test)]` then `mod tests {`);
/// a `#[cfg(test)]` item of one line (`mod test_support;`) leaves that line out only.
fn outside_tests(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut kept = Vec::new();
    let mut n = 0;
    while n < lines.len() {
        if lines[n].starts_with("#[cfg(test)]") {
            match lines.get(n + 1) {
                Some(next) if next.starts_with("mod ") && next.trim_end().ends_with('{') => break,
                _ => n += 2,
            }
            continue;
        }
        kept.push((n, lines[n]));
        n += 1;
    }
    kept
}

/// Whether `line`, or the line just above it, carries a plain `//` comment (saying why a
/// string is the right error type there). A doc comment does not count: it describes the
/// item, and would excuse every documented function.
fn commented(lines: &[&str], n: usize) -> bool {
    let has_comment = |l: &str| l.trim_start().starts_with("// ") || l.contains(" // ");
    has_comment(lines[n])
        || n.checked_sub(1)
            .is_some_and(|above| has_comment(lines[above]))
}

/// Every `.rs` file under `dir`, test files left out.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() && name != "tests" {
            sources(&path, out);
        } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
            out.push(path);
        }
    }
}

#[test]
fn string_errors_do_not_grow() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for krate in std::fs::read_dir(&crates).expect("crates dir").flatten() {
        sources(&krate.path().join("src"), &mut files);
    }
    let mut found: Vec<String> = Vec::new();
    let mut uncommented: Vec<String> = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("source file");
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in outside_tests(&text) {
            if names_a_string_error(line) {
                let at = format!("{}:{}", file.display(), n + 1);
                if !commented(&lines, n) {
                    uncommented.push(at.clone());
                }
                found.push(at);
            }
        }
    }
    assert!(files.len() > 100, "the crates' sources were not found");
    assert!(
        uncommented.is_empty(),
        "`Result<_, String>` without a comment saying why a string is the right error type \
         (put a `//` comment on the line or the line above, e.g. \"the extension's own error \
         text: a string by protocol\"), or give it a typed error (a thiserror enum):\n{}",
        uncommented.join("\n")
    );
    assert!(
        found.len() <= LIMIT,
        "{} `Result<_, String>` outside tests, more than {LIMIT}: give the new one a typed error \
         (a thiserror enum in its crate) instead.\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn a_one_line_test_item_hides_only_itself() {
    let text = "#[cfg(test)]\nmod support;\nfn a() -> Result<(), String> {}\n#[cfg(test)]\nmod tests {\nfn b() -> Result<(), String> {}\n}";
    let kept: Vec<&str> = outside_tests(text).into_iter().map(|(_, l)| l).collect();
    assert_eq!(kept, ["fn a() -> Result<(), String> {}"]);
}

#[test]
fn a_comment_on_the_line_or_just_above_explains_a_string() {
    let lines = [
        "// The extension's own text.",
        "fn a() -> Result<(), String> {}",
        "fn b() -> Result<(), String> {} // the wire's text",
        "",
        "fn c() -> Result<(), String> {}",
        "/// Documented, but not saying why.",
        "fn d() -> Result<(), String> {}",
    ];
    assert!(commented(&lines, 1));
    assert!(commented(&lines, 2));
    assert!(!commented(&lines, 4));
    assert!(!commented(&lines, 6), "a doc comment is not the reason");
}

#[test]
fn the_pattern_matches_as_grep_does() {
    assert!(names_a_string_error("fn f() -> Result<(), String> {"));
    assert!(names_a_string_error("x: Result<Value, String>,"));
    assert!(!names_a_string_error("fn f() -> Result<Vec<u8>, String> {"));
    assert!(!names_a_string_error("fn f() -> Result<(), Error> {"));
}
