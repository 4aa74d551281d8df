//! The `data` of the RPC commands' responses (interfaces spec §1.4), in pi's field order.

use crate::{Model, ThinkingLevel};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `get_state`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SessionState {
    /// The current model (absent before one is chosen).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<Model>,
    /// The effective thinking level.
    pub thinking_level: ThinkingLevel,
    /// Whether a run is in progress.
    pub is_streaming: bool,
    /// Whether a compaction is in progress.
    pub is_compacting: bool,
    /// `all` or `one-at-a-time`.
    pub steering_mode: String,
    /// `all` or `one-at-a-time`.
    pub follow_up_mode: String,
    /// The session file (absent in memory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_file: Option<String>,
    /// The session id.
    pub session_id: String,
    /// The session's display name, if set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_name: Option<String>,
    /// The `compaction.enabled` setting.
    pub auto_compaction_enabled: bool,
    /// Messages in the agent's context.
    pub message_count: usize,
    /// Queued steering and follow-up messages.
    pub pending_message_count: usize,
    /// rho: the MCP servers' status, when MCP is configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_servers: Option<Value>,
}

/// `{"messages": [...]}` of `get_messages` (agent messages) and `get_fork_messages` (fork
/// candidates); borrowed, so a long transcript is encoded without a copy.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MessageList<'a, M> {
    /// The messages.
    pub messages: &'a [M],
}

/// `get_last_assistant_text`: `{"text"}`, or `{}` when there is no reply with text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LastAssistantText {
    /// The last reply's trimmed text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// `compact`: the result, and in pi 1.x an estimate of the context after it and what the
/// summary cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CompactReply {
    /// What the compaction produced.
    #[serde(flatten)]
    pub result: crate::session::CompactionResult,
    /// Heuristic tokens of the rebuilt context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_tokens_after: Option<u64>,
    /// The summary requests' usage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::Usage>,
}

/// `get_last_assistant_text`'s `data` in either dialect.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum LastText {
    /// pi 0.73.1: `{}` when there is no text.
    Omitted(LastAssistantText),
    /// pi 1.x: `{"text":null}` when there is no text.
    Nullable(super::pi1_replies::NullableText),
}

/// `get_commands`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CommandList {
    /// Extension commands, then prompt templates, then skills.
    pub commands: Vec<CommandInfo>,
}

/// One command a `prompt` can invoke.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CommandInfo {
    /// Invocation name (`skill:<name>` for skills).
    pub name: String,
    /// What it does (absent when an extension gave none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `extension`, `prompt` or `skill`.
    pub source: String,
    /// Where it came from.
    pub source_info: SourceInfo,
}

/// Where a command's resource came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SourceInfo {
    /// The file (`<builtin>` for extension commands).
    pub path: String,
    /// `auto`, `cli` or `builtin`.
    pub source: String,
    /// `user`, `project` or `temporary`.
    pub scope: String,
    /// Always `top-level`.
    pub origin: String,
    /// The root it was discovered under (absent for extension commands).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_dir: Option<String>,
}

/// `get_available_models`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ModelList {
    /// Models whose provider has credentials.
    pub models: Vec<Model>,
}

/// `cycle_model` (its `data` is `null` when there is nothing to cycle to).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CycledModel {
    /// The new model.
    pub model: Model,
    /// The thinking level after the switch.
    pub thinking_level: ThinkingLevel,
    /// Whether the cycle went through the `--models` scope.
    pub is_scoped: bool,
}

/// `cycle_thinking_level` (its `data` is `null` when the model does not think).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ThinkingLevelReply {
    /// The new level.
    pub level: ThinkingLevel,
}

/// `new_session`, `switch_session`, `clone`: whether an extension cancelled it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Cancelled {
    /// True when an extension cancelled the switch.
    pub cancelled: bool,
}

/// `fork`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ForkResult {
    /// The forked user message's text (for the editor).
    pub text: String,
    /// True when an extension cancelled the fork.
    pub cancelled: bool,
}

/// `export_html`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ExportedHtml {
    /// The file written.
    pub path: String,
}
