//! pi 1.6's `/resume` picker: the sessions of this folder (Tab: of every folder), threaded
//! under the session each was forked from, one row each with its age and message count.
//! Typing searches (see `search`); Ctrl+S changes the sort, Ctrl+N shows named sessions only,
//! Ctrl+P shows file paths, Ctrl+R renames the selected session and Ctrl+D (or Ctrl+Backspace
//! on an empty query) deletes it after a confirmation. Keys are pi's `app.session.*` actions.
//!
//! The picker only decides: renaming and deleting are done by the caller, which then tells
//! the picker ([`SessionPicker::renamed`], [`SessionPicker::deleted`]) and keeps it open.

mod search;
mod view;

use std::path::{Path, PathBuf};

use rho_protocol::session::SessionSummary;

pub use search::SortMode;
use search::{rows, Row};

use super::line_edit::LineEdit;
use crate::input::{Dialog, DialogAction, Input};
use crate::keymap::{Action, Keymap};
use crate::theme::Theme;

/// Which sessions the picker lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionScope {
    /// Sessions of the current working directory.
    CurrentFolder,
    /// Sessions of every project.
    All,
}

/// What the picker asks for when it closes (or, for a rename or a deletion, stays open).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionPick {
    /// Open this session.
    Resume(PathBuf),
    /// Delete this session file (confirmed).
    Delete(PathBuf),
    /// Name this session.
    Rename {
        /// The session file.
        path: PathBuf,
        /// The new name (trimmed, not empty).
        name: String,
    },
}

/// How a deleted session went away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deleted {
    /// Moved to the trash (the `trash` command).
    Trash,
    /// Removed.
    Unlink,
}

/// Why a session file could not be deleted: removing it failed, after the `trash` command
/// failed too (its first line of complaint kept, when it gave one).
#[derive(Debug, thiserror::Error)]
#[error("{source}{}", .trash.as_ref().map(|h| format!(" (trash: {h})")).unwrap_or_default())]
pub struct DeleteError {
    /// Why the file could not be removed.
    #[source]
    pub source: std::io::Error,
    /// What `trash` said (at most 200 characters), or why it did not run.
    pub trash: Option<String>,
}

/// What the picker is doing.
#[derive(Debug, Clone)]
enum Mode {
    List,
    /// Asking whether to delete this session.
    ConfirmDelete(PathBuf),
    /// Typing a new name for this session.
    Rename(PathBuf, LineEdit),
}

/// The keys the hints name, as keybindings.json binds them.
#[derive(Debug, Clone)]
struct KeyTexts {
    tab: String,
    sort: String,
    named: String,
    delete: String,
    path: String,
    rename: String,
    confirm: String,
    cancel: String,
}

impl KeyTexts {
    fn of(keys: &Keymap) -> Self {
        Self {
            tab: keys.display(Action::InputTab),
            sort: keys.display(Action::SessionToggleSort),
            named: keys.display(Action::SessionToggleNamedFilter),
            delete: keys.display(Action::SessionDelete),
            path: keys.display(Action::SessionTogglePath),
            rename: keys.display(Action::SessionRename),
            confirm: keys.display(Action::SelectConfirm),
            cancel: keys.display(Action::SelectCancel),
        }
    }
}

/// Picks a session; see the module notes.
#[derive(Debug, Clone)]
pub struct SessionPicker {
    current: Vec<SessionSummary>,
    all: Vec<SessionSummary>,
    scope: SessionScope,
    sort: SortMode,
    named_only: bool,
    show_path: bool,
    query: LineEdit,
    rows: Vec<Row>,
    selected: usize,
    mode: Mode,
    /// A one-line message in place of the hints (a deletion's result), until the next key.
    status: Option<(String, bool)>,
    /// The session in use (cannot be deleted; drawn in the accent colour).
    active: Option<PathBuf>,
    /// The home folder, written `~` in paths.
    home: Option<PathBuf>,
    /// Whether the hints name the rename key (pi leaves it out of the start-up picker).
    rename_hint: bool,
    now_ms: i64,
    max_rows: usize,
    keys: KeyTexts,
}

impl SessionPicker {
    /// A picker over this folder's sessions and every folder's, each newest first (as listed).
    /// Starts on the current folder unless it has no sessions. `now_ms` is the time ages are
    /// measured from (Unix ms), passed in so renders are reproducible; `keys` names the keys
    /// in the hints.
    pub fn new(
        current_project: Vec<SessionSummary>,
        all: Vec<SessionSummary>,
        now_ms: i64,
        keys: &Keymap,
    ) -> Self {
        let scope = if current_project.is_empty() && !all.is_empty() {
            SessionScope::All
        } else {
            SessionScope::CurrentFolder
        };
        let mut picker = Self {
            current: current_project,
            all,
            scope,
            sort: SortMode::Threaded,
            named_only: false,
            show_path: false,
            query: LineEdit::default(),
            rows: Vec::new(),
            selected: 0,
            mode: Mode::List,
            status: None,
            active: None,
            home: None,
            rename_hint: true,
            now_ms,
            max_rows: 10,
            keys: KeyTexts::of(keys),
        };
        picker.refilter();
        picker
    }

    /// Marks the session in use: it cannot be deleted.
    pub fn with_active(mut self, path: Option<PathBuf>) -> Self {
        self.active = path;
        self
    }

    /// Paths under `home` are written `~/…`.
    pub fn with_home(mut self, home: Option<PathBuf>) -> Self {
        self.home = home;
        self
    }

    /// Leaves the rename key out of the hints (pi's picker at start-up, `--resume`).
    pub fn without_rename_hint(mut self) -> Self {
        self.rename_hint = false;
        self
    }

    /// The scope being shown.
    pub fn scope(&self) -> SessionScope {
        self.scope
    }

    /// The sort in effect.
    pub fn sort(&self) -> SortMode {
        self.sort
    }

    /// The files of the rows shown, in order.
    pub fn shown_paths(&self) -> Vec<&Path> {
        let sessions = self.sessions();
        self.rows
            .iter()
            .map(|r| sessions[r.index].path.as_path())
            .collect()
    }

    /// The selected session's file.
    pub fn selected_path(&self) -> Option<&Path> {
        let row = self.rows.get(self.selected)?;
        Some(self.sessions().get(row.index)?.path.as_path())
    }

    fn sessions(&self) -> &[SessionSummary] {
        match self.scope {
            SessionScope::CurrentFolder => &self.current,
            SessionScope::All => &self.all,
        }
    }

    /// Recomputes the rows; the selection stays on its session when it is still shown.
    fn refilter(&mut self) {
        let keep = self.selected_path().map(Path::to_path_buf);
        self.refilter_keeping(keep);
    }

    /// Changes what is listed with `change`, keeping the selected session selected.
    fn relist(&mut self, change: impl FnOnce(&mut Self)) {
        let keep = self.selected_path().map(Path::to_path_buf);
        change(self);
        self.refilter_keeping(keep);
    }

    fn refilter_keeping(&mut self, keep: Option<PathBuf>) {
        let query = self.query.text();
        self.rows = rows(self.sessions(), &query, self.sort, self.named_only);
        self.selected = keep
            .and_then(|k| self.shown_paths().iter().position(|p| *p == k))
            .unwrap_or(0);
    }

    /// The caller deleted `path` (or failed to): the row goes, and the hints say how.
    pub fn deleted(&mut self, path: &Path, result: Result<Deleted, DeleteError>) {
        match result {
            Ok(how) => {
                self.relist(|p| {
                    p.current.retain(|s| s.path != path);
                    p.all.retain(|s| s.path != path);
                });
                let text = match how {
                    Deleted::Trash => "Session moved to trash",
                    Deleted::Unlink => "Session deleted",
                };
                self.status = Some((text.into(), false));
            }
            Err(e) => self.status = Some((format!("Failed to delete: {e}"), true)),
        }
    }

    /// Something the caller was asked to do failed: `message` shows in place of the hints.
    pub fn failed(&mut self, message: &str) {
        self.status = Some((message.to_string(), true));
    }

    /// The caller named `path` `name`.
    pub fn renamed(&mut self, path: &Path, name: &str) {
        for s in self.current.iter_mut().chain(self.all.iter_mut()) {
            if s.path == path {
                s.name = Some(name.to_string());
            }
        }
        self.refilter();
    }

    fn is_active(&self, path: &Path) -> bool {
        self.active.as_deref() == Some(path)
    }

    fn start_delete(&mut self) {
        let Some(path) = self.selected_path().map(Path::to_path_buf) else {
            return;
        };
        if self.is_active(&path) {
            self.status = Some(("Cannot delete the currently active session".into(), true));
            return;
        }
        self.mode = Mode::ConfirmDelete(path);
    }

    fn start_rename(&mut self) {
        let Some(row) = self.rows.get(self.selected) else {
            return;
        };
        let s = &self.sessions()[row.index];
        let edit = LineEdit::new(s.name.as_deref().unwrap_or(""));
        self.mode = Mode::Rename(s.path.clone(), edit);
    }

    fn move_by(&mut self, by: isize) {
        let last = self.rows.len().saturating_sub(1) as isize;
        self.selected = (self.selected as isize + by).clamp(0, last) as usize;
    }

    fn search_key(&mut self, input: &Input, keys: &Keymap) {
        let before = self.query.text();
        if self.query.apply(input, keys) && self.query.text() != before {
            self.refilter();
            if !self.query.text().trim().is_empty() {
                self.selected = 0;
            }
        }
    }

    /// Keys while the list shows (see the module notes).
    fn list_key(&mut self, input: &Input, keys: &Keymap) -> DialogAction<SessionPick> {
        use Action as A;
        const ACTIONS: &[Action] = &[
            A::InputTab,
            A::SessionToggleSort,
            A::SessionToggleNamedFilter,
            A::SessionTogglePath,
            A::SessionDelete,
            A::SessionRename,
            A::SessionDeleteNoninvasive,
            A::SelectUp,
            A::SelectDown,
            A::SelectPageUp,
            A::SelectPageDown,
            A::SelectConfirm,
            A::SelectCancel,
        ];
        let page = self.max_rows as isize;
        match keys.first_match(input, ACTIONS) {
            Some(A::InputTab) => self.relist(|p| {
                p.scope = match p.scope {
                    SessionScope::CurrentFolder => SessionScope::All,
                    SessionScope::All => SessionScope::CurrentFolder,
                };
            }),
            Some(A::SessionToggleSort) => self.relist(|p| p.sort = p.sort.next()),
            Some(A::SessionToggleNamedFilter) => self.relist(|p| p.named_only = !p.named_only),
            Some(A::SessionTogglePath) => self.show_path = !self.show_path,
            Some(A::SessionDelete) => self.start_delete(),
            Some(A::SessionRename) => self.start_rename(),
            Some(A::SessionDeleteNoninvasive) if !self.query.text().is_empty() => {
                self.search_key(&Input::key(crossterm::event::KeyCode::Backspace), keys)
            }
            Some(A::SessionDeleteNoninvasive) => self.start_delete(),
            Some(A::SelectUp) => self.move_by(-1),
            Some(A::SelectDown) => self.move_by(1),
            Some(A::SelectPageUp) => self.move_by(-page),
            Some(A::SelectPageDown) => self.move_by(page),
            Some(A::SelectConfirm) => {
                if let Some(path) = self.selected_path() {
                    return DialogAction::Done(SessionPick::Resume(path.to_path_buf()));
                }
            }
            Some(A::SelectCancel) => return DialogAction::Cancelled,
            _ => self.search_key(input, keys),
        }
        DialogAction::Pending
    }
}

impl Dialog for SessionPicker {
    type Output = SessionPick;

    fn handle(&mut self, input: &Input, keys: &Keymap) -> DialogAction<SessionPick> {
        if input.as_key().is_some() {
            self.status = None;
        }
        match std::mem::replace(&mut self.mode, Mode::List) {
            Mode::List => self.list_key(input, keys),
            Mode::ConfirmDelete(path) => {
                if keys.matches(input, Action::SelectConfirm) {
                    return DialogAction::Done(SessionPick::Delete(path));
                }
                if !keys.matches(input, Action::SelectCancel) {
                    self.mode = Mode::ConfirmDelete(path);
                }
                DialogAction::Pending
            }
            Mode::Rename(path, mut edit) => {
                if keys.matches(input, Action::SelectCancel) {
                    return DialogAction::Pending;
                }
                if keys.matches(input, Action::SelectConfirm) {
                    let name = edit.text().trim().to_string();
                    if !name.is_empty() {
                        return DialogAction::Done(SessionPick::Rename { path, name });
                    }
                } else {
                    edit.apply(input, keys);
                }
                self.mode = Mode::Rename(path, edit);
                DialogAction::Pending
            }
        }
    }

    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        view::render(self, width, theme)
    }
}
