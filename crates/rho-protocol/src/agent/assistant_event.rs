//! A provider event as pi writes it inside `message_update` (`assistantMessageEvent`): the
//! event's own fields plus `partial`, the message so far. `start` carries only `partial`;
//! `done`/`error` carry the final message instead. Without a partial it is pi 1.x's
//! delta-only shape (its `json.md`): no `partial`, and `toolcall_start` names its call (`id`,
//! `toolName`) since no partial shows it.
//!
//! [`crate::AssistantMessageEvent`] is the provider layer's event; [`AssistantEventJson`]
//! borrows it into [`AssistantEventWire`], whose derived serialization is the wire shape.

use crate::{AssistantMessage, AssistantMessageEvent, StopReason, ToolCall};
use serde::{Serialize, Serializer};

use super::message::AgentMessage;

/// A provider event with the message so far (`partial`), serialized as pi writes it.
/// `partial` is written last, so an encoder may put bytes it already has in its place.
pub struct AssistantEventJson<'a, P: ?Sized = AgentMessage> {
    /// The provider event.
    pub event: &'a AssistantMessageEvent,
    /// The message so far (serialized with its `role`); `None` for pi 1.x's shape.
    pub partial: Option<&'a P>,
}

impl<P: Serialize + ?Sized> Serialize for AssistantEventJson<'_, P> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        AssistantEventWire::new(self.event, self.partial).serialize(serializer)
    }
}

#[cfg(feature = "schema")]
impl<P: ?Sized> schemars::JsonSchema for AssistantEventJson<'_, P> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AssistantMessageEvent".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        AssistantEventWire::<'static, AgentMessage>::json_schema(generator)
    }
}

/// The wire form of a provider event. `type` tags are snake_case (`toolcall_*` as pi spells
/// them), fields camelCase, `partial` last and left out when absent.
#[derive(Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub(crate) enum AssistantEventWire<'a, P: ?Sized> {
    /// The reply began.
    Start {
        /// The empty message (pi 0.73.1 only).
        #[serde(skip_serializing_if = "Option::is_none")]
        partial: Option<&'a P>,
    },
    /// A text block opened.
    TextStart {
        content_index: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        partial: Option<&'a P>,
    },
    /// Text to append to the block.
    TextDelta {
        content_index: usize,
        delta: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        partial: Option<&'a P>,
    },
    /// A text block closed with its whole text.
    TextEnd {
        content_index: usize,
        content: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        partial: Option<&'a P>,
    },
    /// A thinking block opened.
    ThinkingStart {
        content_index: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        partial: Option<&'a P>,
    },
    /// Thinking to append to the block.
    ThinkingDelta {
        content_index: usize,
        delta: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        partial: Option<&'a P>,
    },
    /// A thinking block closed with its whole text.
    ThinkingEnd {
        content_index: usize,
        content: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        partial: Option<&'a P>,
    },
    /// A tool call opened; `id` and `toolName` only in pi 1.x's shape.
    #[serde(rename = "toolcall_start")]
    ToolCallStart {
        content_index: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        tool_name: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        partial: Option<&'a P>,
    },
    /// A raw fragment of the call's arguments (JSON text).
    #[serde(rename = "toolcall_delta")]
    ToolCallDelta {
        content_index: usize,
        delta: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        partial: Option<&'a P>,
    },
    /// A tool call closed with its parsed arguments.
    #[serde(rename = "toolcall_end")]
    ToolCallEnd {
        content_index: usize,
        tool_call: ToolCallJson<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        partial: Option<&'a P>,
    },
    /// The reply ended normally (`stop`, `length` or `toolUse`).
    Done {
        reason: StopReason,
        message: AgentMessage,
    },
    /// The reply failed (`error`) or was aborted (`aborted`).
    Error {
        reason: StopReason,
        error: AgentMessage,
    },
}

impl<'a, P: ?Sized> AssistantEventWire<'a, P> {
    fn new(event: &'a AssistantMessageEvent, partial: Option<&'a P>) -> Self {
        use AssistantMessageEvent as E;
        match event {
            E::Start { .. } => Self::Start { partial },
            E::TextStart { content_index } => Self::TextStart {
                content_index: *content_index,
                partial,
            },
            E::TextDelta {
                content_index,
                delta,
            } => Self::TextDelta {
                content_index: *content_index,
                delta,
                partial,
            },
            E::TextEnd {
                content_index,
                text,
            } => Self::TextEnd {
                content_index: *content_index,
                content: &text.text,
                partial,
            },
            E::ThinkingStart { content_index } => Self::ThinkingStart {
                content_index: *content_index,
                partial,
            },
            E::ThinkingDelta {
                content_index,
                delta,
            } => Self::ThinkingDelta {
                content_index: *content_index,
                delta,
                partial,
            },
            E::ThinkingEnd {
                content_index,
                thinking,
            } => Self::ThinkingEnd {
                content_index: *content_index,
                content: &thinking.thinking,
                partial,
            },
            E::ToolCallStart {
                content_index,
                id,
                name,
            } => Self::ToolCallStart {
                content_index: *content_index,
                id: partial.is_none().then_some(id.as_str()),
                tool_name: partial.is_none().then_some(name.as_str()),
                partial,
            },
            E::ToolCallDelta {
                content_index,
                delta,
            } => Self::ToolCallDelta {
                content_index: *content_index,
                delta,
                partial,
            },
            E::ToolCallEnd {
                content_index,
                tool_call,
            } => Self::ToolCallEnd {
                content_index: *content_index,
                tool_call: ToolCallJson {
                    kind: ToolCallTag::ToolCall,
                    call: tool_call,
                },
                partial,
            },
            E::Done { reason, message } => Self::Done {
                reason: *reason,
                message: assistant(message),
            },
            E::Error { reason, error } => Self::Error {
                reason: *reason,
                error: assistant(error),
            },
        }
    }
}

fn assistant(message: &AssistantMessage) -> AgentMessage {
    AgentMessage::Assistant(message.clone())
}

/// A tool call as pi writes it in `toolcall_end`: a content block, tagged by its type.
#[derive(Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct ToolCallJson<'a> {
    #[serde(rename = "type")]
    kind: ToolCallTag,
    #[serde(flatten)]
    call: &'a ToolCall,
}

/// The one `type` a `toolCall` block has.
#[derive(Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
enum ToolCallTag {
    ToolCall,
}

#[cfg(test)]
mod tests;
