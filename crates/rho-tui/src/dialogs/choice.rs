//! pi's selector for a question with a few answers (its extension `select`, and the project
//! trust question at start-up): the question (several lines, wrapped, in the accent colour), the answers with `→ `
//! on the selected one, and the keys. Up/Down (and `k`/`j`) move, Enter answers, Esc cancels.

use super::frame::rule;
use crate::ansi::{truncate_to_width, wrap};
use crate::input::{Dialog, DialogAction, Input};
use crate::keymap::{Action, Keymap};
use crate::theme::{bold, Theme};

/// Asks `message` with `options`; yields the index of the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChoiceDialog {
    message: String,
    options: Vec<String>,
    selected: usize,
    hint: String,
}

impl ChoiceDialog {
    /// A question with its answers (the first selected); `keys` names the keys in the hint.
    pub fn new(message: impl Into<String>, options: Vec<String>, keys: &Keymap) -> Self {
        let hint = format!(
            "↑↓ navigate  {} select  {} cancel",
            keys.display(Action::SelectConfirm),
            keys.display(Action::SelectCancel)
        );
        Self {
            message: message.into(),
            options,
            selected: 0,
            hint,
        }
    }

    /// The index of the selected answer.
    pub fn selected(&self) -> usize {
        self.selected
    }
}

impl Dialog for ChoiceDialog {
    type Output = usize;

    fn handle(&mut self, input: &Input, keys: &Keymap) -> DialogAction<usize> {
        let last = self.options.len().saturating_sub(1);
        if keys.matches(input, Action::SelectUp)
            || input.is_plain(crossterm::event::KeyCode::Char('k'))
        {
            self.selected = self.selected.saturating_sub(1);
        } else if keys.matches(input, Action::SelectDown)
            || input.is_plain(crossterm::event::KeyCode::Char('j'))
        {
            self.selected = (self.selected + 1).min(last);
        } else if keys.matches(input, Action::SelectConfirm) {
            if !self.options.is_empty() {
                return DialogAction::Done(self.selected);
            }
        } else if keys.matches(input, Action::SelectCancel) {
            return DialogAction::Cancelled;
        }
        DialogAction::Pending
    }

    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        let c = &theme.colors;
        let room = width.saturating_sub(2).max(1);
        let mut out = vec![rule(width, theme), String::new()];
        for line in self.message.lines() {
            if line.is_empty() {
                out.push(String::new());
                continue;
            }
            out.extend(
                wrap(line, room)
                    .into_iter()
                    .map(|l| format!(" {}", theme.fg(c.accent, &bold(&l)))),
            );
        }
        out.push(String::new());
        for (i, option) in self.options.iter().enumerate() {
            out.push(if i == self.selected {
                format!(" {}", theme.fg(c.accent, &format!("→ {option}")))
            } else {
                format!("   {}", theme.fg(c.text, option))
            });
        }
        out.push(String::new());
        out.push(format!(" {}", theme.fg(c.dim, &self.hint)));
        out.push(String::new());
        out.push(rule(width, theme));
        out.into_iter()
            .map(|l| truncate_to_width(&l, width))
            .collect()
    }
}
