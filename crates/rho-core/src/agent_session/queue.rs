//! Steering and follow-up while streaming (seed diagram 5, Q-1..11): the texts UIs show,
//! `queue_update` events, and the agent's queues underneath.

use rho_agent::{AgentMessage, QueueMode};
use rho_ai::{ContentBlock, ImageContent, UserContent, UserMessage};

use super::error::SessionError;
use super::events::SessionOnlyEvent;
use super::AgentSession;
use crate::extensions::commands::parse_command;

/// The queued texts, as `clear_queue` returns them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueuedTexts {
    /// Steering texts.
    pub steering: Vec<String>,
    /// Follow-up texts.
    pub follow_up: Vec<String>,
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
    pub fn steer(&self, text: &str, images: Vec<ImageContent>) -> Result<(), SessionError> {
        self.refuse_command(text)?;
        let text = self.expand_text(text);
        self.queue_steer_text(text, images);
        Ok(())
    }

    /// Queues a follow-up, delivered when the agent would otherwise stop.
    pub fn follow_up(&self, text: &str, images: Vec<ImageContent>) -> Result<(), SessionError> {
        self.refuse_command(text)?;
        let text = self.expand_text(text);
        self.queue_follow_up_text(text, images);
        Ok(())
    }

    fn refuse_command(&self, text: &str) -> Result<(), SessionError> {
        if let Some((name, _)) = parse_command(text) {
            if self.inner.services.extensions.get_command(name).is_some() {
                return Err(SessionError::CommandCannotBeQueued(name.to_string()));
            }
        }
        Ok(())
    }

    pub(crate) fn queue_steer_text(&self, text: String, images: Vec<ImageContent>) {
        self.state().steering.push(text.clone());
        self.emit_queue_update();
        self.inner.services.agent.steer(user_message(text, images));
    }

    pub(crate) fn queue_follow_up_text(&self, text: String, images: Vec<ImageContent>) {
        self.state().follow_up.push(text.clone());
        self.emit_queue_update();
        self.inner
            .services
            .agent
            .follow_up(user_message(text, images));
    }

    pub(crate) fn emit_queue_update(&self) {
        let (steering, follow_up) = {
            let s = self.state();
            (s.steering.clone(), s.follow_up.clone())
        };
        self.emit_session(SessionOnlyEvent::QueueUpdate {
            steering,
            follow_up,
        });
    }

    /// Empties both lists and both agent queues.
    pub fn clear_queue(&self) -> QueuedTexts {
        let texts = {
            let mut s = self.state();
            QueuedTexts {
                steering: std::mem::take(&mut s.steering),
                follow_up: std::mem::take(&mut s.follow_up),
            }
        };
        self.inner.services.agent.clear_all_queues();
        self.emit_queue_update();
        texts
    }

    /// Queued user texts (custom messages not counted, Q-11).
    pub fn pending_message_count(&self) -> usize {
        let s = self.state();
        s.steering.len() + s.follow_up.len()
    }

    /// The queued steering texts.
    pub fn steering_messages(&self) -> Vec<String> {
        self.state().steering.clone()
    }

    /// The queued follow-up texts.
    pub fn follow_up_messages(&self) -> Vec<String> {
        self.state().follow_up.clone()
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
