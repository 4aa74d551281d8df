//! Text measurement and wrapping that understands ANSI escape sequences and wide characters.
//!
//! Every component renders styled strings; the terminal shows only their visible characters,
//! so widths are measured with escapes skipped and each character counted by its column width
//! (`unicode-width`: CJK and emoji take two columns, combining marks none). Wrapping carries the
//! active styles over line breaks so a bold span split in two stays bold on both lines.

use unicode_width::UnicodeWidthChar;

/// The escape that resets every style.
pub const RESET: &str = "\x1b[0m";

/// How many columns a tab expands to (terminals differ; a fixed width keeps frames stable).
const TAB: &str = "   ";

/// Length in bytes of the escape sequence starting at `s[0]` (which must be ESC), or 1 when it
/// is a lone ESC. CSI (`ESC [ … final`) and OSC (`ESC ] … BEL|ST`) are recognised.
fn escape_len(s: &[u8]) -> usize {
    match s.get(1) {
        Some(b'[') => s[2..]
            .iter()
            .position(|b| (0x40..=0x7e).contains(b))
            .map_or(s.len(), |p| p + 3),
        Some(b']') => {
            let mut i = 2;
            while i < s.len() {
                if s[i] == 0x07 {
                    return i + 1;
                }
                if s[i] == 0x1b && s.get(i + 1) == Some(&b'\\') {
                    return i + 2;
                }
                i += 1;
            }
            s.len()
        }
        Some(_) => 2,
        None => 1,
    }
}

/// Column width of one character (controls count as zero).
pub fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// Visible width of `s` in terminal columns, escapes skipped.
pub fn visible_width(s: &str) -> usize {
    if s.is_ascii() && !s.contains('\x1b') {
        return s.bytes().filter(|b| !b.is_ascii_control()).count();
    }
    let mut width = 0;
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if c == '\x1b' {
            let n = escape_len(rest.as_bytes());
            rest = &rest[n..];
        } else {
            width += char_width(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    width
}

/// `s` with every escape sequence removed (for tests and plain-text output).
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if c == '\x1b' {
            rest = &rest[escape_len(rest.as_bytes())..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// Cuts `s` to at most `width` visible columns, keeping escapes; a wide character that would
/// straddle the edge is dropped. Appends a reset when anything was cut so styles do not leak.
pub fn truncate_to_width(s: &str, width: usize) -> String {
    if s.len() <= width {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len().min(width * 4));
    let mut used = 0;
    let mut rest = s;
    let mut cut = false;
    while let Some(c) = rest.chars().next() {
        if c == '\x1b' {
            let n = escape_len(rest.as_bytes());
            out.push_str(&rest[..n]);
            rest = &rest[n..];
            continue;
        }
        let w = char_width(c);
        if used + w > width {
            cut = true;
            break;
        }
        used += w;
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    if cut && s.contains('\x1b') {
        out.push_str(RESET);
    }
    out
}

/// `s` without its first `skip` visible columns (escapes kept, so styles still apply to what
/// remains; a wide character cut in half is dropped).
pub fn skip_columns(s: &str, skip: usize) -> String {
    let mut out = String::with_capacity(s.len());
    let mut used = 0;
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if c == '\x1b' {
            let n = escape_len(rest.as_bytes());
            out.push_str(&rest[..n]);
            rest = &rest[n..];
            continue;
        }
        if used >= skip {
            out.push(c);
        }
        used += char_width(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Like [`truncate_to_width`] but ends with `…` when something was cut.
pub fn truncate_with_ellipsis(s: &str, width: usize) -> String {
    if visible_width(s) <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out = truncate_to_width(s, width - 1);
    out.push('…');
    out
}

/// Pads `s` with spaces on the right to exactly `width` columns (no-op when wider).
pub fn pad_to_width(s: &mut String, width: usize) {
    let w = visible_width(s);
    for _ in w..width {
        s.push(' ');
    }
}

/// Tracks which SGR styles are active so a wrapped line can re-open them.
#[derive(Default)]
struct SgrState {
    active: String,
}

impl SgrState {
    fn apply(&mut self, esc: &str) {
        if !esc.ends_with('m') || !esc.starts_with("\x1b[") {
            return;
        }
        if esc == "\x1b[0m" || esc == "\x1b[m" {
            self.active.clear();
        } else {
            self.active.push_str(esc);
        }
    }
}

/// Greedy word wrapper; see [`wrap`].
struct Wrapper {
    width: usize,
    lines: Vec<String>,
    line: String,
    line_w: usize,
    state: SgrState,
    /// Spaces seen after the last word; placed only if another word follows on this line.
    pending: String,
    pending_w: usize,
}

impl Wrapper {
    /// Drops the pending spaces but keeps any escapes among them (styles must not be lost).
    fn drop_pending(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        let mut rest = pending.as_str();
        while let Some(p) = rest.find('\x1b') {
            let n = escape_len(&rest.as_bytes()[p..]);
            self.push_fitting(&rest[p..p + n], 0);
            rest = &rest[p + n..];
        }
        self.pending_w = 0;
    }

    /// Ends a logical line: trailing spaces are kept there (nothing was wrapped).
    fn end_logical(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        let w = std::mem::take(&mut self.pending_w);
        if self.line_w + w <= self.width {
            self.push_fitting(&pending, w);
        } else {
            self.pending = pending;
            self.drop_pending();
        }
    }

    fn break_line(&mut self) {
        let mut line = std::mem::take(&mut self.line);
        if !self.state.active.is_empty() {
            line.push_str(RESET);
            self.line.push_str(&self.state.active);
        }
        self.lines.push(line);
        self.line_w = 0;
    }

    /// Appends a run of text (escapes allowed) whose visible width is `w`, known to fit.
    fn push_fitting(&mut self, text: &str, w: usize) {
        self.line.push_str(text);
        self.line_w += w;
        let mut rest = text;
        while let Some(p) = rest.find('\x1b') {
            let n = escape_len(&rest.as_bytes()[p..]);
            self.state.apply(&rest[p..p + n]);
            rest = &rest[p + n..];
        }
    }

    /// Places a word, breaking it by characters when it is wider than a whole line.
    fn push_word(&mut self, word: &str, w: usize) {
        if self.line_w + self.pending_w + w <= self.width {
            let pending = std::mem::take(&mut self.pending);
            let pw = std::mem::take(&mut self.pending_w);
            self.push_fitting(&pending, pw);
            return self.push_fitting(word, w);
        }
        self.drop_pending();
        // A word that does not fit starts a new line, even one wider than a whole line (which
        // is then broken by characters there), as pi does: the space before it is a wrap point.
        if self.line_w > 0 {
            self.break_line();
            if w <= self.width {
                return self.push_fitting(word, w);
            }
        }
        let mut rest = word;
        while let Some(c) = rest.chars().next() {
            let n = if c == '\x1b' {
                escape_len(rest.as_bytes())
            } else {
                c.len_utf8()
            };
            let cw = if c == '\x1b' { 0 } else { char_width(c) };
            if self.line_w + cw > self.width && self.line_w > 0 {
                self.break_line();
            }
            self.push_fitting(&rest[..n], cw);
            rest = &rest[n..];
        }
    }

    /// Holds a run of spaces until the next word shows whether they stay on this line; spaces
    /// at a wrap point are dropped.
    fn push_spaces(&mut self, spaces: &str, w: usize) {
        self.pending.push_str(spaces);
        self.pending_w += w;
    }
}

/// Splits one logical line (no `\n`) into runs of spaces and non-space words, escapes attached
/// to the word they precede.
fn for_each_run(line: &str, mut f: impl FnMut(&str, usize, bool)) {
    let bytes = line.as_bytes();
    let mut start = 0;
    let mut i = 0;
    let mut width = 0;
    let mut in_space: Option<bool> = None;
    while i < bytes.len() {
        if bytes[i] == 0x1b {
            i += escape_len(&bytes[i..]);
            continue;
        }
        let Some(c) = line[i..].chars().next() else {
            break;
        };
        let is_space = c == ' ';
        if in_space.is_some_and(|s| s != is_space) {
            f(&line[start..i], width, in_space == Some(true));
            start = i;
            width = 0;
        }
        in_space = Some(is_space);
        width += char_width(c);
        i += c.len_utf8();
    }
    if start < line.len() {
        f(&line[start..], width, in_space == Some(true));
    }
}

/// Word-wraps `text` to `width` columns. `\n` starts a new line; tabs become spaces; words
/// wider than a line are broken by characters (never inside a wide character). Styles active at
/// a break are closed at the end of the line and re-opened on the next. Always returns at least
/// one line.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let expanded;
    let text = if text.contains('\t') {
        expanded = text.replace('\t', TAB);
        expanded.as_str()
    } else {
        text
    };
    let mut w = Wrapper {
        width,
        lines: Vec::new(),
        line: String::new(),
        line_w: 0,
        state: SgrState::default(),
        pending: String::new(),
        pending_w: 0,
    };
    for (i, logical) in text.split('\n').enumerate() {
        if i > 0 {
            w.end_logical();
            w.break_line();
        }
        for_each_run(logical, |run, rw, space| {
            if space {
                w.push_spaces(run, rw)
            } else {
                w.push_word(run, rw)
            }
        });
    }
    w.end_logical();
    let mut lines = w.lines;
    lines.push(w.line);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_skips_escapes_and_counts_wide_chars() {
        assert_eq!(visible_width("\x1b[1mab\x1b[0m"), 2);
        assert_eq!(visible_width("日本"), 4);
        assert_eq!(visible_width("a🎉b"), 4);
        assert_eq!(visible_width("\x1b]8;;http://x\x07link\x1b]8;;\x07"), 4);
    }

    #[test]
    fn wraps_words_and_breaks_long_ones() {
        assert_eq!(wrap("hello big world", 9), vec!["hello big", "world"]);
        assert_eq!(wrap("abcdefghij", 4), vec!["abcd", "efgh", "ij"]);
        assert_eq!(wrap("a\n\nb", 10), vec!["a", "", "b"]);
        assert_eq!(
            wrap("ab  cd", 3),
            vec!["ab", "cd"],
            "no spaces kept at a wrap"
        );
        assert_eq!(wrap("  x", 5), vec!["  x"], "leading indentation kept");
    }

    #[test]
    fn a_word_too_long_for_any_line_starts_a_new_one() {
        assert_eq!(wrap("word abcdefghij", 8), vec!["word", "abcdefgh", "ij"]);
        assert_eq!(
            wrap("File: /a/long/path", 8),
            vec!["File:", "/a/long/", "path"]
        );
        assert_eq!(wrap("abcdefghij", 8), vec!["abcdefgh", "ij"]);
    }

    #[test]
    fn wide_chars_never_straddle_the_edge() {
        let lines = wrap("日本語テキスト", 5);
        assert_eq!(lines, vec!["日本", "語テ", "キス", "ト"]);
        assert!(lines.iter().all(|l| visible_width(l) <= 5));
        assert_eq!(truncate_to_width("ab日本", 3), "ab");
    }

    #[test]
    fn styles_are_carried_across_breaks() {
        let lines = wrap("\x1b[1mbold words here\x1b[22m after", 10);
        assert_eq!(lines[0], "\x1b[1mbold words\x1b[0m");
        assert_eq!(lines[1], "\x1b[1mhere\x1b[22m after");
    }

    #[test]
    fn truncation_resets_styles() {
        assert_eq!(truncate_to_width("\x1b[31mabcdef", 3), "\x1b[31mabc\x1b[0m");
        assert_eq!(truncate_with_ellipsis("abcdef", 4), "abc…");
    }
}
