//! How `/tree` draws, after pi 1.6: a rule, the title, the keys (wrapped), the search line, a
//! rule, the rows (`› ` on the selected one, the selection on the selected background), the
//! position with the filter in effect, a rule. When the selected row's text would start too
//! far right, the rows' bodies scroll left while the cursor column stays. Editing a label
//! replaces the rows with a one-line prompt.

use super::{text, time, TreeSelector};
use crate::ansi::{skip_columns, truncate_to_width, visible_width, wrap};
use crate::dialogs::frame::edit_line;
use crate::keymap::{Action, Keymap};
use crate::theme::{bold, Theme};

/// The help's items: keys, then what they do (or the other way round).
#[derive(Debug, Clone)]
pub(super) struct Help {
    items: Vec<String>,
    confirm: String,
    cancel: String,
}

/// pi's compact form of several keys: `ctrl+d/t/u` when they share the modifiers, arrows as
/// `↑/↓/←/→`, page keys as `pgup`/`pgdn`.
fn compact(keys: &[&str]) -> String {
    let split = |k: &str| match k.rfind('+') {
        Some(i) if i + 1 < k.len() => (k[..=i].to_string(), k[i + 1..].to_string()),
        _ => (String::new(), k.to_string()),
    };
    let parts: Vec<(String, String)> = keys.iter().map(|k| split(k)).collect();
    let joined = match parts.first() {
        Some((prefix, _)) if !prefix.is_empty() && parts.iter().all(|(p, _)| p == prefix) => {
            let suffixes: Vec<&str> = parts.iter().map(|(_, s)| s.as_str()).collect();
            format!("{prefix}{}", suffixes.join("/"))
        }
        _ => keys.join("/"),
    };
    joined
        .split('/')
        .map(|part| {
            let (prefix, key) = split(part);
            let key = match key.as_str() {
                "up" => "↑",
                "down" => "↓",
                "left" => "←",
                "right" => "→",
                "pageup" => "pgup",
                "pagedown" => "pgdn",
                other => other,
            };
            format!("{prefix}{key}")
        })
        .collect::<Vec<_>>()
        .join("/")
}

impl Help {
    pub(super) fn of(keys: &Keymap) -> Self {
        use Action as A;
        let first = |actions: &[Action]| -> String {
            let found: Vec<&str> = actions
                .iter()
                .filter_map(|a| keys.first_written(*a))
                .collect();
            if found.is_empty() {
                String::new()
            } else {
                compact(&found)
            }
        };
        let item = |actions: &[Action], label: &str, label_first: bool| {
            let keys = first(actions);
            match (keys.is_empty(), label_first) {
                (true, _) => label.to_string(),
                (false, true) => format!("{label} {keys}"),
                (false, false) => format!("{keys} {label}"),
            }
        };
        let items = vec![
            item(&[A::SelectUp, A::SelectDown], "move", false),
            item(&[A::EditorCursorLeft, A::EditorCursorRight], "page", false),
            item(&[A::TreeFoldOrUp, A::TreeUnfoldOrDown], "branch", false),
            item(&[A::MessageCopy], "copy", false),
            item(&[A::TreeEditLabel], "label", false),
            item(&[A::TreeToggleLabelTimestamp], "label time", false),
            item(
                &[
                    A::TreeFilterDefault,
                    A::TreeFilterNoTools,
                    A::TreeFilterUserOnly,
                    A::TreeFilterLabeledOnly,
                    A::TreeFilterAll,
                ],
                "filters",
                true,
            ),
            item(
                &[A::TreeFilterCycleForward, A::TreeFilterCycleBackward],
                "cycle",
                true,
            ),
        ];
        Self {
            items,
            confirm: keys.display(A::SelectConfirm),
            cancel: keys.display(A::SelectCancel),
        }
    }

    /// The items joined with ` · `, wrapped at `width`, each line indented two columns.
    fn lines(&self, width: usize, t: &Theme) -> Vec<String> {
        let width = width.max(1);
        let mut lines = Vec::new();
        let mut line = String::new();
        for item in &self.items {
            let candidate = if line.is_empty() {
                format!("  {item}")
            } else {
                format!("{line} · {item}")
            };
            if line.is_empty() || visible_width(&candidate) <= width {
                line = candidate;
                continue;
            }
            lines.extend(wrap(line.trim_end(), width));
            line = format!("  {item}");
        }
        if !line.is_empty() {
            lines.extend(wrap(line.trim_end(), width));
        }
        lines
            .into_iter()
            .map(|l| t.fg(t.colors.muted, &l))
            .collect()
    }
}

/// The rows' gutter (the cursor column).
const GUTTER: usize = 2;

pub(super) fn render(s: &TreeSelector, width: usize, t: &Theme) -> Vec<String> {
    let c = &t.colors;
    let rule = t.fg(c.border, &"─".repeat(width));
    let mut out = vec![String::new(), rule.clone()];
    out.push(format!("   {}", bold("Session Tree")));
    out.extend(s.help.lines(width, t));
    let search = if s.query.is_empty() {
        format!("  {} ", t.fg(c.muted, "Type to search:"))
    } else {
        format!(
            "  {} {}",
            t.fg(c.muted, "Type to search:"),
            t.fg(c.accent, &s.query)
        )
    };
    out.push(search);
    out.push(rule.clone());
    out.push(String::new());
    match &s.editing {
        Some((_, edit)) => {
            out.push(format!("  {}", t.fg(c.muted, "Label (empty to remove):")));
            out.push(format!(
                "  {}{}",
                t.fg(c.accent, "> "),
                edit_line(edit.chars(), edit.cursor(), width.saturating_sub(4).max(1))
            ));
            let key = |k: &str, what: &str| {
                format!("{}{}", t.fg(c.dim, k), t.fg(c.muted, &format!(" {what}")))
            };
            out.push(format!(
                "  {}  {}",
                key(&s.help.confirm, "save"),
                key(&s.help.cancel, "cancel")
            ));
        }
        None => out.extend(rows(s, width, t)),
    }
    out.push(String::new());
    out.push(rule);
    out.into_iter()
        .map(|l| truncate_to_width(&l, width))
        .collect()
}

/// The rows in view and the position line.
fn rows(s: &TreeSelector, width: usize, t: &Theme) -> Vec<String> {
    let c = &t.colors;
    let mut marks = s.filter.mark().to_string();
    if s.label_times {
        marks.push_str(" [+label time]");
    }
    let n = s.shown.len();
    if n == 0 {
        return vec![
            t.fg(c.muted, "  No entries found"),
            t.fg(c.muted, &format!("  (0/0){marks}")),
        ];
    }
    let start = s
        .selected
        .saturating_sub(s.max_rows / 2)
        .min(n.saturating_sub(s.max_rows));
    let end = (start + s.max_rows).min(n);
    let drawn: Vec<(String, String, usize, bool)> = (start..end).map(|k| row(s, k, t)).collect();
    let view = width.saturating_sub(GUTTER);
    let widest = drawn.iter().map(|d| visible_width(&d.1)).max().unwrap_or(0);
    let most = widest.saturating_sub(view);
    let mut scroll = 0;
    if let Some(anchor) = drawn.iter().find(|d| d.3).map(|d| d.2) {
        let keep_visible = (view / 3).clamp(4, 20);
        if most > 0 && anchor > view.saturating_sub(keep_visible) {
            let context = (view / 4).clamp(2, 12);
            scroll = anchor.saturating_sub(context).min(most);
        }
    }
    let mut out: Vec<String> = drawn
        .into_iter()
        .map(|(gutter, body, _, _)| {
            let body = if scroll > 0 {
                format!("{}\x1b[0m", skip_columns(&body, scroll))
            } else {
                body
            };
            truncate_to_width(&format!("{gutter}{body}"), width)
        })
        .collect();
    out.push(t.fg(c.muted, &format!("  ({}/{n}){marks}", s.selected + 1)));
    out
}

/// Row `k` of the shown entries: its gutter, its body, the column its text starts at, and
/// whether it is selected.
fn row(s: &TreeSelector, k: usize, t: &Theme) -> (String, String, usize, bool) {
    let c = &t.colors;
    let i = s.shown[k];
    let node = &s.nodes[i];
    let selected = k == s.selected;
    let folded = s.folded.contains(&i);
    let foldable = s.layout.foldable(i);
    let place = s.layout.places.get(&i);
    let prefix = s.layout.prefix(i, foldable, folded);
    let in_connector = place.is_some_and(|p| p.connector);
    let mut prefix_part = t.fg(c.dim, &prefix);
    if folded && !in_connector {
        prefix_part.push_str(&t.fg(c.accent, "⊞ "));
    }
    if s.tree.active.contains(&i) {
        prefix_part.push_str(&t.fg(c.accent, "• "));
    }
    let anchor = visible_width(&prefix_part);
    let mut body = prefix_part;
    if let Some(label) = &node.label {
        body.push_str(&t.fg(c.warning, &format!("[{label}] ")));
        if s.label_times {
            if let Some(when) = node.label_time.as_deref().and_then(time::label_time_now) {
                body.push_str(&t.fg(c.muted, &format!("{when} ")));
            }
        }
    }
    let content = text::paint(&text::display(&node.entry, &s.calls, s.home.as_deref()), t);
    body.push_str(&if selected { bold(&content) } else { content });
    let gutter = if selected {
        t.bg(c.selected_bg, &t.fg(c.accent, "› "))
    } else {
        "  ".to_string()
    };
    if selected {
        body = t.bg(c.selected_bg, &body);
    }
    (gutter, body, anchor, selected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_compacted_as_pi_writes_them() {
        assert_eq!(compact(&["up", "down"]), "↑/↓");
        assert_eq!(compact(&["ctrl+left", "ctrl+right"]), "ctrl+←/→");
        assert_eq!(
            compact(&["ctrl+d", "ctrl+t", "ctrl+u", "ctrl+l", "ctrl+a"]),
            "ctrl+d/t/u/l/a"
        );
        assert_eq!(compact(&["ctrl+o", "shift+ctrl+o"]), "ctrl+o/shift+ctrl+o");
        assert_eq!(compact(&["pageup"]), "pgup");
    }
}
