//! pi 1.6's actionable boundaries: `turn_end` (the agent's `finish_turn` up-call, after the
//! turn's reply and tool results are in the session file and before its `turn_end` event)
//! and `agent_before_settle` (the run loop's last look before it settles). Handlers propose
//! entries and a continuation (`rho-extension-host`'s `emit_boundary` folds them); the
//! session checks the whole proposal (`drafts.rs`), appends it in order and tells
//! listeners, then brings the agent's transcript in line with the file.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use rho_agent::AgentMessage;
use rho_ai::{AssistantMessage, StopReason, ToolResultMessage};
use rho_extension_host::{Boundary, BoundaryPreview, PreviewError};
use rho_session::{EntryData, SessionEntry};
use serde_json::{json, Value};
use tokio::sync::watch;

use super::drafts;
use super::events::SessionOnlyEvent;
use super::lock;
use super::AgentSession;

/// What the boundaries need of the event pipeline, which runs on the session task while
/// the agent waits in `finish_turn`.
pub(crate) struct Boundaries {
    /// The last message whose `message_end` the pipeline finished (persisted), as the
    /// agent sent it (before a `message_end` handler replaced it).
    processed: watch::Sender<Option<Arc<AgentMessage>>>,
    /// The extension-visible index of the turn in progress (EXT-13).
    turn_index: AtomicU32,
    /// How the last turn ended (`completed`, `aborted`, `error`): `agent_before_settle`'s
    /// `outcome`.
    outcome: Mutex<&'static str>,
}

impl Default for Boundaries {
    fn default() -> Self {
        Self {
            processed: watch::channel(None).0,
            turn_index: AtomicU32::new(0),
            outcome: Mutex::new("completed"),
        }
    }
}

impl Boundaries {
    /// The pipeline finished `message`'s `message_end`.
    pub(crate) fn message_processed(&self, message: &Arc<AgentMessage>) {
        self.processed.send_replace(Some(Arc::clone(message)));
    }

    /// The pipeline's turn index changed.
    pub(crate) fn set_turn_index(&self, index: u32) {
        self.turn_index.store(index, Ordering::Release);
    }
}

/// Which boundary a preview is for: `turn_end` may continue on queued messages alone.
#[derive(Clone, Copy)]
enum Kind {
    TurnEnd,
    BeforeSettle,
}

fn outcome_of(reply: &AssistantMessage) -> &'static str {
    match reply.stop_reason {
        StopReason::Aborted => "aborted",
        StopReason::Error => "error",
        _ => "completed",
    }
}

impl AgentSession {
    /// Notes how the turn ended (`agent_before_settle`'s `outcome`); whether an extension
    /// handles `turn_end`.
    pub(crate) fn turn_end_wanted(&self, reply: &AssistantMessage) -> bool {
        *lock(&self.inner.boundaries.outcome) = outcome_of(reply);
        self.inner.services.extensions.has_handlers("turn_end")
    }

    /// `turn_end` to extensions; true when they asked for one more provider request that
    /// the context can take.
    pub(crate) async fn turn_end_boundary(
        &self,
        reply: AssistantMessage,
        results: Vec<ToolResultMessage>,
    ) -> bool {
        let outcome = outcome_of(&reply);
        let extensions = &self.inner.services.extensions;
        self.turn_persisted(&reply, &results).await;
        let ids = self.turn_entry_ids(&reply, &results);
        let Some((message_entry_id, tool_result_entry_ids)) = ids else {
            let error = "turn_end could not resolve the persisted assistant entry ID";
            extensions.report("<boundary>", "turn_end", error.into());
            return false;
        };
        let boundary = Boundary::TurnEnd {
            turn_index: self.inner.boundaries.turn_index.load(Ordering::Acquire),
            message: AgentMessage::Assistant(reply),
            tool_results: results,
            message_entry_id,
            tool_result_entry_ids,
            outcome: outcome.to_string(),
        };
        self.run_boundary(&boundary, Kind::TurnEnd).await
    }

    /// `agent_before_settle`: true when the run should go on with one more request. Without
    /// handlers, nothing happens (the run loop's own look at the queues follows).
    pub(crate) async fn before_settle_boundary(&self) -> bool {
        if !self
            .inner
            .services
            .extensions
            .has_handlers("agent_before_settle")
        {
            return false;
        }
        let outcome = *lock(&self.inner.boundaries.outcome);
        let boundary = Boundary::AgentBeforeSettle {
            outcome: outcome.to_string(),
        };
        let go_on = self.run_boundary(&boundary, Kind::BeforeSettle).await;
        // An abort while the handlers ran keeps their entries but not the continuation.
        go_on && !self.inner.run.get().aborted
    }

    async fn run_boundary(&self, boundary: &Boundary, kind: Kind) -> bool {
        let extensions = &self.inner.services.extensions;
        let decided = extensions
            .emit_boundary(boundary, self.boundary_preview(kind), &self.run_ctx())
            .await;
        if !decided.entries.is_empty() {
            self.commit_drafts(&decided.entries);
        }
        if decided.continue_ && !self.can_continue(kind) {
            let name = boundary.name();
            let error = format!("{name} requested continuation without runnable model context");
            extensions.report("<boundary>", name, error);
            return false;
        }
        decided.continue_
    }

    /// Waits until the event pipeline has finished the turn's last message (its last tool
    /// result, else the reply), and so the turn's others before it (their handlers,
    /// listeners and entries, SE-2). Compared whole: ids and timestamps repeat.
    async fn turn_persisted(&self, reply: &AssistantMessage, results: &[ToolResultMessage]) {
        let mut processed = self.inner.boundaries.processed.subscribe();
        let _ = processed
            .wait_for(|m| match (m.as_deref(), results.last()) {
                (Some(AgentMessage::ToolResult(r)), Some(last)) => r == last,
                (Some(AgentMessage::Assistant(a)), None) => a == reply,
                _ => false,
            })
            .await;
        // Let the message go: the file has it.
        self.inner.boundaries.processed.send_replace(None);
    }

    /// The entries of the turn's reply and tool results, read back from the leaf (the
    /// reply is the branch's latest assistant message; `None` when that is another one, as
    /// for a run that is not written, SE-9).
    fn turn_entry_ids(
        &self,
        reply: &AssistantMessage,
        results: &[ToolResultMessage],
    ) -> Option<(String, Vec<String>)> {
        let s = self.state();
        let tree = s.session.tree();
        let mut result_ids = Vec::new();
        let mut entry = tree.leaf();
        while let Some(e) = entry {
            if let EntryData::Message(m) = &e.data {
                match m.role() {
                    "assistant" => {
                        let ours = m.get().ok().is_some_and(|m| {
                            m.as_assistant()
                                .is_some_and(|a| a.timestamp == reply.timestamp)
                        });
                        result_ids.reverse();
                        return ours.then(|| (e.id.clone(), result_ids));
                    }
                    "toolResult" => {
                        let call = m.get().ok().and_then(|m| match &*m {
                            AgentMessage::ToolResult(r) => Some(r.tool_call_id.clone()),
                            _ => None,
                        });
                        if call.is_some_and(|c| results.iter().any(|r| r.tool_call_id == c)) {
                            result_ids.push(e.id.clone());
                        }
                    }
                    _ => {}
                }
            }
            entry = e.parent_id.as_deref().and_then(|p| tree.get(p));
        }
        None
    }

    /// The preview handlers see as `event.context`: the branch's context with the
    /// proposal applied, or why the proposal cannot be applied.
    fn boundary_preview(&self, kind: Kind) -> BoundaryPreview {
        let weak = self.inner.weak.clone();
        Arc::new(move |entries: &[Value]| {
            let inner = weak.upgrade().ok_or(PreviewError::SessionGone)?;
            let session = AgentSession { inner };
            let s = session.state();
            let branch: Vec<&SessionEntry> = s.session.tree().branch();
            let appended = drafts::check(entries, &branch, || tokens_of(&branch))?;
            let now = rho_session::time::now_iso();
            let context = drafts::preview(&branch, appended, &now);
            let messages = context.owned_messages();
            let llm = context.to_llm();
            let entries: Vec<Value> = branch.iter().map(|e| json!(e)).collect();
            drop(s);
            let pending: Vec<AgentMessage> =
                session.inner.services.agent.with_queues(|steer, follow| {
                    steer.iter().chain(follow.iter()).cloned().collect()
                });
            let can_continue = runnable(&llm, !pending.is_empty(), kind);
            Ok(json!({
                "contextEntries": entries,
                "contextMessages": messages,
                "llmMessages": llm,
                "pendingMessages": pending,
                "canContinue": can_continue,
            }))
        })
    }

    /// Appends the checked proposal in order and tells listeners; the agent's transcript
    /// follows (an edit or compaction rebuilds it from the file, as pi refreshes its
    /// context).
    fn commit_drafts(&self, entries: &[Value]) {
        let mut appended = Vec::new();
        let mut failed = false;
        {
            let mut s = self.state();
            let branch: Vec<&SessionEntry> = s.session.tree().branch();
            let Ok(checked) = drafts::check(entries, &branch, || tokens_of(&branch)) else {
                return;
            };
            for data in checked {
                match append(&mut s.session, data) {
                    Some(Ok(entry)) => appended.push(entry),
                    None => {}
                    Some(Err(_)) => {
                        failed = true;
                        break;
                    }
                }
            }
        }
        if failed {
            self.announce_save_failure();
        }
        let rebuild = appended.iter().any(|e| {
            matches!(
                e.data,
                EntryData::ContextEdit { .. } | EntryData::Compaction(_)
            )
        });
        if rebuild {
            let messages = self.state().session.build_context().messages;
            self.replace_conversation(messages);
        } else {
            for e in &appended {
                if let Some(m) = rho_session::context::context_message(e) {
                    self.inner.services.agent.append_message(m);
                }
            }
        }
        for entry in appended {
            self.emit_session(SessionOnlyEvent::EntryAppended {
                entry: Box::new(entry),
            });
        }
    }

    /// Whether a continuation has something to answer: the context does not end with the
    /// model's reply, or messages wait in the queues.
    fn can_continue(&self, kind: Kind) -> bool {
        let agent = &self.inner.services.agent;
        let last = agent
            .stored_messages()
            .iter()
            .rev()
            .filter_map(|m| m.get().ok())
            .find_map(|m| m.to_llm());
        let llm: Vec<rho_ai::Message> = last.into_iter().collect();
        runnable(&llm, agent.has_queued_messages(), kind)
    }
}

/// pi's `canContinue`: model context that does not end with an assistant reply, or (at
/// `turn_end`) queued messages, or (before settling) queued messages after a reply.
fn runnable(llm: &[rho_ai::Message], queued: bool, kind: Kind) -> bool {
    let last_is_reply = matches!(llm.last(), Some(rho_ai::Message::Assistant(_)));
    // System messages never reach this list (the session sends them as the prompt).
    let has_context = !llm.is_empty();
    (has_context && !last_is_reply)
        || match kind {
            Kind::TurnEnd => queued,
            Kind::BeforeSettle => last_is_reply && queued,
        }
}

/// Appends one checked draft's entry (`None` for an entry no draft makes).
fn append(
    session: &mut rho_session::SessionManager,
    data: EntryData,
) -> Option<Result<SessionEntry, rho_session::StoreError>> {
    let entry = match data {
        EntryData::Custom { custom_type, data } => {
            session.append_custom(&custom_type, data.map(|d| *d))
        }
        EntryData::CustomMessage {
            custom_type,
            content,
            display,
            details,
        } => session.append_custom_message(&custom_type, content, display, details.map(|d| *d)),
        EntryData::ContextEdit {
            target_id,
            replacement,
        } => session.append_context_edit(&target_id, replacement),
        EntryData::Compaction(c) => session.append_compaction(*c),
        // `drafts::check` makes no other entries.
        _ => return None,
    };
    Some(entry.cloned())
}

/// The branch's context size, for a compaction draft's `tokensBefore`.
fn tokens_of(branch: &[&SessionEntry]) -> u64 {
    let context = rho_session::build_context_for_path(branch);
    rho_compaction::estimate_context_tokens(&context.owned_messages()).tokens
}
