//! The steering and follow-up queues (session spec Q-8, AC-21): messages waiting for the
//! agent, drained one at a time or all at once.

use std::collections::VecDeque;

use crate::message::AgentMessage;
pub use rho_protocol::agent::QueueMode;

/// Which queue a delivered message came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queue {
    /// Steering (`steer()`).
    Steering,
    /// Follow-ups (`follow_up()`).
    FollowUp,
}

/// A FIFO of messages with a drain mode.
#[derive(Debug, Clone, Default)]
pub struct MessageQueue {
    messages: VecDeque<AgentMessage>,
    /// How [`MessageQueue::drain`] takes messages.
    pub mode: QueueMode,
}

impl MessageQueue {
    /// Appends a message.
    pub fn push(&mut self, message: AgentMessage) {
        self.messages.push_back(message);
    }

    /// Takes the oldest message (`one-at-a-time`) or all of them (`all`).
    pub fn drain(&mut self) -> Vec<AgentMessage> {
        match self.mode {
            QueueMode::All => self.messages.drain(..).collect(),
            QueueMode::OneAtATime => self.messages.pop_front().into_iter().collect(),
        }
    }

    /// Drops every message and returns them.
    pub fn clear(&mut self) -> Vec<AgentMessage> {
        self.messages.drain(..).collect()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// Number of queued messages.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// The queued messages, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &AgentMessage> {
        self.messages.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rho_ai::UserMessage;

    fn text_of(m: &AgentMessage) -> String {
        match m {
            AgentMessage::User(u) => u.content.text(),
            other => other.role().to_string(),
        }
    }

    #[test]
    fn modes_drain_one_or_all() {
        let mut q = MessageQueue::default();
        for t in ["a", "b", "c"] {
            q.push(AgentMessage::User(UserMessage::text(t)));
        }
        let first: Vec<String> = q.drain().iter().map(text_of).collect();
        assert_eq!(first, vec!["a"]);
        q.mode = QueueMode::All;
        let rest: Vec<String> = q.drain().iter().map(text_of).collect();
        assert_eq!(rest, vec!["b", "c"]);
        assert!(q.is_empty());
        assert!(q.drain().is_empty());
    }

    #[test]
    fn mode_strings() {
        assert_eq!(QueueMode::parse("all"), Some(QueueMode::All));
        assert_eq!(QueueMode::OneAtATime.as_str(), "one-at-a-time");
        assert_eq!(QueueMode::parse("x"), None);
    }
}
