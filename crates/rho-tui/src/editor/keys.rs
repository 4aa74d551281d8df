//! The editor's key bindings (pi's defaults) and the edits they make. Paste markers behave as
//! one character: the cursor steps over them and deleting into one removes all of it.

use super::{layout, paste, Editor, EditorAction};
use crate::input::{Input, KeyCode, KeyModifiers};

use EditorAction::{Handled, Ignored};

const NONE: KeyModifiers = KeyModifiers::NONE;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;
const ALT: KeyModifiers = KeyModifiers::ALT;
const SHIFT: KeyModifiers = KeyModifiers::SHIFT;

/// Dispatches one input.
pub(super) fn handle(ed: &mut Editor, input: &Input) -> EditorAction {
    match input {
        Input::Paste(text) => {
            ed.paste(text);
            Handled
        }
        Input::Resize(..) => Ignored,
        Input::Key(_) => {
            if ed.completion.is_open() {
                if let Some(action) = popup_key(ed, input) {
                    return action;
                }
            }
            key(ed, input)
        }
    }
}

/// Keys the open popup takes; `None` lets the editor handle the key.
fn popup_key(ed: &mut Editor, input: &Input) -> Option<EditorAction> {
    if input.is_plain(KeyCode::Up) {
        ed.completion.select(-1);
    } else if input.is_plain(KeyCode::Down) {
        ed.completion.select(1);
    } else if input.is_plain(KeyCode::Esc) {
        ed.completion.dismiss();
    } else if input.is_plain(KeyCode::Tab) {
        ed.accept_completion();
    } else if input.is_plain(KeyCode::Enter) {
        if ed.accept_completion() && !ed.is_empty() {
            return Some(EditorAction::Submit(ed.take_submission()));
        }
    } else {
        return None;
    }
    Some(Handled)
}

/// A typed character: plain or shifted (the case carries the shift).
fn typed_char(input: &Input) -> Option<char> {
    let k = input.as_key()?;
    match k.code {
        KeyCode::Char(c) if (k.modifiers - SHIFT).is_empty() => Some(c),
        _ => None,
    }
}

fn key(ed: &mut Editor, input: &Input) -> EditorAction {
    if let Some(c) = typed_char(input) {
        ed.insert(c.encode_utf8(&mut [0; 4]));
        return Handled;
    }
    let Some(k) = input.as_key() else {
        return Ignored;
    };
    let b = &ed.buf;
    let cursor = b.cursor;
    match (k.code, k.modifiers) {
        (KeyCode::Enter, NONE) => return ed.enter(),
        (KeyCode::Enter, SHIFT) | (KeyCode::Char('j'), CTRL) => ed.insert("\n"),
        (KeyCode::Backspace, NONE) | (KeyCode::Char('h'), CTRL) => ed.delete_to(b.prev(cursor)),
        (KeyCode::Delete, NONE) => ed.delete_to(b.next(cursor)),
        (KeyCode::Char('d'), CTRL) if !ed.is_empty() => ed.delete_to(b.next(cursor)),
        (KeyCode::Backspace, ALT) | (KeyCode::Char('w'), CTRL) => ed.delete_to(b.word_left()),
        (KeyCode::Delete, ALT) | (KeyCode::Char('d'), ALT) => ed.delete_to(b.word_right()),
        (KeyCode::Char('u'), CTRL) => ed.delete_to(line_start_or_prev(ed)),
        (KeyCode::Char('k'), CTRL) => ed.delete_to(line_end_or_next(ed)),
        (KeyCode::Left, NONE) | (KeyCode::Char('b'), CTRL) => ed.move_to(b.prev(cursor), false),
        (KeyCode::Right, NONE) | (KeyCode::Char('f'), CTRL) => ed.move_to(b.next(cursor), true),
        (KeyCode::Left, ALT | CTRL) | (KeyCode::Char('b'), ALT) => ed.move_to(b.word_left(), false),
        (KeyCode::Right, ALT | CTRL) | (KeyCode::Char('f'), ALT) => {
            ed.move_to(b.word_right(), true)
        }
        (KeyCode::Home, NONE) | (KeyCode::Char('a'), CTRL) => {
            ed.move_to(b.line_start(cursor), false)
        }
        (KeyCode::End, NONE) | (KeyCode::Char('e'), CTRL) => ed.move_to(b.line_end(cursor), true),
        (KeyCode::Tab, NONE) => return ed.complete_path(),
        (KeyCode::Up, NONE) => ed.up(),
        (KeyCode::Down, NONE) => ed.down(),
        _ => return Ignored,
    }
    Handled
}

/// Ctrl+U's target: the line's start, or (already there) the previous line's end.
fn line_start_or_prev(ed: &Editor) -> usize {
    let start = ed.buf.line_start(ed.buf.cursor);
    if start == ed.buf.cursor {
        ed.buf.prev(start)
    } else {
        start
    }
}

/// Ctrl+K's target: the line's end, or (already there) the next line's start.
fn line_end_or_next(ed: &Editor) -> usize {
    let end = ed.buf.line_end(ed.buf.cursor);
    if end == ed.buf.cursor {
        ed.buf.next(end)
    } else {
        end
    }
}

impl Editor {
    /// A bracketed paste: normalized, a path pasted right after a word gets a space before it
    /// (pi), a large paste goes in as a marker. Completion is not triggered by a paste.
    fn paste(&mut self, text: &str) {
        let mut text = paste::normalize(text);
        let after_word = self.buf.text[..self.buf.cursor]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        if after_word && text.starts_with(['/', '~', '.']) {
            text.insert(0, ' ');
        }
        let text = self.pastes.insertion(text);
        self.insert(&text);
        self.completion.close();
    }

    /// Inserts at the cursor (a typed character, a newline, a paste or its marker).
    fn insert(&mut self, text: &str) {
        let at = self.snap(self.buf.cursor, true);
        self.buf.cursor = at;
        self.buf.insert(text);
        self.edited();
    }

    /// Deletes from the cursor to `to` (either side), widened to whole paste markers.
    fn delete_to(&mut self, to: usize) {
        let (mut start, mut end) = if to < self.buf.cursor {
            (to, self.buf.cursor)
        } else {
            (self.buf.cursor, to)
        };
        if start == end {
            return;
        }
        for m in self.pastes.markers(&self.buf.text) {
            if m.start < end && start < m.end {
                start = start.min(m.start);
                end = end.max(m.end);
            }
        }
        self.buf.delete(start, end);
        self.edited();
    }

    /// Moves the cursor to `to`, out of any paste marker (`forward`: to its end). Moving closes
    /// the popup (pi); the next edit brings it back where the text calls for it.
    fn move_to(&mut self, to: usize, forward: bool) {
        self.buf.cursor = self.snap(to, forward);
        self.completion.close();
    }

    /// `at`, or the nearer edge of a paste marker it falls inside in the direction of travel.
    fn snap(&self, at: usize, forward: bool) -> usize {
        self.pastes
            .markers(&self.buf.text)
            .into_iter()
            .find(|m| m.start < at && at < m.end)
            .map_or(at, |m| if forward { m.end } else { m.start })
    }

    /// After any text change: history browsing ends, completion follows the text.
    fn edited(&mut self) {
        self.history.reset();
        self.completion.refresh(&self.buf, true);
    }

    /// Enter without a popup: `\` before the cursor continues on a new line; otherwise
    /// non-blank text is submitted.
    fn enter(&mut self) -> EditorAction {
        let cursor = self.buf.cursor;
        if self.buf.text[..cursor].ends_with('\\') {
            self.buf.delete(cursor - 1, cursor);
            self.insert("\n");
            return Handled;
        }
        if self.buf.text.trim().is_empty() {
            return Handled;
        }
        EditorAction::Submit(self.take_submission())
    }

    /// Applies the selected completion; true when it was a command typed in full.
    fn accept_completion(&mut self) -> bool {
        let Some(accepted) = self.completion.accept() else {
            return false;
        };
        self.replace_before_cursor(accepted.start, &accepted.text);
        accepted.complete_command
    }

    /// Replaces `start..cursor` with `text`, the cursor after it.
    fn replace_before_cursor(&mut self, start: usize, text: &str) {
        let cursor = self.buf.cursor;
        self.buf.text.replace_range(start..cursor, text);
        self.buf.cursor = start + text.len();
        self.edited();
    }

    /// Tab without a popup: path completion of the word before the cursor, when it looks
    /// like a path.
    fn complete_path(&mut self) -> EditorAction {
        if let Some(accepted) = self.completion.force_path(&self.buf) {
            self.replace_before_cursor(accepted.start, &accepted.text);
            return Handled;
        }
        if self.completion.is_open() {
            Handled
        } else {
            Ignored
        }
    }

    /// Up: a row up; on the first row, older history when the editor is empty or already
    /// showing history, else the start of the text.
    fn up(&mut self) {
        let rows = layout::rows(&self.buf.text, self.width.get());
        let row = layout::row_of(&rows, self.buf.cursor);
        if row > 0 {
            self.move_row(&rows, row, row - 1);
        } else if self.is_empty() || self.history.browsing() {
            if let Some(entry) = self.history.older(&self.buf.text) {
                let entry = entry.to_string();
                self.recall(&entry);
            }
        } else {
            self.move_to(0, false);
        }
    }

    /// Down: a row down; on the last row, newer history (then the draft) while browsing, else
    /// the end of the text.
    fn down(&mut self) {
        let rows = layout::rows(&self.buf.text, self.width.get());
        let row = layout::row_of(&rows, self.buf.cursor);
        if row + 1 < rows.len() {
            self.move_row(&rows, row, row + 1);
        } else if self.history.browsing() {
            if let Some(entry) = self.history.newer() {
                let entry = entry.to_string();
                self.recall(&entry);
            }
        } else {
            self.move_to(self.buf.text.len(), true);
        }
    }

    fn move_row(&mut self, rows: &[layout::Row], from: usize, to: usize) {
        let col = layout::column(&self.buf.text, rows[from], self.buf.cursor);
        let target = layout::offset_at(&self.buf.text, rows[to], col);
        self.move_to(target, to > from);
    }

    /// Shows a history entry (or the draft) without ending the browsing.
    fn recall(&mut self, text: &str) {
        self.buf.set(text);
        self.completion.close();
    }
}
