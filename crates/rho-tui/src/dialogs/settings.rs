//! pi's `/settings` dialog: one row per setting with its current value; Enter, Space or Right
//! cycle the value forward, Left back. Every change is kept, so closing (Esc) is never a cancel:
//! it yields the settings that differ from where they started.

use crossterm::event::KeyCode;

use super::frame::{framed, inner_width};
use crate::ansi::{truncate_with_ellipsis, visible_width, wrap};
use crate::input::{Dialog, DialogAction, Input};
use crate::keymap::{Action, Keymap};
use crate::theme::Theme;

/// One setting with the values it can take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingItem {
    /// The settings key the caller writes back (e.g. `defaultThinkingLevel`).
    pub key: String,
    /// What the row shows.
    pub label: String,
    /// Shown under the list while the row is selected.
    pub description: String,
    /// The values, in cycling order.
    pub values: Vec<String>,
    /// Index into `values` of the value in effect.
    pub current: usize,
}

/// Edits several settings; yields `(key, new value)` for each one changed.
#[derive(Debug, Clone)]
pub struct SettingsDialog {
    items: Vec<SettingItem>,
    original: Vec<usize>,
    selected: usize,
    max_rows: usize,
}

impl SettingsDialog {
    /// A dialog over `items`, the first selected, up to 10 rows at a time.
    pub fn new(items: Vec<SettingItem>) -> Self {
        let original = items.iter().map(|i| i.current).collect();
        Self {
            items,
            original,
            selected: 0,
            max_rows: 10,
        }
    }

    /// Shows at most `n` rows (at least one); the list scrolls to the selection.
    pub fn with_max_rows(mut self, n: usize) -> Self {
        self.max_rows = n.max(1);
        self
    }

    /// The items with their values as edited so far.
    pub fn items(&self) -> &[SettingItem] {
        &self.items
    }

    /// `(key, value)` of every item whose value differs from the one it started with, in
    /// item order.
    pub fn changes(&self) -> Vec<(String, String)> {
        self.items
            .iter()
            .zip(&self.original)
            .filter(|(item, &was)| item.current != was)
            .filter_map(|(item, _)| {
                let value = item.values.get(item.current)?;
                Some((item.key.clone(), value.clone()))
            })
            .collect()
    }

    fn cycle(&mut self, forward: bool) {
        let Some(item) = self.items.get_mut(self.selected) else {
            return;
        };
        let n = item.values.len();
        if n == 0 {
            return;
        }
        let at = item.current.min(n - 1);
        item.current = if forward {
            (at + 1) % n
        } else {
            (at + n - 1) % n
        };
    }

    fn step(&mut self, forward: bool) {
        let n = self.items.len();
        if n > 0 {
            self.selected = if forward {
                (self.selected + 1) % n
            } else {
                (self.selected + n - 1) % n
            };
        }
    }

    fn row(&self, i: usize, label_w: usize, avail: usize, t: &Theme) -> String {
        let item = &self.items[i];
        let selected = i == self.selected;
        let mut line = if selected {
            t.fg(t.colors.accent, "→ ")
        } else {
            "  ".to_string()
        };
        let label = truncate_with_ellipsis(&item.label, label_w.max(1));
        let pad = label_w.saturating_sub(visible_width(&label)) + 2;
        line.push_str(&label);
        line.push_str(&" ".repeat(pad));
        let room = avail.saturating_sub(visible_width(&line)).max(1);
        let value = item.values.get(item.current).map_or("", String::as_str);
        let value = truncate_with_ellipsis(value, room);
        let color = if selected {
            t.colors.accent
        } else {
            t.colors.muted
        };
        line.push_str(&t.fg(color, &value));
        line
    }
}

impl Dialog for SettingsDialog {
    type Output = Vec<(String, String)>;

    fn handle(&mut self, input: &Input, keys: &Keymap) -> DialogAction<Self::Output> {
        if keys.matches(input, Action::SelectCancel) {
            return DialogAction::Done(self.changes());
        }
        if keys.matches(input, Action::SelectUp) {
            self.step(false);
        } else if keys.matches(input, Action::SelectDown) {
            self.step(true);
        } else if keys.matches(input, Action::SelectConfirm)
            || input.is_plain(KeyCode::Char(' '))
            || input.is_plain(KeyCode::Right)
        {
            self.cycle(true);
        } else if input.is_plain(KeyCode::Left) {
            self.cycle(false);
        }
        DialogAction::Pending
    }

    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        let avail = inner_width(width);
        let n = self.items.len();
        let start = self
            .selected
            .saturating_sub(self.max_rows / 2)
            .min(n.saturating_sub(self.max_rows));
        let end = (start + self.max_rows).min(n);
        let widest = self.items[start..end]
            .iter()
            .map(|i| visible_width(&i.label))
            .max()
            .unwrap_or(0);
        let label_w = widest.min(avail.saturating_sub(2) / 2);
        let mut body: Vec<String> = (start..end)
            .map(|i| self.row(i, label_w, avail, theme))
            .collect();
        if n > self.max_rows {
            let pos = format!("  ({}/{n})", self.selected + 1);
            body.push(theme.fg(theme.colors.dim, &pos));
        }
        if let Some(item) = self.items.get(self.selected) {
            if !item.description.is_empty() {
                body.push(String::new());
                for l in wrap(&item.description, avail.saturating_sub(2).max(1)) {
                    body.push(theme.fg(theme.colors.dim, &format!("  {l}")));
                }
            }
        }
        let hint = "↑↓ move · enter/←→ change · esc close";
        framed("Settings", body, hint, width, theme)
    }
}
