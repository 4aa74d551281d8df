//! pi 1.x's event encoding (pi 1.6.0 `docs/json.md`): `message_update` is delta-only (the
//! reply's `usage` and the provider event without `partial`), `agent_end` carries `willRetry`,
//! an assistant's `message_start` is `pending`, `compaction_end.result` adds
//! `estimatedTokensAfter` and `usage`, and `agent_settled` is written. Every other
//! event has the same shape in both dialects. The wire types are in
//! [`rho_protocol::session::pi1`].

use rho_ai::{AssistantMessageEvent, Usage};
use rho_core::agent_session::SessionEvent;
use rho_protocol::agent::{AgentEvent, AgentMessage};
use rho_protocol::session::pi1::Pi1Event;

use super::encode::push_json;

/// Appends `event` as one line.
pub fn event(event: &SessionEvent, out: &mut Vec<u8>) {
    let agent = match event {
        SessionEvent::Agent(agent) => agent,
        SessionEvent::Session(session) => {
            return match Pi1Event::compaction_end(session) {
                Some(end) => push_json(out, &end),
                None => push_json(out, event),
            };
        }
    };
    match &**agent {
        AgentEvent::MessageUpdate {
            usage,
            assistant_message_event,
        } => update(usage, assistant_message_event, out),
        AgentEvent::MessageStart {
            message: AgentMessage::Assistant(reply),
        } => push_json(out, &Pi1Event::reply_start(reply)),
        AgentEvent::AgentEnd {
            messages,
            will_retry,
        } => push_json(out, &Pi1Event::agent_end(messages, *will_retry)),
        other => push_json(out, other),
    }
}

/// A `message_update` whose provider event is `merged` (its own delta, or several consecutive
/// deltas of one block joined while the reader was behind): O(delta) bytes, whatever the
/// length of the reply so far.
pub fn update(usage: &Usage, merged: &AssistantMessageEvent, out: &mut Vec<u8>) {
    push_json(out, &Pi1Event::message_update(usage, merged))
}
