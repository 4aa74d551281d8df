//! A tall editor is shown through a window of rows that keeps the cursor in view (pi: at most
//! 30% of the terminal, at least 5 rows), with `─── ↑ 3 more ` / `─── ↓ 2 more ` in the rules.

use crate::ansi::truncate_to_width;
use crate::theme::{Color, Theme};

/// Rows the editor may take on a terminal of `terminal_rows` rows.
pub(crate) fn max_rows(terminal_rows: usize) -> usize {
    (terminal_rows * 3 / 10).max(5)
}

/// Cuts the text rows of a rendered box (`lines`: rule, rows, rule) to `max` rows around the
/// row holding the cursor (the one drawn in reverse video). `offset` is the first row shown,
/// kept from one render to the next so the window moves only when the cursor leaves it.
pub(crate) fn window(
    lines: Vec<String>,
    max: usize,
    offset: &mut usize,
    width: usize,
    theme: &Theme,
    border: Color,
) -> Vec<String> {
    let rows = lines.len().saturating_sub(2);
    if rows <= max || max == 0 {
        *offset = 0;
        return lines;
    }
    let cursor = lines[1..=rows]
        .iter()
        .position(|l| l.contains("\x1b[7m"))
        .unwrap_or(0);
    if cursor < *offset {
        *offset = cursor;
    } else if cursor >= *offset + max {
        *offset = cursor + 1 - max;
    }
    *offset = (*offset).min(rows - max);
    let below = rows - *offset - max;
    let rule = |label: String| {
        let mut text = truncate_to_width(&label, width);
        let fill = width.saturating_sub(crate::ansi::visible_width(&text));
        text.push_str(&"─".repeat(fill));
        theme.fg(border, &text)
    };
    let mut out = Vec::with_capacity(max + 2);
    out.push(if *offset > 0 {
        rule(format!("─── ↑ {} more ", *offset))
    } else {
        lines[0].clone()
    });
    out.extend(lines[1 + *offset..1 + *offset + max].iter().cloned());
    out.push(if below > 0 {
        rule(format!("─── ↓ {below} more "))
    } else {
        lines[rows + 1].clone()
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ansi::strip_ansi;

    fn boxed(rows: usize, cursor: usize) -> Vec<String> {
        let mut lines = vec!["─".repeat(20)];
        lines.extend((0..rows).map(|i| {
            if i == cursor {
                format!("row {i}\x1b[7m \x1b[27m")
            } else {
                format!("row {i}")
            }
        }));
        lines.push("─".repeat(20));
        lines
    }

    fn plain(lines: &[String]) -> Vec<String> {
        lines
            .iter()
            .map(|l| strip_ansi(l).trim_end().to_string())
            .collect()
    }

    #[test]
    fn short_boxes_are_untouched() {
        let t = Theme::dark();
        let mut offset = 3;
        let lines = boxed(4, 3);
        assert_eq!(
            window(lines.clone(), 5, &mut offset, 20, &t, Color::Default),
            lines
        );
        assert_eq!(offset, 0);
    }

    #[test]
    fn the_window_follows_the_cursor_and_says_what_is_hidden() {
        let t = Theme::dark();
        let mut offset = 0;
        let out = plain(&window(
            boxed(12, 11),
            5,
            &mut offset,
            20,
            &t,
            Color::Default,
        ));
        assert_eq!(offset, 7);
        assert_eq!(out[0], "─── ↑ 7 more ───────");
        assert_eq!(out[1], "row 7");
        assert_eq!(out[6], "─".repeat(20));
        let out = plain(&window(
            boxed(12, 8),
            5,
            &mut offset,
            20,
            &t,
            Color::Default,
        ));
        assert_eq!(offset, 7, "the cursor is still inside the window");
        let out2 = plain(&window(
            boxed(12, 2),
            5,
            &mut offset,
            20,
            &t,
            Color::Default,
        ));
        assert_eq!(offset, 2);
        assert_eq!(out2[6], "─── ↓ 5 more ───────");
        assert_eq!(out.len(), 7);
    }

    #[test]
    fn at_least_five_rows_and_thirty_percent() {
        assert_eq!(max_rows(10), 5);
        assert_eq!(max_rows(50), 15);
    }
}
