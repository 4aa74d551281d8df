//! The run loop (seed diagram 3, D1, D2), as the session task drives it: `agent.prompt`,
//! then `while post_run() { agent.continue() }`, then the finally (bash flush, the reset of a
//! per-run system prompt) and the settle. Each agent event goes through the pipeline of
//! `pipeline.rs` before the next is read.

use std::future::Future;

use rho_agent::{AgentError, AgentMessage};
use rho_ai::StopReason;

use super::error::SessionError;
use super::events::SessionOnlyEvent;
use super::phase::RunPhase;
use super::task::Driver;
use super::AgentSession;
use rho_extension_host::ExtensionEvent;

/// D2's safety cap on post-run continuations within one run loop.
const MAX_POST_RUN_ITERATIONS: u32 = 10;

impl AgentSession {
    /// One run loop over `messages`, from `agent.prompt` to the settle (D1).
    pub(crate) async fn run_loop(
        &self,
        d: &mut Driver<'_>,
        messages: Vec<AgentMessage>,
    ) -> Result<(), SessionError> {
        self.start_loop();
        let run = self.inner.services.agent.prompt(messages);
        let result = self.drive(d, run).await;
        let mut iterations = 0;
        if result.is_ok() {
            self.post_run_chain(d, &mut iterations).await;
        }
        self.finish_loop(d, iterations).await;
        result
    }

    /// A run loop that starts with `agent.continue()` (the pre-prompt overflow recovery,
    /// COMP-23): the same chain, finally and settle.
    pub(crate) async fn continue_loop(&self, d: &mut Driver<'_>) {
        self.start_loop();
        let run = self.inner.services.agent.continue_();
        let mut iterations = 0;
        if self.drive(d, run).await.is_ok() {
            self.post_run_chain(d, &mut iterations).await;
        }
        self.finish_loop(d, iterations).await;
    }

    /// A run loop begins: running, and no abort requested yet.
    fn start_loop(&self) {
        self.inner.run.update(|s| {
            s.phase = RunPhase::Running;
            s.aborted = false;
        });
    }

    /// `while post_run() { agent.continue() }`, then pi 1.6's `agent_before_settle` (not
    /// after an abort), whose continuation runs the chain again; at most
    /// [`MAX_POST_RUN_ITERATIONS`] continuations in all.
    async fn post_run_chain(&self, d: &mut Driver<'_>, iterations: &mut u32) {
        while self.post_run_once(d, iterations).await {
            if self.inner.run.get().aborted || !self.before_settle_boundary().await {
                return;
            }
            *iterations += 1;
            if *iterations > MAX_POST_RUN_ITERATIONS {
                self.report_continuation_cap();
                return;
            }
            let run = self.inner.services.agent.continue_();
            if let Err(e) = self.drive(d, run).await {
                let extensions = &self.inner.services.extensions;
                extensions.report("<session>", "continue", e.to_string());
                return;
            }
        }
    }

    fn report_continuation_cap(&self) {
        self.inner.services.extensions.report(
            "<session>",
            "post_run",
            format!(
                "Stopped after {MAX_POST_RUN_ITERATIONS} automatic continuations in one prompt"
            ),
        );
    }

    /// D2's chain proper; false when it stopped early (the cap, a failed continuation).
    async fn post_run_once(&self, d: &mut Driver<'_>, iterations: &mut u32) -> bool {
        let extensions = &self.inner.services.extensions;
        while self.post_run(d.data).await {
            *iterations += 1;
            if *iterations > MAX_POST_RUN_ITERATIONS {
                self.report_continuation_cap();
                return false;
            }
            let run = self.inner.services.agent.continue_();
            if let Err(e) = self.drive(d, run).await {
                extensions.report("<session>", "continue", e.to_string());
                return false;
            }
        }
        true
    }

    /// The end of a run loop: the after-run hook, then D2's last stage taken once more (a
    /// message queued after the chain last looked, while the loop was finishing, is
    /// delivered by this loop rather than left for the next prompt), then the finally and
    /// the settle. Nothing awaits between that last look and the settle, so a message sent
    /// from then on finds the session idle.
    async fn finish_loop(&self, d: &mut Driver<'_>, mut iterations: u32) {
        let agent = &self.inner.services.agent;
        loop {
            let declined = agent.has_queued_messages();
            self.after_run().await;
            if declined || iterations >= MAX_POST_RUN_ITERATIONS || !self.late_messages() {
                break;
            }
            iterations += 1;
            if self.drive(d, agent.continue_()).await.is_err() {
                break;
            }
            self.post_run_chain(d, &mut iterations).await;
        }
        self.flush_pending_bash(d.data);
        let base = self.state().base_system_prompt.clone();
        agent.set_system_prompt(base);
        agent.set_forced_system_prompt(None);
        self.settle().await;
    }

    /// Whether messages wait in the agent's queues and the run's last reply lets them be
    /// delivered now (a failed or aborted run leaves them for the next one, Q-9).
    fn late_messages(&self) -> bool {
        let agent = &self.inner.services.agent;
        if !agent.has_queued_messages() {
            return false;
        }
        let last = agent.stored_messages().pop().and_then(|m| m.get().ok());
        last.as_deref()
            .and_then(AgentMessage::as_assistant)
            .is_some_and(|a| !matches!(a.stop_reason, StopReason::Error | StopReason::Aborted))
    }

    /// The run loop is over: idle, then `agent_settled`, pi 1.x's "nothing more follows on
    /// its own", to the extensions that handle it and then to listeners (pi 1.6 awaits the
    /// handlers first, so what they show reaches a client before the event).
    async fn settle(&self) {
        let mut aborted = false;
        self.inner.run.update(|s| {
            s.phase = RunPhase::Idle;
            aborted = s.aborted;
            s.detached = false;
            s.settled += 1;
        });
        let extensions = &self.inner.services.extensions;
        if extensions.has_handlers("agent_settled") {
            let event = ExtensionEvent::AgentSettled { aborted };
            extensions.emit(event, &self.run_ctx()).await;
        }
        self.emit_session(SessionOnlyEvent::AgentSettled { aborted });
    }

    /// Processes events while `run` goes on, then the events still queued after it ended.
    pub(crate) async fn drive(
        &self,
        d: &mut Driver<'_>,
        run: impl Future<Output = Result<(), AgentError>>,
    ) -> Result<(), SessionError> {
        tokio::pin!(run);
        loop {
            tokio::select! {
                biased;
                event = d.events.recv_delivery() => match event {
                    Some((e, from)) => self.handle_agent_event(e, from, d.data).await,
                    None => return run.await.map_err(SessionError::from),
                },
                result = &mut run => {
                    while let Some((e, from)) = d.events.try_recv_delivery() {
                        self.handle_agent_event(e, from, d.data).await;
                    }
                    return result.map_err(SessionError::from);
                }
            }
        }
    }
}
