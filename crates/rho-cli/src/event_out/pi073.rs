//! pi 0.73.1's event encoding (`shared/spec/interfaces.md` §1.5): every event as the session
//! serializes it, a `message_update` carrying its partial message twice (`message` and
//! `assistantMessageEvent.partial`), and no `agent_settled` or `entry_appended` (pi 0.73.1
//! has neither). The message is serialized once per written update and its bytes copied
//! into both places.

use rho_agent::{AgentEvent, AgentMessage, AssistantEventJson};
use rho_ai::AssistantMessageEvent;
use rho_core::agent_session::{SessionEvent, SessionOnlyEvent};

use super::encode::push_json;

/// Appends `event` as one line, unless 0.73.1 has no such event. pi 1.x's `system`
/// messages are not 0.73.1's: their own events are left out, and so are they from
/// `agent_end` (D18).
pub fn event(event: &SessionEvent, out: &mut Vec<u8>) {
    match event {
        SessionEvent::Session(
            SessionOnlyEvent::AgentSettled { .. } | SessionOnlyEvent::EntryAppended { .. },
        ) => {}
        SessionEvent::Agent(agent) => match &**agent {
            AgentEvent::MessageStart { message } if is_system(message) => {}
            AgentEvent::MessageEnd { message } if is_system(message) => {}
            AgentEvent::AgentEnd {
                messages,
                will_retry,
            } if messages.iter().any(is_system) => {
                let kept = AgentEvent::AgentEnd {
                    messages: messages.iter().filter(|m| !is_system(m)).cloned().collect(),
                    will_retry: *will_retry,
                };
                push_json(out, &SessionEvent::Agent(kept.into()))
            }
            _ => push_json(out, event),
        },
        _ => push_json(out, event),
    }
}

/// pi 1.x's `system` role, which pi 0.73.1 clients do not know.
pub fn is_system(message: &AgentMessage) -> bool {
    matches!(message, AgentMessage::System(_))
}

/// Reused buffers for `message_update`.
#[derive(Default)]
pub struct Buffers {
    message: Vec<u8>,
    event: Vec<u8>,
}

impl Buffers {
    /// `{"type":"message_update","message":M,"assistantMessageEvent":{...,"partial":M}}`, with
    /// `merged` (the update's delta, or several joined) as the provider event.
    pub fn update(
        &mut self,
        event: &AgentEvent,
        merged: &AssistantMessageEvent,
        out: &mut Vec<u8>,
    ) {
        let AgentEvent::MessageUpdate { message, .. } = event else {
            return push_json(out, event);
        };
        self.message.clear();
        self.event.clear();
        let placeholder = AssistantEventJson {
            event: merged,
            partial: Some(&()),
        };
        let encoded = serde_json::to_writer(&mut self.message, message)
            .and_then(|()| serde_json::to_writer(&mut self.event, &placeholder));
        // The partial is the event's last field: `..."partial":null}` takes the message.
        let head = self.event.strip_suffix(b"null}");
        match (encoded, head) {
            (Ok(()), Some(head)) => {
                out.extend_from_slice(br#"{"type":"message_update","message":"#);
                out.extend_from_slice(&self.message);
                out.extend_from_slice(br#","assistantMessageEvent":"#);
                out.extend_from_slice(head);
                out.extend_from_slice(&self.message);
                out.extend_from_slice(b"}}\n");
            }
            _ => push_json(out, &with_event(message, merged)),
        }
    }
}

fn with_event(message: &AgentMessage, event: &AssistantMessageEvent) -> AgentEvent {
    AgentEvent::MessageUpdate {
        message: message.clone(),
        assistant_message_event: event.clone(),
    }
}
