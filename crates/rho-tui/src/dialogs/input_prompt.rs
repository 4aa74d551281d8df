//! A one-line text prompt (pi's input dialog: extension `input` requests, session names, API
//! keys). Masked mode draws every character as `•` so a key typed or pasted is not shown.

use super::frame::{edit_line, framed, inner_width};
use super::line_edit::LineEdit;
use crate::input::{Dialog, DialogAction, Input};
use crate::keymap::{Action, Keymap};
use crate::theme::Theme;

/// Asks for one line of text; Enter yields it, Esc or Ctrl+C cancel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputDialog {
    title: String,
    placeholder: String,
    masked: bool,
    edit: LineEdit,
}

impl InputDialog {
    /// An empty prompt; `placeholder` is shown dim until something is typed.
    pub fn new(title: impl Into<String>, placeholder: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            placeholder: placeholder.into(),
            masked: false,
            edit: LineEdit::default(),
        }
    }

    /// Draws the text as `•` (for secrets such as API keys).
    pub fn masked(mut self) -> Self {
        self.masked = true;
        self
    }

    /// Starts with `text` typed, the cursor at its end.
    pub fn with_value(mut self, text: impl AsRef<str>) -> Self {
        self.edit = LineEdit::new(text.as_ref());
        self
    }

    /// The text typed so far.
    pub fn value(&self) -> String {
        self.edit.text()
    }
}

impl Dialog for InputDialog {
    type Output = String;

    fn handle(&mut self, input: &Input, keys: &Keymap) -> DialogAction<String> {
        if keys.matches(input, Action::SelectCancel) {
            return DialogAction::Cancelled;
        }
        if keys.matches(input, Action::InputSubmit) {
            return DialogAction::Done(self.edit.text());
        }
        self.edit.apply(input, keys);
        DialogAction::Pending
    }

    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        let avail = inner_width(width).saturating_sub(2);
        let shown: Vec<char> = if self.masked {
            vec!['•'; self.edit.chars().len()]
        } else {
            self.edit.chars().to_vec()
        };
        let mut line = theme.fg(theme.colors.accent, "> ");
        line.push_str(&edit_line(&shown, self.edit.cursor(), avail));
        if shown.is_empty() && !self.placeholder.is_empty() {
            line.push_str(&theme.fg(theme.colors.dim, &self.placeholder));
        }
        framed(
            &self.title,
            vec![line],
            "enter submit · esc cancel",
            width,
            theme,
        )
    }
}
