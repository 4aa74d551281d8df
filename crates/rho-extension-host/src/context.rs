//! What an extension handler can see and do: the [`ExtensionContext`] passed to every handler,
//! backed by an [`ExtensionHost`] (the AgentSession) and an [`ExtensionUi`] (the mode's UI).

use std::path::PathBuf;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use rho_agent::AgentTool;
use rho_ai::{ImageContent, Model};
use rho_protocol::extension::calls::{McpServerRegistered, SetupEntry, ToolsState};
/// How a custom message is delivered (CM-2..6) and `send_message`'s options: the wire types.
pub use rho_protocol::extension::{DeliverAs, SendOptions};
use serde_json::Value;

use crate::HostError;

/// A custom message an extension sends.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomMessageInput {
    /// The extension's type tag.
    pub custom_type: String,
    /// What the model sees.
    pub content: rho_ai::UserContent,
    /// Whether UIs show it.
    pub display: bool,
    /// Extension data.
    pub details: Option<Value>,
}

/// The session side of the extension API. Implemented by AgentSession; actions are
/// fire-and-forget futures so handlers never deadlock the run that called them. A refusal is
/// a [`HostError`], whose text the extension hears.
pub trait ExtensionHost: Send + Sync {
    /// The session's working directory.
    fn cwd(&self) -> PathBuf;
    /// The current model, if any.
    fn model(&self) -> Option<Model>;
    /// True when the agent is not streaming.
    fn is_idle(&self) -> bool;
    /// True when steering or follow-up messages are queued.
    fn has_pending_messages(&self) -> bool;
    /// The current system prompt.
    fn system_prompt(&self) -> String;
    /// Aborts the current run (not awaited).
    fn abort(&self);
    /// Sends a custom message by one of the five routes.
    fn send_message(
        &self,
        message: CustomMessageInput,
        options: SendOptions,
    ) -> BoxFuture<'static, Result<(), HostError>>;
    /// Sends a user message as if typed (no template expansion).
    fn send_user_message(
        &self,
        text: String,
        images: Vec<ImageContent>,
        deliver_as: Option<DeliverAs>,
    ) -> BoxFuture<'static, Result<(), HostError>>;
    /// Appends a non-LLM custom entry to the session file.
    fn append_entry(&self, custom_type: String, data: Option<Value>) -> Result<(), HostError>;
    /// Names the session.
    fn set_session_name(&self, name: String) -> Result<(), HostError>;

    /// The session's entries from index `from` on (file order), with the session id, file and
    /// leaf: what pi's `ctx.sessionManager` reads (`get_entries`).
    fn session_entries(&self, _from: usize) -> Result<Value, HostError> {
        Err(HostError::Unsupported("has no entries to show"))
    }
    /// Sets (`Some`) or clears (`None`) the label of entry `id` (pi's `setLabel`).
    fn set_label(&self, _id: String, _label: Option<String>) -> Result<(), HostError> {
        Err(HostError::Unsupported("cannot label entries"))
    }

    /// Resolves when the agent is idle (command contexts, CMD-8).
    fn wait_for_idle(&self) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }

    /// Session replacement from a command (CMD-8): `new_session`, `fork`, `navigate_tree`,
    /// `switch_session`, `reload`. Without a mode binding they resolve at once with
    /// `cancelled: false` (returns the cancelled flag).
    fn session_action(
        &self,
        _action: SessionAction,
    ) -> BoxFuture<'static, Result<bool, HostError>> {
        Box::pin(async { Ok(false) })
    }
    /// The active tools and every tool that could be active (pi's `getActiveTools` /
    /// `getAllTools`).
    fn tools_state(&self) -> Result<ToolsState, HostError> {
        Err(HostError::Unsupported("has no tool set to show"))
    }
    /// Makes exactly the named tools active (pi's `setActiveTools`; unknown names ignored).
    fn set_active_tools(&self, _names: Vec<String>) -> Result<ToolsState, HostError> {
        Err(HostError::Unsupported("cannot change its tools"))
    }
    /// Adds and activates a tool an extension registered after loading.
    fn register_tool(&self, _tool: Arc<dyn AgentTool>) -> Result<(), HostError> {
        Err(HostError::Unsupported("cannot take tools after loading"))
    }
    /// Adds a command the file `path` registered after loading (pi's `registerCommand` from a
    /// handler or a command): listed and invocable at once.
    fn register_command(&self, _def: super::CommandDef, _path: String) -> Result<(), HostError> {
        Err(HostError::Unsupported("cannot take commands after loading"))
    }
    /// Adds a provider an extension registered after loading (pi's `registerProvider`): its
    /// models are listed and selectable at once.
    fn register_provider(&self, _def: super::ProviderDef) -> Result<(), HostError> {
        Err(HostError::Unsupported(
            "cannot take providers after loading",
        ))
    }
    /// Removes a provider an extension registered (pi's `unregisterProvider`).
    fn unregister_provider(&self, _name: String) -> Result<(), HostError> {
        Err(HostError::Unsupported(
            "cannot take providers after loading",
        ))
    }
    /// Adds an MCP server an extension registered after loading (pi's `registerMcpServer`):
    /// it connects at once. Refused with pi's text when the config is invalid.
    fn register_mcp_server(
        &self,
        _spec: rho_protocol::extension::McpServerSpec,
    ) -> Result<McpServerRegistered, HostError> {
        Err(HostError::Unsupported(
            "cannot take MCP servers after loading",
        ))
    }
    /// Closes an MCP server the extension at `extension_path` registered (pi's
    /// `unregisterMcpServer`).
    fn unregister_mcp_server(
        &self,
        _name: String,
        _extension_path: String,
    ) -> Result<(), HostError> {
        Err(HostError::Unsupported(
            "cannot take MCP servers after loading",
        ))
    }
    /// Adds a virtual model an extension registered after loading (pi's
    /// `registerVirtualModel`): listed and selectable at once, routed by `def.route`.
    fn register_virtual_model(&self, _def: super::VirtualModelDef) -> Result<(), HostError> {
        Err(HostError::Unsupported(
            "cannot take virtual models after loading",
        ))
    }
    /// Removes a virtual model (pi's `unregisterVirtualModel`).
    fn unregister_virtual_model(&self, _provider: String, _id: String) -> Result<(), HostError> {
        Err(HostError::Unsupported(
            "cannot take virtual models after loading",
        ))
    }
    /// Every model the session knows (pi's `ctx.modelRegistry`).
    fn models(&self) -> Vec<Model> {
        Vec::new()
    }
    /// Whether `provider` has credentials configured (pi's `hasConfiguredAuth`).
    fn provider_has_auth(&self, _provider: &str) -> bool {
        false
    }
    /// Switches to `provider`/`model_id` for this session; `Ok(false)` when the provider has
    /// no credentials (pi's `setModel`).
    fn set_model(
        &self,
        _provider: String,
        _model_id: String,
    ) -> BoxFuture<'static, Result<bool, HostError>> {
        Box::pin(async { Err(HostError::Unsupported("cannot change its model")) })
    }
    /// How full the context is (pi's `ctx.getContextUsage()`): `None` without a model or
    /// a known context window.
    fn context_usage(&self) -> Option<rho_protocol::rpc::ContextUsage> {
        None
    }
    /// The thinking level (`off`, `minimal`, ... `xhigh`).
    fn thinking_level(&self) -> String {
        "off".into()
    }
    /// Sets the thinking level (clamped to the model); resolves with the level in effect.
    fn set_thinking_level(&self, _level: String) -> BoxFuture<'static, Result<String, HostError>> {
        Box::pin(async { Err(HostError::Unsupported("cannot change its thinking level")) })
    }
    /// One model call for an extension (pi's `modelRegistry.complete`): the reply message.
    fn complete(
        &self,
        _call: rho_protocol::extension::calls::Complete,
    ) -> BoxFuture<'static, Result<Value, HostError>> {
        Box::pin(async { Err(HostError::Unsupported("cannot run completions")) })
    }
    /// Compacts now with optional instructions; resolves with the compaction result.
    fn compact(
        &self,
        _instructions: Option<String>,
    ) -> BoxFuture<'static, Result<Value, HostError>> {
        Box::pin(async { Err(HostError::Unsupported("cannot compact")) })
    }
    /// The sandbox extension `exec` calls run under (`None`: unconfined).
    fn sandbox(&self) -> Option<Arc<rho_sandbox::Sandbox>> {
        None
    }
    /// The key scrubbing extension `exec` calls get (by default the built-in providers').
    fn key_scrub(&self) -> rho_process::KeyScrub {
        rho_process::KeyScrub::default()
    }
}

/// A session-replacing action a command may request (CMD-8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionAction {
    /// Start a new session.
    NewSession(NewSession),
    /// Fork before a user message (pi's default position `before`).
    Fork(String),
    /// Fork at any entry, keeping it (pi's position `at`).
    ForkAt(String),
    /// Move the leaf to an entry.
    NavigateTree(String),
    /// Open another session file.
    SwitchSession(String),
    /// Reload extensions and resources.
    Reload,
}

/// `ctx.newSession`'s options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewSession {
    /// The session file recorded as the new one's `parentSession`.
    pub parent_session: Option<String>,
    /// Fills the new session before it starts (pi's `setup`).
    pub setup: Option<SessionSetup>,
}

/// pi's `newSession({ setup })`: run with the new session once the old one has shut down and
/// before the new one starts (before `session_start`), so what it appends is there when the
/// session becomes the active one.
#[derive(Clone)]
pub struct SessionSetup {
    /// The extension whose setup it is, for error reports.
    path: Arc<str>,
    run: SetupRun,
}

type SetupRun =
    Arc<dyn Fn(Arc<dyn SetupTarget>) -> BoxFuture<'static, Result<(), HostError>> + Send + Sync>;

impl SessionSetup {
    /// The setup of extension `path`, running `run` with the new session.
    pub fn new(
        path: &str,
        run: impl Fn(Arc<dyn SetupTarget>) -> BoxFuture<'static, Result<(), HostError>>
            + Send
            + Sync
            + 'static,
    ) -> Self {
        Self {
            path: path.into(),
            run: Arc::new(run),
        }
    }

    /// The extension whose setup it is.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Runs the setup with `target`, the session being prepared.
    pub fn run(&self, target: Arc<dyn SetupTarget>) -> BoxFuture<'static, Result<(), HostError>> {
        (self.run)(target)
    }
}

impl std::fmt::Debug for SessionSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SessionSetup")
    }
}

/// The same setup (one closure shared), not an equal one.
impl PartialEq for SessionSetup {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.run, &other.run)
    }
}

impl Eq for SessionSetup {}

/// The session a [`SessionSetup`] prepares, not yet the active one: appends go straight to its
/// store (rho-session's own appends, so its persistence rules apply).
pub trait SetupTarget: Send + Sync {
    /// The session as `get_entries` shows one (`sessionId`, `sessionFile`, `header`,
    /// `leafId`, `entries`).
    fn view(&self) -> Result<Value, HostError>;
    /// Appends `entry`; returns it as stored.
    fn append(&self, entry: SetupEntry) -> Result<Value, HostError>;
}

/// The mode's UI as extensions see it. Without a UI every call is a no-op (`confirm` → false,
/// `select`/`input` → `None`).
pub trait ExtensionUi: Send + Sync {
    /// Whether a real UI is attached.
    fn has_ui(&self) -> bool {
        false
    }
    /// Pick one of `options`.
    fn select(&self, _title: String, _options: Vec<String>) -> BoxFuture<'static, Option<String>> {
        Box::pin(async { None })
    }
    /// Yes or no.
    fn confirm(&self, _title: String, _message: String) -> BoxFuture<'static, bool> {
        Box::pin(async { false })
    }
    /// Free text.
    fn input(
        &self,
        _title: String,
        _placeholder: Option<String>,
    ) -> BoxFuture<'static, Option<String>> {
        Box::pin(async { None })
    }
    /// [`Self::select`] for an extension that stops waiting after `timeout_ms` (it settles
    /// the dialog itself; a UI may show or send the limit, as pi's RPC mode does).
    fn select_within(
        &self,
        title: String,
        options: Vec<String>,
        _timeout_ms: Option<u64>,
    ) -> BoxFuture<'static, Option<String>> {
        self.select(title, options)
    }
    /// [`Self::confirm`] with the extension's limit, as for [`Self::select_within`].
    fn confirm_within(
        &self,
        title: String,
        message: String,
        _timeout_ms: Option<u64>,
    ) -> BoxFuture<'static, bool> {
        self.confirm(title, message)
    }
    /// [`Self::input`] with the extension's limit, as for [`Self::select_within`].
    fn input_within(
        &self,
        title: String,
        placeholder: Option<String>,
        _timeout_ms: Option<u64>,
    ) -> BoxFuture<'static, Option<String>> {
        self.input(title, placeholder)
    }
    /// Multi-line text, starting from `prefill` (pi's `editor`; never times out).
    fn editor(
        &self,
        _title: String,
        _prefill: Option<String>,
    ) -> BoxFuture<'static, Option<String>> {
        Box::pin(async { None })
    }
    /// Replaces the text in the user's editor (pi's `set_editor_text`).
    fn set_editor_text(&self, _text: String) {}
    /// A transient notice; `kind` is `info`, `warning`, `error`, or "" when the extension
    /// gave none.
    fn notify(&self, _message: String, _kind: String) {}
    /// A status line entry (`None` clears it).
    fn set_status(&self, _key: String, _text: Option<String>) {}
    /// A widget above the editor (`None` removes it).
    fn set_widget(&self, _key: String, _lines: Option<Vec<String>>) {}
    /// A widget placed below the editor when `below` (pi's `placement: "belowEditor"`); UIs
    /// without placements show it as [`ExtensionUi::set_widget`] does.
    fn set_widget_at(&self, key: String, lines: Option<Vec<String>>, _below: bool) {
        self.set_widget(key, lines);
    }
    /// A component the extension draws itself took `slot` (`Some`) or went away (`None`);
    /// the UI asks the extension's renderer for its lines. UIs that cannot draw components
    /// return `false` (the extension then tells the user).
    fn set_component(&self, _key: String, _slot: Option<super::render::ComponentSlot>) -> bool {
        false
    }
    /// The extension's component `key` changed and wants drawing again.
    fn request_render(&self, _key: String) {}
    /// The extension's editor (pi's `setEditorComponent`) submitted its text or routed an app
    /// action to the app; only a terminal has one.
    fn editor_event(&self, _event: super::render::EditorEvent) {}
    /// The terminal title.
    fn set_title(&self, _title: String) {}
    /// The line shown while the agent works changed (pi's working message, visibility and
    /// indicator, and the hidden-thinking label); only a terminal shows it.
    fn set_working(&self, _update: super::render::WorkingUpdate) {}
    /// Asks the mode to quit once the agent is idle and running commands have finished (pi's
    /// `ctx.shutdown`); `false` when this mode does not quit on request.
    fn request_shutdown(&self) -> bool {
        false
    }
}

/// The UI of modes without one.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoUi;

impl ExtensionUi for NoUi {}

/// The session side where there is no session (before one starts, a bench, a test): idle, no
/// model, and every action refused with `why` (`HostError::Unsupported`).
#[derive(Debug, Clone)]
pub struct NoSession {
    /// The folder extensions work in.
    pub cwd: PathBuf,
    /// Why an action is refused, after the word "session" (e.g. "has not started").
    pub why: &'static str,
}

impl ExtensionHost for NoSession {
    fn cwd(&self) -> PathBuf {
        self.cwd.clone()
    }
    fn model(&self) -> Option<Model> {
        None
    }
    fn is_idle(&self) -> bool {
        true
    }
    fn has_pending_messages(&self) -> bool {
        false
    }
    fn system_prompt(&self) -> String {
        String::new()
    }
    fn abort(&self) {}
    fn send_message(
        &self,
        _message: CustomMessageInput,
        _options: SendOptions,
    ) -> BoxFuture<'static, Result<(), HostError>> {
        let why = self.why;
        Box::pin(async move { Err(HostError::Unsupported(why)) })
    }
    fn send_user_message(
        &self,
        _text: String,
        _images: Vec<ImageContent>,
        _deliver_as: Option<DeliverAs>,
    ) -> BoxFuture<'static, Result<(), HostError>> {
        let why = self.why;
        Box::pin(async move { Err(HostError::Unsupported(why)) })
    }
    fn append_entry(&self, _custom_type: String, _data: Option<Value>) -> Result<(), HostError> {
        Err(HostError::Unsupported(self.why))
    }
    fn set_session_name(&self, _name: String) -> Result<(), HostError> {
        Err(HostError::Unsupported(self.why))
    }
}

/// Passed to every handler; created per emission (EXT-20).
#[derive(Clone)]
pub struct ExtensionContext {
    /// The session.
    pub host: Arc<dyn ExtensionHost>,
    /// The UI.
    pub ui: Arc<dyn ExtensionUi>,
    /// During `before_agent_start`: the chained system prompt so far.
    pub system_prompt_override: Option<String>,
    /// During `turn_end` and `agent_before_settle`: the model context with proposed drafts
    /// applied (an extension process asks for it between its own handlers).
    pub boundary_preview: Option<crate::boundary::BoundaryPreview>,
}

impl ExtensionContext {
    /// A context for one emission.
    pub fn new(host: Arc<dyn ExtensionHost>, ui: Arc<dyn ExtensionUi>) -> Self {
        Self {
            host,
            ui,
            system_prompt_override: None,
            boundary_preview: None,
        }
    }

    /// The system prompt as handlers should see it (EXT-21).
    pub fn system_prompt(&self) -> String {
        self.system_prompt_override
            .clone()
            .unwrap_or_else(|| self.host.system_prompt())
    }
}
