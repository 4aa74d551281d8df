//! Custom messages and user messages from extensions (seed diagram 6, CM-1..11, D9), and
//! custom entries (an extension's `appendEntry`, codemode's store, router state).

use std::sync::Arc;

use rho_agent::queue::Queue;
use rho_agent::{AgentEvent, AgentMessage, CustomMessage};
use rho_ai::{ContentBlock, ImageContent};
use tokio::sync::oneshot;

use super::error::SessionError;
use super::ops::{Job, Op, Origin};
use super::prompt::{InputSource, PromptOptions, StreamingBehavior};
use super::task::{data as run_data, Data, Runs};
use super::AgentSession;
use rho_extension_host::{CustomMessageInput, DeliverAs};

impl AgentSession {
    /// Appends a `custom` entry at the leaf and tells listeners (`entry_appended`).
    pub(crate) fn append_custom_entry(
        &self,
        custom_type: &str,
        data: Option<serde_json::Value>,
    ) -> Result<(), rho_session::StoreError> {
        let entry = self
            .state()
            .session
            .append_custom(custom_type, data)?
            .clone();
        self.emit_session(super::events::SessionOnlyEvent::EntryAppended {
            entry: Box::new(entry),
        });
        Ok(())
    }
}

/// Options of `send_custom_message`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SendMessageOptions {
    /// Start a run when idle (route 4).
    pub trigger_turn: bool,
    /// The delivery route.
    pub deliver_as: Option<DeliverAs>,
}

/// What `send_user_message` accepts.
#[derive(Debug, Clone, PartialEq)]
pub enum UserMessageContent {
    /// Plain text.
    Text(String),
    /// Text and images (text parts are joined with `\n`).
    Blocks(Vec<ContentBlock>),
}

impl AgentSession {
    /// The five routes (CM-2..6): next turn; steer or follow-up while streaming; a run when
    /// idle with `trigger_turn` (through the run loop, D9); otherwise appended to state and
    /// session with `message_start`/`message_end` for listeners and no model call.
    pub async fn send_custom_message(
        &self,
        input: CustomMessageInput,
        options: SendMessageOptions,
    ) -> Result<(), SessionError> {
        let message = CustomMessage {
            custom_type: input.custom_type,
            content: input.content,
            display: input.display,
            details: input.details,
            timestamp: rho_ai::now_ms(),
        };
        self.request(|done| Op::Custom {
            message: Box::new(message),
            options,
            done,
        })
        .await?
    }

    /// Routes a custom message on the session task; a triggered run answers `done` when it
    /// has settled.
    pub(crate) fn apply_custom(
        &self,
        message: CustomMessage,
        options: SendMessageOptions,
        done: oneshot::Sender<Result<(), SessionError>>,
        runs: &mut Runs,
        data: &Data,
    ) {
        if options.deliver_as == Some(DeliverAs::NextTurn) {
            run_data(data).pending_next_turn.push(message);
            let _ = done.send(Ok(()));
            return;
        }
        if self.is_streaming() {
            let queue = match options.deliver_as {
                Some(DeliverAs::FollowUp) => Queue::FollowUp,
                _ => Queue::Steering,
            };
            self.queue_custom(AgentMessage::Custom(message), queue);
            let _ = done.send(Ok(()));
            return;
        }
        if options.trigger_turn {
            let messages = vec![AgentMessage::Custom(message)];
            runs.push(self, Job::Messages { messages, done });
            return;
        }
        let _ = done.send(self.append_custom(message));
    }

    /// Appends a custom message to state and session, with its events and no model call.
    fn append_custom(&self, message: CustomMessage) -> Result<(), SessionError> {
        let m = Arc::new(AgentMessage::Custom(message.clone()));
        self.inner.services.agent.append_message(Arc::clone(&m));
        self.state().session.append_custom_message(
            &message.custom_type,
            message.content.clone(),
            message.display,
            message.details.clone(),
        )?;
        for event in [
            AgentEvent::MessageStart {
                message: (*m).clone(),
            },
            AgentEvent::MessageEnd {
                message: Arc::clone(&m),
            },
        ] {
            self.emit(super::SessionEvent::Agent(Arc::new(event)));
        }
        Ok(())
    }

    /// A user message from an extension (CM-10): no template expansion, source `extension`.
    pub async fn send_user_message(
        &self,
        content: UserMessageContent,
        deliver_as: Option<DeliverAs>,
    ) -> Result<(), SessionError> {
        self.send_user_message_from(content, deliver_as, Origin::Outside)
            .await
    }

    /// [`Self::send_user_message`] from `origin` (an extension handler the run loop awaits
    /// must not wait for that loop).
    pub(crate) async fn send_user_message_from(
        &self,
        content: UserMessageContent,
        deliver_as: Option<DeliverAs>,
        origin: Origin,
    ) -> Result<(), SessionError> {
        let (text, images) = match content {
            UserMessageContent::Text(t) => (t, Vec::new()),
            UserMessageContent::Blocks(blocks) => {
                let text = rho_ai::message::join_text(&blocks);
                let images: Vec<ImageContent> = blocks
                    .into_iter()
                    .filter_map(|b| match b {
                        ContentBlock::Image(i) => Some(i),
                        _ => None,
                    })
                    .collect();
                (text, images)
            }
        };
        let streaming_behavior = match deliver_as {
            Some(DeliverAs::FollowUp) => Some(StreamingBehavior::FollowUp),
            Some(DeliverAs::Steer) => Some(StreamingBehavior::Steer),
            _ => None,
        };
        let options = PromptOptions {
            expand_prompt_templates: false,
            images,
            streaming_behavior,
            source: InputSource::Extension,
            preflight: None,
        };
        self.prompt_from(&text, options, origin).await
    }
}
