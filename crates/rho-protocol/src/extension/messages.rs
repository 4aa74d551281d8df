//! The lines of the protocol: [`ToExtension`] (rho's handshake, requests and replies) and
//! [`FromExtension`] (the registration, results, tool progress and calls into rho).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::content::ToolResult;
use super::registration::Registration;

/// rho's first line: where the session runs and the flag values the user gave.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hello {
    /// The protocol version rho speaks.
    #[serde(default)]
    pub protocol_version: u32,
    /// The session's working directory.
    #[serde(default)]
    pub cwd: String,
    /// Whether a UI answers `ui_*` calls (without one, `confirm` is `false`, `select` `None`).
    #[serde(default, rename = "hasUI")]
    pub has_ui: bool,
    /// Values the user gave for declared flags, by name; a flag not given is absent.
    #[serde(default)]
    pub flags: Map<String, Value>,
    /// The mode the session runs in: `tui` (interactive), `rpc`, `json` or `print` (pi's
    /// `ctx.mode`); absent from older rho.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Whether the project's own resources are trusted (pi's `ctx.isProjectTrusted()`);
    /// absent from older rho, which loaded extensions only into trusted projects' sessions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_trusted: Option<bool>,
}

/// A line rho writes. Every request (`event`, `command`, `tool`, `shortcut`) is answered by a
/// [`FromExtension::Result`] of the same id. `E` is the event's type: rho serialises its own
/// event, extensions read a JSON value (`type` in snake_case, fields in camelCase).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum ToExtension<E = Value> {
    /// The handshake's first line.
    Hello(Hello),
    /// A subscribed event; answered with its result object or `null`.
    Event {
        /// Request id.
        id: u64,
        /// The event as in-process handlers see it.
        event: E,
    },
    /// `/name args` was invoked.
    Command {
        /// Request id.
        id: u64,
        /// Registered name.
        name: String,
        /// Everything after the first space, verbatim.
        #[serde(default)]
        args: String,
    },
    /// The user typed `/name <prefix>` for a command registered with `completes`: answered
    /// with a list of [`ArgumentCompletion`](super::ArgumentCompletion)s, or `null` for none
    /// (pi's `getArgumentCompletions(prefix)`).
    CommandCompletions {
        /// Request id.
        id: u64,
        /// Registered name.
        name: String,
        /// What was typed after the command and its space.
        prefix: String,
    },
    /// The model called a registered tool.
    Tool {
        /// Request id.
        id: u64,
        /// Tool name.
        name: String,
        /// The model's tool call id.
        #[serde(default)]
        tool_call_id: String,
        /// The validated arguments.
        #[serde(default)]
        args: Value,
    },
    /// A registered shortcut was pressed.
    Shortcut {
        /// Request id.
        id: u64,
        /// The key.
        key: String,
    },
    /// A model of a provider the extension registered with `streams: true` is asked for a
    /// reply: the extension sends `stream_event`s (pi's `AssistantMessageEvent`s) and answers
    /// with the final assistant message.
    Stream {
        /// Request id.
        id: u64,
        /// The provider's name.
        provider: String,
        /// The model (rho's model object: `id`, `api`, `baseUrl`, ...).
        model: Value,
        /// `{systemPrompt?, messages, tools?}`.
        context: Value,
        /// `{apiKey?, maxTokens?, reasoning?}`.
        #[serde(default)]
        options: Value,
    },
    /// A request is about to be made with the virtual model `provider`/`modelId` selected:
    /// the extension's router answers `{provider, id, thinkingLevel, state?, stateChanged}`
    /// (the physical model to send it to). `request` is pi's `ModelRouteRequest` without its
    /// signal (`model`, `thinkingLevel`, `reason`, `previous`, `failed`, `state`,
    /// `messages`); `cancel` aborts it.
    Route {
        /// Request id.
        id: u64,
        /// The virtual model's provider.
        provider: String,
        /// The virtual model's id.
        model_id: String,
        /// What the router gets.
        request: Value,
    },
    /// Sign in to `provider` (its `oauth.login`): the extension asks and tells the user
    /// through `oauth_prompt` and `oauth_notify` calls naming this request, and answers with
    /// the credential (`{access, refresh, expires, ...}`); `cancel` aborts the sign-in.
    OauthLogin {
        /// Request id.
        id: u64,
        /// The provider's name.
        provider: String,
    },
    /// Refresh a stored credential of `provider` (its `oauth.refreshToken`); answered with
    /// the new credential, which rho stores in auth.json.
    OauthRefresh {
        /// Request id.
        id: u64,
        /// The provider's name.
        provider: String,
        /// The stored credential as in auth.json (`{"type":"oauth","access",...}`).
        credentials: Value,
    },
    /// The key a request of `provider` sends with `credentials` (its `oauth.getApiKey`);
    /// answered with a string.
    OauthApiKey {
        /// Request id.
        id: u64,
        /// The provider's name.
        provider: String,
        /// The stored credential as in auth.json.
        credentials: Value,
    },
    /// Run `provider`'s `refreshModels` (pi 1.6's model refresh of a provider registered with
    /// one): `allowNetwork` false restores what `stored` (its models-store.json entry) holds,
    /// true may ask the live service with `credential` (the key resolved, or the stored
    /// sign-in). Answered by a [`RefreshedModels`].
    RefreshModels {
        /// Request id.
        id: u64,
        /// The provider's name.
        provider: String,
        /// Whether the extension may use the network (false: restore from `stored`).
        allow_network: bool,
        /// `{type: "api_key", key}` or the stored OAuth credential, when there is one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        credential: Option<Value>,
        /// The provider's models-store.json entry, when it has one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stored: Option<Value>,
    },
    /// Draw `target` in `width` columns (only what the extension declared in its
    /// registration's `renderers`, or a component it announced); answered by a
    /// [`Rendered`](super::Rendered) or `null`.
    Render {
        /// Request id.
        id: u64,
        /// What to draw.
        target: super::RenderTarget,
        /// Columns available.
        width: u16,
    },
    /// Terminal input for the component `key` that holds the keyboard (`ctx.ui.custom`):
    /// `data` is the key as the terminal sends it (`\u001b` for Escape, `\r` for Enter).
    ComponentInput {
        /// Request id.
        id: u64,
        /// The component's key.
        key: String,
        /// The key's bytes as text.
        data: String,
    },
    /// The new session of the `session_action` that named `setup` is ready but not yet
    /// started: the extension runs its setup, filling it with `session_setup_append` calls
    /// that name this request, and answers `null` (pi's `newSession({ setup })`).
    SessionSetup {
        /// Request id.
        id: u64,
        /// The token the `session_action` named.
        setup: u64,
        /// The new session as `get_entries` shows one (`sessionId`, `sessionFile`,
        /// `header`, `leafId`, `entries`).
        session: Value,
    },
    /// The project's trust was decided after the extension started (it was one of the
    /// extensions asked by `project_trust`, started while the question was open): from now on
    /// `project_trusted` is pi's `ctx.isProjectTrusted()`. No answer.
    Trust {
        /// Whether the project's own resources are trusted.
        project_trusted: bool,
    },
    /// Load `paths` into this process too (rho's pi host, once project trust is decided:
    /// the trusted project's own pi extensions join the running ones, as in pi). `order` is
    /// every path of the process in load order, for the order of handlers and commands.
    /// Answered with the whole registration, as `register` carries it.
    Load {
        /// Request id.
        id: u64,
        /// The extension paths to load.
        paths: Vec<String>,
        /// The process's paths in load order (those loaded before and `paths`).
        order: Vec<String>,
    },
    /// rho no longer wants the answer of request `id` (tool aborted, deadline passed).
    Cancel {
        /// The request to stop.
        id: u64,
    },
    /// The answer to one of the extension's calls.
    Reply {
        /// The extension's call id.
        id: u64,
        /// The value on success (absent and `null` read the same).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
        /// The message on failure.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A message type this version does not know: extensions ignore it, rho never sends it.
    #[serde(other)]
    Unknown,
}

/// A line an extension writes. `P` is the type of a tool's partial output: extensions send
/// [`ToolResult`]s of their blocks, rho reads them into its own content blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromExtension<P = ToolResult> {
    /// The handshake's answer: everything the extension registers.
    Register(Box<Registration>),
    /// The answer to request `id`: `result` on success, `error` on failure.
    Result {
        /// rho's request id.
        id: u64,
        /// Handler result (absent and `null` both mean no result).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
        /// Failure message.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A cumulative partial result of running tool request `id`.
    ToolUpdate {
        /// rho's request id.
        id: u64,
        /// `{content, details?}`.
        partial: P,
    },
    /// One event of the reply `stream` request `id` is producing.
    StreamEvent {
        /// rho's request id.
        id: u64,
        /// pi's `AssistantMessageEvent` (`start`, `text_delta`, ..., `done`, `error`).
        event: Value,
    },
    /// A call from the extension into rho.
    Call {
        /// The extension's call id.
        id: u64,
        /// Method name (`send_message`, `get_state`, `ui_select`, ...).
        method: String,
        /// Method arguments.
        #[serde(default)]
        params: Value,
    },
}

/// Serialises `msg` as one protocol line (with its newline) into `buf`.
pub fn encode_line<T: Serialize>(msg: &T, buf: &mut Vec<u8>) -> Result<(), serde_json::Error> {
    serde_json::to_writer(&mut *buf, msg)?;
    buf.push(b'\n');
    Ok(())
}

#[cfg(test)]
mod tests;

/// The answer to a [`ToExtension::RefreshModels`] request: the models `refreshModels`
/// returned (they replace the provider's models) and what it asked to persist through
/// `context.publish({persist})`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RefreshedModels {
    /// The provider's models now; `None`: `refreshModels` returned nothing, they stay.
    #[serde(default)]
    pub models: Option<Vec<Value>>,
    /// The provider's new models-store.json entry (`publish({persist: entry})`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persist: Option<Value>,
    /// `publish({persist: null})`: the provider's entry is deleted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub forget: bool,
}
