//! Compaction as the session runs it: the post-run and pre-prompt checks (D2, D3, COMP-4..12),
//! auto-compaction with its events (COMP-13..15), and manual `compact()` (COMP-17), an
//! operation whose work the session task drives like a run.

use rho_ai::overflow::is_context_overflow;
use rho_ai::{AssistantMessage, StopReason};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use std::future::Future;

use super::credentials::CredentialError;
use super::error::SessionError;
use super::events::{CompactionReason, SessionOnlyEvent};
use super::ops::{Job, Op};
use super::phase::RunPhase;
use super::task::{data as run_data, Data, Driver, Runs};
use super::AgentSession;
use rho_compaction::from_session::{latest_compaction_timestamp, path_entries};
use rho_compaction::{
    prepare_compaction, run_compaction, threshold_check, CheckPoint, CompactionError,
    CompactionResult, HookDecision, RetryEvent, Summarizer, SummaryRetry,
};
use rho_extension_host::ExtensionEvent;
use rho_protocol::session::CompactionAfter;
use rho_protocol::session::SummarySource;
use rho_session::{CompactionData, EntryData};
use std::sync::Arc;

/// pi's name of a compaction reason in extension events.
fn reason_name(reason: CompactionReason) -> &'static str {
    match reason {
        CompactionReason::Manual => "manual",
        CompactionReason::Threshold => "threshold",
        CompactionReason::Overflow => "overflow",
    }
}

/// COMP-8's text for a second overflow in a row.
pub const OVERFLOW_RECOVERY_FAILED: &str = "Context overflow recovery failed after one compact-and-retry attempt. Try reducing context or switching to a larger-context model.";

/// Replies are judged stale by comparing their timestamp with the compaction entry's
/// (COMP-5, millisecond resolution). A reply created in the same millisecond as the entry
/// would look stale, so the session lets that millisecond pass before continuing (a
/// compaction takes seconds in practice; this waits at most one millisecond).
async fn wait_past_millisecond(written_at: i64) {
    while rho_ai::now_ms() <= written_at {
        tokio::time::sleep(std::time::Duration::from_micros(100)).await;
    }
}

/// Why a compaction produced no result.
enum Failure {
    /// Nothing to do or no way to do it (no model, no key, nothing to prepare): no message.
    Quiet(String),
    /// Cancelled by an extension or aborted.
    Cancelled,
    /// A real failure with its message.
    Failed(String),
}

impl AgentSession {
    /// The post-run check (aborted replies skipped). `Some(continue?)` decides the chain.
    pub(crate) async fn post_run_compaction(
        &self,
        reply: &AssistantMessage,
        data: &Data,
    ) -> Option<bool> {
        self.check_compaction(reply, CheckPoint::PostRun, data)
            .await
    }

    /// Stage 6: the check on the agent's last reply, aborted ones included; when it asks
    /// to continue (overflow recovery, queued messages), the continuation runs here, before
    /// the new prompt (D12: no race with the prompt's own run).
    pub(crate) async fn pre_prompt_compaction(&self, d: &mut Driver<'_>) {
        let stored = self.inner.services.agent.stored_messages();
        let last = stored.iter().rev().find(|m| m.role() == "assistant");
        let Some(Ok(message)) = last.map(|m| m.get()) else {
            return;
        };
        let Some(reply) = message.as_assistant().cloned() else {
            return;
        };
        if self
            .check_compaction(&reply, CheckPoint::PrePrompt, d.data)
            .await
            == Some(true)
        {
            self.continue_loop(d).await;
        }
    }

    async fn check_compaction(
        &self,
        reply: &AssistantMessage,
        point: CheckPoint,
        data: &Data,
    ) -> Option<bool> {
        let (settings, model, latest) = {
            let s = self.state();
            let branch = s.session.tree().branch();
            (
                s.settings.compaction_for(s.model.as_ref()),
                s.model.clone(),
                latest_compaction_timestamp(&branch),
            )
        };
        let model = self.model_for_message(model?, reply)?;
        if !settings.enabled
            || (point == CheckPoint::PostRun && reply.stop_reason == StopReason::Aborted)
            || latest.is_some_and(|t| reply.timestamp <= t)
        {
            return None;
        }
        if is_context_overflow(reply, model.context_window) {
            let second = run_data(data).overflow_recovery_attempted;
            // Nothing before the overflowing request to summarise (its first exchange): the
            // provider's error stays the run's answer. pi 1.6 drops it and ends silently.
            if !second && !self.has_history_to_compact(&settings) {
                return Some(false);
            }
            run_data(data).overflow_recovery_attempted = true;
            if second {
                self.emit_session(SessionOnlyEvent::CompactionEnd {
                    reason: CompactionReason::Overflow,
                    result: None,
                    aborted: false,
                    will_retry: false,
                    error_message: Some(OVERFLOW_RECOVERY_FAILED.into()),
                    after: None,
                });
                return Some(false);
            }
            self.omit_failed_attempt(reply);
            self.drop_last_assistant_if(|m| m == reply);
            let ok = self
                .run_auto_compaction(CompactionReason::Overflow, Some(reply))
                .await;
            return Some(ok);
        }
        // The next request sends them all: decoded once for both.
        let Ok(messages) = self.inner.services.agent.hold_messages() else {
            return Some(false);
        };
        // As pi 1.6: with nothing to summarise no compaction starts (no events).
        if threshold_check(reply, &messages, latest, &settings, &model, point)
            && self.has_history_to_compact(&settings)
            && self
                .run_auto_compaction(CompactionReason::Threshold, None)
                .await
        {
            return Some(self.inner.services.agent.has_queued_messages());
        }
        None
    }

    /// Whether the current branch has anything a compaction would summarise.
    fn has_history_to_compact(&self, settings: &rho_compaction::CompactionSettings) -> bool {
        let s = self.state();
        let branch = s.session.tree().branch();
        path_entries(&branch).is_ok_and(|path| prepare_compaction(&path, settings).is_ok())
    }

    /// Auto-compaction with its events. `retry_after` (overflow) sets `willRetry` and drops
    /// that reply from the rebuilt state so the continuation calls the model again.
    async fn run_auto_compaction(
        &self,
        reason: CompactionReason,
        retry_after: Option<&AssistantMessage>,
    ) -> bool {
        self.emit_session(SessionOnlyEvent::CompactionStart { reason });
        let will_retry = retry_after.is_some();
        let run = &self.inner.run;
        let before = run.get().phase;
        run.set_phase(RunPhase::Compacting);
        let outcome = self.compact_now(None, (reason, will_retry)).await;
        run.set_phase(before);
        let quiet = matches!(outcome, Err(Failure::Quiet(_)));
        let (result, aborted, error_message) = match outcome {
            Ok(result) => (Some(result), false, None),
            Err(Failure::Quiet(_)) => (None, false, None),
            Err(Failure::Cancelled) => (None, true, None),
            Err(Failure::Failed(msg)) => {
                let prefix = match reason {
                    CompactionReason::Overflow => "Context overflow recovery failed",
                    _ => "Auto-compaction failed",
                };
                (None, false, Some(format!("{prefix}: {msg}")))
            }
        };
        let ok = result.is_some();
        let failed = (!ok && !quiet).then(|| (error_message.clone(), aborted));
        if ok {
            if let Some(reply) = retry_after {
                self.drop_last_assistant_if(|m| m == reply || m.stop_reason == StopReason::Error);
            }
        }
        let after = ok.then(|| Box::new(self.after_compaction()));
        self.emit_session(SessionOnlyEvent::CompactionEnd {
            reason,
            result,
            aborted,
            will_retry: ok && retry_after.is_some(),
            error_message,
            after,
        });
        if let Some((error_message, aborted)) = failed {
            self.compaction_failed(reason, error_message, aborted).await;
        }
        ok
    }

    /// pi 1.6's `session_compact_failed` for extensions, after `compaction_end`: a compaction
    /// that ended without a result (`errorMessage` unless it was aborted).
    async fn compaction_failed(
        &self,
        reason: CompactionReason,
        error_message: Option<String>,
        aborted: bool,
    ) {
        let runner = &self.inner.services.extensions;
        if !runner.has_handlers("session_compact_failed") {
            return;
        }
        let event = ExtensionEvent::SessionCompactFailed {
            reason: reason_name(reason).into(),
            error_message,
            aborted,
            will_retry: false,
            from_extension: false,
        };
        runner.emit(event, &self.run_ctx()).await;
    }

    /// Manual compaction (COMP-17): aborts the run going, then compacts; never continues.
    /// The operation is sent when this is called, not when the answer is first awaited, so
    /// what is sent after it (a prompt, a steer) reaches the session after it: a prompt waits
    /// for the compaction and runs after it.
    pub fn compact(
        &self,
        custom_instructions: Option<&str>,
    ) -> impl Future<Output = Result<CompactionResult, SessionError>> + Send + 'static {
        let instructions = custom_instructions.map(str::to_string);
        let reply = self.request(|reply| Op::Compact {
            instructions,
            reply,
        });
        async move { reply.await? }
    }

    /// `compact` on the session task: the run going is aborted, and its messages from now on
    /// are kept out of the file (SE-9; its end still reaches listeners, before
    /// `compaction_start`); the compaction is the task's next work after the work already
    /// accepted.
    pub(crate) fn apply_compact(
        &self,
        instructions: Option<String>,
        reply: oneshot::Sender<Result<CompactionResult, SessionError>>,
        runs: &mut Runs,
    ) {
        self.apply_abort(true);
        runs.push(
            self,
            Job::Compact {
                instructions,
                reply,
            },
        );
    }

    /// The manual compaction, as the session task drives it: its events around the work.
    pub(crate) async fn compaction_job(
        &self,
        custom_instructions: Option<&str>,
    ) -> Result<CompactionResult, SessionError> {
        self.emit_session(SessionOnlyEvent::CompactionStart {
            reason: CompactionReason::Manual,
        });
        let manual = (CompactionReason::Manual, false);
        let outcome = self.compact_now(custom_instructions, manual).await;
        let (result, aborted, message) = match outcome {
            Ok(r) => (Some(r), false, None),
            Err(Failure::Cancelled) => (None, true, Some("Compaction cancelled".to_string())),
            Err(Failure::Quiet(m)) | Err(Failure::Failed(m)) => (None, false, Some(m)),
        };
        let error_message = match (&message, aborted) {
            (Some(m), false) => Some(format!("Compaction failed: {m}")),
            _ => None,
        };
        self.emit_session(SessionOnlyEvent::CompactionEnd {
            reason: CompactionReason::Manual,
            result: result.clone(),
            aborted,
            will_retry: false,
            error_message: error_message.clone(),
            after: result.is_some().then(|| Box::new(self.after_compaction())),
        });
        if result.is_none() {
            self.compaction_failed(CompactionReason::Manual, error_message, aborted)
                .await;
        }
        result.ok_or_else(|| SessionError::Compaction(message.unwrap_or_default()))
    }

    /// What pi 1.x's `compact` adds to the result: a heuristic estimate of the rebuilt
    /// context's tokens (its messages, the system checkpoint with the prompt and tools
    /// included, ~4 characters a token, as pi 1.x counts them) and the usage the summary
    /// cost, read from the compaction entry at the leaf.
    pub fn after_compaction(&self) -> CompactionAfter {
        let messages = self
            .inner
            .services
            .agent
            .shared_messages()
            .unwrap_or_default();
        let estimate = rho_compaction::estimate_context_tokens(&messages).tokens;
        let usage = self.with_session(|store| match store.tree().leaf().map(|e| &e.data) {
            Some(EntryData::Compaction(c)) => c.usage,
            _ => None,
        });
        CompactionAfter {
            estimated_tokens_after: estimate,
            usage,
        }
    }

    /// Aborts a running compaction (COMP-22).
    pub fn abort_compaction(&self) {
        self.inner
            .run
            .cancels(|c| c.compaction.as_ref().map(|t| t.cancel()));
    }

    /// Prepares, asks extensions, summarises, writes the entry and rebuilds the agent state,
    /// on the session task (in a run or as its own work; the phase says "compacting"
    /// meanwhile). Its extension handlers are awaited by the task, so their context says so.
    async fn compact_now(
        &self,
        custom_instructions: Option<&str>,
        why: (CompactionReason, bool),
    ) -> Result<CompactionResult, Failure> {
        let outcome = self.compact_steps(custom_instructions, why).await;
        self.inner.run.cancels(|c| c.compaction = None);
        outcome
    }

    async fn compact_steps(
        &self,
        custom_instructions: Option<&str>,
        (reason, will_retry): (CompactionReason, bool),
    ) -> Result<CompactionResult, Failure> {
        let (model, thinking, preparation, branch_json) = {
            let s = self.state();
            let model = s
                .model
                .clone()
                .ok_or_else(|| Failure::Quiet(SessionError::NoModel.to_string()))?;
            let branch = s.session.tree().branch();
            let path = path_entries(&branch).map_err(|e| Failure::Quiet(e.to_string()))?;
            let settings = s.settings.compaction_for(Some(&model));
            let preparation =
                prepare_compaction(&path, &settings).map_err(|e| Failure::Quiet(e.to_string()))?;
            let branch_json = serde_json::to_value(&branch).unwrap_or(Value::Null);
            (model, s.thinking_level, preparation, branch_json)
        };
        let (model, thinking) = self
            .summary_route(model, thinking)
            .await
            .map_err(|e| Failure::Quiet(e.to_string()))?;
        let api_key = self
            .summary_api_key(&model.provider)
            .await
            .map_err(|e| Failure::Quiet(e.to_string()))?;
        let ctx = self.run_ctx();
        let why = (reason, will_retry);
        let hook = self
            .compaction_hook(&preparation, branch_json, custom_instructions, why, &ctx)
            .await;
        let cancel = CancellationToken::new();
        self.inner
            .run
            .cancels(|c| c.compaction = Some(cancel.clone()));
        let summarizer = Summarizer {
            model,
            api_key: Some(api_key),
            thinking,
            cancel,
            stream: self.inner.services.stream_fn.clone(),
            retry: self.summary_retry(SummarySource::Compaction, Some(reason)),
        };
        let compacted = run_compaction(&preparation, &summarizer, custom_instructions, hook)
            .await
            .map_err(|e| match e {
                CompactionError::Cancelled => Failure::Cancelled,
                other => Failure::Failed(other.to_string()),
            })?;
        let result = compacted.result;
        let (entry, written_at) = {
            let mut s = self.state();
            let entry = s
                .session
                .append_compaction(CompactionData {
                    summary: result.summary.clone(),
                    first_kept_entry_id: result.first_kept_entry_id.clone(),
                    tokens_before: result.tokens_before,
                    details: result.details.clone(),
                    usage: compacted.usage,
                    from_hook: Some(compacted.from_extension),
                    system_message: None,
                })
                .map_err(|e| Failure::Failed(e.to_string()))?;
            let written_at = rho_session::time::parse_iso(&entry.timestamp).unwrap_or(0);
            let entry = serde_json::to_value(entry).unwrap_or(Value::Null);
            let messages = s.session.build_context().messages;
            self.replace_conversation(messages);
            (entry, written_at)
        };
        wait_past_millisecond(written_at).await;
        self.inner
            .services
            .extensions
            .emit(
                ExtensionEvent::SessionCompact {
                    compaction_entry: entry,
                    from_extension: compacted.from_extension,
                    reason: reason_name(reason).into(),
                    will_retry,
                },
                &ctx,
            )
            .await;
        Ok(result)
    }

    /// `session_before_compact` (COMP-16): cancel, or a ready result, or proceed.
    async fn compaction_hook(
        &self,
        preparation: &rho_compaction::CompactionPreparation,
        branch_entries: Value,
        custom_instructions: Option<&str>,
        (reason, will_retry): (CompactionReason, bool),
        ctx: &rho_extension_host::ExtensionContext,
    ) -> HookDecision<CompactionResult> {
        let runner = &self.inner.services.extensions;
        if !runner.has_handlers("session_before_compact") {
            return HookDecision::Proceed;
        }
        let event = ExtensionEvent::SessionBeforeCompact {
            preparation: serde_json::to_value(preparation).unwrap_or(Value::Null),
            branch_entries,
            custom_instructions: custom_instructions.map(str::to_string),
            reason: reason_name(reason).into(),
            will_retry,
        };
        match runner.emit_session_before(event, ctx).await {
            Some(r) if r.cancel => HookDecision::Cancel,
            Some(r) => match r.compaction.map(serde_json::from_value::<CompactionResult>) {
                Some(Ok(result)) => HookDecision::Replace(result),
                Some(Err(e)) => {
                    runner.report(
                        "<session>",
                        "session_before_compact",
                        format!("invalid compaction: {e}"),
                    );
                    HookDecision::Proceed
                }
                None => HookDecision::Proceed,
            },
            None => HookDecision::Proceed,
        }
    }
}

impl AgentSession {
    /// How a summary request is retried: the `retry.*` settings, each retry reported as pi
    /// 1.x's `summarization_retry_*` events (`source`, and a compaction's `reason`).
    pub(crate) fn summary_retry(
        &self,
        source: SummarySource,
        reason: Option<CompactionReason>,
    ) -> SummaryRetry {
        let weak = self.inner.weak.clone();
        let settings = self.state().settings.retry();
        SummaryRetry::new(
            settings,
            Arc::new(move |event| {
                let Some(inner) = weak.upgrade() else { return };
                let session = AgentSession { inner };
                session.emit_session(match event {
                    RetryEvent::Scheduled {
                        attempt,
                        max_attempts,
                        delay_ms,
                        error_message,
                    } => SessionOnlyEvent::SummarizationRetryScheduled {
                        attempt,
                        max_attempts,
                        delay_ms,
                        error_message,
                    },
                    RetryEvent::AttemptStart => {
                        SessionOnlyEvent::SummarizationRetryAttemptStart { source, reason }
                    }
                    RetryEvent::Finished => SessionOnlyEvent::SummarizationRetryFinished,
                });
            }),
        )
    }

    /// The key a summary request (compaction, branch summary) is sent with, a due OAuth
    /// token refreshed first (pi's "no API key" text when there is none).
    pub(crate) async fn summary_api_key(&self, provider: &str) -> Result<String, CredentialError> {
        match self
            .inner
            .services
            .credentials
            .request_key(provider)
            .await?
        {
            Some(key) => Ok(key),
            None => Err(CredentialError::NoKey(provider.to_string())),
        }
    }
}
