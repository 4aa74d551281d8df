//! Single-line text editing shared by the prompts: a character buffer and a cursor, with the
//! usual keys (arrows, Home/End, Ctrl+A/E, Backspace/Delete, Ctrl+U/K) and bracketed paste.

use crossterm::event::{KeyCode, KeyModifiers};

use crate::input::Input;

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

    /// Applies an editing input; false when the input is not an edit (the caller handles it).
    pub fn apply(&mut self, input: &Input) -> bool {
        let key = match input {
            Input::Paste(text) => {
                self.insert(text);
                return true;
            }
            Input::Key(k) => k,
            Input::Resize(..) => return false,
        };
        let plain = key.modifiers.is_empty();
        match key.code {
            KeyCode::Char(c) if (key.modifiers - KeyModifiers::SHIFT).is_empty() => {
                self.insert(c.encode_utf8(&mut [0; 4]));
            }
            KeyCode::Backspace if plain && self.cursor > 0 => {
                self.cursor -= 1;
                self.chars.remove(self.cursor);
            }
            KeyCode::Delete if plain && self.cursor < self.chars.len() => {
                self.chars.remove(self.cursor);
            }
            KeyCode::Left if plain => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Right if plain => self.cursor = (self.cursor + 1).min(self.chars.len()),
            KeyCode::Home if plain => self.cursor = 0,
            KeyCode::End if plain => self.cursor = self.chars.len(),
            _ if input.is_ctrl('a') => self.cursor = 0,
            _ if input.is_ctrl('e') => self.cursor = self.chars.len(),
            _ if input.is_ctrl('u') => {
                self.chars.drain(..self.cursor);
                self.cursor = 0;
            }
            _ if input.is_ctrl('k') => self.chars.truncate(self.cursor),
            KeyCode::Backspace | KeyCode::Delete | KeyCode::Left | KeyCode::Right => {
                return plain;
            }
            _ => return false,
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_in_the_middle_and_clamps_the_cursor() {
        let mut e = LineEdit::new("ac");
        e.apply(&Input::key(KeyCode::Left));
        e.apply(&Input::char('b'));
        assert_eq!(e.text(), "abc");
        e.apply(&Input::key(KeyCode::Home));
        e.apply(&Input::key(KeyCode::Left));
        e.apply(&Input::key(KeyCode::Backspace));
        assert_eq!((e.text().as_str(), e.cursor()), ("abc", 0));
        e.apply(&Input::key(KeyCode::Delete));
        e.apply(&Input::key(KeyCode::End));
        e.apply(&Input::Paste("d\ne".into()));
        assert_eq!(e.text(), "bcde");
        e.apply(&Input::ctrl('a'));
        e.apply(&Input::key(KeyCode::Right));
        e.apply(&Input::ctrl('k'));
        assert_eq!(e.text(), "b");
    }
}
