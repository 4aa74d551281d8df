//! The dialogs part: one dialog shows at a time, others (an extension asking while a selector
//! is open) wait in line. Dialogs whose whole flow stays in dialogs are handled here (/login
//! and /logout, /mcp, /settings, /scoped-models, /hotkeys, extension questions); a dialog that
//! picks the target of a session operation (a model, a session, a tree entry...) hands back
//! an [`Answer`] for session control to act on.
//!
//! This file holds the state, what a key does to the open dialog and which answer it gives;
//! the flows are in the files beside it.

mod active;
mod login;
mod login_ui;
mod mcp_view;
mod scoped_models;
mod sessions;
mod settings;

use std::collections::VecDeque;
use std::path::PathBuf;

use rho_ai::{Model, ThinkingLevel};
use rho_tui::dialogs::{HotkeysView, SessionPick, TreePick};
use rho_tui::{Dialog, DialogAction, Input, Theme};

use crate::outbox::Outbox;
use crate::screen::{Screen, ScreenMsg};
use crate::shared::Shared;
pub use active::ActiveDialog;

/// What to do with a session whose folder is gone (pi's choices, in its order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MissingCwdChoice {
    /// Open it, working here.
    Continue,
    /// Copy it into a new session of this folder and open that.
    Fork,
}

/// What a dialog chose for session control to act on.
pub enum Answer {
    /// /model: switch to this model; `true`: and make it the default.
    Model(Box<Model>, bool),
    /// /thinking: this level; `true`: and make it the default.
    ThinkingLevel(ThinkingLevel, bool),
    /// /resume: open this session file.
    Session(PathBuf),
    /// /resume of a session whose folder is gone: what to do (`None`: cancel).
    MissingCwd(PathBuf, Option<MissingCwdChoice>),
    /// /tree: move to this entry (a summary is asked for next).
    TreeTarget(String),
    /// /tree: move to `target`, summarizing the branch left or not.
    TreeMove {
        /// The entry.
        target: String,
        /// Summarize the branch being left.
        summarize: bool,
    },
    /// /fork: fork before this entry.
    Fork(String),
    /// /import: replace the session with this file, if confirmed.
    Import {
        /// The file.
        source: PathBuf,
        /// The user said yes.
        confirmed: bool,
    },
}

/// The open dialog and those waiting.
pub struct Dialogs {
    open: Option<ActiveDialog>,
    /// Dialogs asked for while another was open, in order.
    waiting: VecDeque<ActiveDialog>,
    /// Notices from the dialogs' tasks (a sign-in, an MCP server reconnecting).
    notices: Outbox<ScreenMsg>,
    /// Dialogs a task opens (a sign-in's questions).
    opener: Outbox<ActiveDialog>,
}

/// Closes a dialog: `Some(answer)` or `None` for a cancel; `Err` keeps it open.
fn closed<T>(action: DialogAction<T>) -> Result<Option<T>, ()> {
    match action {
        DialogAction::Pending => Err(()),
        DialogAction::Done(v) => Ok(Some(v)),
        DialogAction::Cancelled => Ok(None),
    }
}

impl Dialogs {
    /// No dialog open; tasks report through `notices` and open dialogs through `opener`.
    pub fn new(notices: Outbox<ScreenMsg>, opener: Outbox<ActiveDialog>) -> Self {
        Self {
            open: None,
            waiting: VecDeque::new(),
            notices,
            opener,
        }
    }

    /// Whether a dialog is open (it takes every key).
    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// The open dialog's lines.
    pub fn render(&self, width: usize, theme: &Theme) -> Option<Vec<String>> {
        self.open.as_ref().map(|d| d.render(width, theme))
    }

    /// Shows `dialog` now, or after the one that is open.
    pub fn open(&mut self, dialog: ActiveDialog) {
        if self.open.is_some() {
            self.waiting.push_back(dialog);
        } else {
            self.open = Some(dialog);
        }
    }

    /// Closes dialogs nobody waits for any more; the next waiting one shows.
    pub fn close_abandoned(&mut self) {
        self.waiting.retain(|d| !d.abandoned());
        if self.open.as_ref().is_some_and(ActiveDialog::abandoned) {
            self.open = self.waiting.pop_front();
        }
    }

    /// After an answer was acted on: the next waiting dialog shows, unless acting on it
    /// opened the next step (e.g. /login's key prompt, /tree's summary question).
    pub fn show_next(&mut self) {
        if self.open.is_none() {
            self.open = self.waiting.pop_front();
        }
    }

    /// Gives a key to the open dialog. Once it closes, its answer is acted on here, or handed
    /// back for session control; then [`Dialogs::show_next`].
    pub fn handle_input(
        &mut self,
        input: &Input,
        shared: &Shared,
        screen: &mut Screen,
    ) -> Option<Answer> {
        let mut dialog = self.open.take()?;
        match self.answer(&mut dialog, input, shared, screen) {
            Ok(answer) => answer,
            Err(()) => {
                self.open = Some(dialog);
                None
            }
        }
    }

    /// `Err(())` while the dialog stays open.
    fn answer(
        &mut self,
        dialog: &mut ActiveDialog,
        input: &Input,
        shared: &Shared,
        screen: &mut Screen,
    ) -> Result<Option<Answer>, ()> {
        let keys = &*shared.keymap;
        let answer = match dialog {
            ActiveDialog::Model(d) => {
                closed(d.handle(input, keys))?.map(|(m, save)| Answer::Model(Box::new(m), save))
            }
            ActiveDialog::Thinking(d) => closed(d.handle(input, keys))?
                .map(|(level, save)| Answer::ThinkingLevel(level, save)),
            ActiveDialog::Sessions(d) => match closed(d.handle(input, keys))? {
                Some(SessionPick::Resume(path)) => Some(Answer::Session(path)),
                Some(SessionPick::Delete(path)) => {
                    d.deleted(&path, sessions::delete_session_file(&path));
                    return Err(());
                }
                Some(SessionPick::Rename { path, name }) => {
                    sessions::apply_rename(d, &path, &name, shared);
                    return Err(());
                }
                None => None,
            },
            ActiveDialog::Tree(d) => match closed(d.handle(input, keys))? {
                Some(TreePick::Go(id)) => Some(Answer::TreeTarget(id)),
                Some(TreePick::Label(id, label)) => {
                    match shared.session.set_label(&id, label.as_deref()) {
                        Ok(()) => d.labelled(&id, label, &rho_session::time::now_iso()),
                        Err(e) => screen.notice(format!("Failed to set label: {e}"), true),
                    }
                    return Err(());
                }
                Some(TreePick::Copy(Some(text))) => {
                    screen.copy_to_clipboard(&text);
                    screen.notice("Copied selected message to clipboard".into(), false);
                    return Err(());
                }
                Some(TreePick::Copy(None)) => {
                    screen.notice("Selected entry has no text to copy".into(), true);
                    return Err(());
                }
                None => None,
            },
            ActiveDialog::MissingCwd(d, path) => {
                use MissingCwdChoice as C;
                let choice = closed(d.handle(input, keys))?.and_then(|i| match i {
                    0 => Some(C::Continue),
                    1 => Some(C::Fork),
                    _ => None,
                });
                Some(Answer::MissingCwd(path.clone(), choice))
            }
            ActiveDialog::TreeSummary(d, target) => {
                closed(d.handle(input, keys))?.map(|choice| Answer::TreeMove {
                    target: target.clone(),
                    summarize: choice == 1,
                })
            }
            ActiveDialog::Fork(d, ids) => {
                closed(d.handle(input, keys))?.map(|i| Answer::Fork(ids[i].clone()))
            }
            ActiveDialog::Import(d, source) => {
                let confirmed = closed(d.handle(input, keys))?.unwrap_or(false);
                Some(Answer::Import {
                    source: source.clone(),
                    confirmed,
                })
            }
            ActiveDialog::Settings(d) => {
                if let Some(changes) = closed(d.handle(input, keys))? {
                    self.apply_settings(changes, shared, screen);
                }
                None
            }
            ActiveDialog::Hotkeys(d) => {
                closed(d.handle(input, keys))?;
                None
            }
            ActiveDialog::LoginProvider(d, choices) => {
                if let Some(i) = closed(d.handle(input, keys))? {
                    self.choose_login(choices[i].clone(), shared, screen);
                }
                None
            }
            ActiveDialog::LoginKey(d, provider) => {
                if let Some(key) = closed(d.handle(input, keys))? {
                    self.store_key(provider, key.trim(), shared, screen);
                }
                None
            }
            ActiveDialog::Logout(d, providers) => {
                if let Some(i) = closed(d.handle(input, keys))? {
                    self.remove_key(&providers[i].clone(), shared, screen);
                }
                None
            }
            ActiveDialog::McpServers(d, names) => {
                if let Some(i) = closed(d.handle(input, keys))? {
                    self.open_mcp_server(&names[i].clone(), shared, screen);
                }
                None
            }
            ActiveDialog::McpServer(d, name, actions) => {
                match closed(d.handle(input, keys))? {
                    Some(i) => {
                        let server = shared.options.host.mcp().and_then(|m| m.server(name).ok());
                        if let Some(server) = server {
                            self.mcp_act(server, actions[i], shared, screen);
                        }
                    }
                    None => self.mcp_command("", shared, screen),
                }
                None
            }
            ActiveDialog::McpTools(d, name) => {
                closed(d.handle(input, keys))?;
                self.open_mcp_server(&name.clone(), shared, screen);
                None
            }
            ActiveDialog::ScopedModels(d) => {
                if let Some(choice) = closed(d.handle(input, keys))? {
                    self.apply_scope(choice, shared, screen);
                }
                None
            }
            ActiveDialog::ExtSelect(d, options, reply) => {
                let choice = closed(d.handle(input, keys))?;
                if let Some(reply) = reply.take() {
                    let _ = reply.send(choice.map(|i| options[i].clone()));
                }
                None
            }
            ActiveDialog::ExtConfirm(d, reply) => {
                let yes = closed(d.handle(input, keys))?.unwrap_or(false);
                if let Some(reply) = reply.take() {
                    let _ = reply.send(yes);
                }
                None
            }
            ActiveDialog::ExtInput(d, reply) => {
                let text = closed(d.handle(input, keys))?;
                if let Some(reply) = reply.take() {
                    let _ = reply.send(text);
                }
                None
            }
            ActiveDialog::ExtEditor(d, reply) => {
                let text = closed(d.handle(input, keys))?;
                if let Some(reply) = reply.take() {
                    let _ = reply.send(text);
                }
                None
            }
        };
        Ok(answer)
    }

    /// /hotkeys: the keys in effect (keybindings.json applied), then `extension_rows` (the
    /// extension shortcuts: key, what it does). `fullscreen_height` is the fullscreen layout's
    /// height, when it is on: the list scrolls under the transcript instead of filling it.
    pub fn open_hotkeys(
        &mut self,
        shared: &Shared,
        extension_rows: Vec<(String, String)>,
        fullscreen_height: Option<usize>,
    ) {
        let fullscreen = fullscreen_height.is_some();
        let mut rows = crate::keybindings::hotkey_rows(&shared.keymap, fullscreen);
        if !extension_rows.is_empty() {
            rows.push(("Extensions".into(), String::new()));
        }
        // pi lists extension shortcuts after the built-in keys.
        rows.extend(extension_rows);
        let mut view = HotkeysView::new(rows);
        if let Some(height) = fullscreen_height {
            view = view.with_max_rows(height.saturating_sub(12).max(5));
        }
        self.open(ActiveDialog::Hotkeys(view));
    }
}
