//! The replacement rules of `edit`: every oldText matched against the original content (exact
//! first, then a normalized "fuzzy" copy), unique, non-overlapping, applied back to front.

use std::borrow::Cow;

use memchr::memmem;
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// One replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// Text to find; must occur exactly once.
    pub old_text: String,
    /// Text to put in its place.
    pub new_text: String,
}

/// The content edits were applied to and the result (both LF, without BOM).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied<'a> {
    /// The original, or its normalized copy when fuzzy matching was needed.
    pub base: Cow<'a, str>,
    /// The edited content.
    pub new: String,
}

/// Replaces CRLF and lone CR with LF.
pub fn normalize_to_lf(text: &str) -> Cow<'_, str> {
    if !text.contains('\r') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
}

fn fuzzy_char(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        other => other,
    }
}

/// True when some line of LF text ends in ASCII whitespace (one memchr pass over the newlines).
fn has_trailing_whitespace(text: &str) -> bool {
    let bytes = text.as_bytes();
    let ends_in_ws =
        |end: usize| end > 0 && matches!(bytes[end - 1], b' ' | b'\t' | b'\r' | 0x0B | 0x0C);
    ends_in_ws(bytes.len()) || memchr::memchr_iter(b'\n', bytes).any(ends_in_ws)
}

/// The copy fuzzy matching runs on: NFKC, trailing whitespace removed from every line, curly
/// quotes made straight, Unicode dashes made `-`, special spaces made ASCII spaces.
/// ASCII text without trailing whitespace is returned as it is, without a copy.
pub fn normalize_for_fuzzy(text: &str) -> Cow<'_, str> {
    let ascii = text.is_ascii();
    if ascii && !has_trailing_whitespace(text) {
        return Cow::Borrowed(text);
    }
    let nfkc: Cow<'_, str> = if ascii || is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.nfkc().collect())
    };
    let mut out = String::with_capacity(nfkc.len());
    for (i, line) in nfkc.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let trimmed = line.trim_end();
        if trimmed.is_ascii() {
            out.push_str(trimmed);
        } else {
            out.extend(trimmed.chars().map(fuzzy_char));
        }
    }
    Cow::Owned(out)
}

fn count_occurrences(haystack: &str, needle: &str) -> usize {
    memmem::find_iter(haystack.as_bytes(), needle.as_bytes()).count()
}

fn find(haystack: &str, needle: &str) -> Option<usize> {
    memmem::find(haystack.as_bytes(), needle.as_bytes())
}

fn not_found(path: &str, i: usize, total: usize) -> String {
    if total == 1 {
        format!("Could not find the exact text in {path}. The old text must match exactly including all whitespace and newlines.")
    } else {
        format!("Could not find edits[{i}] in {path}. The oldText must match exactly including all whitespace and newlines.")
    }
}

fn duplicate(path: &str, i: usize, total: usize, n: usize) -> String {
    if total == 1 {
        format!("Found {n} occurrences of the text in {path}. The text must be unique. Please provide more context to make it unique.")
    } else {
        format!("Found {n} occurrences of edits[{i}] in {path}. Each oldText must be unique. Please provide more context to make it unique.")
    }
}

fn no_change(path: &str, total: usize) -> String {
    if total == 1 {
        format!("No changes made to {path}. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected.")
    } else {
        format!("No changes made to {path}. The replacements produced identical content.")
    }
}

struct Match {
    edit: usize,
    start: usize,
    len: usize,
}

/// Applies `edits` to LF-normalized `content`; errors carry pi's messages naming `path`.
pub fn apply_edits<'a>(
    content: &'a str,
    edits: &[Edit],
    path: &str,
) -> Result<Applied<'a>, String> {
    let total = edits.len();
    let edits: Vec<(Cow<'_, str>, Cow<'_, str>)> = edits
        .iter()
        .map(|e| (normalize_to_lf(&e.old_text), normalize_to_lf(&e.new_text)))
        .collect();
    for (i, (old, _)) in edits.iter().enumerate() {
        if old.is_empty() {
            return Err(if total == 1 {
                format!("oldText must not be empty in {path}.")
            } else {
                format!("edits[{i}].oldText must not be empty in {path}.")
            });
        }
    }
    let fuzzy_content = std::cell::OnceCell::new();
    let fuzzy_of_content = || fuzzy_content.get_or_init(|| normalize_for_fuzzy(content));
    let needs_fuzzy = edits.iter().any(|(old, _)| {
        find(content, old).is_none()
            && find(fuzzy_of_content(), &normalize_for_fuzzy(old)).is_some()
    });
    let base: Cow<'a, str> = if needs_fuzzy {
        Cow::Owned(fuzzy_of_content().to_string())
    } else {
        Cow::Borrowed(content)
    };
    let mut matches = Vec::with_capacity(total);
    for (i, (old, _)) in edits.iter().enumerate() {
        let fuzzy_old = normalize_for_fuzzy(old);
        let (start, len) = match find(&base, old) {
            Some(start) => (start, old.len()),
            None => match find(&base, &fuzzy_old) {
                Some(start) if needs_fuzzy => (start, fuzzy_old.len()),
                _ => return Err(not_found(path, i, total)),
            },
        };
        let counted_in: &str = if needs_fuzzy {
            &base
        } else {
            fuzzy_of_content()
        };
        let n = count_occurrences(counted_in, &fuzzy_old);
        if n > 1 {
            return Err(duplicate(path, i, total, n));
        }
        matches.push(Match {
            edit: i,
            start,
            len,
        });
    }
    matches.sort_by_key(|m| m.start);
    for pair in matches.windows(2) {
        if pair[0].start + pair[0].len > pair[1].start {
            return Err(format!(
                "edits[{}] and edits[{}] overlap in {path}. Merge them into one edit or target disjoint regions.",
                pair[0].edit, pair[1].edit
            ));
        }
    }
    let mut new = String::with_capacity(base.len());
    let mut cursor = 0;
    for m in &matches {
        new.push_str(&base[cursor..m.start]);
        new.push_str(&edits[m.edit].1);
        cursor = m.start + m.len;
    }
    new.push_str(&base[cursor..]);
    if new == base {
        return Err(no_change(path, total));
    }
    Ok(Applied { base, new })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(old: &str, new: &str) -> Edit {
        Edit {
            old_text: old.into(),
            new_text: new.into(),
        }
    }

    #[test]
    fn exact_single_replacement() {
        let out = apply_edits("a\nb\nc\n", &[edit("b", "B")], "f").expect("ok");
        assert_eq!(out.new, "a\nB\nc\n");
    }

    #[test]
    fn several_edits_against_the_original() {
        let out = apply_edits(
            "one two three",
            &[edit("three", "3"), edit("one", "1")],
            "f",
        )
        .expect("ok");
        assert_eq!(out.new, "1 two 3");
    }

    #[test]
    fn fuzzy_match_on_quotes_and_trailing_space() {
        let out = apply_edits(
            "say \u{201C}hi\u{201D}   \nend",
            &[edit("say \"hi\"\nend", "x")],
            "f",
        )
        .expect("ok");
        assert_eq!(out.base, "say \"hi\"\nend");
        assert_eq!(out.new, "x");
    }

    #[test]
    fn errors_name_the_edit_in_multi_edit_calls() {
        let err = apply_edits("a a b", &[edit("b", "c"), edit("a", "x")], "f").expect_err("dup");
        assert_eq!(err, "Found 2 occurrences of edits[1] in f. Each oldText must be unique. Please provide more context to make it unique.");
        let err =
            apply_edits("abc", &[edit("ab", "x"), edit("bc", "y")], "f").expect_err("overlap");
        assert_eq!(err, "edits[0] and edits[1] overlap in f. Merge them into one edit or target disjoint regions.");
        let err = apply_edits("abc", &[edit("a", "x"), edit("", "y")], "f").expect_err("empty");
        assert_eq!(err, "edits[1].oldText must not be empty in f.");
        let err = apply_edits("abc", &[edit("a", "a"), edit("b", "b")], "f").expect_err("same");
        assert_eq!(
            err,
            "No changes made to f. The replacements produced identical content."
        );
        let err = apply_edits("abc", &[edit("a", "x"), edit("q", "y")], "f").expect_err("missing");
        assert_eq!(err, "Could not find edits[1] in f. The oldText must match exactly including all whitespace and newlines.");
    }

    #[test]
    fn clean_ascii_is_not_copied() {
        assert!(matches!(normalize_for_fuzzy("a\n\nb\n"), Cow::Borrowed(_)));
        assert_eq!(normalize_for_fuzzy("a \nb\t"), "a\nb");
        assert_eq!(
            normalize_for_fuzzy("\u{2018}x\u{2019} \u{2014} y\u{00A0}"),
            "'x' - y"
        );
    }

    #[test]
    fn duplicates_are_counted_in_normalized_space() {
        let err = apply_edits("x  \nx\n", &[edit("x\n", "y\n")], "f").expect_err("dup");
        assert!(
            err.starts_with("Found 2 occurrences of the text in f."),
            "{err}"
        );
    }
}
