//! pi 0.73.1's event encoding (`shared/spec/interfaces.md` §1.5): every event as the session
//! serializes it, a `message_update` carrying its partial message twice (`message` and
//! `assistantMessageEvent.partial`), and no `agent_settled` or `entry_appended` (pi 0.73.1
//! has neither). pi 1.x's `system` messages are not 0.73.1's: their own events are left out,
//! and so are they from `agent_end` (D18).
//!
//! Events carry deltas, not the partial: the encoder folds each reply from its
//! `message_start` and updates as it writes them, in order, so a coalesced update (its delta
//! several joined) folds as its deltas would have, and the partial it writes is the one after
//! them. The message is serialized once per written update and its bytes copied into both
//! places.

use rho_ai::{AssistantMessage, AssistantMessageEvent};
use rho_core::agent_session::{SessionEvent, SessionOnlyEvent};
use rho_protocol::agent::AssistantAsAgent;
use rho_protocol::agent::{AgentEvent, AgentMessage, AssistantEventJson};
use rho_protocol::PartialMessage;

use super::encode::push_json;

/// The encoder's state: the reply being written and reused buffers.
#[derive(Default)]
pub struct Pi073 {
    reply: PartialMessage,
    message: Vec<u8>,
    event: Vec<u8>,
}

impl Pi073 {
    /// Appends `event` as one line, unless 0.73.1 has no such event.
    pub fn event(&mut self, event: &SessionEvent, out: &mut Vec<u8>) {
        let agent = match event {
            SessionEvent::Session(
                SessionOnlyEvent::AgentSettled { .. }
                | SessionOnlyEvent::EntryAppended { .. }
                | SessionOnlyEvent::SummarizationRetryScheduled { .. }
                | SessionOnlyEvent::SummarizationRetryAttemptStart { .. }
                | SessionOnlyEvent::SummarizationRetryFinished,
            ) => return,
            SessionEvent::Session(_) => return push_json(out, event),
            SessionEvent::Agent(agent) => agent,
        };
        match &**agent {
            AgentEvent::MessageStart { message } if is_system(message) => return,
            AgentEvent::MessageEnd { message } if is_system(message) => return,
            AgentEvent::AgentEnd {
                messages,
                will_retry,
            } if messages.iter().any(is_system) => {
                let kept = AgentEvent::AgentEnd {
                    messages: messages.iter().filter(|m| !is_system(m)).cloned().collect(),
                    will_retry: *will_retry,
                };
                return push_json(out, &SessionEvent::Agent(kept.into()));
            }
            AgentEvent::MessageUpdate {
                assistant_message_event,
                ..
            } => return self.update(assistant_message_event, out),
            AgentEvent::MessageStart {
                message: AgentMessage::Assistant(reply),
            } => self.reply = PartialMessage::starting(reply.clone()),
            AgentEvent::MessageEnd { .. } => self.reply = PartialMessage::new(),
            _ => {}
        }
        push_json(out, event)
    }

    /// `{"type":"message_update","message":M,"assistantMessageEvent":{...,"partial":M}}`, with
    /// `merged` (the update's delta, or several joined) as the provider event and M the reply
    /// folded through it.
    pub fn update(&mut self, merged: &AssistantMessageEvent, out: &mut Vec<u8>) {
        self.reply.apply(merged);
        let Some(reply) = self.reply.message() else {
            // An update without its reply's start: nothing to write as the partial.
            return push_json(
                out,
                &AssistantEventJson::<AssistantMessage> {
                    event: merged,
                    partial: None,
                },
            );
        };
        self.message.clear();
        self.event.clear();
        let placeholder = AssistantEventJson {
            event: merged,
            partial: Some(&()),
        };
        let reply = AssistantAsAgent(reply);
        let encoded = serde_json::to_writer(&mut self.message, &reply)
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
            // Not reached with serde_json's output; written the slow way should it change.
            _ => push_json(
                out,
                &rho_protocol::agent::pi073_update(
                    &AgentMessage::Assistant(reply.0.clone()),
                    merged,
                ),
            ),
        }
    }
}

/// pi 1.x's `system` role, which pi 0.73.1 clients do not know.
pub fn is_system(message: &AgentMessage) -> bool {
    matches!(message, AgentMessage::System(_))
}
