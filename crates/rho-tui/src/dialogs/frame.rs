//! The look every dialog shares (pi's selectors): a rule in the border colour above and below,
//! a bold title, the body, and a dim hint line naming the keys. Content is indented one column.

use crate::ansi::{truncate_to_width, truncate_with_ellipsis};
use crate::theme::{bold, inverse, Theme};

/// Columns left for content inside a frame of `width` (one space each side).
pub fn inner_width(width: usize) -> usize {
    width.saturating_sub(2).max(1)
}

/// A full-width rule in the border colour.
pub fn rule(width: usize, theme: &Theme) -> String {
    theme.fg(theme.colors.border, &"─".repeat(width))
}

/// Lays out a dialog: rule, title, body, hint, rule. Body lines are indented one column and cut
/// to the width, so no line is ever wider than `width`.
pub fn framed(
    title: &str,
    body: Vec<String>,
    hint: &str,
    width: usize,
    theme: &Theme,
) -> Vec<String> {
    let inner = inner_width(width);
    let line_room = width.saturating_sub(1).max(1);
    let mut out = Vec::with_capacity(body.len() + 5);
    out.push(rule(width, theme));
    if !title.is_empty() {
        let t = truncate_with_ellipsis(title, line_room);
        out.push(format!(" {}", theme.fg(theme.colors.accent, &bold(&t))));
    }
    out.extend(body.into_iter().map(|l| indent(&l, inner)));
    if !hint.is_empty() {
        let h = truncate_with_ellipsis(hint, line_room);
        out.push(format!(" {}", theme.fg(theme.colors.dim, &h)));
    }
    out.push(rule(width, theme));
    // Only very narrow widths need this: the one-column indent alone may not fit.
    out.into_iter()
        .map(|l| truncate_to_width(&l, width))
        .collect()
}

fn indent(line: &str, inner: usize) -> String {
    if line.is_empty() {
        return String::new();
    }
    format!(" {}", truncate_to_width(line, inner))
}

/// One line of editable text with the cursor (a char index) drawn in reverse video; when the
/// text is wider than `avail`, the view scrolls so the cursor stays visible.
pub fn edit_line(chars: &[char], cursor: usize, avail: usize) -> String {
    let avail = avail.max(1);
    let start = (cursor + 1).saturating_sub(avail);
    let mut out = String::new();
    for (i, c) in chars.iter().enumerate().skip(start).take(avail) {
        if i == cursor {
            out.push_str(&inverse(&c.to_string()));
        } else {
            out.push(*c);
        }
    }
    if cursor >= chars.len() {
        out.push_str(&inverse(" "));
    }
    out
}
