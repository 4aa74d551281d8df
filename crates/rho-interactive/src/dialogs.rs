//! The dialogs the interactive mode opens, and what their answers do. One dialog shows at a
//! time; others (an extension asking while a selector is open) wait in line.

use rho_ai::Model;
use rho_session::listing::{list_all_sessions, list_sessions};
use rho_tui::dialogs::{
    ConfirmDialog, HotkeysView, InputDialog, ModelSelector, ScopedModelsDialog, SelectItem,
    SelectList, SessionPicker, SettingsDialog, TextAreaDialog, ThinkingSelector, TreeSelector,
};
use rho_tui::{Dialog, DialogAction, Input, Theme};
use tokio::sync::oneshot;

use super::app::{App, AppMsg};

/// An open dialog and what its answer is for.
pub enum ActiveDialog {
    /// /model, Ctrl+L.
    Model(ModelSelector),
    /// /thinking.
    Thinking(ThinkingSelector),
    /// /resume, `--resume`.
    Sessions(SessionPicker),
    /// /tree: pick an entry.
    Tree(TreeSelector),
    /// /tree: how to leave the old branch (summary or not), for the chosen entry.
    TreeSummary(SelectList, String),
    /// /fork: pick a user message (entry ids parallel to the items).
    Fork(SelectList, Vec<String>),
    /// /settings.
    Settings(SettingsDialog),
    /// /hotkeys.
    Hotkeys(HotkeysView),
    /// /login: pick a provider and how to log in.
    LoginProvider(SelectList, Vec<super::login::LoginChoice>),
    /// /login: the key for a provider.
    LoginKey(InputDialog, String),
    /// /logout: pick a stored provider.
    Logout(SelectList, Vec<String>),
    /// An extension's select.
    ExtSelect(
        SelectList,
        Vec<String>,
        Option<oneshot::Sender<Option<String>>>,
    ),
    /// An extension's confirm.
    ExtConfirm(ConfirmDialog, Option<oneshot::Sender<bool>>),
    /// An extension's input.
    ExtInput(InputDialog, Option<oneshot::Sender<Option<String>>>),
    /// An extension's multi-line editor.
    ExtEditor(TextAreaDialog, Option<oneshot::Sender<Option<String>>>),
    /// /scoped-models.
    ScopedModels(ScopedModelsDialog),
    /// /import: replace the session with this file?
    Import(ConfirmDialog, std::path::PathBuf),
    /// /mcp: pick a server (names parallel to the items).
    McpServers(SelectList, Vec<String>),
    /// /mcp: what to do with a server.
    McpServer(SelectList, String, Vec<super::mcp_view::McpAction>),
    /// /mcp: a server's tools (back to its menu).
    McpTools(SelectList, String),
}

impl ActiveDialog {
    /// An extension's select over `options`.
    pub fn ext_select(
        title: String,
        options: Vec<String>,
        reply: oneshot::Sender<Option<String>>,
    ) -> Self {
        let items = options.iter().map(|o| SelectItem::new(o, "")).collect();
        ActiveDialog::ExtSelect(SelectList::new(title, items), options, Some(reply))
    }

    /// An extension's yes/no question.
    pub fn ext_confirm(title: String, message: String, reply: oneshot::Sender<bool>) -> Self {
        ActiveDialog::ExtConfirm(ConfirmDialog::new(title, message), Some(reply))
    }

    /// An extension's one-line prompt.
    pub fn ext_input(
        title: String,
        placeholder: Option<String>,
        reply: oneshot::Sender<Option<String>>,
    ) -> Self {
        ActiveDialog::ExtInput(
            InputDialog::new(title, placeholder.unwrap_or_default()),
            Some(reply),
        )
    }

    /// An extension's multi-line editor.
    pub fn ext_editor(
        title: String,
        prefill: Option<String>,
        reply: oneshot::Sender<Option<String>>,
    ) -> Self {
        let area = TextAreaDialog::new(title, prefill.unwrap_or_default());
        ActiveDialog::ExtEditor(area, Some(reply))
    }

    /// The dialog's lines.
    pub fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        match self {
            ActiveDialog::Model(d) => d.render(width, theme),
            ActiveDialog::Thinking(d) => d.render(width, theme),
            ActiveDialog::Sessions(d) => d.render(width, theme),
            ActiveDialog::Tree(d) => d.render(width, theme),
            ActiveDialog::Settings(d) => d.render(width, theme),
            ActiveDialog::Hotkeys(d) => d.render(width, theme),
            ActiveDialog::ScopedModels(d) => d.render(width, theme),
            ActiveDialog::TreeSummary(d, _)
            | ActiveDialog::Fork(d, _)
            | ActiveDialog::LoginProvider(d, _)
            | ActiveDialog::Logout(d, _)
            | ActiveDialog::McpServers(d, _)
            | ActiveDialog::McpServer(d, _, _)
            | ActiveDialog::McpTools(d, _)
            | ActiveDialog::ExtSelect(d, _, _) => d.render(width, theme),
            ActiveDialog::LoginKey(d, _) | ActiveDialog::ExtInput(d, _) => d.render(width, theme),
            ActiveDialog::ExtConfirm(d, _) | ActiveDialog::Import(d, _) => d.render(width, theme),
            ActiveDialog::ExtEditor(d, _) => d.render(width, theme),
        }
    }
}

/// Closes a dialog: `Some(answer)` or `None` for a cancel; `Err` keeps it open.
fn closed<T>(action: DialogAction<T>) -> Result<Option<T>, ()> {
    match action {
        DialogAction::Pending => Err(()),
        DialogAction::Done(v) => Ok(Some(v)),
        DialogAction::Cancelled => Ok(None),
    }
}

impl ActiveDialog {
    /// Whether the one waiting for the answer went away (a sign-in whose browser redirect came
    /// first, an extension whose dialog timed out): nothing would use the answer.
    fn abandoned(&self) -> bool {
        match self {
            ActiveDialog::ExtSelect(_, _, Some(r)) | ActiveDialog::ExtInput(_, Some(r)) => {
                r.is_closed()
            }
            ActiveDialog::ExtEditor(_, Some(r)) => r.is_closed(),
            ActiveDialog::ExtConfirm(_, Some(r)) => r.is_closed(),
            _ => false,
        }
    }
}

impl App {
    /// Closes dialogs nobody waits for any more; the next waiting one shows.
    pub(super) fn close_abandoned_dialogs(&mut self) {
        self.waiting_dialogs.retain(|d| !d.abandoned());
        if self.dialog.as_ref().is_some_and(ActiveDialog::abandoned) {
            self.dialog = self.waiting_dialogs.pop_front();
        }
    }

    /// Shows `dialog` now, or after the one that is open.
    pub(super) fn open(&mut self, dialog: ActiveDialog) {
        if self.dialog.is_some() {
            self.waiting_dialogs.push_back(dialog);
        } else {
            self.dialog = Some(dialog);
        }
    }

    /// Gives a key to the open dialog and acts on its answer.
    pub(super) fn dialog_input(&mut self, input: &Input) {
        let Some(mut dialog) = self.dialog.take() else {
            return;
        };
        if self.answer(&mut dialog, input).is_err() {
            self.dialog = Some(dialog);
        } else if self.dialog.is_none() {
            // The answer may have opened the next step (e.g. /login's key prompt).
            self.dialog = self.waiting_dialogs.pop_front();
        }
    }

    /// `Err(())` while the dialog stays open.
    fn answer(&mut self, dialog: &mut ActiveDialog, input: &Input) -> Result<(), ()> {
        let keys = std::sync::Arc::clone(&self.keymap);
        match dialog {
            ActiveDialog::Model(d) => {
                if let Some(model) = closed(d.handle(input, &keys))? {
                    self.switch_model(model);
                }
            }
            ActiveDialog::Thinking(d) => {
                if let Some(level) = closed(d.handle(input, &keys))? {
                    let models = self.models.clone();
                    tokio::spawn(async move { models.apply_level(level).await });
                }
            }
            ActiveDialog::Sessions(d) => {
                if let Some(path) = closed(d.handle(input, &keys))? {
                    self.resume(&path);
                }
            }
            ActiveDialog::Tree(d) => {
                if let Some(id) = closed(d.handle(input, &keys))? {
                    self.chose_tree_target(id);
                }
            }
            ActiveDialog::TreeSummary(d, target) => {
                if let Some(choice) = closed(d.handle(input, &keys))? {
                    self.navigate_tree(target.clone(), choice == 1);
                }
            }
            ActiveDialog::Fork(d, ids) => {
                if let Some(i) = closed(d.handle(input, &keys))? {
                    self.fork_at(ids[i].clone());
                }
            }
            ActiveDialog::Settings(d) => {
                if let Some(changes) = closed(d.handle(input, &keys))? {
                    self.apply_settings(changes);
                }
            }
            ActiveDialog::Hotkeys(d) => {
                closed(d.handle(input, &keys))?;
            }
            ActiveDialog::LoginProvider(d, choices) => {
                if let Some(i) = closed(d.handle(input, &keys))? {
                    self.choose_login(choices[i].clone());
                }
            }
            ActiveDialog::LoginKey(d, provider) => {
                if let Some(key) = closed(d.handle(input, &keys))? {
                    self.store_key(provider, key.trim());
                }
            }
            ActiveDialog::McpServers(d, names) => {
                if let Some(i) = closed(d.handle(input, &keys))? {
                    self.open_mcp_server(&names[i].clone());
                }
            }
            ActiveDialog::McpServer(d, name, actions) => match closed(d.handle(input, &keys))? {
                Some(i) => {
                    let server = self
                        .options
                        .host
                        .mcp()
                        .and_then(|m| m.server(name).ok().cloned());
                    if let Some(server) = server {
                        self.mcp_act(server, actions[i]);
                    }
                }
                None => self.mcp_command(""),
            },
            ActiveDialog::McpTools(d, name) => {
                closed(d.handle(input, &keys))?;
                self.open_mcp_server(&name.clone());
            }
            ActiveDialog::Logout(d, providers) => {
                if let Some(i) = closed(d.handle(input, &keys))? {
                    self.remove_key(&providers[i].clone());
                }
            }
            ActiveDialog::ExtSelect(d, options, reply) => {
                let choice = closed(d.handle(input, &keys))?;
                if let Some(reply) = reply.take() {
                    let _ = reply.send(choice.map(|i| options[i].clone()));
                }
            }
            ActiveDialog::ExtConfirm(d, reply) => {
                let yes = closed(d.handle(input, &keys))?.unwrap_or(false);
                if let Some(reply) = reply.take() {
                    let _ = reply.send(yes);
                }
            }
            ActiveDialog::ScopedModels(d) => {
                if let Some(choice) = closed(d.handle(input, &keys))? {
                    self.apply_scope(choice);
                }
            }
            ActiveDialog::Import(d, source) => {
                let yes = closed(d.handle(input, &keys))?.unwrap_or(false);
                self.import(source.clone(), yes);
            }
            ActiveDialog::ExtInput(d, reply) => {
                let text = closed(d.handle(input, &keys))?;
                if let Some(reply) = reply.take() {
                    let _ = reply.send(text);
                }
            }
            ActiveDialog::ExtEditor(d, reply) => {
                let text = closed(d.handle(input, &keys))?;
                if let Some(reply) = reply.take() {
                    let _ = reply.send(text);
                }
            }
        }
        Ok(())
    }

    /// /model: with an argument that matches exactly one model, switches at once; otherwise
    /// opens the selector (filtered by the argument).
    pub(super) fn open_model_selector(&mut self, search: Option<String>) {
        let available = self.models.available();
        if available.is_empty() {
            return self.notice(
                "No models available: set an API key (/login) or configure models.json".into(),
                true,
            );
        }
        if let Some(q) = &search {
            let q = q.to_lowercase();
            let hits: Vec<&Model> = available
                .iter()
                .filter(|m| {
                    m.id.to_lowercase() == q
                        || format!("{}/{}", m.provider, m.id).to_lowercase() == q
                })
                .collect();
            if let [one] = hits.as_slice() {
                let model = (*one).clone();
                return self.switch_model(model);
            }
        }
        let current = self.session.model();
        let mut selector = ModelSelector::new(
            available,
            current
                .as_ref()
                .map(|m| (m.provider.as_str(), m.id.as_str())),
        );
        if let Some(q) = search {
            for c in q.chars() {
                selector.handle(&Input::char(c), &self.keymap);
            }
        }
        self.open(ActiveDialog::Model(selector));
    }

    fn switch_model(&mut self, model: Model) {
        let models = self.models.clone();
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let label = format!("{}/{}", model.provider, model.id);
            let (text, error) = match models.switch_model(model, None).await {
                Ok(()) => (format!("Model: {label}"), false),
                Err(e) => (e.to_string(), true),
            };
            let _ = tx.send(AppMsg::Notice { text, error });
        });
    }

    pub(super) fn open_thinking_selector(&mut self) {
        let Some(model) = self.session.model().filter(|m| m.reasoning) else {
            return self.notice("Current model does not support thinking".into(), false);
        };
        let selector = ThinkingSelector::new(
            model.supported_thinking_levels(),
            self.session.thinking_level(),
        );
        self.open(ActiveDialog::Thinking(selector));
    }

    /// /resume: lists this folder's sessions and all sessions in a blocking task.
    pub fn open_session_picker(&mut self) {
        let (dir, agent_dir) = (
            self.session
                .with_session(|s| s.path().and_then(|p| p.parent()).map(|p| p.to_path_buf())),
            self.options.agent_dir.clone(),
        );
        let tx = self.tx.clone();
        tokio::task::spawn_blocking(move || {
            let current = dir.as_deref().map(list_sessions).unwrap_or_default();
            let all = list_all_sessions(&agent_dir);
            if current.is_empty() && all.is_empty() {
                let _ = tx.send(AppMsg::Notice {
                    text: "No sessions found".into(),
                    error: false,
                });
                return;
            }
            let picker = SessionPicker::new(current, all, rho_ai::now_ms());
            let _ = tx.send(AppMsg::Open(ActiveDialog::Sessions(picker)));
        });
    }

    fn resume(&mut self, path: &std::path::Path) {
        let session = self.session.clone();
        let tx = self.tx.clone();
        let path = path.to_path_buf();
        tokio::spawn(async move {
            let msg = match session.open_session(&path).await {
                Ok(opened) => {
                    super::commands::send_load_warnings(&tx, &opened.warnings);
                    super::commands::switch_notice(opened.cancelled, "Resumed session")
                }
                Err(e) => AppMsg::Notice {
                    text: e.to_string(),
                    error: true,
                },
            };
            let _ = tx.send(msg);
        });
    }

    /// /hotkeys: the keys in effect (keybindings.json applied), then extension shortcuts.
    pub(super) fn open_hotkeys(&mut self) {
        let mut rows = super::keybindings::hotkey_rows(&self.keymap, self.full.is_some());
        if !self.shortcuts.is_empty() {
            rows.push(("Extensions".into(), String::new()));
        }
        // pi lists extension shortcuts after the built-in keys, by description or file.
        rows.extend(self.shortcuts.iter().map(|b| {
            let what = b.def.description.clone().unwrap_or_else(|| b.path.clone());
            (b.def.key.clone(), what)
        }));
        let mut view = HotkeysView::new(rows);
        if let Some(full) = &self.full {
            // The dialog sits under the transcript: it scrolls instead of filling the screen.
            view = view.with_max_rows(full.height().saturating_sub(12).max(5));
        }
        self.open(ActiveDialog::Hotkeys(view));
    }
}
