//! pi's `/hotkeys` view: a table of keys and what they do, in sections. Read-only: the
//! selection keys scroll it when it is taller than its window, any other key closes it.

use super::frame::{framed, inner_width};
use crate::ansi::{truncate_with_ellipsis, visible_width};
use crate::input::{Dialog, DialogAction, Input};
use crate::keymap::{Action, Keymap};
use crate::theme::{bold, Theme};

/// Shows `(key, action)` rows; closes with `Done(())` on a key that does not scroll it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HotkeysView {
    rows: Vec<(String, String)>,
    max_rows: Option<usize>,
    first: usize,
}

impl HotkeysView {
    /// A view of `rows`, each a key (as written for the user, e.g. `ctrl+o`) and its action;
    /// a row with an empty action is a section heading.
    pub fn new(rows: Vec<(String, String)>) -> Self {
        Self {
            rows,
            max_rows: None,
            first: 0,
        }
    }

    /// Shows at most `n` rows at once (at least one); the up, down and page keys scroll.
    pub fn with_max_rows(mut self, n: usize) -> Self {
        self.max_rows = Some(n.max(1));
        self
    }

    fn scroll(&mut self, by: isize) {
        let Some(window) = self.max_rows else {
            return;
        };
        let last = self.rows.len().saturating_sub(window);
        self.first = self.first.saturating_add_signed(by).min(last);
    }
}

impl Dialog for HotkeysView {
    type Output = ();

    fn handle(&mut self, input: &Input, keys: &Keymap) -> DialogAction<()> {
        let page = self.max_rows.unwrap_or(1) as isize;
        let scroll = [
            (Action::SelectUp, -1),
            (Action::SelectDown, 1),
            (Action::SelectPageUp, -page),
            (Action::SelectPageDown, page),
        ];
        if self.max_rows.is_some_and(|n| n < self.rows.len()) {
            if let Some((_, by)) = scroll.iter().find(|(a, _)| keys.matches(input, *a)) {
                self.scroll(*by);
                return DialogAction::Pending;
            }
        }
        match input {
            Input::Key(_) | Input::Paste(_) => DialogAction::Done(()),
            Input::Resize(..) | Input::Wheel { .. } => DialogAction::Pending,
        }
    }

    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        let avail = inner_width(width);
        let widest = self
            .rows
            .iter()
            .filter(|(_, a)| !a.is_empty())
            .map(|(k, _)| visible_width(k))
            .max();
        let key_w = widest.unwrap_or(0).min(avail / 2).max(1);
        let shown = self.max_rows.unwrap_or(self.rows.len());
        let mut body: Vec<String> = self
            .rows
            .iter()
            .skip(self.first)
            .take(shown)
            .map(|(key, action)| {
                if action.is_empty() {
                    return bold(&truncate_with_ellipsis(key, avail));
                }
                let k = truncate_with_ellipsis(key, key_w);
                let pad = " ".repeat(key_w - visible_width(&k) + 2);
                let room = avail.saturating_sub(key_w + 2).max(1);
                let a = truncate_with_ellipsis(action, room);
                format!("{}{pad}{a}", theme.fg(theme.colors.accent, &k))
            })
            .collect();
        let hint = if shown < self.rows.len() {
            let end = (self.first + shown).min(self.rows.len());
            let at = format!("  ({}-{end}/{})", self.first + 1, self.rows.len());
            body.push(theme.fg(theme.colors.dim, &at));
            "↑↓ scroll · any other key closes"
        } else {
            "press any key to close"
        };
        framed("Keyboard shortcuts", body, hint, width, theme)
    }
}
