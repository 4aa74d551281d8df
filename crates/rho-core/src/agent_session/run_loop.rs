//! The run loop (seed diagram 3, D1) and the per-event pipeline (SE-1..6): one driver owns
//! the agent's event stream, processes each event to completion (bookkeeping, extension
//! handlers, listeners, persistence, tracking), then runs the post-run chain.

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::Poll;

use rho_agent::{AgentError, AgentEvent, AgentMessage, EventReceiver};
use rho_ai::StopReason;

use super::error::SessionError;
use super::events::SessionOnlyEvent;
use super::AgentSession;
use crate::extensions::ExtensionEvent;

tokio::task_local! {
    /// Set while the current task is a run loop (its event handlers and post-run chain).
    static IN_RUN_LOOP: ();
}

/// Whether the caller runs inside a run loop (an extension handler, a compaction hook):
/// such a caller must never wait for the loop to finish.
pub(crate) fn in_run_loop() -> bool {
    IN_RUN_LOOP.try_with(|_| ()).is_ok()
}

/// D2's safety cap on post-run continuations within one `prompt()`.
const MAX_POST_RUN_ITERATIONS: u32 = 10;

impl AgentSession {
    /// `agent.prompt(messages)`, then `while post_run() { agent.continue() }`, then (finally)
    /// the bash flush and the reset of a per-run system prompt (D1).
    pub(crate) async fn run_agent_prompt(
        &self,
        messages: Vec<AgentMessage>,
    ) -> Result<(), SessionError> {
        self.run_agent_prompt_announced(messages, || {}).await
    }

    /// [`Self::run_agent_prompt`], calling `announce` once this prompt holds its place in
    /// the driver's FIFO queue: prompts announced in some order then run in that order
    /// (D13's line order for RPC prompts sent back to back).
    pub(crate) async fn run_agent_prompt_announced(
        &self,
        messages: Vec<AgentMessage>,
        announce: impl FnOnce(),
    ) -> Result<(), SessionError> {
        let starting = RunStarting::new(&self.inner.runs_starting);
        let lock = self.inner.driver.lock();
        tokio::pin!(lock);
        // The first poll either takes the lock or joins its wait queue.
        let first = std::future::poll_fn(|cx| Poll::Ready(lock.as_mut().poll(cx))).await;
        announce();
        let mut rx = match first {
            Poll::Ready(guard) => guard,
            Poll::Pending => lock.await,
        };
        self.start_loop();
        let result = IN_RUN_LOOP
            .scope((), self.run_loop(&mut rx, messages, starting))
            .await;
        self.flush_pending_bash();
        let base = self.state().base_system_prompt.clone();
        self.inner.agent.set_system_prompt(base);
        self.inner.agent.set_forced_system_prompt(None);
        self.settle().await;
        result
    }

    /// A run loop begins (the driver lock is held): busy, and no abort requested yet.
    fn start_loop(&self) {
        self.inner
            .run_abort_requested
            .store(false, Ordering::SeqCst);
        self.inner.loop_active.send_replace(true);
    }

    /// The run loop is over (the driver lock is still held, so no other run's events can
    /// come first): the after-run hook, idle, then `agent_settled`, pi 1.x's "nothing more
    /// follows on its own", to listeners and to the extensions that handle it.
    async fn settle(&self) {
        self.after_run().await;
        self.inner.loop_active.send_replace(false);
        let aborted = self.inner.run_abort_requested.load(Ordering::SeqCst);
        self.emit_session(SessionOnlyEvent::AgentSettled { aborted });
        if self.inner.extensions.has_handlers("agent_settled") {
            let event = ExtensionEvent::AgentSettled { aborted };
            self.inner.extensions.emit(event, &self.ext_ctx()).await;
        }
    }

    /// True while a prompt accepted to run waits for its agent run to start.
    pub(crate) fn run_starting(&self) -> bool {
        self.inner.runs_starting.load(Ordering::SeqCst) > 0
    }

    /// True once the current run's agent is done: its `agent_end` went out (the agent's own
    /// state may still say streaming for a moment) or it stopped streaming.
    pub(crate) fn agent_finished(&self) -> bool {
        self.inner.agent_ended.load(Ordering::SeqCst) || !self.inner.agent.is_streaming()
    }

    async fn run_loop(
        &self,
        rx: &mut EventReceiver,
        messages: Vec<AgentMessage>,
        starting: RunStarting<'_>,
    ) -> Result<(), SessionError> {
        let run = self.inner.agent.prompt(messages);
        drop(starting);
        self.drive(rx, run).await?;
        let mut iterations = 0;
        while self.post_run().await {
            iterations += 1;
            if iterations > MAX_POST_RUN_ITERATIONS {
                self.inner.extensions.report(
                    "<session>",
                    "post_run",
                    format!("Stopped after {MAX_POST_RUN_ITERATIONS} automatic continuations in one prompt"),
                );
                break;
            }
            let run = self.inner.agent.continue_();
            if let Err(e) = self.drive(rx, run).await {
                self.inner
                    .extensions
                    .report("<session>", "continue", e.to_string());
                break;
            }
        }
        Ok(())
    }

    /// Processes events while `run` goes on, then the events still queued after it ended.
    async fn drive(
        &self,
        rx: &mut EventReceiver,
        run: impl Future<Output = Result<(), AgentError>>,
    ) -> Result<(), SessionError> {
        tokio::pin!(run);
        loop {
            tokio::select! {
                biased;
                event = rx.recv() => match event {
                    Some(e) => self.handle_agent_event(e).await,
                    None => return run.await.map_err(SessionError::from),
                },
                result = &mut run => {
                    while let Some(e) = rx.try_recv() {
                        self.handle_agent_event(e).await;
                    }
                    return result.map_err(SessionError::from);
                }
            }
        }
    }

    /// SE-3 for one event: (a) user bookkeeping, (b) extension handlers, (d) persistence, then
    /// (c) listeners (the durability rule moves persistence first), (e) assistant tracking.
    async fn handle_agent_event(&self, event: Arc<AgentEvent>) {
        if self
            .inner
            .disconnected
            .load(std::sync::atomic::Ordering::Acquire)
        {
            return;
        }
        match &*event {
            AgentEvent::MessageStart {
                message: AgentMessage::User(u),
            } => self.on_user_message_start(&u.content.text()),
            AgentEvent::AgentStart => {
                self.inner.agent_ended.store(false, Ordering::SeqCst);
                self.state().turn_index = 0;
            }
            AgentEvent::AgentEnd { .. } => self.inner.agent_ended.store(true, Ordering::SeqCst),
            _ => {}
        }
        let event = self.with_will_retry(event);
        let event = self.run_extension_handlers(event).await;
        // A reply discarded by steering (D4) is on the stream only: not persisted, not the
        // reply post-run looks at.
        let kept_end = match &*event {
            AgentEvent::MessageEnd { message } => match &**message {
                AgentMessage::Assistant(a) if rho_agent::is_discarded(a) => None,
                _ => Some(message),
            },
            _ => None,
        };
        // The durability rule: an entry is written before any event announcing it leaves the
        // process, so a client that saw `message_end` finds the message in the file even if
        // rho is killed the next instant (pi persists after its listeners; rho does not).
        if let Some(message) = kept_end {
            self.persist(message);
        }
        self.emit(super::SessionEvent::Agent(event.clone()));
        if let Some(AgentMessage::Assistant(a)) = kept_end.map(|m| &**m) {
            self.on_assistant_end(a);
            self.inner.processed_assistant.send_replace(a.timestamp);
        }
        if let AgentEvent::TurnEnd { .. } = &*event {
            self.state().turn_index += 1;
        }
    }

    /// `agent_end` as listeners get it: with `will_retry` set when the retry stage will
    /// retry (the agent itself cannot know).
    fn with_will_retry(&self, event: Arc<AgentEvent>) -> Arc<AgentEvent> {
        match &*event {
            AgentEvent::AgentEnd { messages, .. } if self.will_retry_after(messages) => {
                Arc::new(AgentEvent::AgentEnd {
                    messages: messages.clone(),
                    will_retry: true,
                })
            }
            _ => event,
        }
    }

    /// Q-4 and COMP-9: a delivered user message leaves the queue lists; user input clears the
    /// overflow flag.
    fn on_user_message_start(&self, text: &str) {
        let update = {
            let mut s = self.state();
            s.overflow_recovery_attempted = false;
            let removed = if let Some(i) = s.steering.iter().position(|t| t == text) {
                s.steering.remove(i);
                true
            } else if let Some(i) = s.follow_up.iter().position(|t| t == text) {
                s.follow_up.remove(i);
                true
            } else {
                false
            };
            removed.then(|| (s.steering.clone(), s.follow_up.clone()))
        };
        if let Some((steering, follow_up)) = update {
            self.emit_session(SessionOnlyEvent::QueueUpdate {
                steering,
                follow_up,
            });
        }
    }

    /// SE-6: remember the reply for post-run; a good reply clears the overflow flag and ends
    /// a retry sequence successfully (RETRY-9).
    fn on_assistant_end(&self, reply: &rho_ai::AssistantMessage) {
        let success_attempt = {
            let mut s = self.state();
            s.last_assistant = Some(reply.clone());
            if reply.stop_reason == StopReason::Error {
                None
            } else {
                s.overflow_recovery_attempted = false;
                let attempt = std::mem::take(&mut s.retry_attempt);
                (attempt > 0).then_some(attempt)
            }
        };
        if let Some(attempt) = success_attempt {
            self.emit_session(SessionOnlyEvent::AutoRetryEnd {
                success: true,
                attempt,
                final_error: None,
            });
        }
    }

    /// SE-4: `custom` → custom_message entry; system (pi 1.x)/user/assistant/toolResult →
    /// message entry.
    /// Records a finished message; the entry shares the transcript's cell, so once the line
    /// is on disk both can let the decoded message go.
    fn persist(&self, message: &Arc<AgentMessage>) {
        let cell = self.inner.agent.stored_message_of(message);
        let result = {
            let mut s = self.state();
            match &**message {
                AgentMessage::Custom(c) => s
                    .session
                    .append_custom_message(
                        &c.custom_type,
                        c.content.clone(),
                        c.display,
                        c.details.clone(),
                    )
                    .map(|_| ()),
                AgentMessage::System(_)
                | AgentMessage::User(_)
                | AgentMessage::Assistant(_)
                | AgentMessage::ToolResult(_) => {
                    let cell = cell.unwrap_or_else(|| Arc::clone(message).into());
                    s.session.append_message(cell).map(|_| ())
                }
                _ => Ok(()),
            }
        };
        if result.is_err() {
            self.announce_save_failure();
        }
    }

    /// Forwards the event to extension handlers (EXT-9); a `message_end` replacement is
    /// applied to the agent state and returned (EXT-12, SE-5).
    async fn run_extension_handlers(&self, event: Arc<AgentEvent>) -> Arc<AgentEvent> {
        let runner = &self.inner.extensions;
        if runner.has_handlers("message_update") {
            self.fold_for_extensions(&event);
        }
        if !runner.has_handlers(event.type_name()) {
            return event;
        }
        let ctx = self.ext_ctx();
        if let AgentEvent::MessageEnd { message } = &*event {
            if let Some(replacement) = runner.emit_message_end(message, &ctx).await {
                let replacement = Arc::new(replacement);
                self.replace_last_message(message, Arc::clone(&replacement));
                return Arc::new(AgentEvent::MessageEnd {
                    message: replacement,
                });
            }
            return event;
        }
        if let Some(ext_event) = self.extension_event(&event) {
            runner.emit(ext_event, &ctx).await;
        }
        event
    }

    fn replace_last_message(&self, original: &Arc<AgentMessage>, replacement: Arc<AgentMessage>) {
        let mut messages = self.inner.agent.stored_messages();
        if let Some(slot) = messages
            .iter_mut()
            .rev()
            .find(|m| m.holds(original) || m.held().is_some_and(|held| *held == **original))
        {
            *slot = replacement.into();
            self.inner.agent.set_messages(messages);
        }
    }

    /// Folds the streaming reply for extensions' `message_update` (agent events carry the
    /// delta, extensions are given the partial message).
    fn fold_for_extensions(&self, event: &AgentEvent) {
        let mut state = self.state();
        match event {
            AgentEvent::MessageStart {
                message: AgentMessage::Assistant(m),
            } => state.extension_partial = Some(rho_ai::PartialMessage::starting(m.clone())),
            AgentEvent::MessageUpdate {
                assistant_message_event,
                ..
            } => {
                if let Some(partial) = state.extension_partial.as_mut() {
                    partial.apply(assistant_message_event);
                }
            }
            AgentEvent::MessageEnd { .. } | AgentEvent::AgentEnd { .. } => {
                state.extension_partial = None
            }
            _ => {}
        }
    }

    fn extension_event(&self, event: &AgentEvent) -> Option<ExtensionEvent> {
        let turn_index = self.state().turn_index;
        let value = |e: &AgentEvent, field: &str| {
            serde_json::to_value(e)
                .ok()
                .and_then(|v| v.get(field).cloned())
                .unwrap_or_default()
        };
        Some(match event {
            AgentEvent::AgentStart => ExtensionEvent::AgentStart,
            AgentEvent::AgentEnd { messages, .. } => ExtensionEvent::AgentEnd {
                messages: messages.clone(),
            },
            AgentEvent::TurnStart => ExtensionEvent::TurnStart {
                turn_index,
                timestamp: rho_ai::now_ms(),
            },
            AgentEvent::TurnEnd {
                message,
                tool_results,
            } => ExtensionEvent::TurnEnd {
                turn_index,
                message: message.clone(),
                tool_results: tool_results.clone(),
            },
            AgentEvent::MessageStart { message } => ExtensionEvent::MessageStart {
                message: message.clone(),
            },
            AgentEvent::MessageUpdate { .. } => ExtensionEvent::MessageUpdate {
                message: AgentMessage::Assistant(
                    self.state()
                        .extension_partial
                        .as_mut()
                        .and_then(|p| p.message().cloned())?,
                ),
                assistant_message_event: value(event, "assistantMessageEvent"),
            },
            AgentEvent::MessageEnd { .. } => return None,
            AgentEvent::ToolExecutionStart {
                tool_call_id,
                tool_name,
                args,
            } => ExtensionEvent::ToolExecutionStart {
                tool_call_id: tool_call_id.clone(),
                tool_name: tool_name.clone(),
                args: args.clone(),
            },
            AgentEvent::ToolExecutionUpdate {
                tool_call_id,
                tool_name,
                args,
                ..
            } => ExtensionEvent::ToolExecutionUpdate {
                tool_call_id: tool_call_id.clone(),
                tool_name: tool_name.clone(),
                args: args.clone(),
                partial_result: value(event, "partialResult"),
            },
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                tool_name,
                is_error,
                ..
            } => ExtensionEvent::ToolExecutionEnd {
                tool_call_id: tool_call_id.clone(),
                tool_name: tool_name.clone(),
                result: value(event, "result"),
                is_error: *is_error,
            },
        })
    }
}

impl AgentSession {
    async fn continue_loop(&self, rx: &mut EventReceiver) {
        let run = self.inner.agent.continue_();
        if self.drive(rx, run).await.is_ok() {
            let mut iterations = 0;
            while iterations < MAX_POST_RUN_ITERATIONS && self.post_run().await {
                iterations += 1;
                let run = self.inner.agent.continue_();
                if self.drive(rx, run).await.is_err() {
                    break;
                }
            }
        }
    }

    /// A run loop that starts with `agent.continue()` (pre-prompt overflow recovery,
    /// a triggered continuation): same chain and finally as [`Self::run_agent_prompt`].
    pub(crate) async fn run_agent_continue(&self) {
        let mut rx = self.inner.driver.lock().await;
        self.start_loop();
        IN_RUN_LOOP.scope((), self.continue_loop(&mut rx)).await;
        self.flush_pending_bash();
        self.settle().await;
    }
}

/// Counts a prompt in [`Inner::runs_starting`](super::Inner) until dropped.
struct RunStarting<'a>(&'a AtomicUsize);

impl<'a> RunStarting<'a> {
    fn new(count: &'a AtomicUsize) -> Self {
        count.fetch_add(1, Ordering::SeqCst);
        RunStarting(count)
    }
}

impl Drop for RunStarting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}
