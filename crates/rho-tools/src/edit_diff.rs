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

/// A run of lines. Only the lines that can be shown are kept: the first (`head`) and last
/// (`tail`) ones; for short runs both hold every line.
struct Part<'a> {
    kind: Kind,
    count: usize,
    head: Vec<&'a str>,
    tail: Vec<&'a str>,
}

impl<'a> Part<'a> {
    fn whole(kind: Kind, lines: &[&'a str]) -> Self {
        Self {
            kind,
            count: lines.len(),
            head: lines.to_vec(),
            tail: lines.to_vec(),
        }
    }
}

fn tokens(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// Length of the longest common prefix, compared a block at a time.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 4096 <= n && a[i..i + 4096] == b[i..i + 4096] {
        i += 4096;
    }
    i + a[i..n]
        .iter()
        .zip(&b[i..n])
        .take_while(|(x, y)| x == y)
        .count()
}

/// Length of the longest common suffix, at most `max`.
fn common_suffix(a: &[u8], b: &[u8], max: usize) -> usize {
    let (la, lb) = (a.len(), b.len());
    let mut i = 0;
    while i + 4096 <= max && a[la - i - 4096..la - i] == b[lb - i - 4096..lb - i] {
        i += 4096;
    }
    while i < max && a[la - i - 1] == b[lb - i - 1] {
        i += 1;
    }
    i
}

fn newlines(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count()
}

/// The last `n` lines (with their newlines) of `text`, which ends at a line boundary.
fn last_lines(text: &str, n: usize) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut end = bytes.len();
    let mut out = Vec::with_capacity(n);
    while out.len() < n && end > 0 {
        let start = memchr::memrchr(b'\n', &bytes[..end - 1]).map_or(0, |i| i + 1);
        out.push(&text[start..end]);
        end = start;
    }
    out.reverse();
    out
}

/// Diffs two LF texts; returns the listing and the first changed line in the new text.
/// Common leading and trailing lines are found by byte comparison, so only the changed
/// middle is tokenized and diffed: a small edit in a large file costs little.
pub fn generate_diff(old: &str, new: &str, context: usize) -> (String, Option<usize>) {
    let (ob, nb) = (old.as_bytes(), new.as_bytes());
    let first_diff = common_prefix(ob, nb);
    let prefix = memchr::memrchr(b'\n', &ob[..first_diff]).map_or(0, |i| i + 1);
    let max_suffix = ob.len().min(nb.len()) - prefix;
    let same_tail = common_suffix(ob, nb, max_suffix);
    let (mut old_end, mut new_end) = (ob.len() - same_tail, nb.len() - same_tail);
    let at_boundary = |b: &[u8], i: usize| i == 0 || b[i - 1] == b'\n';
    if !(at_boundary(ob, old_end) && at_boundary(nb, new_end)) {
        let skip = memchr::memchr(b'\n', &ob[old_end..]).map_or(ob.len() - old_end, |i| i + 1);
        old_end += skip;
        new_end += skip;
    }
    let old_mid = tokens(&old[prefix..old_end]);
    let new_mid = tokens(&new[prefix..new_end]);
    let prefix_nl = newlines(&old[..prefix]);
    let rest = &old[old_end..];
    let rest_nl = newlines(rest);
    let mut parts: Vec<Part<'_>> = Vec::new();
    if prefix > 0 {
        parts.push(Part {
            kind: Kind::Equal,
            count: prefix_nl,
            head: Vec::new(),
            tail: last_lines(&old[..prefix], context),
        });
    }
    for op in capture_diff_slices(Algorithm::Myers, &old_mid, &new_mid) {
        let (o, n) = (op.old_range(), op.new_range());
        match op {
            DiffOp::Equal { .. } => parts.push(Part::whole(Kind::Equal, &old_mid[o])),
            DiffOp::Delete { .. } => parts.push(Part::whole(Kind::Removed, &old_mid[o])),
            DiffOp::Insert { .. } => parts.push(Part::whole(Kind::Added, &new_mid[n])),
            DiffOp::Replace { .. } => {
                parts.push(Part::whole(Kind::Removed, &old_mid[o]));
                parts.push(Part::whole(Kind::Added, &new_mid[n]));
            }
        }
    }
    if !rest.is_empty() {
        parts.push(Part {
            kind: Kind::Equal,
            count: rest_nl + usize::from(!rest.ends_with('\n')),
            head: rest.split_inclusive('\n').take(context).collect(),
            tail: Vec::new(),
        });
    }
    let old_lines = prefix_nl + newlines(&old[prefix..old_end]) + rest_nl + 1;
    let new_lines = prefix_nl + newlines(&new[prefix..new_end]) + rest_nl + 1;
    let width = old_lines.max(new_lines).to_string().len();
    render(&parts, width, context)
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
        match part.kind {
            Kind::Added | Kind::Removed => {
                first_changed.get_or_insert(new_n);
                for line in &part.head {
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
        let count = part.count;
        let (show_head, show_tail) = match (last_was_change, next_is_change) {
            (true, true) if count <= context * 2 => (count, 0),
            (true, true) => (context, context),
            (true, false) => (context.min(count), 0),
            (false, true) => (0, context.min(count)),
            (false, false) => (0, 0),
        };
        for line in &part.head[..show_head] {
            out.line(' ', old_n, line);
            old_n += 1;
            new_n += 1;
        }
        let skipped = count - show_head - show_tail;
        if skipped > 0 {
            if last_was_change || next_is_change {
                out.skip();
            }
            old_n += skipped;
            new_n += skipped;
        }
        for line in &part.tail[part.tail.len() - show_tail..] {
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

    fn count_lines(text: &str) -> usize {
        newlines(text) + 1
    }

    /// The plain algorithm: diff every line, no trimming. The fast path must agree with it.
    fn reference(old: &str, new: &str, context: usize) -> (String, Option<usize>) {
        let (o, n) = (tokens(old), tokens(new));
        let mut parts = Vec::new();
        for op in capture_diff_slices(Algorithm::Myers, &o, &n) {
            let (or, nr) = (op.old_range(), op.new_range());
            match op {
                DiffOp::Equal { .. } => parts.push(Part::whole(Kind::Equal, &o[or])),
                DiffOp::Delete { .. } => parts.push(Part::whole(Kind::Removed, &o[or])),
                DiffOp::Insert { .. } => parts.push(Part::whole(Kind::Added, &n[nr])),
                DiffOp::Replace { .. } => {
                    parts.push(Part::whole(Kind::Removed, &o[or]));
                    parts.push(Part::whole(Kind::Added, &n[nr]));
                }
            }
        }
        let width = count_lines(old).max(count_lines(new)).to_string().len();
        render(&parts, width, context)
    }

    #[test]
    fn trimmed_diff_agrees_with_the_plain_one() {
        let base: String = (1..=40).map(|i| format!("l{i}\n")).collect();
        let cases: Vec<(String, String)> = vec![
            (base.clone(), base.replace("l1\n", "first\n")),
            (base.clone(), base.replace("l40\n", "last")),
            (base.clone(), format!("{base}tail\n")),
            (base.clone(), base.replace("l20\n", "")),
            (
                base.clone(),
                base.replace("l5\n", "x\ny\n").replace("l30\n", "z\n"),
            ),
            ("a\nb".into(), "a\nb\nc".into()),
            ("a\nb\n".into(), "a\nb\nb\n".into()),
            ("same\nx\nsame\n".into(), "same\ny\nsame\n".into()),
            ("only".into(), "".into()),
            ("".into(), "new\n".into()),
        ];
        for (old, new) in cases {
            assert_eq!(
                generate_diff(&old, &new, 4),
                reference(&old, &new, 4),
                "{old:?} -> {new:?}"
            );
        }
    }

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
