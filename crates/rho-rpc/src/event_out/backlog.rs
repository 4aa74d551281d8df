//! What the writer has accepted but not yet encoded, in order. Only events the dialect marks
//! [`Delivery::Superseded`] may be coalesced; everything else waits its turn, however long.

use std::collections::VecDeque;

use rho_ai::{AssistantMessageEvent, Usage};
use rho_core::agent_session::SessionEvent;
use rho_protocol::agent::AgentEvent;

/// What a dialect lets the writer do with a queued event while the reader is behind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// Written, in order, whatever the backlog.
    Always,
    /// A snapshot that the next snapshot of the same stream makes redundant: while still
    /// queued, it is joined with that one (the later update stands for both; its delta is
    /// the two concatenated).
    Superseded,
    /// A delta to append: joined with the next delta of the same block only while the
    /// writer is behind (its unwritten output is full), so a reader that keeps up gets one
    /// record per delta, and one that falls behind gets the same text in fewer records.
    Appended,
}

/// Delivery in pi 0.73.1's dialect: a `message_update` delta carries the whole partial
/// message, so a queued one is superseded by the next delta of the same content block.
/// Block starts and ends, and every other event, are always written.
pub fn delivery_v073(event: &SessionEvent) -> Delivery {
    if is_delta(event) {
        Delivery::Superseded
    } else {
        Delivery::Always
    }
}

/// Delivery in pi 1.x's dialect: `message_update` is delta-only and cheap to encode, so
/// deltas are joined only when the reader is behind (json.md: a delta is text to append
/// to its block, so appending the joined delta builds the same block).
pub fn delivery_v1(event: &SessionEvent) -> Delivery {
    if is_delta(event) {
        Delivery::Appended
    } else {
        Delivery::Always
    }
}

/// A text, thinking or tool-call delta.
fn is_delta(event: &SessionEvent) -> bool {
    use AssistantMessageEvent as E;
    let SessionEvent::Agent(a) = event else {
        return false;
    };
    matches!(
        &**a,
        AgentEvent::MessageUpdate {
            assistant_message_event: E::TextDelta { .. }
                | E::ThinkingDelta { .. }
                | E::ToolCallDelta { .. },
            ..
        }
    )
}

/// One queued item.
#[allow(clippy::large_enum_variant)] // queued briefly; the large variant is the common one
pub enum Item {
    /// An event written as it is.
    Event(SessionEvent),
    /// A `message_update` delta standing for itself and the updates it superseded: `merged`
    /// is the newest one's provider event with the deltas of the superseded ones in front, so
    /// a client that appends deltas loses nothing, and `usage` the newest one's.
    Update {
        usage: Usage,
        merged: AssistantMessageEvent,
    },
    /// A response or UI request line (compact JSON, no newline).
    Line(String),
    /// A response line given in pieces (see [`super::Pieces`]).
    Pieces(super::Pieces),
}

/// The queue.
pub struct Backlog {
    items: VecDeque<Item>,
    delivery: fn(&SessionEvent) -> Delivery,
    /// How many updates were merged into a later one (for tests and figures).
    pub coalesced: u64,
}

impl Backlog {
    pub fn new(delivery: fn(&SessionEvent) -> Delivery) -> Self {
        Backlog {
            items: VecDeque::new(),
            delivery,
            coalesced: 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn pop(&mut self) -> Option<Item> {
        self.items.pop_front()
    }

    pub fn push_line(&mut self, line: String) {
        self.items.push_back(Item::Line(line));
    }

    pub fn push_pieces(&mut self, pieces: super::Pieces) {
        self.items.push_back(Item::Pieces(pieces));
    }

    /// Queues `event`, joining it with the queued update before it where its delivery
    /// allows (`behind`: the writer's unwritten output is full).
    pub fn push_event(&mut self, event: SessionEvent, behind: bool) {
        let join = match (self.delivery)(&event) {
            Delivery::Always => false,
            Delivery::Superseded => true,
            Delivery::Appended => behind,
        };
        if join {
            if let SessionEvent::Agent(agent) = &event {
                if let AgentEvent::MessageUpdate {
                    usage: newest,
                    assistant_message_event: new,
                } = &**agent
                {
                    if let Some(Item::Update { usage, merged }) = self.items.back_mut() {
                        if append_delta(merged, new) {
                            *usage = *newest;
                            self.coalesced += 1;
                            return;
                        }
                    }
                    self.items.push_back(Item::Update {
                        usage: *newest,
                        merged: new.clone(),
                    });
                    return;
                }
            }
        }
        self.items.push_back(Item::Event(event));
    }
}

/// Appends `new`'s delta to `into` when both are deltas of the same kind and block.
fn append_delta(into: &mut AssistantMessageEvent, new: &AssistantMessageEvent) -> bool {
    use AssistantMessageEvent as E;
    let (target, index, delta, new_index) = match (into, new) {
        (
            E::TextDelta {
                content_index: i,
                delta: d,
            },
            E::TextDelta {
                content_index: j,
                delta: n,
            },
        )
        | (
            E::ThinkingDelta {
                content_index: i,
                delta: d,
            },
            E::ThinkingDelta {
                content_index: j,
                delta: n,
            },
        )
        | (
            E::ToolCallDelta {
                content_index: i,
                delta: d,
            },
            E::ToolCallDelta {
                content_index: j,
                delta: n,
            },
        ) => (d, *i, n, *j),
        _ => return false,
    };
    if index != new_index {
        return false;
    }
    target.push_str(delta);
    true
}
