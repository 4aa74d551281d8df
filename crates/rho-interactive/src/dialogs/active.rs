//! The dialogs that can be open, each with what its answer is for. Data only: what an answer
//! does is the dialogs part's (and, for a target of a session operation, session control's).

use rho_tui::dialogs::{
    ConfirmDialog, HotkeysView, InputDialog, ModelSelector, ScopedModelsDialog, SelectItem,
    SelectList, SessionPicker, SettingsDialog, TextAreaDialog, ThinkingSelector, TreeSelector,
};
use rho_tui::{Dialog, Theme};
use tokio::sync::oneshot;

/// One row of the /login list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginChoice {
    /// Sign in to this provider's subscription.
    SignIn(String),
    /// Store an API key for this provider.
    ApiKey(String),
}

/// What the /mcp server menu offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpAction {
    SignIn,
    Tools,
    Reconnect,
    SignOut,
    Enable,
    Disable,
}

/// An open dialog and what its answer is for.
pub enum ActiveDialog {
    /// /model, Ctrl+L.
    Model(ModelSelector),
    /// /thinking.
    Thinking(ThinkingSelector),
    /// /resume, `--resume`.
    Sessions(SessionPicker),
    /// /resume: what to do with a session whose folder is gone (the file).
    MissingCwd(SelectList, std::path::PathBuf),
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
    LoginProvider(SelectList, Vec<LoginChoice>),
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
    McpServer(SelectList, String, Vec<McpAction>),
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
            | ActiveDialog::MissingCwd(d, _)
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

impl ActiveDialog {
    /// Whether the one waiting for the answer went away (a sign-in whose browser redirect came
    /// first, an extension whose dialog timed out): nothing would use the answer.
    pub fn abandoned(&self) -> bool {
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
