//! The edits and moves behind the keys. Paste markers behave as one character: the cursor steps
//! over them and deleting into one removes all of it. Edits are undoable (typing a word is one
//! step, as in pi) and removals by word or line go to the kill ring.

use super::{layout, paste, scroll, Editor, EditorAction};

use EditorAction::{Handled, Ignored};

/// Undo keeps at most this many steps.
const MAX_UNDO: usize = 200;

/// The previous key's kind of edit, for undo grouping, kill accumulation and yank-pop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Last {
    Other,
    TypeWord,
    Kill,
    Yank,
}

/// Ctrl+U's target: the line's start, or (already there) the previous line's end.
pub(super) fn line_start_or_prev(ed: &Editor) -> usize {
    let start = ed.buf.line_start(ed.buf.cursor);
    if start == ed.buf.cursor {
        ed.buf.prev(start)
    } else {
        start
    }
}

/// Ctrl+K's target: the line's end, or (already there) the next line's start.
pub(super) fn line_end_or_next(ed: &Editor) -> usize {
    let end = ed.buf.line_end(ed.buf.cursor);
    if end == ed.buf.cursor {
        ed.buf.next(end)
    } else {
        end
    }
}

impl Editor {
    /// Saves the state for Ctrl+- (before an edit).
    pub(super) fn push_undo(&mut self) {
        if self.undo.len() == MAX_UNDO {
            self.undo.remove(0);
        }
        self.undo.push(self.buf.clone());
    }

    /// Ctrl+-: back to the state before the last edit.
    pub(super) fn undo(&mut self) {
        if let Some(state) = self.undo.pop() {
            self.buf = state;
            self.edited();
        }
    }

    /// A typed character. A run of non-blank characters is undone as one step.
    pub(super) fn type_char(&mut self, c: char, last: Last) {
        if c.is_whitespace() || last != Last::TypeWord {
            self.push_undo();
        }
        self.insert_raw(c.encode_utf8(&mut [0; 4]));
        self.last = Last::TypeWord;
    }

    /// Deletes to `to` and keeps the text in the kill ring (joined to the previous kill when
    /// `accumulate`).
    pub(super) fn kill_to(&mut self, to: usize, accumulate: bool) {
        let backward = to < self.buf.cursor;
        if let Some(text) = self.delete_to(to) {
            self.kill.push(&text, backward, accumulate);
        }
        self.last = Last::Kill;
    }

    /// Ctrl+Y: inserts the newest kill.
    pub(super) fn yank(&mut self) {
        let Some(text) = self.kill.peek().map(str::to_string) else {
            return;
        };
        self.push_undo();
        self.buf.cursor = self.snap(self.buf.cursor, true);
        self.buf.insert(&text);
        self.edited();
        self.last = Last::Yank;
    }

    /// Alt+Y right after a yank: replaces the yanked text with the next older kill.
    pub(super) fn yank_pop(&mut self, last: Last) {
        if last != Last::Yank || self.kill.len() < 2 {
            return;
        }
        let len = self.kill.peek().map_or(0, str::len);
        let end = self.buf.cursor;
        let Some(start) = end.checked_sub(len) else {
            return;
        };
        self.push_undo();
        self.buf.delete(start, end);
        self.kill.rotate();
        if let Some(text) = self.kill.peek().map(str::to_string) {
            self.buf.insert(&text);
        }
        self.edited();
        self.last = Last::Yank;
    }

    /// A bracketed paste: normalized, a path pasted right after a word gets a space before it
    /// (pi), a large paste goes in as a marker. Completion is not triggered by a paste.
    pub(super) fn paste(&mut self, text: &str) {
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

    /// pi's jump to a character: the cursor moves to the next (or, backward, the previous)
    /// `c` after (before) it, across lines; it stays when there is none.
    pub(super) fn jump_to(&mut self, c: char, forward: bool) {
        let cursor = self.buf.cursor;
        let found = if forward {
            let from = self.buf.next(cursor);
            self.buf.text[from..].find(c).map(|i| from + i)
        } else {
            self.buf.text[..cursor].rfind(c)
        };
        if let Some(at) = found {
            self.buf.cursor = self.snap(at, forward);
        }
    }

    /// Inserts at the cursor as one undo step (a newline, a paste or its marker).
    pub(super) fn insert(&mut self, text: &str) {
        self.push_undo();
        self.insert_raw(text);
    }

    fn insert_raw(&mut self, text: &str) {
        let at = self.snap(self.buf.cursor, true);
        self.buf.cursor = at;
        self.buf.insert(text);
        self.edited();
    }

    /// Deletes from the cursor to `to` (either side), widened to whole paste markers; returns
    /// what was removed.
    pub(super) fn delete_to(&mut self, to: usize) -> Option<String> {
        let (mut start, mut end) = if to < self.buf.cursor {
            (to, self.buf.cursor)
        } else {
            (self.buf.cursor, to)
        };
        if start == end {
            return None;
        }
        for m in self.pastes.markers(&self.buf.text) {
            if m.start < end && start < m.end {
                start = start.min(m.start);
                end = end.max(m.end);
            }
        }
        self.push_undo();
        let removed = self.buf.text[start..end].to_string();
        self.buf.delete(start, end);
        self.edited();
        Some(removed)
    }

    /// Moves the cursor to `to`, out of any paste marker (`forward`: to its end). Moving closes
    /// the popup (pi); the next edit brings it back where the text calls for it.
    pub(super) fn move_to(&mut self, to: usize, forward: bool) {
        self.buf.cursor = self.snap(to, forward);
        self.completion.close();
    }

    /// `at`, or the nearer edge of a paste marker it falls inside in the direction of travel.
    pub(super) fn snap(&self, at: usize, forward: bool) -> usize {
        self.pastes
            .markers(&self.buf.text)
            .into_iter()
            .find(|m| m.start < at && at < m.end)
            .map_or(at, |m| if forward { m.end } else { m.start })
    }

    /// After any text change: history browsing ends, completion follows the text.
    pub(super) fn edited(&mut self) {
        self.history.reset();
        self.completion.refresh(&self.buf, true);
    }

    /// Enter without a popup: `\` before the cursor continues on a new line; otherwise
    /// non-blank text is submitted.
    pub(super) fn enter(&mut self) -> EditorAction {
        let cursor = self.buf.cursor;
        if self.buf.text[..cursor].ends_with('\\') {
            self.push_undo();
            self.buf.delete(cursor - 1, cursor);
            self.insert_raw("\n");
            return Handled;
        }
        if self.buf.text.trim().is_empty() {
            return Handled;
        }
        EditorAction::Submit(self.take_submission())
    }

    /// Applies the selected completion; true when it was a command typed in full.
    pub(super) fn accept_completion(&mut self) -> bool {
        let Some(accepted) = self.completion.accept() else {
            return false;
        };
        self.replace_before_cursor(accepted.start, &accepted.text);
        if accepted.settles {
            self.completion.dismiss();
        }
        accepted.complete_command
    }

    /// Replaces `start..cursor` with `text`, the cursor after it.
    pub(super) fn replace_before_cursor(&mut self, start: usize, text: &str) {
        let cursor = self.buf.cursor;
        if start > cursor || !self.buf.text.is_char_boundary(start) {
            return;
        }
        self.push_undo();
        self.buf.text.replace_range(start..cursor, text);
        self.buf.cursor = start + text.len();
        self.edited();
    }

    /// Tab without a popup: path completion of the word before the cursor, when it looks
    /// like a path.
    pub(super) fn complete_path(&mut self) -> EditorAction {
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
    pub(super) fn up(&mut self) {
        let rows = layout::rows(&self.buf.text, self.width.get());
        let row = layout::row_of(&rows, self.buf.cursor);
        if row > 0 {
            self.move_row(&rows, row, row - 1);
        } else if self.is_empty() || self.history.browsing() {
            self.history_older();
        } else {
            self.move_to(0, false);
        }
    }

    /// pi's `tui.editor.historyPrevious`: the previous prompt, wherever the cursor is.
    pub(super) fn history_older(&mut self) {
        let entering = !self.history.browsing();
        if let Some(entry) = self.history.older(&self.buf.text) {
            let entry = entry.to_string();
            if entering {
                self.push_undo();
            }
            self.recall(&entry);
        }
    }

    /// pi's `tui.editor.historyNext`: the next prompt (then the draft) while browsing.
    pub(super) fn history_newer(&mut self) {
        if let Some(entry) = self.history.newer() {
            let entry = entry.to_string();
            self.recall(&entry);
        }
    }

    /// Down: a row down; on the last row, newer history (then the draft) while browsing, else
    /// the end of the text.
    pub(super) fn down(&mut self) {
        let rows = layout::rows(&self.buf.text, self.width.get());
        let row = layout::row_of(&rows, self.buf.cursor);
        if row + 1 < rows.len() {
            self.move_row(&rows, row, row + 1);
        } else if self.history.browsing() {
            self.history_newer();
        } else {
            self.move_to(self.buf.text.len(), true);
        }
    }

    /// Moves to row `to`, aiming for the column the vertical moves started in.
    pub(super) fn move_row(&mut self, rows: &[layout::Row], from: usize, to: usize) {
        let col = self
            .goal_col
            .unwrap_or_else(|| layout::column(&self.buf.text, rows[from], self.buf.cursor));
        let target = layout::offset_at(&self.buf.text, rows[to], col);
        self.move_to(target, to > from);
        self.goal_col = Some(col);
    }

    /// PageUp/PageDown: the cursor moves by a box height of rows.
    pub(super) fn page(&mut self, direction: isize) {
        let rows = layout::rows(&self.buf.text, self.width.get());
        let row = layout::row_of(&rows, self.buf.cursor);
        let step = self.max_rows.unwrap_or(scroll::max_rows(0));
        let to = if direction < 0 {
            row.saturating_sub(step)
        } else {
            (row + step).min(rows.len() - 1)
        };
        if to != row {
            self.move_row(&rows, row, to);
        }
    }

    /// Shows a history entry (or the draft) without ending the browsing.
    pub(super) fn recall(&mut self, text: &str) {
        self.buf.set(text);
        self.goal_col = None;
        self.completion.close();
    }
}
