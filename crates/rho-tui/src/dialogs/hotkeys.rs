//! pi's `/hotkeys` view: a table of keys and what they do. Read-only: any key closes it.

use super::frame::{framed, inner_width};
use crate::ansi::{truncate_with_ellipsis, visible_width};
use crate::input::{Dialog, DialogAction, Input};
use crate::theme::Theme;

/// Shows `(key, action)` rows; closes with `Done(())` on any key press.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HotkeysView {
    rows: Vec<(String, String)>,
}

impl HotkeysView {
    /// A view of `rows`, each a key (as written for the user, e.g. `ctrl+o`) and its action.
    pub fn new(rows: Vec<(String, String)>) -> Self {
        Self { rows }
    }
}

impl Dialog for HotkeysView {
    type Output = ();

    fn handle(&mut self, input: &Input) -> DialogAction<()> {
        match input {
            Input::Key(_) | Input::Paste(_) => DialogAction::Done(()),
            Input::Resize(..) => DialogAction::Pending,
        }
    }

    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        let avail = inner_width(width);
        let widest = self.rows.iter().map(|(k, _)| visible_width(k)).max();
        let key_w = widest.unwrap_or(0).min(avail / 2).max(1);
        let body = self
            .rows
            .iter()
            .map(|(key, action)| {
                let k = truncate_with_ellipsis(key, key_w);
                let pad = " ".repeat(key_w - visible_width(&k) + 2);
                let room = avail.saturating_sub(key_w + 2).max(1);
                let a = truncate_with_ellipsis(action, room);
                format!("{}{pad}{a}", theme.fg(theme.colors.accent, &k))
            })
            .collect();
        framed(
            "Keyboard shortcuts",
            body,
            "press any key to close",
            width,
            theme,
        )
    }
}
