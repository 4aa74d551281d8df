//! The interactive prompt editor at the bottom of the screen (pi's editor): multi-line editing
//! with readline-style keys, history recall, large pastes folded into markers, and completion
//! popups for slash commands and `@file` references.
//!
//! The editor only consumes keys it has a use for; everything else comes back as
//! [`EditorAction::Ignored`] so the interactive loop can bind it.

mod buffer;
mod complete;
mod edit;
mod files;
mod fuzzy;
mod history;
mod keys;
mod kill;
mod layout;
mod paste;
mod popup;
mod scroll;

use std::cell::Cell;
use std::path::PathBuf;

use crate::components::{indent_lines, Component, EditorView};
use crate::theme::{Color, Theme};
use buffer::Buffer;
use complete::Completion;
use edit::Last;
use history::History;
use kill::KillRing;
use paste::Pastes;

pub use keys::ACTIONS;

/// One entry of a completion popup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletionItem {
    /// What is inserted on acceptance. For commands: the name without the leading `/` (a
    /// leading `/` is tolerated), e.g. `model` or `skill:review`.
    pub value: String,
    /// What the popup shows.
    pub label: String,
    /// Dim text shown beside the label.
    pub description: String,
}

/// What the editor did with one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditorAction {
    /// The input was used (text changed, cursor moved, popup navigated...).
    Handled,
    /// Enter with non-empty text and no popup open: the text with paste markers expanded.
    /// The editor has already recorded it in history and cleared itself.
    Submit(String),
    /// The editor does not use this input (Esc with no popup, Ctrl+C, Ctrl+D, Alt+Enter,
    /// Ctrl+O, Ctrl+T, Ctrl+L, Ctrl+P, Shift+Tab, ...): the interactive loop decides.
    Ignored,
}

/// The prompt editor. Feed it inputs with [`Editor::handle`], draw it with [`Editor::render`].
#[derive(Debug)]
pub struct Editor {
    buf: Buffer,
    history: History,
    pastes: Pastes,
    completion: Completion,
    /// States before each edit, for Ctrl+-.
    undo: Vec<Buffer>,
    kill: KillRing,
    last: Last,
    /// The text width of the last render: Up/Down move by the rows the user saw.
    width: Cell<usize>,
    padding_x: usize,
    /// Rows the box may show (from the terminal's height); `None`: all of them.
    max_rows: Option<usize>,
    /// First text row shown when the box scrolls.
    scroll: Cell<usize>,
    /// Column Up/Down aim for across consecutive vertical moves (pi's sticky column).
    goal_col: Option<usize>,
    /// `tui.editor.jumpForward` (true) or `jumpBackward` (false) was pressed: the next
    /// character typed is where the cursor jumps.
    jump: Option<bool>,
}

impl Editor {
    /// An empty editor completing `@file` references under `cwd`.
    pub fn new(cwd: PathBuf) -> Self {
        Self {
            buf: Buffer::default(),
            history: History::default(),
            pastes: Pastes::default(),
            completion: Completion::new(cwd),
            undo: Vec::new(),
            kill: KillRing::default(),
            last: Last::Other,
            width: Cell::new(80),
            padding_x: 0,
            max_rows: None,
            scroll: Cell::new(0),
            goal_col: None,
            jump: None,
        }
    }

    /// Slash-command completions (built-ins, extension commands, `/skill:name`, templates).
    pub fn set_commands(&mut self, items: Vec<CompletionItem>) {
        self.completion.set_commands(items);
    }

    /// The commands that complete their arguments: `/name <prefix>` asks for completions
    /// ([`Editor::argument_query`]), supplied with [`Editor::set_argument_completions`].
    pub fn set_argument_commands(&mut self, names: Vec<String>) {
        self.completion.set_argument_commands(names);
    }

    /// The command and prefix whose argument completions the text asks for now.
    pub fn argument_query(&self) -> Option<(String, String)> {
        self.completion.argument_query(&self.buf)
    }

    /// The completions of `command`'s arguments for `prefix`: shown if the text still asks
    /// for them.
    pub fn set_argument_completions(
        &mut self,
        command: String,
        prefix: String,
        items: Vec<CompletionItem>,
    ) {
        self.completion.set_arguments(command, prefix, items);
        self.completion.refresh(&self.buf, false);
    }

    /// How many completion rows the popup shows at most (pi's `autocompleteMaxVisible`
    /// setting, clamped to 3–20; 8 until set).
    pub fn set_autocomplete_max_visible(&mut self, rows: usize) {
        self.completion.set_max_visible(rows);
    }

    /// Spaces left and right of the text (pi's `editorPaddingX`, clamped to 0–3).
    pub fn set_padding_x(&mut self, padding: usize) {
        self.padding_x = padding.min(3);
    }

    /// The terminal's height: the box then shows at most 30% of it (at least 5 rows) and
    /// scrolls to keep the cursor in view. `Input::Resize` updates it too (and is still
    /// returned as Ignored). Until set, the box shows every row.
    pub fn set_terminal_rows(&mut self, rows: usize) {
        self.max_rows = Some(scroll::max_rows(rows));
    }

    /// Handles one input with the actions `keys` binds; see [`EditorAction`].
    pub fn handle(&mut self, input: &crate::Input, keys: &crate::Keymap) -> EditorAction {
        keys::handle(self, input, keys)
    }

    /// Raw text (paste markers unexpanded).
    pub fn text(&self) -> &str {
        &self.buf.text
    }

    /// Replaces the text (line endings and tabs normalized as for a paste); the cursor goes to
    /// the end. Undoable with Ctrl+-.
    pub fn set_text(&mut self, text: &str) {
        let text = paste::normalize(text);
        if text != self.buf.text {
            self.push_undo();
        }
        self.buf.set(&text);
        self.history.reset();
        self.completion.close();
        self.last = Last::Other;
    }

    /// The text with paste markers expanded (what a submission would send), the editor
    /// unchanged (the external editor gets it).
    pub fn expanded_text(&self) -> String {
        self.pastes.expand(&self.buf.text)
    }

    /// Inserts `text` at the cursor as one undo step (a clipboard paste's text or file path).
    pub fn insert_text(&mut self, text: &str) {
        self.insert(&paste::normalize(text));
        self.completion.close();
    }

    /// True when there is no text at all.
    pub fn is_empty(&self) -> bool {
        self.buf.text.is_empty()
    }

    /// Empties the editor and closes any popup. Undoable with Ctrl+- (pi: Ctrl+C clears, and
    /// the text can be brought back), so pastes are kept until the next submission.
    pub fn clear(&mut self) {
        self.set_text("");
    }

    /// Takes the text for a submission made by the loop (e.g. Alt+Enter follow-up): returns
    /// it with markers expanded, records history, clears. Same as what Submit carries.
    pub fn take_submission(&mut self) -> String {
        let text = self.pastes.expand(self.buf.text.trim());
        self.history.add(&text);
        self.buf = Buffer::default();
        self.pastes.clear();
        self.undo.clear();
        self.history.reset();
        self.completion.close();
        self.last = Last::Other;
        text
    }

    /// Records `text` as a previous submission (e.g. one restored from the session).
    pub fn add_to_history(&mut self, text: &str) {
        self.history.add(text);
    }

    /// True while a completion popup is open (Esc, Up/Down, Tab and Enter go to it).
    pub fn is_completing(&self) -> bool {
        self.completion.is_open()
    }

    /// The editor box (EditorView look, border colour given) and, below it, the completion
    /// popup when open.
    pub fn render(&self, width: usize, theme: &Theme, border: Color) -> Vec<String> {
        self.width
            .set(width.saturating_sub(2 * self.padding_x).max(1));
        let mut view = EditorView::new(border);
        view.text = self.buf.text.clone();
        view.cursor = self.buf.cursor;
        view.padding_x = self.padding_x;
        let mut lines = view.render(width, theme);
        if let Some(max) = self.max_rows {
            let mut offset = self.scroll.get();
            lines = scroll::window(lines, max, &mut offset, width, theme, border);
            self.scroll.set(offset);
        }
        let popup = self.completion.render(self.width.get(), theme);
        lines.extend(indent_lines(popup, self.padding_x));
        lines
    }
}
