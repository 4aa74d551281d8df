//! Drawing a completion list with pi's select-list look: `→ ` and the accent colour on the
//! whole selected row, labels in a 32-column field followed by muted descriptions (only when
//! the width allows), a window of rows that follows the selection, and a muted `(n/total)`
//! line when the list scrolls.

use super::CompletionItem;
use crate::ansi::{truncate_to_width, visible_width};
use crate::theme::Theme;

/// Width of the label field (pi).
const LABEL_FIELD: usize = 32;
/// Labels are cut to this many columns when a description follows.
const MAX_LABEL: usize = 30;
/// Descriptions are shown only on terminals wider than this.
const MIN_WIDTH_FOR_DESCRIPTIONS: usize = 40;
/// ... and only when at least this much room is left for them.
const MIN_DESCRIPTION: usize = 10;

/// The popup's lines for `width` columns, showing at most `max_visible` candidates.
pub(crate) fn render(
    items: &[CompletionItem],
    selected: usize,
    max_visible: usize,
    width: usize,
    theme: &Theme,
) -> Vec<String> {
    let total = items.len();
    let first = selected
        .saturating_sub(max_visible / 2)
        .min(total.saturating_sub(max_visible));
    let last = total.min(first + max_visible);
    let mut out: Vec<String> = items[first..last]
        .iter()
        .enumerate()
        .map(|(n, item)| row(item, first + n == selected, width, theme))
        .collect();
    if first > 0 || last < total {
        let note = format!("  ({}/{total})", selected + 1);
        let note = truncate_to_width(&note, width.saturating_sub(2));
        out.push(theme.fg(theme.colors.muted, &note));
    }
    out
}

/// One candidate: prefix, label, and the description when there is room.
fn row(item: &CompletionItem, selected: bool, width: usize, theme: &Theme) -> String {
    let prefix = if selected { "→ " } else { "  " };
    let description = single_line(&item.description);
    let with_description = !description.is_empty() && width > MIN_WIDTH_FOR_DESCRIPTIONS;
    if with_description {
        let label = truncate_to_width(&item.label, MAX_LABEL.min(width.saturating_sub(6)));
        let gap = " ".repeat(LABEL_FIELD.saturating_sub(visible_width(&label)).max(1));
        let start = 2 + visible_width(&label) + gap.len();
        let room = width.saturating_sub(start + 2);
        if room > MIN_DESCRIPTION {
            let description = truncate_to_width(&description, room);
            return if selected {
                theme.fg(
                    theme.colors.accent,
                    &format!("{prefix}{label}{gap}{description}"),
                )
            } else {
                let muted = theme.fg(theme.colors.muted, &format!("{gap}{description}"));
                format!("{prefix}{label}{muted}")
            };
        }
    }
    let label = truncate_to_width(&item.label, width.saturating_sub(4));
    if selected {
        theme.fg(theme.colors.accent, &format!("{prefix}{label}"))
    } else {
        format!("{prefix}{label}")
    }
}

/// Descriptions are shown on one line.
fn single_line(text: &str) -> String {
    text.split(['\r', '\n'])
        .filter(|part| !part.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .trim()
        .to_string()
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
    fn a_window_follows_the_selection_with_a_position_line() {
        let t = Theme::dark();
        let lines = render(&items(20), 12, 8, 80, &t);
        assert_eq!(lines.len(), 8 + 1);
        assert!(strip_ansi(&lines[0]).starts_with("  c8 "));
        assert!(strip_ansi(&lines[4]).starts_with("→ c12"));
        assert_eq!(strip_ansi(&lines[8]), "  (13/20)");
        let end = render(&items(20), 19, 8, 80, &t);
        assert!(strip_ansi(&end[7]).starts_with("→ c19"));
        assert_eq!(render(&items(3), 0, 8, 80, &t).len(), 3);
    }

    #[test]
    fn descriptions_start_in_column_34_and_only_on_wide_terminals() {
        let t = Theme::dark();
        let wide = strip_ansi(&render(&items(1), 0, 8, 80, &t)[0]);
        let at = wide.find("command").unwrap();
        assert_eq!(visible_width(&wide[..at]), 2 + LABEL_FIELD);
        let narrow = strip_ansi(&render(&items(1), 0, 8, 40, &t)[0]);
        assert_eq!(narrow, "→ c0");
    }

    #[test]
    fn rows_fit_the_width() {
        let t = Theme::dark();
        let mut long = items(2);
        long[0].label = "x".repeat(60);
        long[1].description = "y\nz".repeat(200);
        for w in [10, 40, 41, 50, 80] {
            for l in render(&long, 0, 8, w, &t) {
                assert!(visible_width(&l) <= w, "{l:?}");
            }
        }
    }
}
