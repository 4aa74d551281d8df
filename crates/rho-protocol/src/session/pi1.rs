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

use crate::agent::{AgentMessage, AssistantEventJson};
use rho_ai::{AssistantMessage, AssistantMessageEvent, Usage};
use serde::ser::{Error as _, SerializeMap};
use serde::{Serialize, Serializer};

use super::SessionOnlyEvent;
use crate::rpc::CompactReply;

/// `{"type":"message_update","usage":{...},"assistantMessageEvent":{...}}`.
pub struct MessageUpdateDelta<'a> {
    /// The reply's usage so far.
    pub usage: &'a Usage,
    /// The provider event (its delta may be several provider deltas of one block, joined).
    pub event: &'a AssistantMessageEvent,
}

impl Serialize for MessageUpdateDelta<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("type", "message_update")?;
        map.serialize_entry("usage", self.usage)?;
        map.serialize_entry(
            "assistantMessageEvent",
            &AssistantEventJson::<AgentMessage> {
                event: self.event,
                partial: None,
            },
        )?;
        map.end()
    }
}

/// `{"type":"agent_end","messages":[...],"willRetry":bool}`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentEnd<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    /// The run's new messages.
    pub messages: &'a [AgentMessage],
    /// Whether an automatic retry of the failed reply follows.
    pub will_retry: bool,
}

impl<'a> AgentEnd<'a> {
    pub fn new(messages: &'a [AgentMessage], will_retry: bool) -> Self {
        AgentEnd {
            kind: "agent_end",
            messages,
            will_retry,
        }
    }
}

/// `{"type":"message_start","message":{..."stopReason":"pending"...}}` for an assistant reply
/// that has only begun: pi 1.x marks a partial reply `pending` (message-types.md), rho's
/// message type has no such stop reason, so the encoding sets it.
pub struct PendingReplyStart<'a>(pub &'a AssistantMessage);

impl Serialize for PendingReplyStart<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Once per reply, on a message with no content yet: a `Value` detour is cheap here.
        let mut message = serde_json::to_value(AgentMessage::Assistant(self.0.clone()))
            .map_err(S::Error::custom)?;
        if let Some(fields) = message.as_object_mut() {
            fields.insert("stopReason".into(), "pending".into());
        }
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("type", "message_start")?;
        map.serialize_entry("message", &message)?;
        map.end()
    }
}

/// `{"type":"compaction_end","reason",...,"result":{...,"estimatedTokensAfter","usage"}}`: the
/// event with pi 1.x's additions to its result (the same fields as `compact`'s reply).
pub struct CompactionEnd<'a>(pub &'a SessionOnlyEvent);

impl Serialize for CompactionEnd<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let SessionOnlyEvent::CompactionEnd {
            reason,
            result,
            aborted,
            will_retry,
            error_message,
            after,
        } = self.0
        else {
            return self.0.serialize(serializer);
        };
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", "compaction_end")?;
        map.serialize_entry("reason", reason)?;
        if let Some(result) = result {
            let after = after.as_deref().copied().unwrap_or_default();
            let result = CompactReply {
                result: result.clone(),
                estimated_tokens_after: Some(after.estimated_tokens_after),
                usage: after.usage,
            };
            map.serialize_entry("result", &result)?;
        }
        map.serialize_entry("aborted", aborted)?;
        map.serialize_entry("willRetry", will_retry)?;
        if let Some(message) = error_message {
            map.serialize_entry("errorMessage", message)?;
        }
        map.end()
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
        let v = serde_json::to_value(MessageUpdateDelta {
            usage: &usage,
            event: &event,
        })
        .expect("serializes");
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
        let end = serde_json::to_value(AgentEnd::new(&[], true)).expect("serializes");
        assert_eq!(
            end,
            json!({"type": "agent_end", "messages": [], "willRetry": true})
        );
        let reply = AssistantMessage::empty("api", "p", "m");
        let start = serde_json::to_value(PendingReplyStart(&reply)).expect("serializes");
        assert_eq!(start["type"], "message_start");
        assert_eq!(start["message"]["role"], "assistant");
        assert_eq!(start["message"]["stopReason"], "pending");
    }
}
