//! Summarising a branch the user leaves while navigating the session tree, so the branch
//! they return to knows what was explored (the `branch_summary` entry, interfaces §4.3).

use rho_agent::{AgentMessage, CompactionSummaryMessage};
use serde_json::Value;

use super::entry::{EntryKind, PathEntry};
use super::error::CompactionError;
use super::file_ops::FileOps;
use super::hook::HookDecision;
use super::prompts::{BRANCH_PREAMBLE, BRANCH_PROMPT, NO_BRANCH_CONTENT};
use super::settings::BranchSummarySettings;
use super::summarize::{conversation_block, summary_context, Summarizer};
use super::tokens::estimate_tokens;

/// Output budget of a branch summary.
pub const BRANCH_SUMMARY_MAX_TOKENS: u64 = 2_048;

/// Context window assumed when the model states none.
const FALLBACK_WINDOW: u64 = 128_000;

/// The entries of the branch being left: the old path after the deepest entry it shares
/// with the target path. Returns them (chronological) and that common ancestor's id.
pub fn branch_entries<'a>(
    old_path: &'a [PathEntry],
    target_path_ids: &[&str],
) -> (&'a [PathEntry], Option<&'a str>) {
    match old_path
        .iter()
        .rposition(|e| target_path_ids.contains(&e.id.as_str()))
    {
        Some(i) => (&old_path[i + 1..], Some(old_path[i].id.as_str())),
        None => (old_path, None),
    }
}

/// The branch as messages within a token budget, plus the files it touched.
#[derive(Debug, Clone, PartialEq)]
pub struct BranchPreparation {
    /// Newest messages that fit the budget, chronological. Tool results are left out
    /// (their calls carry the context); compactions appear as their summaries.
    pub messages: Vec<AgentMessage>,
    /// Files from every tool call of the branch and from earlier built-in branch summaries.
    pub file_ops: FileOps,
    /// Estimated tokens of `messages`.
    pub total_tokens: u64,
}

fn branch_message(entry: &PathEntry) -> Option<AgentMessage> {
    match &entry.kind {
        EntryKind::Message(AgentMessage::ToolResult(_)) => None,
        EntryKind::Compaction(r) => {
            Some(AgentMessage::CompactionSummary(CompactionSummaryMessage {
                summary: r.summary.clone(),
                tokens_before: r.tokens_before,
                timestamp: r.timestamp,
            }))
        }
        _ => entry.context_message().map(|m| m.into_owned()),
    }
}

/// Walks the branch newest→oldest keeping messages while they fit `token_budget` (0: no
/// limit); a summary that does not fit is still taken while under 90% of the budget.
pub fn prepare_branch_entries(entries: &[PathEntry], token_budget: u64) -> BranchPreparation {
    let mut file_ops = FileOps::default();
    for e in entries {
        if let EntryKind::BranchSummary {
            details: Some(details),
            from_hook: false,
            ..
        } = &e.kind
        {
            file_ops.add_details(details);
        }
    }
    let mut messages = Vec::new();
    let mut total = 0;
    for entry in entries.iter().rev() {
        let Some(message) = branch_message(entry) else {
            continue;
        };
        file_ops.add_message(&message);
        let tokens = estimate_tokens(&message);
        if token_budget > 0 && total + tokens > token_budget {
            let is_summary = matches!(
                entry.kind,
                EntryKind::Compaction(_) | EntryKind::BranchSummary { .. }
            );
            if is_summary && (total as f64) < token_budget as f64 * 0.9 {
                messages.push(message);
                total += tokens;
            }
            break;
        }
        messages.push(message);
        total += tokens;
    }
    messages.reverse();
    BranchPreparation {
        messages,
        file_ops,
        total_tokens: total,
    }
}

/// A branch summary ready to be written as a `branch_summary` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct BranchSummary {
    /// The summary text (preamble, model text, file lists).
    pub summary: String,
    /// `{readFiles, modifiedFiles}` for built-in summaries; extension data otherwise.
    pub details: Option<Value>,
    /// True when an extension supplied the summary.
    pub from_hook: bool,
}

/// What the user asked for when leaving the branch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BranchSummaryOptions {
    /// Extra instructions for the summariser.
    pub custom_instructions: Option<String>,
    /// When true the custom instructions replace the built-in prompt instead of adding to it.
    pub replace_instructions: bool,
}

impl BranchSummaryOptions {
    /// The instructions after the conversation: the branch prompt, the custom instructions
    /// as `Additional focus`, or the custom instructions alone when they replace the prompt.
    pub fn instructions(&self) -> String {
        match self
            .custom_instructions
            .as_deref()
            .filter(|c| !c.is_empty())
        {
            Some(c) if self.replace_instructions => c.to_string(),
            Some(c) => format!("{BRANCH_PROMPT}\n\nAdditional focus: {c}"),
            None => BRANCH_PROMPT.to_string(),
        }
    }
}

/// Summarises the branch being left (`entries`, see [`branch_entries`]). `hook` carries the
/// extensions' verdict; a replacement is a summary text written as is (`fromHook: true`).
pub async fn summarize_branch(
    entries: &[PathEntry],
    summarizer: &Summarizer,
    settings: &BranchSummarySettings,
    options: &BranchSummaryOptions,
    hook: HookDecision<String>,
) -> Result<BranchSummary, CompactionError> {
    let (summary, details, from_hook) = match hook {
        HookDecision::Cancel => return Err(CompactionError::Cancelled),
        HookDecision::Replace(summary) => (summary, None, true),
        HookDecision::Proceed => {
            let (summary, details) = summarize(entries, summarizer, settings, options).await?;
            (summary, details, false)
        }
    };
    Ok(BranchSummary {
        summary,
        details,
        from_hook,
    })
}

/// The built-in summary: the newest messages within `window − reserveTokens`, the branch
/// prompt, the preamble in front and the file lists behind.
async fn summarize(
    entries: &[PathEntry],
    summarizer: &Summarizer,
    settings: &BranchSummarySettings,
    options: &BranchSummaryOptions,
) -> Result<(String, Option<Value>), CompactionError> {
    let window = match summarizer.model.context_window {
        0 => FALLBACK_WINDOW,
        w => w,
    };
    let prep = prepare_branch_entries(entries, window.saturating_sub(settings.reserve_tokens));
    if prep.messages.is_empty() {
        return Ok((NO_BRANCH_CONTENT.to_string(), None));
    }
    let mut text = conversation_block(&prep.messages);
    text.push_str(&options.instructions());
    let request = summary_context(text);
    let call_options = summarizer.options(BRANCH_SUMMARY_MAX_TOKENS, false);
    let reply = summarizer
        .complete(&request, call_options, CompactionError::BranchSummary)
        .await?;
    let lists = prep.file_ops.lists();
    let summary = format!("{BRANCH_PREAMBLE}{reply}{}", lists.format());
    Ok((summary, Some(lists.to_details())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::*;
    use serde_json::json;

    #[test]
    fn branch_entries_after_the_common_ancestor() {
        let old = vec![
            msg("r", user("root")),
            msg("a", assistant("x", 1)),
            msg("b1", user("left")),
            msg("b2", assistant("left", 1)),
        ];
        let (entries, ancestor) = branch_entries(&old, &["r", "a", "c1"]);
        assert_eq!(ancestor, Some("a"));
        let ids: Vec<_> = entries.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["b1", "b2"]);
        let (all, none) = branch_entries(&old, &["elsewhere"]);
        assert_eq!((all.len(), none), (4, None));
    }

    #[test]
    fn prepare_skips_tool_results_and_keeps_newest_within_budget() {
        let entries = vec![
            msg("u1", user(&chars(400))),
            msg(
                "a1",
                assistant_with(vec![tool_call("t", "write", json!({"path": "w.txt"}))], 1),
            ),
            msg("r1", tool_result("t", &chars(4000))),
            msg("u2", user(&chars(400))),
        ];
        let p = prepare_branch_entries(&entries, 150);
        let roles: Vec<_> = p.messages.iter().map(|m| m.role()).collect();
        // u2 100, r1 skipped, a1 ~7 → 107; u1 would exceed 150.
        assert_eq!(roles, ["assistant", "user"]);
        assert_eq!(p.file_ops.lists().modified_files, ["w.txt"]);
        let unlimited = prepare_branch_entries(&entries, 0);
        assert_eq!(unlimited.messages.len(), 3);
    }

    #[test]
    fn summaries_squeeze_in_under_ninety_percent_and_details_carry() {
        let entries = vec![
            compaction_entry("c", &chars(800), "x", json!({})),
            PathEntry {
                id: "bs".into(),
                kind: EntryKind::BranchSummary {
                    message: rho_agent::BranchSummaryMessage {
                        summary: "b".into(),
                        from_id: Some("x".into()),
                        timestamp: 1,
                    },
                    details: Some(json!({"readFiles": ["seen.md"]})),
                    from_hook: false,
                },
            },
            msg("u", user(&chars(400))),
        ];
        let p = prepare_branch_entries(&entries, 250);
        let roles: Vec<_> = p.messages.iter().map(|m| m.role()).collect();
        assert_eq!(roles, ["compactionSummary", "branchSummary", "user"]);
        assert_eq!(p.file_ops.lists().read_files, ["seen.md"]);
    }

    #[test]
    fn instructions_variants() {
        let mut o = BranchSummaryOptions::default();
        assert_eq!(o.instructions(), BRANCH_PROMPT);
        o.custom_instructions = Some("X".into());
        assert!(o.instructions().ends_with("\n\nAdditional focus: X"));
        assert!(o.instructions().starts_with(BRANCH_PROMPT));
        o.replace_instructions = true;
        assert_eq!(o.instructions(), "X");
    }
}
