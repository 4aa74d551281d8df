//! Parameters and answers of the calls that change the session (`{"type":"call","method":...}`):
//! the tool set, the model and thinking level, compaction and session replacement. pi's
//! `ExtensionAPI` needs them (`pi.setActiveTools`, `pi.setModel`, `ctx.compact`, ...); any
//! extension may use them. The other calls (`send_message`, `ui_*`, ...) are documented in
//! docs/extensions.md.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::registration::{CommandSpec, ProviderSpec, ToolSpec};

/// `get_tools`: answered with [`ToolsState`].
pub const GET_TOOLS: &str = "get_tools";
/// `set_active_tools` with [`SetActiveTools`]; answered with [`ToolsState`].
pub const SET_ACTIVE_TOOLS: &str = "set_active_tools";
/// `register_tool` with [`RegisterTool`]: a tool registered after the handshake; it joins the
/// active tools at once (pi's `registerTool` after loading).
pub const REGISTER_TOOL: &str = "register_tool";
/// `register_command` with [`RegisterCommand`]: a command registered after the handshake; it
/// is listed and runs at once (pi's `registerCommand` after loading). The same name from the
/// same file again replaces it.
pub const REGISTER_COMMAND: &str = "register_command";
/// `register_provider` with [`RegisterProvider`]: a provider registered after the handshake;
/// its models are listed and selectable at once, replacing a provider of its name (pi's
/// `registerProvider` after loading).
pub const REGISTER_PROVIDER: &str = "register_provider";
/// `unregister_provider` with [`UnregisterProvider`]: removes a provider an extension
/// registered; the built-in or models.json models it replaced are listed again (pi's
/// `unregisterProvider`).
pub const UNREGISTER_PROVIDER: &str = "unregister_provider";
/// `register_virtual_model` with [`RegisterVirtualModel`]: a virtual model registered after
/// the handshake; listed and selectable at once, routed with `route` requests (pi's
/// `registerVirtualModel` after loading). One of the same provider and id is replaced.
pub const REGISTER_VIRTUAL_MODEL: &str = "register_virtual_model";
/// `unregister_virtual_model` with [`UnregisterVirtualModel`]: removes a virtual model (pi's
/// `unregisterVirtualModel`).
pub const UNREGISTER_VIRTUAL_MODEL: &str = "unregister_virtual_model";
/// `register_mcp_server` with [`RegisterMcpServer`]: an MCP server registered after the
/// handshake connects at once; the same name from the same extension replaces it (pi's
/// `registerMcpServer` after loading). Refused with the config's problem when it is invalid.
pub const REGISTER_MCP_SERVER: &str = "register_mcp_server";
/// `unregister_mcp_server` with [`UnregisterMcpServer`]: closes the server an extension
/// registered; its tools are unreachable from then on (pi's `unregisterMcpServer`).
pub const UNREGISTER_MCP_SERVER: &str = "unregister_mcp_server";
/// `set_model` with [`SetModel`]; answered `true`, or `false` when the provider has no
/// credentials (pi's `setModel`).
pub const SET_MODEL: &str = "set_model";
/// `set_thinking_level` with [`SetThinkingLevel`]; answered with the level now in effect.
pub const SET_THINKING_LEVEL: &str = "set_thinking_level";
/// `compact` with [`Compact`]: compacts the session now (aborting a run); answered with the
/// compaction result (`summary`, `firstKeptEntryId`, `tokensBefore`, `details`) or an error.
pub const COMPACT: &str = "compact";
/// `get_models` with [`GetModels`]: every model the session knows and the providers with
/// credentials (pi's `ctx.modelRegistry`), answered with [`ModelsView`].
pub const GET_MODELS: &str = "get_models";
/// `complete` with [`Complete`]: one model call, nothing recorded in the session (pi's
/// `ctx.modelRegistry.complete`); answered with the assistant message.
pub const COMPLETE: &str = "complete";
/// `session_action` with [`SessionActionCall`]; answered with [`SessionActionResult`].
pub const SESSION_ACTION: &str = "session_action";
/// `session_setup_append` with [`SessionSetupAppend`]: an entry for the new session a
/// `session_setup` request prepares (pi's `SessionManager.append*` in `newSession`'s `setup`);
/// answered with the entry as stored (`id`, `parentId`, `timestamp`, ...).
pub const SESSION_SETUP_APPEND: &str = "session_setup_append";

/// `oauth_notify` with [`OAuthNotify`]: what a sign-in under way shows the user (pi's
/// `onAuth`, `onDeviceCode`, `onProgress`); answered `null`.
pub const OAUTH_NOTIFY: &str = "oauth_notify";
/// `oauth_prompt` with [`OAuthPrompt`]: what a sign-in under way asks (pi's `onPrompt`,
/// `onManualCodeInput`, `onSelect`); answered with the text typed or the option's id, an
/// error when the user cancelled.
pub const OAUTH_PROMPT: &str = "oauth_prompt";

/// A notice of the `oauth_login` request `request`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OAuthNotify {
    /// The `oauth_login` request's id.
    pub request: u64,
    /// What to show.
    pub notice: LoginNotice,
}

/// What a sign-in shows (pi's `AuthEvent` notices).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum LoginNotice {
    /// Open `url` in a browser.
    AuthUrl {
        /// The authorization page.
        url: String,
        /// What to do there.
        #[serde(default)]
        instructions: Option<String>,
    },
    /// Enter `user_code` at `verification_uri`.
    DeviceCode {
        /// The code.
        user_code: String,
        /// Where to enter it.
        verification_uri: String,
    },
    /// A step under way.
    Progress {
        /// Its text.
        message: String,
    },
}

/// A question of the `oauth_login` request `request`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OAuthPrompt {
    /// The `oauth_login` request's id.
    pub request: u64,
    /// What to ask.
    pub prompt: LoginPrompt,
}

/// What a sign-in asks (pi's `prompt` kinds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum LoginPrompt {
    /// A line of text.
    Text {
        /// The question.
        message: String,
        /// An example answer.
        #[serde(default)]
        placeholder: Option<String>,
    },
    /// The code or redirect URL copied from the browser.
    ManualCode {
        /// The question.
        message: String,
        /// An example answer.
        #[serde(default)]
        placeholder: Option<String>,
    },
    /// One of `options`; the answer is its id.
    Select {
        /// The question.
        message: String,
        /// The choices.
        options: Vec<LoginChoice>,
    },
}

/// One choice of a [`LoginPrompt::Select`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoginChoice {
    /// What the sign-in gets back.
    pub id: String,
    /// What the user sees.
    pub label: String,
}

/// `get_models`'s parameters. With `file`, the [`ModelsView`] is written to that file (whole,
/// by rename) and the reply is `null`: pi's registry reads are synchronous, so the pi host
/// fetches the list only when an extension first reads it, waiting for the file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GetModels {
    /// Where to write the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

/// What `get_models` answers: rho's model objects (`provider`, `id`, `name`, `api`,
/// `reasoning`, ...) and the providers whose credentials are configured (pi's
/// `hasConfiguredAuth`, `getAvailable`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelsView {
    /// Every model.
    pub models: Vec<crate::Model>,
    /// Providers with credentials, sorted.
    pub auth_configured: Vec<String>,
}

/// Tools by name to keep active; unknown names are ignored (as pi's `setActiveTools`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetActiveTools {
    /// Tool names, in the order the model should see them.
    pub names: Vec<String>,
}

/// One tool rho knows, active or not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInfo {
    /// The name the model calls it by.
    pub name: String,
    /// What it does.
    #[serde(default)]
    pub description: String,
    /// JSON Schema of its arguments.
    #[serde(default)]
    pub parameters: Value,
    /// `"builtin"`, `"extension"` or `"mcp"`.
    #[serde(default)]
    pub source: String,
}

/// The answer of `get_tools` and `set_active_tools`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolsState {
    /// Active tool names, in order.
    pub active: Vec<String>,
    /// Every tool that could be active.
    pub all: Vec<ToolInfo>,
}

/// A tool registered after the handshake.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegisterTool {
    /// The tool, as in `register`.
    pub tool: ToolSpec,
}

/// A command registered after the handshake.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegisterCommand {
    /// The command, as in `register`.
    pub command: CommandSpec,
}

/// A provider registered after the handshake.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegisterProvider {
    /// The provider, as in `register`.
    pub provider: ProviderSpec,
}

/// A provider to remove.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnregisterProvider {
    /// Its name.
    pub name: String,
}

/// A virtual model registered after the handshake.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegisterVirtualModel {
    /// The model, as in `register`'s `virtualModels`.
    pub model: crate::virtual_model::VirtualModelSpec,
}

/// A virtual model to remove.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnregisterVirtualModel {
    /// The provider it is listed under.
    pub provider: String,
    /// Its id.
    pub id: String,
}

/// An MCP server registered after the handshake.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegisterMcpServer {
    /// The server, as in `register`'s `mcpServers`.
    pub server: super::McpServerSpec,
}

/// The answer to `register_mcp_server`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct McpServerRegistered {
    /// pi's report that nothing connects the server (rho's MCP support is off and no extension
    /// handles `mcp_servers_change`); the registration stands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unconnected: Option<String>,
}

/// An MCP server to close and forget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnregisterMcpServer {
    /// Its name.
    pub name: String,
    /// The extension that registered it (another extension's server is left alone).
    pub extension_path: String,
}

/// A model by provider and id (from the session's model registry).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetModel {
    /// Provider name, e.g. `anthropic`.
    pub provider: String,
    /// Model id.
    pub model_id: String,
}

/// A thinking level: `off`, `minimal`, `low`, `medium`, `high` or `xhigh`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetThinkingLevel {
    /// The level; rho clamps it to the model.
    pub level: String,
}

/// Manual compaction.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Compact {
    /// Extra instructions for the summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_instructions: Option<String>,
}

/// One model call on the extension's behalf.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Complete {
    /// Provider name.
    pub provider: String,
    /// Model id.
    pub model_id: String,
    /// `{systemPrompt?, messages}` in pi's message format.
    pub context: Value,
    /// Output token limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
}

/// A session replacement, as pi's `ExtensionCommandContext` offers them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "action",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum SessionActionCall {
    /// `ctx.newSession({ parentSession, setup })`.
    NewSession {
        /// The session file to record as the new one's `parentSession`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_session: Option<String>,
        /// The extension's token for its `setup`: before the new session starts, rho sends
        /// a `session_setup` request carrying it, whose `session_setup_append` calls fill the
        /// new session.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        setup: Option<u64>,
    },
    /// `ctx.fork(entryId, { position })`.
    Fork {
        /// The entry to fork at.
        entry_id: String,
        /// `before` (the default: a user message, left out of the fork) or `at` (any entry,
        /// kept).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        position: Option<String>,
    },
    /// `ctx.navigateTree(targetId)`.
    NavigateTree {
        /// The entry to move the leaf to.
        target_id: String,
    },
    /// `ctx.switchSession(sessionPath)`.
    SwitchSession {
        /// The session file.
        session_path: String,
    },
    /// `ctx.reload()`.
    Reload,
}

/// What a session action did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionActionResult {
    /// An extension (or the user) cancelled it.
    pub cancelled: bool,
}

/// An entry for the session a `session_setup` request prepares.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSetupAppend {
    /// The `session_setup` request's id.
    pub request: u64,
    /// What to append.
    pub entry: SetupEntry,
    /// Where to write the answer too (`{"result": entry}` or `{"error": text}`, whole, by
    /// rename): pi's `append*` return the id at once, so the pi host waits for the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

/// What pi's `SessionManager` appends in a `setup`, by its entry `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum SetupEntry {
    /// `appendMessage`: a conversation message in pi's format.
    Message {
        /// The message (`role`, `content`, ...).
        message: Value,
    },
    /// `appendCustomEntry`: extension state, never in context.
    Custom {
        /// The extension's type tag.
        custom_type: String,
        /// Its data.
        #[serde(default)]
        data: Option<Value>,
    },
    /// `appendCustomMessageEntry`: an extension message in context.
    CustomMessage {
        /// The extension's type tag.
        custom_type: String,
        /// What the model sees (a string or content blocks).
        content: crate::UserContent,
        /// Whether UIs show it.
        #[serde(default)]
        display: bool,
        /// Extension data, never sent.
        #[serde(default)]
        details: Option<Value>,
    },
    /// `appendLabelChange`: sets (or with `None` clears) an entry's label.
    Label {
        /// The labelled entry.
        target_id: String,
        /// The label.
        #[serde(default)]
        label: Option<String>,
    },
    /// `appendSessionInfo`: the session's name.
    SessionInfo {
        /// The name (trimmed; empty clears it).
        #[serde(default)]
        name: String,
    },
    /// `appendModelChange`.
    ModelChange {
        /// Provider name.
        provider: String,
        /// Model id.
        model_id: String,
    },
    /// `appendThinkingLevelChange`.
    ThinkingLevelChange {
        /// The level.
        thinking_level: String,
    },
    /// `appendContextEdit`: replaces (or with `None` removes) an entry's content in context.
    ContextEdit {
        /// The edited entry.
        target_id: String,
        /// What the model sees instead.
        #[serde(default)]
        replacement: Option<crate::UserContent>,
    },
    /// `appendUsage`: usage outside the conversation (pi 1.6), counted in session totals.
    Usage {
        /// What it was for.
        kind: String,
        /// Provider name.
        provider: String,
        /// Model id.
        model: String,
        /// Tokens and cost.
        usage: crate::Usage,
        /// Free text.
        #[serde(default)]
        note: Option<String>,
    },
    /// `appendCompaction`: a summary replacing the history before `firstKeptEntryId`.
    Compaction {
        /// The summary.
        summary: String,
        /// The first entry kept (`None`: the compaction itself, so nothing before it is
        /// kept, as pi writes it).
        #[serde(default)]
        first_kept_entry_id: Option<String>,
        /// Context tokens before it.
        #[serde(default)]
        tokens_before: u64,
        /// Extension data.
        #[serde(default)]
        details: Option<Value>,
        /// Whether an extension made it.
        #[serde(default)]
        from_hook: Option<bool>,
        /// What making the summary cost.
        #[serde(default)]
        usage: Option<crate::Usage>,
    },
    /// `branchWithSummary`: moves the leaf to `branchFromId` (`None`: the root) and attaches
    /// a summary of the branch left behind.
    BranchSummary {
        /// Where the branch continues.
        #[serde(default)]
        branch_from_id: Option<String>,
        /// The summary.
        summary: String,
        /// Extension data.
        #[serde(default)]
        details: Option<Value>,
        /// Whether an extension made it.
        #[serde(default)]
        from_hook: Option<bool>,
    },
    /// `branch(id)` / `resetLeaf()`: moves the leaf (no entry; answered with null).
    Branch {
        /// The new leaf (`None`: before the first entry).
        #[serde(default)]
        id: Option<String>,
    },
    /// `newSession(options)`: the setup's session starts over as a fresh one (answered with
    /// the session's view, as `get_entries` shows it).
    NewSession {
        /// The id it gets (pi's rule for chosen ids).
        #[serde(default)]
        id: Option<String>,
        /// The session it continues.
        #[serde(default)]
        parent_session: Option<String>,
    },
    /// `setSessionFile(path)`: the setup goes on in the session at `path` (created when
    /// missing); answered with its view.
    SetSessionFile {
        /// The session file.
        path: String,
    },
    /// `createBranchedSession(leafId)`: the setup goes on in a new session holding the branch
    /// from the root to `leafId`; answered with its view.
    CreateBranchedSession {
        /// The branch's last entry.
        leaf_id: String,
    },
}
