//! LLM messages: user, assistant and tool result, tagged by `role`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::{ContentBlock, ToolCall};
use crate::usage::{StopReason, Usage};

/// Unix time in milliseconds, the unit pi uses for every `timestamp`.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// A user message's content: pi writes an array, but a bare string must load too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum UserContent {
    /// The legacy/plain form.
    Text(String),
    /// Text and image blocks.
    Blocks(Vec<ContentBlock>),
}

impl UserContent {
    /// The content as blocks (a string becomes one text block).
    pub fn to_blocks(&self) -> Vec<ContentBlock> {
        match self {
            UserContent::Text(t) => vec![ContentBlock::text(t.clone())],
            UserContent::Blocks(b) => b.clone(),
        }
    }

    /// All text joined with newlines, images skipped.
    pub fn text(&self) -> String {
        match self {
            UserContent::Text(t) => t.clone(),
            UserContent::Blocks(b) => join_text(b),
        }
    }
}

/// Joins the text blocks of `blocks` with `\n`.
pub fn join_text(blocks: &[ContentBlock]) -> String {
    let mut out = String::new();
    for t in blocks.iter().filter_map(ContentBlock::as_text) {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(t);
    }
    out
}

/// `{role:"user", content, timestamp}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct UserMessage {
    /// Text and images.
    pub content: UserContent,
    /// Unix ms.
    pub timestamp: i64,
}

impl UserMessage {
    /// A user message holding one text block, stamped now.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: UserContent::Blocks(vec![ContentBlock::text(text)]),
            timestamp: now_ms(),
        }
    }
}

/// A diagnostic the provider attached to a message (kept for replay, never interpreted).
pub type Diagnostic = Value;

/// What the model said, with who said it and what it cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AssistantMessage {
    /// Text, thinking and tool-call blocks in stream order.
    pub content: Vec<ContentBlock>,
    /// The wire API that produced it (e.g. `anthropic-messages`).
    pub api: String,
    /// The provider entry (e.g. `anthropic`).
    pub provider: String,
    /// The requested model id.
    pub model: String,
    /// The server-reported model, when it differs from `model`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_model: Option<String>,
    /// Upstream message/response id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    /// pi 1.x: the provider's own name for the thinking level it applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_thinking_level: Option<String>,
    /// pi 1.x: the thinking level requested for this reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_level: Option<String>,
    /// Provider diagnostics, passed through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Vec<Diagnostic>>,
    /// Tokens and cost.
    #[serde(default)]
    pub usage: Usage,
    /// Why the reply ended.
    pub stop_reason: StopReason,
    /// pi 1.x: the handle of a `deferred` reply (provider data, kept as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deferred: Option<Value>,
    /// Set when `stop_reason` is `error` or `aborted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// pi 1.x: the stop reason as the provider sent it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_stop_reason: Option<String>,
    /// pi 1.x: whether the provider marked the end of the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_turn: Option<bool>,
    /// Unix ms.
    pub timestamp: i64,
    /// pi 1.x: milliseconds from `timestamp` until the reply ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

impl AssistantMessage {
    /// An empty message as a stream starts it: no content, zero usage, placeholder `stop`.
    pub fn empty(api: &str, provider: &str, model: &str) -> Self {
        Self {
            content: Vec::new(),
            api: api.to_string(),
            provider: provider.to_string(),
            model: model.to_string(),
            response_model: None,
            response_id: None,
            provider_thinking_level: None,
            thinking_level: None,
            diagnostics: None,
            usage: Usage::default(),
            stop_reason: StopReason::Stop,
            deferred: None,
            error_message: None,
            raw_stop_reason: None,
            end_turn: None,
            timestamp: now_ms(),
            duration_ms: None,
        }
    }

    /// The tool calls in content order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.content.iter().filter_map(|b| match b {
            ContentBlock::ToolCall(tc) => Some(tc),
            _ => None,
        })
    }

    /// The text blocks joined with newlines.
    pub fn text(&self) -> String {
        join_text(&self.content)
    }
}

/// `{role:"toolResult", toolCallId, toolName, content, details?, usage?, nestedCalls?, isError,
/// timestamp}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ToolResultMessage {
    /// The id of the call this answers.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// Text and images for the model.
    pub content: Vec<ContentBlock>,
    /// Agent-side data (diffs, paths); never sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// pi 1.x: usage of nested model work the tool did (counted in session totals only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// pi 1.x: bounded records of the calls this tool made to other tools (kept as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nested_calls: Option<Value>,
    /// True when the tool failed.
    pub is_error: bool,
    /// Unix ms.
    pub timestamp: i64,
    /// pi 1.x: how long the tool ran, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

/// An LLM message, tagged by `role`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "role", rename_all = "camelCase")]
pub enum Message {
    /// `role: "user"`
    User(UserMessage),
    /// `role: "assistant"`
    Assistant(AssistantMessage),
    /// `role: "toolResult"`
    ToolResult(ToolResultMessage),
}

impl Message {
    /// The message's timestamp (Unix ms).
    pub fn timestamp(&self) -> i64 {
        match self {
            Message::User(m) => m.timestamp,
            Message::Assistant(m) => m.timestamp,
            Message::ToolResult(m) => m.timestamp,
        }
    }
}

/// A tool as the model sees it: name, description and a JSON-Schema for its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Unique tool name.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON Schema object of the arguments.
    pub parameters: Value,
}

/// Everything one LLM call sends: system prompt, history and tools.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Context {
    /// The system prompt, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// The conversation.
    pub messages: Vec<Message>,
    /// Tools the model may call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
}
