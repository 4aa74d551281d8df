//! The line-numbered diff `edit` puts in its details: `+<n>` added (new numbering), `-<n>`
//! removed (old numbering), ` <n>` context, up to 4 context lines around each change.

use similar::{capture_diff_slices, Algorithm, DiffOp};

/// A run of lines that are equal, removed or added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Equal,
    Removed,
    Added,
}

struct Part<'a> {
    kind: Kind,
    lines: &'a [&'a str],
}

fn tokens(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// Diffs two LF texts; returns the listing and the first changed line in the new text.
pub fn generate_diff(old: &str, new: &str, context: usize) -> (String, Option<usize>) {
    let old_tokens = tokens(old);
    let new_tokens = tokens(new);
    let prefix = old_tokens
        .iter()
        .zip(&new_tokens)
        .take_while(|(a, b)| a == b)
        .count();
    let max_suffix = old_tokens.len().min(new_tokens.len()) - prefix;
    let suffix = old_tokens
        .iter()
        .rev()
        .zip(new_tokens.iter().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    let old_mid = &old_tokens[prefix..old_tokens.len() - suffix];
    let new_mid = &new_tokens[prefix..new_tokens.len() - suffix];
    let mut parts: Vec<Part<'_>> = Vec::new();
    push(&mut parts, Kind::Equal, &old_tokens[..prefix]);
    for op in capture_diff_slices(Algorithm::Myers, old_mid, new_mid) {
        match op {
            DiffOp::Equal { old_index, len, .. } => push(
                &mut parts,
                Kind::Equal,
                &old_mid[old_index..old_index + len],
            ),
            DiffOp::Delete {
                old_index, old_len, ..
            } => push(
                &mut parts,
                Kind::Removed,
                &old_mid[old_index..old_index + old_len],
            ),
            DiffOp::Insert {
                new_index, new_len, ..
            } => push(
                &mut parts,
                Kind::Added,
                &new_mid[new_index..new_index + new_len],
            ),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                push(
                    &mut parts,
                    Kind::Removed,
                    &old_mid[old_index..old_index + old_len],
                );
                push(
                    &mut parts,
                    Kind::Added,
                    &new_mid[new_index..new_index + new_len],
                );
            }
        }
    }
    push(
        &mut parts,
        Kind::Equal,
        &old_tokens[old_tokens.len() - suffix..],
    );
    let old_count = memchr::memchr_iter(b'\n', old.as_bytes()).count() + 1;
    let new_count = memchr::memchr_iter(b'\n', new.as_bytes()).count() + 1;
    let width = old_count.max(new_count).to_string().len();
    render(&parts, width, context)
}

fn push<'a>(parts: &mut Vec<Part<'a>>, kind: Kind, lines: &'a [&'a str]) {
    if !lines.is_empty() {
        parts.push(Part { kind, lines });
    }
}

struct Out {
    lines: Vec<String>,
    width: usize,
}

impl Out {
    fn line(&mut self, sign: char, n: usize, text: &str) {
        let text = text.strip_suffix('\n').unwrap_or(text);
        self.lines
            .push(format!("{sign}{n:>w$} {text}", w = self.width));
    }
    fn skip(&mut self) {
        self.lines.push(format!(" {:w$} ...", "", w = self.width));
    }
}

fn render(parts: &[Part<'_>], width: usize, context: usize) -> (String, Option<usize>) {
    let mut out = Out {
        lines: Vec::new(),
        width,
    };
    let (mut old_n, mut new_n) = (1usize, 1usize);
    let mut first_changed = None;
    let mut last_was_change = false;
    for (i, part) in parts.iter().enumerate() {
        let raw = part.lines;
        match part.kind {
            Kind::Added | Kind::Removed => {
                first_changed.get_or_insert(new_n);
                for line in raw {
                    if part.kind == Kind::Added {
                        out.line('+', new_n, line);
                        new_n += 1;
                    } else {
                        out.line('-', old_n, line);
                        old_n += 1;
                    }
                }
                last_was_change = true;
                continue;
            }
            Kind::Equal => {}
        }
        let next_is_change = parts.get(i + 1).is_some_and(|p| p.kind != Kind::Equal);
        let (show_head, show_tail) = match (last_was_change, next_is_change) {
            (true, true) if raw.len() <= context * 2 => (raw.len(), 0),
            (true, true) => (context, context),
            (true, false) => (context.min(raw.len()), 0),
            (false, true) => (0, context.min(raw.len())),
            (false, false) => (0, 0),
        };
        for line in &raw[..show_head] {
            out.line(' ', old_n, line);
            old_n += 1;
            new_n += 1;
        }
        let skipped = raw.len() - show_head - show_tail;
        if skipped > 0 {
            if last_was_change || next_is_change {
                out.skip();
            }
            old_n += skipped;
            new_n += skipped;
        }
        for line in &raw[raw.len() - show_tail..] {
            out.line(' ', old_n, line);
            old_n += 1;
            new_n += 1;
        }
        last_was_change = false;
    }
    (out.lines.join("\n"), first_changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_line_change_with_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
        let new = "1\n2\n3\n4\n5\nsix\n7\n8\n9\n10\n";
        let (diff, first) = generate_diff(old, new, 4);
        assert_eq!(first, Some(6));
        assert_eq!(
            diff,
            "    ...\n  2 2\n  3 3\n  4 4\n  5 5\n- 6 6\n+ 6 six\n  7 7\n  8 8\n  9 9\n 10 10"
        );
    }

    #[test]
    fn distant_changes_are_separated_by_a_marker() {
        let mut lines: Vec<String> = (1..=20).map(|i| i.to_string()).collect();
        let old = lines.join("\n") + "\n";
        lines[1] = "two".into();
        lines[18] = "nineteen".into();
        let new = lines.join("\n") + "\n";
        let (diff, first) = generate_diff(&old, &new, 2);
        assert_eq!(first, Some(2));
        assert_eq!(
            diff,
            "  1 1\n- 2 2\n+ 2 two\n  3 3\n  4 4\n    ...\n 17 17\n 18 18\n-19 19\n+19 nineteen\n 20 20"
        );
    }

    #[test]
    fn added_lines_use_new_numbering() {
        let (diff, first) = generate_diff("a\nb\n", "a\nx\ny\nb\n", 4);
        assert_eq!(first, Some(2));
        assert_eq!(diff, " 1 a\n+2 x\n+3 y\n 2 b");
    }
}
