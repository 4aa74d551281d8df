//! What the keyboard sends, as the interactive widgets see it, and the contract every modal
//! dialog follows. Keys are crossterm's types (the terminal layer decodes them); widgets only
//! match on them, so each widget is tested by feeding it inputs, without a terminal.

pub use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::keymap::Keymap;
use crate::theme::Theme;

/// One thing the terminal delivered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A key press (releases and repeats are filtered out by the reader).
    Key(KeyEvent),
    /// Text pasted with bracketed paste: inserted as a whole, never interpreted as keys.
    Paste(String),
    /// The terminal's new size in columns and rows.
    Resize(u16, u16),
    /// A mouse wheel notch (the fullscreen mode captures the mouse): `down` scrolls towards
    /// the end; `alt` says Alt was held (pi scrolls five times as far).
    Wheel {
        /// Towards the end of the transcript.
        down: bool,
        /// Alt held.
        alt: bool,
    },
}

impl Input {
    /// A key without modifiers.
    pub fn key(code: KeyCode) -> Self {
        Input::Key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    /// A key with modifiers.
    pub fn with_mods(code: KeyCode, mods: KeyModifiers) -> Self {
        Input::Key(KeyEvent::new(code, mods))
    }

    /// A typed character.
    pub fn char(c: char) -> Self {
        Input::key(KeyCode::Char(c))
    }

    /// Ctrl + a letter.
    pub fn ctrl(c: char) -> Self {
        Input::with_mods(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    /// Alt + a key.
    pub fn alt(code: KeyCode) -> Self {
        Input::with_mods(code, KeyModifiers::ALT)
    }

    /// Typing `text` one character at a time (`\n` becomes Enter), for tests and scripted input.
    pub fn typed(text: &str) -> Vec<Input> {
        text.chars()
            .map(|c| match c {
                '\n' => Input::key(KeyCode::Enter),
                c => Input::char(c),
            })
            .collect()
    }

    /// The key event, if this is a key.
    pub fn as_key(&self) -> Option<&KeyEvent> {
        match self {
            Input::Key(k) => Some(k),
            _ => None,
        }
    }

    /// True for `code` pressed with exactly `mods` (Shift is ignored for characters, whose case
    /// already carries it).
    pub fn is(&self, code: KeyCode, mods: KeyModifiers) -> bool {
        let Some(k) = self.as_key() else {
            return false;
        };
        let held = if matches!(k.code, KeyCode::Char(_)) {
            k.modifiers - KeyModifiers::SHIFT
        } else {
            k.modifiers
        };
        k.code == code && held == mods
    }

    /// True for Ctrl + `c`.
    pub fn is_ctrl(&self, c: char) -> bool {
        self.is(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    /// True for `code` without modifiers.
    pub fn is_plain(&self, code: KeyCode) -> bool {
        self.is(code, KeyModifiers::NONE)
    }
}

/// What a dialog did with one input.
#[derive(Debug, Clone, PartialEq)]
pub enum DialogAction<T> {
    /// Still open; render it again.
    Pending,
    /// Closed with a result.
    Done(T),
    /// Closed without one (Esc, or Ctrl+C).
    Cancelled,
}

/// A modal widget that takes the keyboard until it closes: selectors, confirm and input
/// prompts, the tree navigator. The interactive loop draws it in place of the editor.
pub trait Dialog {
    /// What the dialog yields when it closes with a result.
    type Output;

    /// Handles one input; what keys do comes from `keys` (pi's `tui.select.*` and friends).
    fn handle(&mut self, input: &Input, keys: &Keymap) -> DialogAction<Self::Output>;

    /// The dialog's lines for `width` columns.
    fn render(&self, width: usize, theme: &Theme) -> Vec<String>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shift_is_ignored_for_characters_but_not_for_other_keys() {
        let upper = Input::with_mods(KeyCode::Char('A'), KeyModifiers::SHIFT);
        assert!(upper.is_plain(KeyCode::Char('A')));
        let back_tab = Input::with_mods(KeyCode::Tab, KeyModifiers::SHIFT);
        assert!(!back_tab.is_plain(KeyCode::Tab));
        assert!(back_tab.is(KeyCode::Tab, KeyModifiers::SHIFT));
    }

    #[test]
    fn typed_turns_newlines_into_enter() {
        let keys = Input::typed("a\n");
        assert_eq!(keys, vec![Input::char('a'), Input::key(KeyCode::Enter)]);
        assert!(Input::ctrl('c').is_ctrl('c'));
        assert!(!Input::char('c').is_ctrl('c'));
    }
}
