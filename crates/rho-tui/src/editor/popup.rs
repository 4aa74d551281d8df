//! Drawing a completion list (pi's select list look): `→ ` and the accent colour on the selected
//! row, labels in a column, dim descriptions after them, a window of at most
//! [`MAX_VISIBLE`] rows that follows the selection, and a `(n/total)` line when it scrolls.

use super::complete::MAX_VISIBLE;
use super::CompletionItem;
use crate::ansi::{truncate_with_ellipsis, visible_width};
use crate::theme::Theme;

/// Labels never take more than this many columns, so descriptions keep some room.
const MAX_LABEL: usize = 32;

/// The popup's lines for `width` columns.
pub(crate) fn render(
    items: &[CompletionItem],
    selected: usize,
    width: usize,
    theme: &Theme,
) -> Vec<String> {
    let total = items.len();
    let first = selected
        .saturating_sub(MAX_VISIBLE / 2)
        .min(total.saturating_sub(MAX_VISIBLE));
    let shown = &items[first..total.min(first + MAX_VISIBLE)];
    let label_w = shown
        .iter()
        .map(|i| visible_width(&i.label))
        .max()
        .unwrap_or(0)
        .min(MAX_LABEL)
        .min(width.saturating_sub(2));
    let mut out: Vec<String> = shown
        .iter()
        .enumerate()
        .map(|(n, item)| row(item, first + n == selected, label_w, width, theme))
        .collect();
    if total > MAX_VISIBLE {
        let note = format!("  ({}/{total})", selected + 1);
        out.push(theme.fg(theme.colors.dim, &truncate_with_ellipsis(&note, width)));
    }
    out
}

fn row(
    item: &CompletionItem,
    selected: bool,
    label_w: usize,
    width: usize,
    theme: &Theme,
) -> String {
    let prefix = if selected { "→ " } else { "  " };
    let mut label = truncate_with_ellipsis(&item.label, label_w);
    let used = 2 + label_w;
    let room = width.saturating_sub(used + 2);
    let desc = if item.description.is_empty() || room < 4 {
        String::new()
    } else {
        for _ in visible_width(&label)..label_w {
            label.push(' ');
        }
        let first_line = item.description.lines().next().unwrap_or("");
        let text = format!("  {}", truncate_with_ellipsis(first_line, room));
        theme.fg(theme.colors.dim, &text)
    };
    let head = format!("{prefix}{label}");
    if selected {
        format!("{}{desc}", theme.fg(theme.colors.accent, &head))
    } else {
        format!("{head}{desc}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ansi::strip_ansi;

    fn items(n: usize) -> Vec<CompletionItem> {
        (0..n)
            .map(|i| CompletionItem {
                value: format!("c{i}"),
                label: format!("c{i}"),
                description: format!("command {i}"),
            })
            .collect()
    }

    #[test]
    fn shows_eight_rows_around_the_selection_and_a_position_line() {
        let t = Theme::dark();
        let lines = render(&items(20), 12, 40, &t);
        assert_eq!(lines.len(), MAX_VISIBLE + 1);
        assert!(strip_ansi(&lines[0]).starts_with("  c8 "));
        assert!(strip_ansi(&lines[4]).starts_with("→ c12"));
        assert_eq!(strip_ansi(&lines[8]), "  (13/20)");
        let end = render(&items(20), 19, 40, &t);
        assert!(strip_ansi(&end[7]).starts_with("→ c19"));
    }

    #[test]
    fn rows_fit_the_width() {
        let t = Theme::dark();
        let mut long = items(2);
        long[0].label = "x".repeat(60);
        long[1].description = "y".repeat(200);
        for w in [10, 40] {
            for l in render(&long, 0, w, &t) {
                assert!(visible_width(&l) <= w, "{l:?}");
            }
        }
    }
}
