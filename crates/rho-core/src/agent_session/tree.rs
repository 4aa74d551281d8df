//! Tree navigation (pi's `navigateTree`): moving the leaf to another entry of the same
//! session file, optionally leaving a summary of the abandoned branch behind so the branch
//! the user returns to knows what was tried (interfaces §4.3-4.4, EXT-3, EXT-4). An operation
//! of the session task: checked and planned when it is applied, then driven as the task's
//! work (the extensions' hooks and the summary take time), so nothing runs beside it.

use rho_ai::UserContent;
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::error::SessionError;
use super::ops::{Job, NavigateOp, Op};
use super::task::Runs;
use super::AgentSession;
use rho_compaction::from_session::path_entries;
use rho_compaction::{
    branch_entries, summarize_branch, BranchSummaryOptions, BranchSummarySettings, CompactionError,
    HookDecision, PathEntry, Summarizer,
};
use rho_extension_host::events::SessionBeforeResult;
use rho_extension_host::{ExtensionEvent, TreePreparation};
use rho_session::{EntryData, SessionEntry};

/// What the user chose when leaving the current branch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NavigateTreeOptions {
    /// Summarise the abandoned branch (LLM call unless an extension supplies the summary).
    pub summarize: bool,
    /// Extra instructions for the summariser.
    pub custom_instructions: Option<String>,
    /// The custom instructions replace the built-in prompt instead of adding to it.
    pub replace_instructions: bool,
    /// A label for the summary entry, or for the target when no summary is written.
    pub label: Option<String>,
}

/// How a navigation ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NavigateTreeOutcome {
    /// An extension cancelled, or the summary was aborted: nothing changed.
    pub cancelled: bool,
    /// The summary call was aborted (`abort_branch_summary`); implies `cancelled`.
    pub aborted: bool,
    /// The text of the selected user or custom message, for the editor: the leaf moved to
    /// its parent so the user can edit and resend it.
    pub editor_text: Option<String>,
    /// The `branch_summary` entry written, if any.
    pub summary_entry_id: Option<String>,
}

impl NavigateTreeOutcome {
    fn cancelled(aborted: bool) -> Self {
        Self {
            cancelled: true,
            aborted,
            ..Self::default()
        }
    }
}

/// Everything read from the store before any await.
pub(crate) struct Plan {
    old_leaf: Option<String>,
    target: SessionEntry,
    common_ancestor: Option<String>,
    /// The abandoned entries, as stored (for extensions) and as the engine reads them.
    stored: Vec<SessionEntry>,
    engine: Vec<PathEntry>,
}

/// A move accepted by the session task, waiting to be driven.
pub(crate) struct Navigation {
    pub plan: Plan,
    pub options: NavigateTreeOptions,
    pub reply: oneshot::Sender<Result<NavigateTreeOutcome, SessionError>>,
}

/// A summary ready to write.
struct Summary {
    text: String,
    details: Option<Value>,
    from_extension: bool,
}

/// A written `branch_summary` entry: its id and its JSON (for `session_tree`).
type SummaryEntry = (String, Value);

/// The extensions' verdict on a navigation (EXT-4 combined result, overrides applied).
struct Verdict {
    cancel: bool,
    summary: Option<Summary>,
    custom_instructions: Option<String>,
    replace_instructions: bool,
    label: Option<String>,
}

impl AgentSession {
    /// Moves the leaf to `target_id` (pi's `navigateTree`). A user or custom message target
    /// puts the leaf on its parent and returns its text for the editor; any other target
    /// becomes the leaf. With `summarize`, the branch being left is summarised (by an
    /// extension or the model) into a `branch_summary` entry at the new position. Refused
    /// while the session works (a run, a compaction, another move); the target being the
    /// leaf already is a no-op.
    pub async fn navigate_tree(
        &self,
        target_id: &str,
        options: NavigateTreeOptions,
    ) -> Result<NavigateTreeOutcome, SessionError> {
        let target = target_id.to_string();
        let op = |reply| {
            Op::Navigate(Box::new(NavigateOp {
                target,
                options,
                reply,
            }))
        };
        self.request(op).await?
    }

    /// `navigate_tree` on the session task: the checks and the plan (no await), then the
    /// move is the task's next work.
    pub(crate) fn apply_navigate(&self, op: NavigateOp, runs: &mut Runs) {
        let NavigateOp {
            target,
            options,
            reply,
        } = op;
        match self.plan_move(&target, &options) {
            Ok(Some(plan)) => {
                let navigation = Navigation {
                    plan,
                    options,
                    reply,
                };
                runs.push(self, Job::Navigate(Box::new(navigation)));
            }
            Ok(None) => {
                let _ = reply.send(Ok(NavigateTreeOutcome::default()));
            }
            Err(e) => {
                let _ = reply.send(Err(e));
            }
        }
    }

    /// The move to `target`, or `None` when the leaf is there already.
    fn plan_move(
        &self,
        target: &str,
        options: &NavigateTreeOptions,
    ) -> Result<Option<Plan>, SessionError> {
        if self.inner.run.get().busy() || self.inner.services.agent.is_streaming() {
            return Err(SessionError::TreeWhileStreaming);
        }
        if self.with_session(|s| s.leaf_id() == Some(target)) {
            return Ok(None);
        }
        if options.summarize && self.model().is_none() {
            return Err(SessionError::NoSummaryModel);
        }
        self.plan_navigation(target).map(Some)
    }

    /// The move, as the session task drives it; a branch summary can be aborted meanwhile.
    pub(crate) async fn navigation_job(
        &self,
        plan: Plan,
        options: NavigateTreeOptions,
    ) -> Result<NavigateTreeOutcome, SessionError> {
        let cancel = CancellationToken::new();
        let run = &self.inner.run;
        run.cancels(|c| c.branch_summary = Some(cancel.clone()));
        let result = self.navigate_steps(plan, options, cancel).await;
        run.cancels(|c| c.branch_summary = None);
        result
    }

    /// Aborts a running branch summary; the navigation then ends cancelled (AB-7).
    pub fn abort_branch_summary(&self) {
        self.inner
            .run
            .cancels(|c| c.branch_summary.as_ref().map(|t| t.cancel()));
    }

    fn plan_navigation(&self, target_id: &str) -> Result<Plan, SessionError> {
        self.with_session(|s| {
            let tree = s.tree();
            let target = tree
                .get(target_id)
                .cloned()
                .ok_or_else(|| SessionError::EntryNotFound(target_id.to_string()))?;
            let old_leaf = s.leaf_id().map(str::to_string);
            let old_path = tree.branch();
            let target_ids: Vec<&str> = tree
                .path_to(target_id)
                .into_iter()
                .map(|e| e.id.as_str())
                .collect();
            let engine_path = path_entries(&old_path).map_err(SessionError::from)?;
            let (engine, ancestor) = match old_leaf {
                Some(_) => branch_entries(&engine_path, &target_ids),
                None => (&engine_path[..0], None),
            };
            let stored = old_path[old_path.len() - engine.len()..]
                .iter()
                .map(|e| (*e).clone())
                .collect();
            Ok(Plan {
                common_ancestor: ancestor.map(str::to_string),
                engine: engine.to_vec(),
                stored,
                old_leaf,
                target,
            })
        })
    }

    async fn navigate_steps(
        &self,
        plan: Plan,
        options: NavigateTreeOptions,
        cancel: CancellationToken,
    ) -> Result<NavigateTreeOutcome, SessionError> {
        let verdict = self.tree_hook(&plan, &options).await;
        if verdict.cancel {
            return Ok(NavigateTreeOutcome::cancelled(false));
        }
        let summary = match verdict.summary {
            Some(s) => Some(s),
            None if options.summarize && !plan.engine.is_empty() => {
                let summary_options = BranchSummaryOptions {
                    custom_instructions: verdict.custom_instructions,
                    replace_instructions: verdict.replace_instructions,
                };
                match self
                    .summarize_abandoned(&plan.engine, &summary_options, cancel)
                    .await
                {
                    Ok(s) => Some(s),
                    Err(CompactionError::Cancelled) => {
                        return Ok(NavigateTreeOutcome::cancelled(true))
                    }
                    Err(e) => return Err(SessionError::BranchSummary(e.to_string())),
                }
            }
            None => None,
        };
        let label = verdict.label.filter(|l| !l.is_empty());
        let (editor_text, new_leaf) = new_position(&plan.target);
        let (summary_entry, new_leaf_id) = self.move_leaf(
            &plan.target.id,
            new_leaf,
            summary.as_ref(),
            label.as_deref(),
        )?;
        self.inner
            .services
            .extensions
            .emit(
                ExtensionEvent::SessionTree {
                    new_leaf_id,
                    old_leaf_id: plan.old_leaf,
                    from_extension: summary.as_ref().map(|s| s.from_extension),
                    summary_entry: summary_entry.as_ref().map(|(_, json)| json.clone()),
                },
                &self.run_ctx(),
            )
            .await;
        Ok(NavigateTreeOutcome {
            cancelled: false,
            aborted: false,
            editor_text,
            summary_entry_id: summary_entry.map(|(id, _)| id),
        })
    }

    /// `session_before_tree` (EXT-3 payload, EXT-4 combination). An extension summary
    /// counts only when the user asked for one; overrides apply either way.
    async fn tree_hook(&self, plan: &Plan, options: &NavigateTreeOptions) -> Verdict {
        let mut verdict = Verdict {
            cancel: false,
            summary: None,
            custom_instructions: options.custom_instructions.clone(),
            replace_instructions: options.replace_instructions,
            label: options.label.clone(),
        };
        let runner = &self.inner.services.extensions;
        if !runner.has_handlers("session_before_tree") {
            return verdict;
        }
        let preparation = TreePreparation {
            target_id: plan.target.id.clone(),
            old_leaf_id: plan.old_leaf.clone(),
            common_ancestor_id: plan.common_ancestor.clone(),
            entries_to_summarize: plan
                .stored
                .iter()
                .map(|e| serde_json::to_value(e).unwrap_or(Value::Null))
                .collect(),
            user_wants_summary: options.summarize,
            custom_instructions: options.custom_instructions.clone(),
            replace_instructions: options.replace_instructions.then_some(true),
            label: options.label.clone(),
        };
        let event = ExtensionEvent::SessionBeforeTree { preparation };
        let Some(result) = runner.emit_session_before(event, &self.run_ctx()).await else {
            return verdict;
        };
        let SessionBeforeResult {
            cancel,
            summary,
            custom_instructions,
            replace_instructions,
            label,
            ..
        } = result;
        verdict.cancel = cancel;
        if options.summarize {
            verdict.summary = summary.as_ref().and_then(extension_summary);
        }
        if custom_instructions.is_some() {
            verdict.custom_instructions = custom_instructions;
        }
        if let Some(r) = replace_instructions {
            verdict.replace_instructions = r;
        }
        if label.is_some() {
            verdict.label = label;
        }
        verdict
    }

    /// The built-in summary with the session's model and key (AUTH-8 texts on failure).
    async fn summarize_abandoned(
        &self,
        entries: &[PathEntry],
        options: &BranchSummaryOptions,
        cancel: CancellationToken,
    ) -> Result<Summary, CompactionError> {
        let (model, thinking, reserve_tokens) = {
            let s = self.state();
            let model = s.model.clone().ok_or_else(|| {
                CompactionError::BranchSummary(SessionError::NoSummaryModel.to_string())
            })?;
            (
                model,
                s.thinking_level,
                s.settings.branch_summary_reserve_tokens(),
            )
        };
        let (model, thinking) = self
            .summary_route(model, thinking)
            .await
            .map_err(|e| CompactionError::BranchSummary(e.to_string()))?;
        let api_key = self
            .summary_api_key(&model.provider)
            .await
            .map_err(|e| CompactionError::BranchSummary(e.to_string()))?;
        let summarizer = Summarizer {
            model,
            api_key: Some(api_key),
            thinking,
            cancel,
            stream: self.inner.services.stream_fn.clone(),
            retry: self.summary_retry(rho_protocol::session::SummarySource::BranchSummary, None),
        };
        let settings = BranchSummarySettings {
            reserve_tokens,
            ..BranchSummarySettings::default()
        };
        let summary = summarize_branch(
            entries,
            &summarizer,
            &settings,
            options,
            HookDecision::Proceed,
        )
        .await?;
        Ok(Summary {
            text: summary.summary,
            details: summary.details,
            from_extension: false,
        })
    }

    /// Writes the move: a summary entry at the new position (labelled), or a plain branch
    /// (and a label on the target); then rebuilds the agent's messages. Returns the summary
    /// entry (id and JSON) and the resulting leaf.
    fn move_leaf(
        &self,
        target_id: &str,
        new_leaf: Option<String>,
        summary: Option<&Summary>,
        label: Option<&str>,
    ) -> Result<(Option<SummaryEntry>, Option<String>), SessionError> {
        let mut s = self.state();
        let store = &mut s.session;
        let summary_entry = match summary {
            Some(sum) => {
                let entry = store.branch_with_summary(
                    new_leaf.as_deref(),
                    &sum.text,
                    sum.details.clone(),
                    Some(sum.from_extension),
                )?;
                let json = serde_json::to_value(entry).unwrap_or(Value::Null);
                Some((entry.id.clone(), json))
            }
            None => {
                match new_leaf.as_deref() {
                    Some(id) => store.branch(id)?,
                    None => store.reset_leaf(),
                }
                None
            }
        };
        if let Some(label) = label {
            let labelled = summary_entry.as_ref().map_or(target_id, |(id, _)| id);
            store.append_label(labelled, Some(label))?;
        }
        let leaf = store.leaf_id().map(str::to_string);
        let messages = store.build_context().messages;
        self.replace_conversation(messages);
        Ok((summary_entry, leaf))
    }
}

/// Where the leaf goes for `target`, and the editor text: user and custom messages are
/// re-editable, so the leaf moves to their parent (`None`: before the root).
fn new_position(target: &SessionEntry) -> (Option<String>, Option<String>) {
    match &target.data {
        EntryData::Message(m) => match m.get().as_deref() {
            Ok(rho_agent::AgentMessage::User(u)) => {
                (Some(content_text(&u.content)), target.parent_id.clone())
            }
            _ => (None, Some(target.id.clone())),
        },
        EntryData::CustomMessage { content, .. } => {
            (Some(content_text(content)), target.parent_id.clone())
        }
        _ => (None, Some(target.id.clone())),
    }
}

/// The text blocks of a message, concatenated as pi does (no separator).
pub(crate) fn content_text(content: &UserContent) -> String {
    match content {
        UserContent::Text(t) => t.clone(),
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(rho_ai::ContentBlock::as_text)
            .collect(),
    }
}

/// An extension's `summary`: `{summary, details?}` as pi's type says; a bare string is
/// accepted too. Empty summaries count as none.
fn extension_summary(value: &Value) -> Option<Summary> {
    let (text, details) = match value {
        Value::String(s) => (s.clone(), None),
        Value::Object(o) => (
            o.get("summary")?.as_str()?.to_string(),
            o.get("details").filter(|d| !d.is_null()).cloned(),
        ),
        _ => return None,
    };
    (!text.is_empty()).then_some(Summary {
        text,
        details,
        from_extension: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn extension_summaries_parse_as_object_or_string() {
        let s = extension_summary(&json!({"summary": "S", "details": {"k": 1}})).expect("object");
        assert_eq!((s.text.as_str(), s.details), ("S", Some(json!({"k": 1}))));
        assert!(s.from_extension);
        assert_eq!(
            extension_summary(&json!("T")).map(|s| s.text),
            Some("T".into())
        );
        assert!(extension_summary(&json!({"summary": ""})).is_none());
        assert!(extension_summary(&json!({"details": 1})).is_none());
        assert!(extension_summary(&json!(3)).is_none());
    }

    #[test]
    fn content_text_concatenates_text_blocks_without_separator() {
        let blocks = UserContent::Blocks(vec![
            rho_ai::ContentBlock::text("a"),
            rho_ai::ContentBlock::text("b"),
        ]);
        assert_eq!(content_text(&blocks), "ab");
        assert_eq!(content_text(&UserContent::Text("x".into())), "x");
    }
}
