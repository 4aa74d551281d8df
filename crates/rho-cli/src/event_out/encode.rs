//! Encoding queued items as JSON lines. A `message_update` carries its partial message twice
//! (`message` and `assistantMessageEvent.partial`); the message is serialized once per
//! written event and its bytes copied into both places.

use rho_agent::{AgentEvent, AgentMessage, AssistantEventJson};
use rho_ai::AssistantMessageEvent;

use super::backlog::{Ack, Item};

/// Reused buffers, so encoding a growing message does not allocate per event.
#[derive(Default)]
pub struct Encoder {
    message: Vec<u8>,
    event: Vec<u8>,
}

impl Encoder {
    /// Appends `item` as one line to `out`; returns the ack to fire once it is written.
    pub fn encode(&mut self, item: Item, out: &mut Vec<u8>) -> Option<Ack> {
        match item {
            Item::Event(event) => push_json(out, &event),
            Item::Update { event, merged } => match &*event {
                AgentEvent::MessageUpdate { message, .. } => self.update(message, &merged, out),
                other => push_json(out, other),
            },
            Item::Line(line, ack) => {
                if out.is_empty() {
                    // A large response (get_messages) becomes the buffer instead of a copy.
                    *out = line.into_bytes();
                } else {
                    out.extend_from_slice(line.as_bytes());
                }
                out.push(b'\n');
                return ack;
            }
        }
        None
    }

    /// `{"type":"message_update","message":M,"assistantMessageEvent":{...,"partial":M}}`.
    fn update(&mut self, message: &AgentMessage, event: &AssistantMessageEvent, out: &mut Vec<u8>) {
        self.message.clear();
        self.event.clear();
        let placeholder = AssistantEventJson {
            event,
            partial: &(),
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
            _ => push_json(
                out,
                &AgentEvent::MessageUpdate {
                    message: message.clone(),
                    assistant_message_event: event.clone(),
                },
            ),
        }
    }
}

/// Compact JSON plus `\n` (never pretty-printed).
pub fn push_json<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    let start = out.len();
    match serde_json::to_writer(&mut *out, value) {
        Ok(()) => out.push(b'\n'),
        Err(e) => {
            out.truncate(start);
            eprintln!("rho: could not serialize an output line: {e}");
        }
    }
}
