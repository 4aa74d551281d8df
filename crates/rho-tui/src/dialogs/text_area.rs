//! A multi-line text prompt (an extension's `editor` request): Enter inserts a newline, Ctrl+S
//! submits, Esc cancels. Drawn with the editor component's wrapping and cursor, scrolled so
//! the cursor's row stays in view.

use crossterm::event::{KeyCode, KeyModifiers};

use super::frame::{framed, inner_width};
use crate::components::{Component, EditorView};
use crate::input::{Dialog, DialogAction, Input};
use crate::keymap::{Action, Keymap};
use crate::theme::{Color, Theme};

/// Edits a block of text; yields it on Ctrl+S.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextAreaDialog {
    title: String,
    text: String,
    /// Byte offset, always on a char boundary.
    cursor: usize,
    max_rows: usize,
}

/// Line breaks normalised to `\n`; other control characters except tabs dropped.
fn clean(text: &str) -> String {
    text.replace("\r\n", "\n")
        .replace('\r', "\n")
        .chars()
        .filter(|&c| c == '\n' || c == '\t' || !c.is_control())
        .collect()
}

impl TextAreaDialog {
    /// A text area holding `initial`, the cursor at its end, showing up to 12 rows.
    pub fn new(title: impl Into<String>, initial: impl AsRef<str>) -> Self {
        let text = clean(initial.as_ref());
        Self {
            title: title.into(),
            cursor: text.len(),
            text,
            max_rows: 12,
        }
    }

    /// Shows at most `n` rows (at least one).
    pub fn with_max_rows(mut self, n: usize) -> Self {
        self.max_rows = n.max(1);
        self
    }

    /// The text so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    fn insert(&mut self, s: &str) {
        let s = clean(s);
        self.text.insert_str(self.cursor, &s);
        self.cursor += s.len();
    }

    fn prev_len(&self) -> usize {
        self.text[..self.cursor]
            .chars()
            .next_back()
            .map_or(0, char::len_utf8)
    }

    fn next_len(&self) -> usize {
        self.text[self.cursor..]
            .chars()
            .next()
            .map_or(0, char::len_utf8)
    }

    fn line_start(&self, at: usize) -> usize {
        self.text[..at].rfind('\n').map_or(0, |i| i + 1)
    }

    fn line_end(&self, at: usize) -> usize {
        self.text[at..]
            .find('\n')
            .map_or(self.text.len(), |i| at + i)
    }

    /// Moves to the line before (`up`) or after, keeping the column in characters.
    fn vertical(&mut self, up: bool) {
        let start = self.line_start(self.cursor);
        let col = self.text[start..self.cursor].chars().count();
        let target = if up {
            if start == 0 {
                return;
            }
            self.line_start(start - 1)
        } else {
            let end = self.line_end(self.cursor);
            if end == self.text.len() {
                return;
            }
            end + 1
        };
        let end = self.line_end(target);
        self.cursor = self.text[target..end]
            .char_indices()
            .nth(col)
            .map_or(end, |(i, _)| target + i);
    }

    fn edit(&mut self, input: &Input) {
        let key = match input {
            Input::Paste(text) => return self.insert(text),
            Input::Key(k) => k,
            Input::Resize(..) | Input::Wheel { .. } => return,
        };
        let plain = key.modifiers.is_empty();
        match key.code {
            KeyCode::Enter if plain => self.insert("\n"),
            KeyCode::Char(c) if (key.modifiers - KeyModifiers::SHIFT).is_empty() => {
                self.insert(c.encode_utf8(&mut [0; 4]));
            }
            KeyCode::Backspace if plain => {
                let n = self.prev_len();
                self.cursor -= n;
                self.text.drain(self.cursor..self.cursor + n);
            }
            KeyCode::Delete if plain => {
                let n = self.next_len();
                self.text.drain(self.cursor..self.cursor + n);
            }
            KeyCode::Left if plain => self.cursor -= self.prev_len(),
            KeyCode::Right if plain => self.cursor += self.next_len(),
            KeyCode::Up if plain => self.vertical(true),
            KeyCode::Down if plain => self.vertical(false),
            KeyCode::Home if plain => self.cursor = self.line_start(self.cursor),
            KeyCode::End if plain => self.cursor = self.line_end(self.cursor),
            _ => {}
        }
    }
}

impl Dialog for TextAreaDialog {
    type Output = String;

    fn handle(&mut self, input: &Input, keys: &Keymap) -> DialogAction<String> {
        if keys.matches(input, Action::SelectCancel) {
            return DialogAction::Cancelled;
        }
        if input.is_ctrl('s') || input.is(KeyCode::Enter, KeyModifiers::CONTROL) {
            return DialogAction::Done(self.text.clone());
        }
        self.edit(input);
        DialogAction::Pending
    }

    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        let view = EditorView {
            text: self.text.clone(),
            cursor: self.cursor,
            border: Color::Default,
            padding_x: 0,
        };
        let mut rows = view.render(inner_width(width), theme);
        rows.pop();
        rows.remove(0);
        let at = rows.iter().position(|r| r.contains("\x1b[7m")).unwrap_or(0);
        let start = at
            .saturating_sub(self.max_rows / 2)
            .min(rows.len().saturating_sub(self.max_rows));
        let end = (start + self.max_rows).min(rows.len());
        let hint = "enter newline · ctrl+s submit · esc cancel";
        framed(&self.title, rows[start..end].to_vec(), hint, width, theme)
    }
}
