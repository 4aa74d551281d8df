//! The [`Agent`] handle: state setters, `prompt`/`continue_`, the queues, subscriptions,
//! abort and idle waiting. The loop itself lives in the private `run` module.

use std::future::Future;
use std::sync::Arc;

use rho_ai::{ContentBlock, ImageContent, Model, ThinkingLevel, UserContent, UserMessage};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::event::AgentEvent;
use crate::message::AgentMessage;
use crate::queue::QueueMode;
use crate::run::Run;
use crate::shared::{lock, Shared};
use crate::state::{AgentOptions, AgentState};
use crate::stored::{decode_all, ReadError, StoredMessage};
use crate::tool::AgentTool;

/// Why `prompt`/`continue_` refused to start a run (pi's texts, AC-2/AC-3).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// `prompt()` during a run.
    #[error("Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.")]
    AlreadyProcessingPrompt,
    /// `continue_()` during a run.
    #[error("Agent is already processing. Wait for completion before continuing.")]
    AlreadyProcessing,
    /// `continue_()` with an empty transcript.
    #[error("No messages to continue from")]
    NoMessages,
    /// `continue_()` after an assistant message with nothing queued.
    #[error("Cannot continue from message role: {0}")]
    CannotContinueFrom(String),
}

/// What `prompt()` accepts: text (with optional images), one message, or several.
#[derive(Debug, Clone)]
pub enum PromptInput {
    /// Text plus images; becomes one user message.
    Text(String, Vec<ImageContent>),
    /// Messages used as they are.
    Messages(Vec<AgentMessage>),
}

impl PromptInput {
    fn into_messages(self) -> Vec<AgentMessage> {
        match self {
            PromptInput::Messages(m) => m,
            PromptInput::Text(text, images) => {
                let mut content = vec![ContentBlock::text(text)];
                content.extend(images.into_iter().map(ContentBlock::Image));
                vec![AgentMessage::User(UserMessage {
                    content: UserContent::Blocks(content),
                    timestamp: rho_ai::now_ms(),
                })]
            }
        }
    }
}

impl From<&str> for PromptInput {
    fn from(s: &str) -> Self {
        PromptInput::Text(s.to_string(), Vec::new())
    }
}
impl From<String> for PromptInput {
    fn from(s: String) -> Self {
        PromptInput::Text(s, Vec::new())
    }
}
impl From<AgentMessage> for PromptInput {
    fn from(m: AgentMessage) -> Self {
        PromptInput::Messages(vec![m])
    }
}
impl From<Vec<AgentMessage>> for PromptInput {
    fn from(m: Vec<AgentMessage>) -> Self {
        PromptInput::Messages(m)
    }
}

/// A subscription: every event of every run, in emission order. Reading is up to the
/// subscriber; a slow or dead subscriber never holds the loop up. Drop it to unsubscribe.
#[derive(Debug)]
pub struct EventReceiver {
    rx: mpsc::UnboundedReceiver<Arc<AgentEvent>>,
}

impl EventReceiver {
    /// The next event (`None` once the agent is gone).
    pub async fn recv(&mut self) -> Option<Arc<AgentEvent>> {
        self.rx.recv().await
    }

    /// The next event if one is already waiting.
    pub fn try_recv(&mut self) -> Option<Arc<AgentEvent>> {
        self.rx.try_recv().ok()
    }
}

/// The agent. Cheap to clone; clones share one state, so a UI task can `steer()` or
/// `abort()` while another awaits `prompt()`. Runs execute on their own tokio task, so a
/// dropped `prompt()` future never leaves the agent half-way through a run.
#[derive(Clone)]
pub struct Agent {
    shared: Arc<Shared>,
}

impl Default for Agent {
    fn default() -> Self {
        Self::new(AgentOptions::default())
    }
}

impl Agent {
    /// An idle agent with default state (AC-1) and the given options.
    pub fn new(options: AgentOptions) -> Self {
        Self {
            shared: Arc::new(Shared::new(options)),
        }
    }

    /// Reads the state under its lock. Keep `f` short: the loop waits on the same lock.
    pub fn with_state<R>(&self, f: impl FnOnce(&AgentState) -> R) -> R {
        f(&self.shared.state())
    }

    /// A deep copy of the transcript, for callers that must own the messages (tests, views).
    /// A message that can no longer be read from the session file is left out; everything
    /// that must see the whole conversation uses [`Self::shared_messages`].
    pub fn messages(&self) -> Vec<AgentMessage> {
        self.stored_messages()
            .iter()
            .filter_map(|m| m.get().ok())
            .map(|m| (*m).clone())
            .collect()
    }

    /// The transcript's messages, decoded where they are not held (no message is copied).
    pub fn shared_messages(&self) -> Result<Vec<Arc<AgentMessage>>, ReadError> {
        decode_all(&self.stored_messages())
    }

    /// [`Self::shared_messages`], kept decoded until [`Self::release_stored_messages`] (for a
    /// run that is about to send them).
    pub fn hold_messages(&self) -> Result<Vec<Arc<AgentMessage>>, ReadError> {
        self.stored_messages()
            .iter()
            .map(StoredMessage::hold)
            .collect()
    }

    /// The transcript's cells, shared with the session's entries (nothing is decoded).
    pub fn stored_messages(&self) -> Vec<StoredMessage> {
        self.shared.state().messages.clone()
    }

    /// The transcript's cell holding `message` (the same allocation), searched from the end.
    pub fn stored_message_of(&self, message: &Arc<AgentMessage>) -> Option<StoredMessage> {
        let state = self.shared.state();
        state
            .messages
            .iter()
            .rev()
            .find(|m| m.holds(message))
            .cloned()
    }

    /// Drops the decoded messages that are on disk (see [`StoredMessage::release`]); they are
    /// read back when a run or a reader needs them.
    pub fn release_stored_messages(&self) {
        for m in &self.shared.state().messages {
            m.release();
        }
    }

    /// Whether a run is active (AC-4).
    pub fn is_streaming(&self) -> bool {
        self.shared.state().is_streaming
    }

    /// Sets the system prompt.
    pub fn set_system_prompt(&self, prompt: impl Into<String>) {
        self.shared.state().system_prompt = prompt.into();
    }

    /// Sets the structured prompt sections (see [`AgentState::system_sections`]); `None`
    /// goes back to the plain system prompt.
    pub fn set_system_sections(&self, sections: Option<Vec<(String, String)>>) {
        self.shared.state().system_sections = sections;
    }

    /// Sets or clears the prompt sent in place of the recorded one (see
    /// [`AgentState::forced_system_prompt`]).
    pub fn set_forced_system_prompt(&self, prompt: Option<String>) {
        self.shared.state().forced_system_prompt = prompt;
    }

    /// Sets the model.
    pub fn set_model(&self, model: Model) {
        self.shared.state().model = model;
    }

    /// Sets the thinking level.
    pub fn set_thinking_level(&self, level: ThinkingLevel) {
        self.shared.state().thinking_level = level;
    }

    /// Replaces the tools (takes effect at the next run).
    pub fn set_tools(&self, tools: Vec<Arc<dyn AgentTool>>) {
        self.shared.state().tools = tools;
    }

    /// Sets the source of tools that join while the agent runs; asked at every turn.
    pub fn set_tool_source(&self, source: Option<crate::tool::ToolSource>) {
        self.shared.state().tool_source = source;
    }

    /// Replaces the transcript; shared messages (e.g. a session's entries) stay shared.
    pub fn set_messages<M: Into<StoredMessage>>(&self, messages: impl IntoIterator<Item = M>) {
        let messages = messages.into_iter().map(Into::into).collect();
        self.shared.state().messages = messages;
        self.shared.bump_generation();
    }

    /// Appends one message to the transcript without events.
    pub fn append_message(&self, message: impl Into<StoredMessage>) {
        self.shared.state().messages.push(message.into());
        self.shared.bump_generation();
    }

    /// Changes hooks or call options; active runs keep the snapshot they started with.
    pub fn update_options(&self, f: impl FnOnce(&mut AgentOptions)) {
        self.shared.update_options(f);
    }

    /// Subscribes to events (see [`EventReceiver`]).
    pub fn subscribe(&self) -> EventReceiver {
        EventReceiver {
            rx: self.shared.subscribe(),
        }
    }

    /// Starts a run with `input` and resolves after its `agent_end` and cleanup (AC-2).
    /// The precondition is checked, and the run started, when this is called, not when the
    /// future is first polled. Must be called inside a tokio runtime.
    pub fn prompt(
        &self,
        input: impl Into<PromptInput>,
    ) -> impl Future<Output = Result<(), AgentError>> + Send + 'static {
        let messages = input.into().into_messages();
        let started = self.start(
            |_, _| Ok((Some(messages), false)),
            AgentError::AlreadyProcessingPrompt,
        );
        Self::finish(started)
    }

    /// Continues from the current transcript (AC-3): after a user or tool result message
    /// the model is called again; after an assistant message queued steering, else queued
    /// follow-ups, become the run's prompts.
    pub fn continue_(&self) -> impl Future<Output = Result<(), AgentError>> + Send + 'static {
        let started = self.start(
            |state, shared| {
                let Some(last) = state.messages.last() else {
                    return Err(AgentError::NoMessages);
                };
                if last.role() != "assistant" {
                    return Ok((None, false));
                }
                let steering = shared.poll_steering();
                if !steering.is_empty() {
                    return Ok((Some(steering), true));
                }
                let follow = shared.poll_follow_up();
                if !follow.is_empty() {
                    return Ok((Some(follow), false));
                }
                Err(AgentError::CannotContinueFrom(last.role().to_string()))
            },
            AgentError::AlreadyProcessing,
        );
        Self::finish(started)
    }

    async fn finish(
        started: Result<tokio::task::JoinHandle<()>, AgentError>,
    ) -> Result<(), AgentError> {
        let handle = started?;
        // The task catches panics of the loop itself; a JoinError can only mean runtime
        // shutdown, after which there is nothing left to wait for.
        let _ = handle.await;
        Ok(())
    }

    /// Checks the preconditions and starts the run task, atomically under the state lock.
    #[allow(clippy::type_complexity)]
    fn start(
        &self,
        decide: impl FnOnce(
            &AgentState,
            &Shared,
        ) -> Result<(Option<Vec<AgentMessage>>, bool), AgentError>,
        busy: AgentError,
    ) -> Result<tokio::task::JoinHandle<()>, AgentError> {
        let shared = &self.shared;
        let cancel = CancellationToken::new();
        let (prompts, skip_initial_steering) = {
            let mut state = shared.state();
            if state.is_streaming {
                return Err(busy);
            }
            let decided = decide(&state, shared)?;
            state.is_streaming = true;
            state.streaming_message = None;
            state.error_message = None;
            *lock(&shared.run_cancel) = Some(cancel.clone());
            shared.running.send_replace(true);
            decided
        };
        let run = Run::new(shared.clone(), cancel);
        Ok(tokio::spawn(run.execute(prompts, skip_initial_steering)))
    }

    /// Queues a steering message: it interrupts a streaming reply or skips tool calls not
    /// yet started, and is delivered before the next model call (D4).
    pub fn steer(&self, message: AgentMessage) {
        self.shared.push_steering(message);
    }

    /// Queues a follow-up: delivered when the run would otherwise stop.
    pub fn follow_up(&self, message: AgentMessage) {
        self.shared.queues().follow_up.push(message);
    }

    /// Sets how steering messages are drained.
    pub fn set_steering_mode(&self, mode: QueueMode) {
        self.shared.queues().steering.mode = mode;
    }

    /// Sets how follow-ups are drained.
    pub fn set_follow_up_mode(&self, mode: QueueMode) {
        self.shared.queues().follow_up.mode = mode;
    }

    /// The steering drain mode.
    pub fn steering_mode(&self) -> QueueMode {
        self.shared.queues().steering.mode
    }

    /// The follow-up drain mode.
    pub fn follow_up_mode(&self) -> QueueMode {
        self.shared.queues().follow_up.mode
    }

    /// Empties the steering queue, returning what it held.
    pub fn clear_steering_queue(&self) -> Vec<AgentMessage> {
        self.shared.queues().steering.clear()
    }

    /// Empties the follow-up queue, returning what it held.
    pub fn clear_follow_up_queue(&self) -> Vec<AgentMessage> {
        self.shared.queues().follow_up.clear()
    }

    /// Empties both queues.
    pub fn clear_all_queues(&self) {
        let mut q = self.shared.queues();
        q.steering.clear();
        q.follow_up.clear();
    }

    /// Whether either queue holds a message.
    pub fn has_queued_messages(&self) -> bool {
        let q = self.shared.queues();
        !q.steering.is_empty() || !q.follow_up.is_empty()
    }

    /// Aborts the active run: the provider stream and every running tool get the signal
    /// (AC-22). No-op when idle. `is_streaming` stays true until the run has stopped.
    pub fn abort(&self) {
        if let Some(cancel) = lock(&self.shared.run_cancel).as_ref() {
            cancel.cancel();
        }
    }

    /// The active run's abort signal, `None` when idle.
    pub fn signal(&self) -> Option<CancellationToken> {
        lock(&self.shared.run_cancel).clone()
    }

    /// Resolves once no run is active (at once when idle, AC-23).
    pub async fn wait_for_idle(&self) {
        let mut rx = self.shared.running.subscribe();
        let _ = rx.wait_for(|running| !running).await;
    }

    /// Clears the transcript, runtime state and both queues (AC-26).
    pub fn reset(&self) {
        {
            let mut s = self.shared.state();
            s.messages.clear();
            s.streaming_message = None;
            s.pending_tool_calls.clear();
            s.error_message = None;
        }
        self.shared.bump_generation();
        self.clear_all_queues();
    }
}
