//! The post-run chain (seed diagram 4, D2): retry first, compaction second, queued
//! messages last. Returns whether the driver should call `agent.continue()`.

use std::time::Duration;

use rho_ai::retry::{auto_retry_delay_ms, is_retryable};
use rho_ai::StopReason;
use tokio_util::sync::CancellationToken;

use super::events::SessionOnlyEvent;
use super::ops::Op;
use super::phase::RunPhase;
use super::task::{data as run_data, Data};
use super::AgentSession;

/// What the retry stage decided.
enum RetryOutcome {
    /// The back-off completed: continue.
    Retry,
    /// The back-off was aborted: stop the chain.
    Cancelled,
    /// Not retryable, or retries exhausted: go on to compaction.
    GoOn,
}

impl AgentSession {
    /// D2's chain for the last reply of the run.
    pub(crate) async fn post_run(&self, data: &Data) -> bool {
        let Some(reply) = run_data(data).last_assistant.take() else {
            return false;
        };
        match self.retry_stage(&reply).await {
            RetryOutcome::Retry => return true,
            RetryOutcome::Cancelled => return false,
            RetryOutcome::GoOn => {}
        }
        if reply.stop_reason == StopReason::Error {
            let attempt = self.inner.run.take_retry_attempt();
            if attempt > 0 {
                self.emit_session(SessionOnlyEvent::AutoRetryEnd {
                    success: false,
                    attempt,
                    final_error: reply.error_message.clone(),
                });
            }
        }
        if let Some(decision) = self.post_run_compaction(&reply, data).await {
            return decision;
        }
        reply.stop_reason != StopReason::Aborted && self.inner.services.agent.has_queued_messages()
    }

    /// Whether [`Self::retry_stage`] will retry after the run that ended with `messages`
    /// (pi 1.x's `agent_end.willRetry`): retries on, attempts left, no abort requested, and
    /// the run's last reply is a retryable failure.
    pub(crate) fn will_retry_after(&self, messages: &[rho_agent::AgentMessage]) -> bool {
        if self.inner.run.get().aborted {
            return false;
        }
        let attempt = self.inner.run.get().retry_attempt;
        let (settings, window) = {
            let s = self.state();
            let window = s.model.as_ref().map_or(0, |m| m.context_window);
            (s.settings.retry(), window)
        };
        if !settings.enabled || attempt >= settings.max_retries {
            return false;
        }
        messages
            .iter()
            .rev()
            .find_map(|m| m.as_assistant())
            .is_some_and(|reply| is_retryable(reply, window))
    }

    /// RETRY-2..8: count the failure, back off (abortably), drop the failed reply.
    async fn retry_stage(&self, reply: &rho_ai::AssistantMessage) -> RetryOutcome {
        let (settings, window) = {
            let s = self.state();
            (
                s.settings.retry(),
                s.model.as_ref().map_or(0, |m| m.context_window),
            )
        };
        if !settings.enabled || !is_retryable(reply, window) {
            return RetryOutcome::GoOn;
        }
        let mut attempt = 0;
        self.inner.run.update(|s| {
            s.retry_attempt += 1;
            attempt = s.retry_attempt;
        });
        let error = reply
            .error_message
            .clone()
            .unwrap_or_else(|| "Unknown error".into());
        if attempt > settings.max_retries {
            self.inner.run.take_retry_attempt();
            self.emit_session(SessionOnlyEvent::AutoRetryEnd {
                success: false,
                attempt: attempt - 1,
                final_error: Some(error),
            });
            return RetryOutcome::GoOn;
        }
        let delay_ms =
            auto_retry_delay_ms(settings.base_delay_ms, attempt, settings.max_agent_delay_ms);
        self.emit_session(SessionOnlyEvent::AutoRetryStart {
            attempt,
            max_attempts: settings.max_retries,
            delay_ms,
            error_message: error,
        });
        self.omit_failed_attempt(reply);
        self.drop_last_assistant_if(|m| m.stop_reason == StopReason::Error);
        let cancel = CancellationToken::new();
        self.inner.run.cancels(|c| c.retry = Some(cancel.clone()));
        self.inner.run.set_phase(RunPhase::Retrying);
        let slept = tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(delay_ms)) => true,
            _ = cancel.cancelled() => false,
        };
        self.inner.run.set_phase(RunPhase::Finishing);
        self.inner.run.cancels(|c| c.retry = None);
        if slept {
            return RetryOutcome::Retry;
        }
        let attempt = self.inner.run.take_retry_attempt();
        self.emit_session(SessionOnlyEvent::AutoRetryEnd {
            success: false,
            attempt,
            final_error: Some("Retry cancelled".into()),
        });
        RetryOutcome::Cancelled
    }

    /// pi 1.6 keeps a failed attempt it retries (or recovers from) in the file and leaves it
    /// out of the model's context with a `context_edit` entry (`replacement: null`), so the
    /// session reads the same in pi and rho: when the branch ends with `reply`'s entry, that
    /// entry is omitted (and listeners hear `entry_appended`).
    pub(crate) fn omit_failed_attempt(&self, reply: &rho_ai::AssistantMessage) {
        let appended = {
            let mut s = self.state();
            let leaf = s.session.tree().leaf().and_then(|e| match &e.data {
                rho_session::EntryData::Message(m) => {
                    let m = m.get().ok()?;
                    let a = m.as_assistant()?;
                    (a.timestamp == reply.timestamp && a.stop_reason == reply.stop_reason)
                        .then(|| e.id.clone())
                }
                _ => None,
            });
            leaf.map(|id| s.session.append_context_edit(&id, None).cloned())
        };
        match appended {
            Some(Ok(entry)) => self.emit_session(SessionOnlyEvent::EntryAppended {
                entry: Box::new(entry),
            }),
            Some(Err(_)) => self.announce_save_failure(),
            None => {}
        }
    }

    /// Removes the agent's last message if it is an assistant reply matching `pred`
    /// (RETRY-6, COMP-10). The session file keeps it.
    pub(crate) fn drop_last_assistant_if(&self, pred: impl Fn(&rho_ai::AssistantMessage) -> bool) {
        let mut messages = self.inner.services.agent.stored_messages();
        let last = messages.last().and_then(|m| m.get().ok());
        if last
            .as_deref()
            .and_then(|m| m.as_assistant())
            .is_some_and(pred)
        {
            messages.pop();
            self.inner.services.agent.set_messages(messages);
        }
    }

    /// Cancels a running retry back-off (RETRY-15).
    pub fn abort_retry(&self) {
        self.inner
            .run
            .cancels(|c| c.retry.as_ref().map(|t| t.cancel()));
    }

    /// Whether a retry back-off is in progress.
    pub fn is_retrying(&self) -> bool {
        self.inner.run.get().phase == RunPhase::Retrying
    }

    /// `abort()` (seed diagram 12, D6): cancel the retry sleep, abort the agent, wait until
    /// the run loop has stopped.
    pub async fn abort(&self) {
        self.abort_run(false).await;
    }

    /// [`Self::abort`]; with `detach` the aborted run's remaining messages are not persisted
    /// (SE-9).
    pub(crate) async fn abort_run(&self, detach: bool) {
        if let Ok(Some(settled)) = self.request(|done| Op::Abort { detach, done }).await {
            self.inner.run.settled_past(settled).await;
        }
        self.inner.services.agent.wait_for_idle().await;
    }

    /// The abort on the session task: the run loop (if one is active) is marked aborted,
    /// the retry back-off cancelled, the agent aborted. Returns the settle count to wait
    /// past when a run loop was active. A manual compaction or a move in the tree goes on
    /// (AB-7: `abort_compaction` and `abort_branch_summary` stop those).
    pub(crate) fn apply_abort(&self, detach: bool) -> Option<u64> {
        let state = self.inner.run.get();
        let in_loop = state.phase.in_run() && state.phase != RunPhase::Starting;
        if state.streaming() {
            self.inner.run.update(|s| {
                s.aborted = true;
                s.detached |= detach && in_loop;
            });
        }
        self.abort_retry();
        self.inner.services.agent.abort();
        in_loop.then_some(state.settled)
    }
}
