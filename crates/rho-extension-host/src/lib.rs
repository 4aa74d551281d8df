//! rho's extension host: handlers for the session's events, commands and tools, in load
//! order. In-process extensions register them directly; out-of-process extensions (the
//! process protocol of docs/extensions.md) plug into the same registry through handlers that
//! talk JSON to a child process. The agent session drives the host through [`ExtensionHost`]
//! and [`ExtensionRunner`]; the host never reaches into the session.

pub mod boundary;
pub mod closing_ui;
pub mod commands;
pub mod context;
mod context_events;
pub mod diagnostics;
pub mod error;
pub mod process;
pub mod providers;
pub mod render;
pub mod runner;

use std::sync::Arc;

use futures_util::future::BoxFuture;
use rho_agent::AgentTool;
use serde_json::Value;

pub use boundary::{Boundary, BoundaryOutcome, BoundaryPreview, PreviewError};
pub use closing_ui::ClosingUi;
pub use context::{
    CustomMessageInput, DeliverAs, ExtensionContext, ExtensionHost, ExtensionUi, NewSession,
    NoSession, NoUi, SendOptions, SessionAction, SessionSetup, SetupTarget,
};
pub use error::HostError;
pub use events::{ExtensionEvent, TreePreparation};
pub use render::ExtensionRenderer;
/// The events handlers receive and the results they return: wire types, in rho-protocol.
pub use rho_protocol::extension::events;
pub use runner::{ExtensionErrorReport, ExtensionRunner, InputOutcome};

/// An event handler: gets the event and a context, may return a JSON result the runner
/// interprets per event (see [`events`]). `Err` is reported as an `extension_error`: a string
/// because it is the extension's own error text (a thrown message, a process's reply), sent
/// on as pi's `extension_error` carries it; a failed host call becomes that text with `?`.
pub type EventHandler = Arc<
    dyn Fn(ExtensionEvent, ExtensionContext) -> BoxFuture<'static, Result<Option<Value>, String>>
        + Send
        + Sync,
>;

/// A command handler: gets the verbatim argument string. `Err` is the extension's own error
/// text, shown as an `extension_error` (see [`EventHandler`]).
pub type CommandHandler = Arc<
    // A string: the extension's own error text, shown as it wrote it.
    dyn Fn(String, ExtensionContext) -> BoxFuture<'static, Result<(), String>> + Send + Sync,
>;

/// Completes a command's arguments from what was typed after it (pi's
/// `getArgumentCompletions`); `Ok(None)`: nothing to offer. `Err` is the extension's own error
/// text.
pub type CommandCompleter = Arc<
    // A string: the extension's own error text, shown as it wrote it.
    dyn Fn(String) -> BoxFuture<'static, Result<Option<Vec<ArgumentCompletion>>, String>>
        + Send
        + Sync,
>;

/// One completion of a command's arguments: the wire type.
pub use rho_protocol::extension::ArgumentCompletion;

/// A registered `/command`.
#[derive(Clone)]
pub struct CommandDef {
    /// The name as registered (before collision renaming).
    pub name: String,
    /// Shown in completions and `get_commands`.
    pub description: Option<String>,
    /// Runs the command.
    pub handler: CommandHandler,
    /// Completes its arguments, when it does.
    pub complete: Option<CommandCompleter>,
}

/// A shortcut handler (pi's `registerShortcut`): runs when its key is pressed. `Err` is the
/// extension's own error text (see [`EventHandler`]).
pub type ShortcutHandler = Arc<
    // A string: the extension's own error text, shown as it wrote it.
    dyn Fn(ExtensionContext) -> BoxFuture<'static, Result<(), String>> + Send + Sync,
>;

/// A registered keyboard shortcut, bound by the interactive mode.
#[derive(Clone)]
pub struct ShortcutDef {
    /// The key in pi's format, e.g. `ctrl+shift+p`.
    pub key: String,
    /// Shown in /hotkeys.
    pub description: Option<String>,
    /// Runs it.
    pub handler: ShortcutHandler,
}

/// Streams one reply of a provider an extension registered: gets the model, the context and
/// the options (JSON), hands each pi `AssistantMessageEvent` to the callback, resolves with
/// the final message. `Err` is the extension's own error text, which becomes the reply's
/// `errorMessage`.
pub type ProviderStream = Arc<
    dyn Fn(
            Value,
            Value,
            Value,
            Arc<dyn Fn(Value) + Send + Sync>,
            // A string: the extension's own error text (see above).
        ) -> BoxFuture<'static, Result<Value, String>>
        + Send
        + Sync,
>;

/// Runs a provider's `refreshModels` once: gets whether it may use the network, the
/// credential and the stored models-store.json entry; resolves with the models it returned
/// and what it asked to persist. `Err` is the extension's own error text.
pub type ProviderRefresh = Arc<
    dyn Fn(
            bool,
            Option<Value>,
            Option<Value>,
            // A string: the extension's own error text (see above).
        ) -> BoxFuture<'static, Result<rho_protocol::extension::RefreshedModels, String>>
        + Send
        + Sync,
>;

/// A model provider an extension registered (pi's `registerProvider`).
#[derive(Clone)]
pub struct ProviderDef {
    /// Provider name.
    pub name: String,
    /// As a models.json provider entry (`baseUrl`, `apiKey`, `api`, `headers`, `models`).
    pub config: Value,
    /// The extension's own streaming, when it has one; else rho speaks `api`.
    pub stream: Option<ProviderStream>,
    /// The provider's sign-in (pi's `oauth`), when it has one: it joins the session's
    /// [`rho_ai::oauth::OAuthProviders`].
    pub oauth: Option<Arc<dyn rho_ai::oauth::OAuthProvider>>,
    /// Its `refreshModels` (pi 1.6's dynamic discovery), when it has one.
    pub refresh: Option<ProviderRefresh>,
}

/// Asks an extension's router (a virtual model's `route`) for the physical model of one
/// request: gets pi's `ModelRouteRequest` as JSON (no signal) and the context of the
/// extension's calls meanwhile; resolves with `{provider, id, thinkingLevel, state?,
/// stateChanged}`. `Err` is the router's own error text, which becomes the request's error
/// response.
pub type VirtualRoute = Arc<
    // A string: the route's own error text, which becomes the run's `errorMessage`.
    dyn Fn(Value, ExtensionContext) -> BoxFuture<'static, Result<Value, String>> + Send + Sync,
>;

/// A virtual model an extension registered (pi's `registerVirtualModel`).
#[derive(Clone)]
pub struct VirtualModelDef {
    /// Its catalog entry's fields.
    pub spec: rho_protocol::virtual_model::VirtualModelSpec,
    /// Its router.
    pub route: VirtualRoute,
}

/// Ends what backs an extension (its process) once it is unloaded, within the grace period.
pub type Closer = Arc<dyn Fn(std::time::Duration) -> BoxFuture<'static, ()> + Send + Sync>;

/// One loaded extension: its handlers, commands and tools, in registration order.
#[derive(Clone, Default)]
pub struct Extension {
    /// Where it came from (reported as `extensionPath`).
    pub path: String,
    handlers: Vec<(String, EventHandler)>,
    commands: Vec<CommandDef>,
    /// The file that registered a command, where it is not [`Extension::path`].
    command_paths: Vec<(String, String)>,
    shortcuts: Vec<ShortcutDef>,
    tools: Vec<Arc<dyn AgentTool>>,
    flags: Vec<String>,
    providers: Vec<ProviderDef>,
    virtual_models: Vec<VirtualModelDef>,
    mcp_servers: Vec<rho_protocol::extension::McpServerSpec>,
    closer: Option<Closer>,
    renderer: Option<Arc<dyn ExtensionRenderer>>,
}

impl Extension {
    /// An empty extension identified by `path`.
    pub fn new(path: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            ..Default::default()
        }
    }

    /// Adds a handler for events of type `event` (appended after earlier ones, EXT-1).
    pub fn on(&mut self, event: &str, handler: EventHandler) -> &mut Self {
        self.handlers.push((event.to_string(), handler));
        self
    }

    /// Registers a command; the same name again replaces the earlier one (CMD-1).
    pub fn register_command(&mut self, def: CommandDef) -> &mut Self {
        self.commands.retain(|c| c.name != def.name);
        self.commands.push(def);
        self
    }

    /// Records that `path` registered the command `name` (one process hosting several
    /// extensions).
    pub fn set_command_path(&mut self, name: &str, path: &str) {
        self.command_paths.retain(|(n, _)| n != name);
        self.command_paths
            .push((name.to_string(), path.to_string()));
    }

    /// The file that registered the command `name`.
    pub fn command_path(&self, name: &str) -> &str {
        self.command_paths
            .iter()
            .find(|(n, _)| n == name)
            .map_or(self.path.as_str(), |(_, p)| p.as_str())
    }

    /// Registers a shortcut; the same key again replaces the earlier one.
    pub fn register_shortcut(&mut self, def: ShortcutDef) -> &mut Self {
        self.shortcuts.retain(|s| s.key != def.key);
        self.shortcuts.push(def);
        self
    }

    /// Registered shortcuts.
    pub fn shortcuts(&self) -> &[ShortcutDef] {
        &self.shortcuts
    }

    /// Registers a tool.
    pub fn register_tool(&mut self, tool: Arc<dyn AgentTool>) -> &mut Self {
        self.tools.push(tool);
        self
    }

    /// Registers a model provider.
    pub fn register_provider(&mut self, def: ProviderDef) -> &mut Self {
        self.providers.push(def);
        self
    }

    /// The providers it registered.
    pub fn providers(&self) -> &[ProviderDef] {
        &self.providers
    }

    /// Registers a virtual model; the same provider and id again replaces it.
    pub fn register_virtual_model(&mut self, def: VirtualModelDef) -> &mut Self {
        self.virtual_models
            .retain(|v| (&v.spec.provider, &v.spec.id) != (&def.spec.provider, &def.spec.id));
        self.virtual_models.push(def);
        self
    }

    /// The virtual models it registered.
    pub fn virtual_models(&self) -> &[VirtualModelDef] {
        &self.virtual_models
    }

    /// Registers an MCP server (pi's `registerMcpServer` while loading); the same name again
    /// replaces it.
    pub fn register_mcp_server(
        &mut self,
        spec: rho_protocol::extension::McpServerSpec,
    ) -> &mut Self {
        self.mcp_servers.retain(|s| s.name != spec.name);
        self.mcp_servers.push(spec);
        self
    }

    /// The MCP servers it registered while loading.
    pub fn mcp_servers(&self) -> &[rho_protocol::extension::McpServerSpec] {
        &self.mcp_servers
    }

    /// Declares a command-line flag `--name` (it is then no unknown option).
    pub fn declare_flag(&mut self, name: impl Into<String>) -> &mut Self {
        self.flags.push(name.into());
        self
    }

    /// The flags it declared.
    pub fn flags(&self) -> &[String] {
        &self.flags
    }

    /// Keeps only the tools `keep` accepts (the user's `--tools` / `--no-tools` selection).
    pub fn retain_tools(&mut self, keep: impl Fn(&str) -> bool) {
        self.tools.retain(|t| keep(t.name()));
    }

    /// The handlers for `event`, in registration order.
    pub fn handlers_for<'a>(
        &'a self,
        event: &'a str,
    ) -> impl Iterator<Item = &'a EventHandler> + 'a {
        self.handlers
            .iter()
            .filter(move |(e, _)| e == event)
            .map(|(_, h)| h)
    }

    /// Registered commands.
    pub fn commands(&self) -> &[CommandDef] {
        &self.commands
    }

    /// Registered tools.
    pub fn tools(&self) -> &[Arc<dyn AgentTool>] {
        &self.tools
    }

    /// Sets what [`Extension::close`] runs (a process extension ends its process).
    pub fn set_closer(&mut self, closer: Closer) -> &mut Self {
        self.closer = Some(closer);
        self
    }

    /// Sets what draws the extension's own tool, message and component lines.
    pub fn set_renderer(&mut self, renderer: Arc<dyn ExtensionRenderer>) -> &mut Self {
        self.renderer = Some(renderer);
        self
    }

    /// What draws the extension's own lines, if it draws any.
    pub fn renderer(&self) -> Option<&Arc<dyn ExtensionRenderer>> {
        self.renderer.as_ref()
    }

    /// Ends what backs the extension (/reload, quit): waits up to `grace` for it to stop on
    /// its own, then stops it. In-process extensions have nothing to end.
    pub async fn close(&self, grace: std::time::Duration) {
        if let Some(closer) = &self.closer {
            closer(grace).await;
        }
    }
}
