//! Agent events (interfaces spec §1.5): what subscribers see of a run, serialized exactly as
//! pi 0.73.1 writes them on the RPC and JSON event streams (pi 1.x's changed shapes are in
//! [`crate::session::pi1`]). Serialization is derived: the `type` tag and the names
//! [`AgentEventKind`] gives without serializing follow one rule (snake_case variant names).

use std::sync::Arc;

use crate::{AssistantMessageEvent, ContentBlock, ToolResultMessage, Usage};
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::assistant_event::AssistantEventJson;
use super::message::AgentMessage;

/// A tool's result as events carry it: `{content, details?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ToolExecutionResult {
    /// Text and images for the model.
    pub content: Vec<ContentBlock>,
    /// Agent-side data; omitted when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// One event of a run. `type` tags are snake_case, fields camelCase, as in pi.
/// Events travel behind an `Arc`, so the size gap between variants costs nothing.
/// [`AgentEventKind`] is its field-less twin, for code that needs an event's name.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, strum::EnumDiscriminants)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
#[strum_discriminants(
    name(AgentEventKind),
    derive(Hash, strum::IntoStaticStr, strum::EnumIter),
    strum(serialize_all = "snake_case"),
    doc = "The kind of an [`AgentEvent`]; converts into its wire `type` string."
)]
pub enum AgentEvent {
    /// A run began.
    AgentStart,
    /// A run ended; `messages` are the messages this run added, its prompts included.
    AgentEnd {
        /// The run's new messages.
        messages: Vec<AgentMessage>,
        /// Whether the session will retry the run's failed reply (pi 1.x's `willRetry`). The
        /// agent cannot know and says `false`; the session, which owns the retry policy, sets
        /// it before listeners see the event. pi 0.73.1's encoding has no such field.
        #[serde(skip)]
        will_retry: bool,
    },
    /// A turn (one assistant reply plus its tool calls) began.
    TurnStart,
    /// A turn ended.
    TurnEnd {
        /// The turn's assistant message.
        message: AgentMessage,
        /// Its tool results in call order, each tagged `"role": "toolResult"` as pi writes them.
        #[serde(serialize_with = "tool_results_with_role")]
        #[cfg_attr(feature = "schema", schemars(with = "Vec<ToolResultJson<'static>>"))]
        tool_results: Vec<ToolResultMessage>,
    },
    /// A message entered the conversation (for assistants: the empty partial).
    MessageStart {
        /// The message.
        message: AgentMessage,
    },
    /// The streaming assistant message changed: `assistant_message_event` is the provider
    /// event (a delta, or a block's start or end). Events carry no copy of the partial
    /// message (copying a growing message per token made long replies quadratic): a listener
    /// that needs it folds the reply's `message_start` and updates into a
    /// [`crate::PartialMessage`]. Serialized delta-only, as pi 1.x writes it; pi 0.73.1's
    /// line, which also carries the partial (twice), is [`pi073_update`], and is what the
    /// schema describes here (the 1.x schema has its own, [`crate::session::pi1`]).
    #[serde(serialize_with = "delta_only")]
    #[cfg_attr(
        feature = "schema",
        schemars(
            with = "MessageUpdate<'static>",
            description = "The streaming assistant message changed. The provider event is written with\n`partial` = `message` ([`AssistantEventJson`])."
        )
    )]
    MessageUpdate {
        /// The reply's usage so far.
        usage: Usage,
        /// The provider event.
        assistant_message_event: AssistantMessageEvent,
    },
    /// A message is final (this form is what sessions persist).
    MessageEnd {
        /// The final message, shared with the transcript (and the session entry that
        /// records it) instead of copied.
        message: Arc<AgentMessage>,
    },
    /// A tool call began (emitted in call order).
    ToolExecutionStart {
        /// The call id.
        tool_call_id: String,
        /// The tool name.
        tool_name: String,
        /// The raw arguments the model sent.
        args: Value,
        /// pi 1.x: the call that made this one (a codemode script's tool call); absent for
        /// calls the model made.
        #[serde(skip_serializing_if = "Option::is_none")]
        parent_tool_call_id: Option<String>,
    },
    /// A running tool reported progress (cumulative; replaces the previous update).
    ToolExecutionUpdate {
        /// The call id.
        tool_call_id: String,
        /// The tool name.
        tool_name: String,
        /// The raw arguments the model sent.
        args: Value,
        /// The output so far.
        partial_result: ToolExecutionResult,
        /// pi 1.x: the call that made this one (a codemode script's tool call); absent for
        /// calls the model made.
        #[serde(skip_serializing_if = "Option::is_none")]
        parent_tool_call_id: Option<String>,
    },
    /// A tool call finished (emitted in completion order).
    ToolExecutionEnd {
        /// The call id.
        tool_call_id: String,
        /// The tool name.
        tool_name: String,
        /// The final result.
        result: ToolExecutionResult,
        /// True when the call failed, was blocked, skipped or invalid.
        is_error: bool,
        /// pi 1.x: how long the tool ran, in milliseconds; `None` for calls that never ran
        /// (unknown tool, invalid arguments, blocked, skipped).
        #[serde(skip_serializing_if = "Option::is_none")]
        duration_ms: Option<u64>,
        /// pi 1.x: the call that made this one (a codemode script's tool call); absent for
        /// calls the model made.
        #[serde(skip_serializing_if = "Option::is_none")]
        parent_tool_call_id: Option<String>,
    },
}

impl AgentEvent {
    /// A `tool_execution_end` of a call with no measured duration (UIs and tests that build
    /// events by hand).
    pub fn tool_execution_end(
        tool_call_id: impl Into<String>,
        tool_name: impl Into<String>,
        result: ToolExecutionResult,
        is_error: bool,
    ) -> Self {
        AgentEvent::ToolExecutionEnd {
            tool_call_id: tool_call_id.into(),
            tool_name: tool_name.into(),
            result,
            is_error,
            duration_ms: None,
            parent_tool_call_id: None,
        }
    }

    /// The event's kind.
    pub fn kind(&self) -> AgentEventKind {
        self.into()
    }

    /// The wire `type` string.
    pub fn type_name(&self) -> &'static str {
        self.kind().into()
    }
}

impl AgentEventKind {
    /// The wire `type` string.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// A tool result as pi writes it in `turn_end.toolResults`: a message, tagged by its role.
#[derive(Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct ToolResultJson<'a> {
    role: ToolResultRole,
    #[serde(flatten)]
    message: &'a ToolResultMessage,
}

/// The one role a `toolResults` item has.
#[derive(Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
enum ToolResultRole {
    ToolResult,
}

fn tool_results_with_role<S: Serializer>(
    results: &[ToolResultMessage],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(results.iter().map(|message| ToolResultJson {
        role: ToolResultRole::ToolResult,
        message,
    }))
}

/// The fields of pi 0.73.1's `message_update`: the partial message, and the provider event
/// carrying it again as `partial`.
#[derive(Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub(crate) struct MessageUpdate<'a> {
    message: &'a AgentMessage,
    assistant_message_event: AssistantEventJson<'a>,
}

/// pi 0.73.1's `message_update` line (`{"type":"message_update","message":M,
/// "assistantMessageEvent":{...,"partial":M}}`) for the partial `message` after `event`.
pub fn pi073_update<'a>(
    message: &'a AgentMessage,
    event: &'a AssistantMessageEvent,
) -> impl Serialize + 'a {
    /// The line: its tag, then the fields.
    #[derive(Serialize)]
    #[serde(tag = "type", rename = "message_update")]
    struct Line<'a> {
        #[serde(flatten)]
        update: MessageUpdate<'a>,
    }
    Line {
        update: MessageUpdate {
            message,
            assistant_message_event: AssistantEventJson {
                event,
                partial: Some(message),
            },
        },
    }
}

/// The fields of pi 1.x's delta-only `message_update`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DeltaOnly<'a> {
    usage: &'a Usage,
    assistant_message_event: AssistantEventJson<'a>,
}

fn delta_only<S: Serializer>(
    usage: &Usage,
    event: &AssistantMessageEvent,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    DeltaOnly {
        usage,
        assistant_message_event: AssistantEventJson {
            event,
            partial: None,
        },
    }
    .serialize(serializer)
}

#[cfg(test)]
pub(crate) mod tests;
