//! Agent events (interfaces spec §1.5): what subscribers see of a run, serialized exactly as
//! pi writes them on the RPC and JSON event streams.

use rho_ai::{AssistantMessageEvent, ContentBlock, ToolCall, ToolResultMessage};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use std::sync::Arc;

use serde_json::Value;

use crate::message::AgentMessage;

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
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
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
        will_retry: bool,
    },
    /// A turn (one assistant reply plus its tool calls) began.
    TurnStart,
    /// A turn ended.
    TurnEnd {
        /// The turn's assistant message.
        message: AgentMessage,
        /// Its tool results in call order.
        tool_results: Vec<ToolResultMessage>,
    },
    /// A message entered the conversation (for assistants: the empty partial).
    MessageStart {
        /// The message.
        message: AgentMessage,
    },
    /// The streaming assistant message changed.
    MessageUpdate {
        /// The partial assistant message after the event.
        message: AgentMessage,
        /// The provider event; serialized with `partial` = `message`.
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
        duration_ms: Option<u64>,
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
        }
    }

    /// The wire `type` string.
    pub fn type_name(&self) -> &'static str {
        match self {
            AgentEvent::AgentStart => "agent_start",
            AgentEvent::AgentEnd { .. } => "agent_end",
            AgentEvent::TurnStart => "turn_start",
            AgentEvent::TurnEnd { .. } => "turn_end",
            AgentEvent::MessageStart { .. } => "message_start",
            AgentEvent::MessageUpdate { .. } => "message_update",
            AgentEvent::MessageEnd { .. } => "message_end",
            AgentEvent::ToolExecutionStart { .. } => "tool_execution_start",
            AgentEvent::ToolExecutionUpdate { .. } => "tool_execution_update",
            AgentEvent::ToolExecutionEnd { .. } => "tool_execution_end",
        }
    }
}

impl Serialize for AgentEvent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", self.type_name())?;
        match self {
            AgentEvent::AgentStart | AgentEvent::TurnStart => {}
            AgentEvent::AgentEnd { messages, .. } => map.serialize_entry("messages", messages)?,
            AgentEvent::TurnEnd {
                message,
                tool_results,
            } => {
                map.serialize_entry("message", message)?;
                let tagged: Vec<ToolResultJson> =
                    tool_results.iter().map(ToolResultJson::new).collect();
                map.serialize_entry("toolResults", &tagged)?;
            }
            AgentEvent::MessageStart { message } => map.serialize_entry("message", message)?,
            AgentEvent::MessageEnd { message } => map.serialize_entry("message", &**message)?,
            AgentEvent::MessageUpdate {
                message,
                assistant_message_event,
            } => {
                map.serialize_entry("message", message)?;
                map.serialize_entry(
                    "assistantMessageEvent",
                    &AssistantEventJson {
                        event: assistant_message_event,
                        partial: Some(message),
                    },
                )?;
            }
            AgentEvent::ToolExecutionStart {
                tool_call_id,
                tool_name,
                args,
            } => {
                map.serialize_entry("toolCallId", tool_call_id)?;
                map.serialize_entry("toolName", tool_name)?;
                map.serialize_entry("args", args)?;
            }
            AgentEvent::ToolExecutionUpdate {
                tool_call_id,
                tool_name,
                args,
                partial_result,
            } => {
                map.serialize_entry("toolCallId", tool_call_id)?;
                map.serialize_entry("toolName", tool_name)?;
                map.serialize_entry("args", args)?;
                map.serialize_entry("partialResult", partial_result)?;
            }
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                tool_name,
                result,
                is_error,
                duration_ms,
            } => {
                map.serialize_entry("toolCallId", tool_call_id)?;
                map.serialize_entry("toolName", tool_name)?;
                map.serialize_entry("result", result)?;
                map.serialize_entry("isError", is_error)?;
                if let Some(ms) = duration_ms {
                    map.serialize_entry("durationMs", ms)?;
                }
            }
        }
        map.end()
    }
}

/// A tool result as pi writes it in `turn_end.toolResults`: a message, tagged by its role.
#[derive(Serialize)]
struct ToolResultJson<'a> {
    role: &'static str,
    #[serde(flatten)]
    message: &'a ToolResultMessage,
}

impl<'a> ToolResultJson<'a> {
    fn new(message: &'a ToolResultMessage) -> Self {
        Self {
            role: "toolResult",
            message,
        }
    }
}

/// A tool call as pi writes it in `toolcall_end`: a content block, tagged by its type.
#[derive(Serialize)]
struct ToolCallJson<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    call: &'a ToolCall,
}

impl<'a> ToolCallJson<'a> {
    fn new(call: &'a ToolCall) -> Self {
        Self {
            kind: "toolCall",
            call,
        }
    }
}

/// pi's JSON shape of a provider event: the event's own fields plus `partial`, the message so
/// far (`start` carries only `partial`; `done`/`error` carry the final message instead).
/// `partial` is written last, so an encoder may put bytes it already has in its place.
///
/// Without a partial this is pi 1.x's delta-only wire shape (its `json.md`): no `partial`
/// field, and `toolcall_start` names its call (`id`, `toolName`) since no partial shows it.
pub struct AssistantEventJson<'a, P: ?Sized = AgentMessage> {
    /// The provider event.
    pub event: &'a AssistantMessageEvent,
    /// The message so far (serialized with its `role`); `None` for pi 1.x's shape.
    pub partial: Option<&'a P>,
}

impl<P: Serialize + ?Sized> Serialize for AssistantEventJson<'_, P> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use AssistantMessageEvent as E;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", self.event.type_name())?;
        match self.event {
            E::Start { .. } => {}
            E::TextStart { content_index } | E::ThinkingStart { content_index } => {
                map.serialize_entry("contentIndex", content_index)?
            }
            E::ToolCallStart {
                content_index,
                id,
                name,
            } => {
                map.serialize_entry("contentIndex", content_index)?;
                if self.partial.is_none() {
                    map.serialize_entry("id", id)?;
                    map.serialize_entry("toolName", name)?;
                }
            }
            E::TextDelta {
                content_index,
                delta,
            }
            | E::ThinkingDelta {
                content_index,
                delta,
            }
            | E::ToolCallDelta {
                content_index,
                delta,
            } => {
                map.serialize_entry("contentIndex", content_index)?;
                map.serialize_entry("delta", delta)?;
            }
            E::TextEnd {
                content_index,
                text,
            } => {
                map.serialize_entry("contentIndex", content_index)?;
                map.serialize_entry("content", &text.text)?;
            }
            E::ThinkingEnd {
                content_index,
                thinking,
            } => {
                map.serialize_entry("contentIndex", content_index)?;
                map.serialize_entry("content", &thinking.thinking)?;
            }
            E::ToolCallEnd {
                content_index,
                tool_call,
            } => {
                map.serialize_entry("contentIndex", content_index)?;
                map.serialize_entry("toolCall", &ToolCallJson::new(tool_call))?;
            }
            E::Done { reason, message } => {
                map.serialize_entry("reason", reason)?;
                map.serialize_entry("message", &AgentMessage::Assistant(message.clone()))?;
                return map.end();
            }
            E::Error { reason, error } => {
                map.serialize_entry("reason", reason)?;
                map.serialize_entry("error", &AgentMessage::Assistant(error.clone()))?;
                return map.end();
            }
        }
        if let Some(partial) = self.partial {
            map.serialize_entry("partial", partial)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rho_ai::{AssistantMessage, StopReason};

    fn msg() -> AssistantMessage {
        let mut m = AssistantMessage::empty("api", "prov", "m");
        m.timestamp = 7;
        m
    }

    fn json(event: &AssistantMessageEvent) -> String {
        let partial = AgentMessage::Assistant(msg());
        serde_json::to_string(&AssistantEventJson {
            event,
            partial: Some(&partial),
        })
        .expect("serializes")
    }

    #[test]
    fn terminal_and_start_events_use_pi_field_names() {
        let start = json(&AssistantMessageEvent::Start { partial: msg() });
        assert!(start.starts_with(r#"{"type":"start","partial":{"role":"assistant","#));
        let done = json(&AssistantMessageEvent::Done {
            reason: StopReason::ToolUse,
            message: msg(),
        });
        assert!(
            done.starts_with(r#"{"type":"done","reason":"toolUse","message":{"role":"assistant","#)
        );
        assert!(!done.contains("partial"));
        let err = json(&AssistantMessageEvent::Error {
            reason: StopReason::Aborted,
            error: msg(),
        });
        assert!(
            err.starts_with(r#"{"type":"error","reason":"aborted","error":{"role":"assistant","#)
        );
    }

    #[test]
    fn without_a_partial_the_event_is_pi_1x_delta_only_shape() {
        let encode = |event: &AssistantMessageEvent| {
            serde_json::to_string(&AssistantEventJson::<AgentMessage> {
                event,
                partial: None,
            })
            .expect("serializes")
        };
        let start = AssistantMessageEvent::ToolCallStart {
            content_index: 1,
            id: "c1".into(),
            name: "read".into(),
        };
        assert_eq!(
            encode(&start),
            r#"{"type":"toolcall_start","contentIndex":1,"id":"c1","toolName":"read"}"#
        );
        let delta = AssistantMessageEvent::TextDelta {
            content_index: 0,
            delta: "Hi".into(),
        };
        assert_eq!(
            encode(&delta),
            r#"{"type":"text_delta","contentIndex":0,"delta":"Hi"}"#
        );
        // pi 0.73.1 names the call only in `partial`.
        assert!(!json(&start).contains("toolName"));
    }

    #[test]
    fn tool_events_and_error_results() {
        let end = AgentEvent::tool_execution_end(
            "c1",
            "bash",
            ToolExecutionResult {
                content: vec![ContentBlock::text("Tool x not found")],
                details: Some(Value::Object(Default::default())),
            },
            true,
        );
        assert_eq!(
            serde_json::to_string(&end).expect("serializes"),
            r#"{"type":"tool_execution_end","toolCallId":"c1","toolName":"bash","result":{"content":[{"type":"text","text":"Tool x not found"}],"details":{}},"isError":true}"#
        );
        assert_eq!(
            serde_json::to_string(&AgentEvent::AgentStart).expect("serializes"),
            r#"{"type":"agent_start"}"#
        );
    }
}
