//! Steering and follow-up while streaming (seed diagram 5, Q-1..11): the agent's queues, and
//! the texts UIs show and `queue_update` events carry, kept from the agent's own account of
//! what it queued and delivered (never matched by text).

use std::collections::VecDeque;

use rho_agent::queue::Queue;
use rho_agent::{AgentMessage, QueueMode};
use rho_ai::{ContentBlock, ImageContent, UserContent, UserMessage};

use super::error::SessionError;
use super::events::SessionOnlyEvent;
use super::ops::Op;
use super::AgentSession;
use rho_extension_host::commands::parse_command;

/// The queued texts, as `clear_queue` returns them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueuedTexts {
    /// Steering texts.
    pub steering: Vec<String>,
    /// Follow-up texts.
    pub follow_up: Vec<String>,
}

/// The texts of the user messages among `messages`.
fn user_texts(messages: &[AgentMessage]) -> Vec<String> {
    messages
        .iter()
        .filter_map(|m| match m {
            AgentMessage::User(u) => Some(u.content.text()),
            _ => None,
        })
        .collect()
}

/// The agent's queues as listeners know them: what each holds, oldest first, as of the
/// point of the event stream the session has reached (the agent may already have taken
/// more). Kept from the agent's own account: a push per queued message, a delivery per
/// `message_start` the agent marks as taken from a queue, and what a clear removed. `None`
/// stands for a custom message, delivered in turn but never listed.
#[derive(Debug, Default)]
pub(crate) struct QueueView {
    steering: VecDeque<Option<String>>,
    follow_up: VecDeque<Option<String>>,
}

impl QueueView {
    fn list(&mut self, queue: Queue) -> &mut VecDeque<Option<String>> {
        match queue {
            Queue::Steering => &mut self.steering,
            Queue::FollowUp => &mut self.follow_up,
        }
    }

    /// A message was queued.
    pub fn push(&mut self, queue: Queue, text: Option<String>) {
        self.list(queue).push_back(text);
    }

    /// The agent delivered the oldest message of `queue`; true when it was a listed one.
    pub fn delivered(&mut self, queue: Queue) -> bool {
        self.list(queue).pop_front().flatten().is_some()
    }

    /// The agent's queues were cleared of their newest `steering` and `follow_up` messages
    /// (older ones were already taken and are on their way).
    pub fn cleared(&mut self, steering: usize, follow_up: usize) {
        for (list, n) in [
            (&mut self.steering, steering),
            (&mut self.follow_up, follow_up),
        ] {
            list.truncate(list.len().saturating_sub(n));
        }
    }

    /// The listed texts.
    pub fn texts(&self) -> QueuedTexts {
        let listed = |l: &VecDeque<Option<String>>| l.iter().flatten().cloned().collect();
        QueuedTexts {
            steering: listed(&self.steering),
            follow_up: listed(&self.follow_up),
        }
    }

    /// How many texts are listed.
    pub fn listed(&self) -> usize {
        self.steering
            .iter()
            .chain(&self.follow_up)
            .flatten()
            .count()
    }
}

fn user_message(text: String, images: Vec<ImageContent>) -> AgentMessage {
    let mut content = vec![ContentBlock::text(text)];
    content.extend(images.into_iter().map(ContentBlock::Image));
    AgentMessage::User(UserMessage {
        content: UserContent::Blocks(content),
        timestamp: rho_ai::now_ms(),
    })
}

impl AgentSession {
    /// Queues a steering message: extension commands are refused (CMD-7); skills and
    /// templates are expanded; never starts a run.
    pub async fn steer(&self, text: &str, images: Vec<ImageContent>) -> Result<(), SessionError> {
        self.queue_input(Queue::Steering, text, images).await
    }

    /// Queues a follow-up, delivered when the agent would otherwise stop.
    pub async fn follow_up(
        &self,
        text: &str,
        images: Vec<ImageContent>,
    ) -> Result<(), SessionError> {
        self.queue_input(Queue::FollowUp, text, images).await
    }

    async fn queue_input(
        &self,
        queue: Queue,
        text: &str,
        images: Vec<ImageContent>,
    ) -> Result<(), SessionError> {
        self.refuse_command(text)?;
        let text = self.expand_text(text);
        self.request(|done| Op::Queue {
            queue,
            text,
            images,
            done,
        })
        .await
    }

    fn refuse_command(&self, text: &str) -> Result<(), SessionError> {
        if let Some((name, _)) = parse_command(text) {
            if self.inner.services.extensions.get_command(name).is_some() {
                return Err(SessionError::CommandCannotBeQueued(name.to_string()));
            }
        }
        Ok(())
    }

    /// Puts a user message in the agent's queue and tells listeners.
    pub(crate) fn queue_text(&self, queue: Queue, text: String, images: Vec<ImageContent>) {
        let message = user_message(text.clone(), images);
        let agent = &self.inner.services.agent;
        match queue {
            Queue::Steering => agent.steer(message),
            Queue::FollowUp => agent.follow_up(message),
        }
        self.state().queue.push(queue, Some(text));
        self.emit_queue_update();
    }

    /// Queues a custom message (CM-3): delivered in order with the user's, never listed.
    pub(crate) fn queue_custom(&self, message: AgentMessage, queue: Queue) {
        let agent = &self.inner.services.agent;
        match queue {
            Queue::Steering => agent.steer(message),
            Queue::FollowUp => agent.follow_up(message),
        }
        self.state().queue.push(queue, None);
    }

    /// Tells listeners what is queued.
    pub(crate) fn emit_queue_update(&self) {
        let texts = self.state().queue.texts();
        self.emit_session(SessionOnlyEvent::QueueUpdate {
            steering: texts.steering,
            follow_up: texts.follow_up,
        });
    }

    /// the agent delivered the oldest message of `queue`; listeners hear of it when it
    /// was a listed one.
    pub(crate) fn on_queue_delivery(&self, queue: Queue) {
        if self.state().queue.delivered(queue) {
            self.emit_queue_update();
        }
    }

    /// Empties both agent queues, returning the texts of the user messages they held.
    pub fn clear_queue(&self) -> QueuedTexts {
        let (steering, follow_up) = self.inner.services.agent.clear_all_queues();
        self.state().queue.cleared(steering.len(), follow_up.len());
        self.emit_queue_update();
        QueuedTexts {
            steering: user_texts(&steering),
            follow_up: user_texts(&follow_up),
        }
    }

    /// Queued user texts (custom messages not counted, Q-11).
    pub fn pending_message_count(&self) -> usize {
        self.state().queue.listed()
    }

    /// The queued steering texts.
    pub fn steering_messages(&self) -> Vec<String> {
        self.state().queue.texts().steering
    }

    /// The queued follow-up texts.
    pub fn follow_up_messages(&self) -> Vec<String> {
        self.state().queue.texts().follow_up
    }

    /// Sets and persists the steering mode.
    pub fn set_steering_mode(&self, mode: QueueMode) {
        self.inner.services.agent.set_steering_mode(mode);
        let _ = self
            .state()
            .settings
            .set_global("steeringMode", serde_json::json!(mode.as_str()));
    }

    /// Sets and persists the follow-up mode.
    pub fn set_follow_up_mode(&self, mode: QueueMode) {
        self.inner.services.agent.set_follow_up_mode(mode);
        let _ = self
            .state()
            .settings
            .set_global("followUpMode", serde_json::json!(mode.as_str()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(view: &QueueView) -> (Vec<String>, Vec<String>) {
        let t = view.texts();
        (t.steering, t.follow_up)
    }

    #[test]
    fn deliveries_take_the_oldest_and_custom_messages_are_never_listed() {
        let mut view = QueueView::default();
        view.push(Queue::Steering, Some("same".into()));
        view.push(Queue::Steering, None);
        view.push(Queue::Steering, Some("same".into()));
        view.push(Queue::FollowUp, Some("later".into()));
        assert_eq!(view.listed(), 3);
        assert!(view.delivered(Queue::Steering), "a listed text left");
        assert!(
            !view.delivered(Queue::Steering),
            "the custom message is not listed"
        );
        assert_eq!(texts(&view), (vec!["same".into()], vec!["later".into()]));
        assert!(view.delivered(Queue::FollowUp));
        assert_eq!(texts(&view), (vec!["same".into()], vec![]));
    }

    #[test]
    fn a_clear_keeps_what_was_already_taken() {
        let mut view = QueueView::default();
        for t in ["a", "b", "c"] {
            view.push(Queue::Steering, Some(t.into()));
        }
        // The agent took "a" (its message_start is still on the way), then the rest cleared.
        view.cleared(2, 0);
        assert_eq!(texts(&view), (vec!["a".into()], vec![]));
        assert!(view.delivered(Queue::Steering));
        assert_eq!(view.listed(), 0);
    }
}
