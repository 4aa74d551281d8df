//! A yes/no question (pi's confirm prompt, used by extensions' `confirm` and before destructive
//! commands).

use crossterm::event::KeyCode;

use super::frame::{framed, inner_width};
use crate::ansi::wrap;
use crate::input::{Dialog, DialogAction, Input};
use crate::keymap::{Action, Keymap};
use crate::theme::Theme;

/// Asks a question; y/Y/Enter answer `true`, n/N `false`, Esc or Ctrl+C cancel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfirmDialog {
    title: String,
    message: String,
}

impl ConfirmDialog {
    /// A question with a title and a (possibly multi-line) message.
    pub fn new(title: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            message: message.into(),
        }
    }
}

impl Dialog for ConfirmDialog {
    type Output = bool;

    fn handle(&mut self, input: &Input, keys: &Keymap) -> DialogAction<bool> {
        if keys.matches(input, Action::SelectCancel) {
            return DialogAction::Cancelled;
        }
        if keys.matches(input, Action::SelectConfirm)
            || input.is_plain(KeyCode::Char('y'))
            || input.is_plain(KeyCode::Char('Y'))
        {
            return DialogAction::Done(true);
        }
        if input.is_plain(KeyCode::Char('n')) || input.is_plain(KeyCode::Char('N')) {
            return DialogAction::Done(false);
        }
        DialogAction::Pending
    }

    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        let body = if self.message.is_empty() {
            Vec::new()
        } else {
            wrap(&self.message, inner_width(width))
        };
        framed(
            &self.title,
            body,
            "y/enter yes · n no · esc cancel",
            width,
            theme,
        )
    }
}
