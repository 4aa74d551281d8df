//! Output limits shared by every tool: head truncation for reads and listings, tail truncation
//! for command output, and the size formatting used in the notices (`50.0KB`).

use serde::Serialize;

/// Most lines a tool returns to the model.
pub const DEFAULT_MAX_LINES: usize = 2000;
/// Most bytes a tool returns to the model (50 KiB).
pub const DEFAULT_MAX_BYTES: usize = 51200;
/// Longest grep line kept before it is cut (in characters).
pub const GREP_MAX_LINE_LENGTH: usize = 500;

/// Which limit stopped the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TruncatedBy {
    /// The line limit.
    Lines,
    /// The byte limit.
    Bytes,
}

/// What truncation did; serialized as the `truncation` detail object pi writes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Truncation {
    /// The kept text.
    pub content: String,
    /// True when anything was dropped.
    pub truncated: bool,
    /// Which limit applied, `null` when nothing was dropped.
    pub truncated_by: Option<TruncatedBy>,
    /// Lines in the input (`split('\n')` count).
    pub total_lines: usize,
    /// Bytes in the input.
    pub total_bytes: usize,
    /// Lines kept.
    pub output_lines: usize,
    /// Bytes kept.
    pub output_bytes: usize,
    /// True when the kept text starts inside a line (tail truncation of one huge line).
    pub last_line_partial: bool,
    /// True when the first line alone is over the byte limit (head truncation keeps nothing).
    pub first_line_exceeds_limit: bool,
    /// The line limit used.
    pub max_lines: usize,
    /// The byte limit used.
    pub max_bytes: usize,
}

/// Formats a byte count as pi does: `512B`, `50.0KB`, `1.5MB`.
pub fn format_size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes}B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1}KB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1}MB", bytes as f64 / (1024.0 * 1024.0))
    }
}

fn untruncated(
    content: &str,
    max_lines: usize,
    max_bytes: usize,
    total_lines: usize,
) -> Truncation {
    Truncation {
        content: content.to_string(),
        truncated: false,
        truncated_by: None,
        total_lines,
        total_bytes: content.len(),
        output_lines: total_lines,
        output_bytes: content.len(),
        last_line_partial: false,
        first_line_exceeds_limit: false,
        max_lines,
        max_bytes,
    }
}

/// Keeps the first whole lines within `max_lines` and `max_bytes` (for reads and listings).
/// Never returns a partial line; when the first line alone is too big nothing is kept and
/// `first_line_exceeds_limit` is set.
pub fn truncate_head(content: &str, max_lines: usize, max_bytes: usize) -> Truncation {
    let total_lines = memchr::memchr_iter(b'\n', content.as_bytes()).count() + 1;
    if total_lines <= max_lines && content.len() <= max_bytes {
        return untruncated(content, max_lines, max_bytes, total_lines);
    }
    let first_len = content.find('\n').unwrap_or(content.len());
    let mut result = untruncated("", max_lines, max_bytes, total_lines);
    result.total_bytes = content.len();
    result.truncated = true;
    if first_len > max_bytes {
        result.truncated_by = Some(TruncatedBy::Bytes);
        result.output_lines = 0;
        result.output_bytes = 0;
        result.first_line_exceeds_limit = true;
        return result;
    }
    let mut kept_lines = 0;
    let mut end = 0;
    let mut by = TruncatedBy::Lines;
    for line in content.split('\n') {
        if kept_lines >= max_lines {
            break;
        }
        let added = line.len() + usize::from(kept_lines > 0);
        if end + added > max_bytes {
            by = TruncatedBy::Bytes;
            break;
        }
        end += added;
        kept_lines += 1;
    }
    if kept_lines >= max_lines {
        by = TruncatedBy::Lines;
    }
    result.content = content[..end].to_string();
    result.truncated_by = Some(by);
    result.output_lines = kept_lines;
    result.output_bytes = end;
    result
}

/// Keeps the last whole lines within the limits (for command output, where the end matters).
/// When the last line alone is over the byte limit its tail is kept and `last_line_partial` set.
pub fn truncate_tail(content: &str, max_lines: usize, max_bytes: usize) -> Truncation {
    let total_lines = memchr::memchr_iter(b'\n', content.as_bytes()).count() + 1;
    truncate_tail_counted(content, total_lines, content.len(), max_lines, max_bytes)
}

/// [`truncate_tail`] over a tail window of a longer output whose totals are known.
/// `window` must hold more than `max_bytes` bytes of the output's end (or all of it).
pub fn truncate_tail_counted(
    window: &str,
    total_lines: usize,
    total_bytes: usize,
    max_lines: usize,
    max_bytes: usize,
) -> Truncation {
    if total_lines <= max_lines && total_bytes <= max_bytes {
        let mut t = untruncated(window, max_lines, max_bytes, total_lines);
        t.total_bytes = total_bytes;
        return t;
    }
    let bytes = window.as_bytes();
    let mut start = bytes.len();
    let mut kept_lines = 0;
    let mut by = TruncatedBy::Lines;
    let mut partial = false;
    let mut line_end = bytes.len();
    while kept_lines < max_lines {
        let line_start = memchr::memrchr(b'\n', &bytes[..line_end]).map_or(0, |i| i + 1);
        let line_len = line_end - line_start;
        let kept_bytes = bytes.len() - start;
        let added = line_len + usize::from(kept_lines > 0);
        if kept_bytes + added > max_bytes {
            by = TruncatedBy::Bytes;
            if kept_lines == 0 {
                start = utf8_boundary_after(window, bytes.len() - max_bytes);
                kept_lines = 1;
                partial = true;
            }
            break;
        }
        start = line_start;
        kept_lines += 1;
        if line_start == 0 {
            break;
        }
        line_end = line_start - 1;
    }
    if kept_lines >= max_lines && bytes.len() - start <= max_bytes {
        by = TruncatedBy::Lines;
    }
    Truncation {
        content: window[start..].to_string(),
        truncated: true,
        truncated_by: Some(by),
        total_lines,
        total_bytes,
        output_lines: kept_lines,
        output_bytes: bytes.len() - start,
        last_line_partial: partial,
        first_line_exceeds_limit: false,
        max_lines,
        max_bytes,
    }
}

fn utf8_boundary_after(s: &str, mut index: usize) -> usize {
    while index < s.len() && !s.is_char_boundary(index) {
        index += 1;
    }
    index
}

/// Cuts a line to `max_chars` characters, adding `... [truncated]`; returns whether it cut.
pub fn truncate_line(line: &str, max_chars: usize) -> (String, bool) {
    match line.char_indices().nth(max_chars) {
        None => (line.to_string(), false),
        Some((cut, _)) => (format!("{}... [truncated]", &line[..cut]), true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_format_like_pi() {
        assert_eq!(format_size(0), "0B");
        assert_eq!(format_size(1023), "1023B");
        assert_eq!(format_size(51200), "50.0KB");
        assert_eq!(format_size(1536 * 1024), "1.5MB");
    }

    #[test]
    fn head_stops_at_line_limit() {
        let text = (1..=10)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join("\n");
        let t = truncate_head(&text, 3, 1000);
        assert_eq!(t.content, "1\n2\n3");
        assert_eq!(t.truncated_by, Some(TruncatedBy::Lines));
        assert_eq!((t.total_lines, t.output_lines), (10, 3));
    }

    #[test]
    fn head_stops_at_byte_limit_on_whole_lines() {
        let t = truncate_head("aaaa\nbbbb\ncccc", 100, 9);
        assert_eq!(t.content, "aaaa\nbbbb");
        assert_eq!(t.truncated_by, Some(TruncatedBy::Bytes));
        assert_eq!(t.output_bytes, 9);
    }

    #[test]
    fn head_flags_a_first_line_over_the_limit() {
        let t = truncate_head("aaaaaaaaaa\nb", 100, 5);
        assert!(t.first_line_exceeds_limit);
        assert_eq!(t.content, "");
    }

    #[test]
    fn head_leaves_small_text_alone() {
        let t = truncate_head("a\nb", 10, 10);
        assert!(!t.truncated);
        assert_eq!(t.truncated_by, None);
    }

    #[test]
    fn tail_keeps_last_lines() {
        let text = (1..=10)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join("\n");
        let t = truncate_tail(&text, 3, 1000);
        assert_eq!(t.content, "8\n9\n10");
        assert_eq!(t.truncated_by, Some(TruncatedBy::Lines));
    }

    #[test]
    fn tail_keeps_last_bytes_on_whole_lines() {
        let t = truncate_tail("aaaa\nbbbb\ncccc", 100, 9);
        assert_eq!(t.content, "bbbb\ncccc");
        assert_eq!(t.truncated_by, Some(TruncatedBy::Bytes));
    }

    #[test]
    fn tail_cuts_a_huge_last_line_at_a_char_boundary() {
        let t = truncate_tail("x\néééééé", 100, 5);
        assert!(t.last_line_partial);
        assert_eq!(t.content, "éé");
        assert_eq!(t.output_lines, 1);
    }

    #[test]
    fn lines_are_cut_with_a_marker() {
        assert_eq!(
            truncate_line("abcdef", 3),
            ("abc... [truncated]".into(), true)
        );
        assert_eq!(truncate_line("abc", 3), ("abc".into(), false));
    }
}
