//! The event shapes that only pi 1.x's dialect writes (pi 1.6.0 `docs/json.md`); every other
//! event is written alike in both dialects ([`super::SessionEvent`]'s own serialization).
//!
//! - `message_update` is delta-only: the latest cumulative `usage` and the provider event
//!   without its `partial` snapshot, so the stream grows with the reply, not its square.
//! - `agent_end` says whether the session will retry the failed reply (`willRetry`).
//! - `message_start` of an assistant reply shows it as still streaming (`stopReason:
//!   "pending"`).
//! - `agent_settled` is [`super::SessionOnlyEvent::AgentSettled`].
//! - `compaction_end.result` adds `estimatedTokensAfter` and `usage`, as `compact`'s reply.
//!
//! [`Pi1Event`] is those shapes; the other events are written by their own serialization.

use crate::{AssistantMessage, AssistantMessageEvent, Usage};
use serde::ser::Error as _;
use serde::{Serialize, Serializer};

use super::{CompactionReason, SessionOnlyEvent};
use crate::agent::{AgentMessage, AssistantEventJson};
use crate::rpc::CompactReply;

/// The events pi 1.x writes in its own shape. Tags and field names are derived by the same
/// rule as [`crate::agent::AgentEvent`]'s and [`SessionOnlyEvent`]'s, whose variants these
/// replace in the 1.x stream. A value lives only while one line is encoded, so the size gap
/// between variants costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum Pi1Event<'a> {
    /// An assistant reply began; pi 1.x marks it `"stopReason": "pending"` (message-types.md;
    /// rho's message type has no such stop reason, so the encoding sets it). Other messages'
    /// `message_start` is written as in pi 0.73.1.
    MessageStart {
        /// The empty reply, `pending`.
        message: PendingReply<'a>,
    },
    /// Delta-only: the reply's latest cumulative `usage` and the provider event without its
    /// `partial` snapshot.
    MessageUpdate {
        /// The reply's usage so far.
        usage: &'a Usage,
        /// The provider event (its delta may be several provider deltas of one block, joined).
        assistant_message_event: AssistantEventJson<'a>,
    },
    /// A run ended.
    AgentEnd {
        /// The run's new messages.
        messages: &'a [AgentMessage],
        /// Whether an automatic retry of the failed reply follows.
        will_retry: bool,
    },
    /// A compaction ended; its result has `compact`'s reply fields.
    CompactionEnd {
        /// Why it ran.
        reason: CompactionReason,
        /// What it produced, with `estimatedTokensAfter` and `usage`.
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<CompactReply>,
        /// Whether it was cancelled.
        aborted: bool,
        /// Whether the failed prompt is retried after it.
        will_retry: bool,
        /// Why it failed.
        #[serde(skip_serializing_if = "Option::is_none")]
        error_message: Option<&'a str>,
    },
}

impl<'a> Pi1Event<'a> {
    /// `message_update` with `event` as the provider event (its own delta, or several joined).
    pub fn message_update(usage: &'a Usage, event: &'a AssistantMessageEvent) -> Self {
        Pi1Event::MessageUpdate {
            usage,
            assistant_message_event: AssistantEventJson {
                event,
                partial: None,
            },
        }
    }

    /// `agent_end` with `willRetry`.
    pub fn agent_end(messages: &'a [AgentMessage], will_retry: bool) -> Self {
        Pi1Event::AgentEnd {
            messages,
            will_retry,
        }
    }

    /// `message_start` of an assistant reply that has only begun.
    pub fn reply_start(reply: &'a AssistantMessage) -> Self {
        Pi1Event::MessageStart {
            message: PendingReply(reply),
        }
    }

    /// `compaction_end` with pi 1.x's additions to its result; `None` for other events.
    pub fn compaction_end(event: &'a SessionOnlyEvent) -> Option<Self> {
        let SessionOnlyEvent::CompactionEnd {
            reason,
            result,
            aborted,
            will_retry,
            error_message,
            after,
        } = event
        else {
            return None;
        };
        let result = result.as_ref().map(|result| {
            let after = after.as_deref().copied().unwrap_or_default();
            CompactReply {
                result: result.clone(),
                estimated_tokens_after: Some(after.estimated_tokens_after),
                usage: after.usage,
            }
        });
        Some(Pi1Event::CompactionEnd {
            reason: *reason,
            result,
            aborted: *aborted,
            will_retry: *will_retry,
            error_message: error_message.as_deref(),
        })
    }
}

/// An assistant message that has only begun, written with `"stopReason": "pending"`.
pub struct PendingReply<'a>(pub &'a AssistantMessage);

impl Serialize for PendingReply<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Once per reply, on a message with no content yet: a `Value` detour is cheap here.
        let mut message = serde_json::to_value(AgentMessage::Assistant(self.0.clone()))
            .map_err(S::Error::custom)?;
        if let Some(fields) = message.as_object_mut() {
            fields.insert("stopReason".into(), "pending".into());
        }
        message.serialize(serializer)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for PendingReply<'_> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PendingAssistantMessage".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = AssistantMessage::json_schema(generator);
        if let Some(properties) = schema
            .ensure_object()
            .entry("properties")
            .or_insert_with(|| serde_json::Value::Object(Default::default()))
            .as_object_mut()
        {
            properties.insert("role".into(), serde_json::json!({"const": "assistant"}));
            properties.insert("stopReason".into(), serde_json::json!({"const": "pending"}));
        }
        schema.insert(
            "description".into(),
            "An assistant reply that has only begun (`stopReason` is `pending`).".into(),
        );
        schema
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn message_update_carries_usage_and_the_bare_event() {
        let usage = Usage {
            output: 3,
            total_tokens: 3,
            ..Usage::default()
        };
        let event = AssistantMessageEvent::ThinkingDelta {
            content_index: 0,
            delta: "hm".into(),
        };
        let v = serde_json::to_value(Pi1Event::message_update(&usage, &event)).expect("serializes");
        assert_eq!(v["type"], "message_update");
        assert_eq!(v["usage"]["output"], 3);
        assert_eq!(
            v["assistantMessageEvent"],
            json!({"type": "thinking_delta", "contentIndex": 0, "delta": "hm"})
        );
        assert!(v.get("message").is_none());
    }

    #[test]
    fn agent_end_says_will_retry_and_a_started_reply_is_pending() {
        let end = serde_json::to_value(Pi1Event::agent_end(&[], true)).expect("serializes");
        assert_eq!(
            end,
            json!({"type": "agent_end", "messages": [], "willRetry": true})
        );
        let reply = AssistantMessage::empty("api", "p", "m");
        let start = serde_json::to_value(Pi1Event::reply_start(&reply)).expect("serializes");
        assert_eq!(start["type"], "message_start");
        assert_eq!(start["message"]["role"], "assistant");
        assert_eq!(start["message"]["stopReason"], "pending");
    }
}
