//! Single-line text editing shared by the prompts: a character buffer and a cursor, with the
//! editor's keys (arrows, Home/End, Ctrl+A/E, Backspace/Delete, Ctrl+U/K, as remapped) and
//! bracketed paste.

use crossterm::event::{KeyCode, KeyModifiers};

use crate::input::Input;
use crate::keymap::{Action, Keymap};

/// The text being typed and the cursor, as a character index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineEdit {
    chars: Vec<char>,
    cursor: usize,
}

impl LineEdit {
    /// A buffer holding `text` with the cursor at its end (line breaks are dropped).
    pub fn new(text: &str) -> Self {
        let chars: Vec<char> = text.chars().filter(|c| !c.is_control()).collect();
        let cursor = chars.len();
        Self { chars, cursor }
    }

    /// The text.
    pub fn text(&self) -> String {
        self.chars.iter().collect()
    }

    /// The characters.
    pub fn chars(&self) -> &[char] {
        &self.chars
    }

    /// The cursor's character index (0 ..= len).
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    fn insert(&mut self, text: &str) {
        for c in text.chars().filter(|c| !c.is_control()) {
            self.chars.insert(self.cursor, c);
            self.cursor += 1;
        }
    }

    /// Applies an editing input (pi's `tui.editor.*` actions as `keys` binds them); false
    /// when the input is not an edit (the caller handles it).
    pub fn apply(&mut self, input: &Input, keys: &Keymap) -> bool {
        if let Input::Paste(text) = input {
            self.insert(text);
            return true;
        }
        let end = self.chars.len();
        match keys.first_match(input, LINE_ACTIONS) {
            Some(Action::EditorDeleteCharBackward) => {
                if self.cursor > 0 {
                    self.cursor -= 1;
                    self.chars.remove(self.cursor);
                }
            }
            Some(Action::EditorDeleteCharForward) => {
                if self.cursor < end {
                    self.chars.remove(self.cursor);
                }
            }
            Some(Action::EditorCursorLeft) => self.cursor = self.cursor.saturating_sub(1),
            Some(Action::EditorCursorRight) => self.cursor = (self.cursor + 1).min(end),
            Some(Action::EditorCursorLineStart) => self.cursor = 0,
            Some(Action::EditorCursorLineEnd) => self.cursor = end,
            Some(Action::EditorDeleteToLineStart) => {
                self.chars.drain(..self.cursor);
                self.cursor = 0;
            }
            Some(Action::EditorDeleteToLineEnd) => self.chars.truncate(self.cursor),
            _ => match input.as_key() {
                Some(k) => match k.code {
                    KeyCode::Char(c) if (k.modifiers - KeyModifiers::SHIFT).is_empty() => {
                        self.insert(c.encode_utf8(&mut [0; 4]));
                    }
                    _ => return false,
                },
                None => return false,
            },
        }
        true
    }
}

/// The editor actions a single line has.
const LINE_ACTIONS: &[Action] = &[
    Action::EditorDeleteCharBackward,
    Action::EditorDeleteCharForward,
    Action::EditorCursorLeft,
    Action::EditorCursorRight,
    Action::EditorCursorLineStart,
    Action::EditorCursorLineEnd,
    Action::EditorDeleteToLineStart,
    Action::EditorDeleteToLineEnd,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_in_the_middle_and_clamps_the_cursor() {
        let keys = Keymap::default();
        let mut e = LineEdit::new("ac");
        e.apply(&Input::key(KeyCode::Left), &keys);
        e.apply(&Input::char('b'), &keys);
        assert_eq!(e.text(), "abc");
        e.apply(&Input::key(KeyCode::Home), &keys);
        e.apply(&Input::key(KeyCode::Left), &keys);
        e.apply(&Input::key(KeyCode::Backspace), &keys);
        assert_eq!((e.text().as_str(), e.cursor()), ("abc", 0));
        e.apply(&Input::key(KeyCode::Delete), &keys);
        e.apply(&Input::key(KeyCode::End), &keys);
        e.apply(&Input::Paste("d\ne".into()), &keys);
        assert_eq!(e.text(), "bcde");
        e.apply(&Input::ctrl('a'), &keys);
        e.apply(&Input::key(KeyCode::Right), &keys);
        e.apply(&Input::ctrl('k'), &keys);
        assert_eq!(e.text(), "b");
    }
}
