//! The compaction plan (COMP-18): what gets summarised, what is kept, the previous summary
//! to update, and the files touched. Pure; extensions see it before anything is sent.

use rho_agent::AgentMessage;
use serde::Serialize;

use super::cut_point::find_cut_point;
use super::entry::{context_messages, last_compaction_index, EntryKind, PathEntry};
use super::error::CompactionError;
use super::file_ops::FileOps;
use super::settings::CompactionSettings;
use super::tokens::estimate_context_tokens;

/// A prepared compaction: everything the summariser (or an extension) needs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionPreparation {
    /// The first entry kept verbatim.
    pub first_kept_entry_id: String,
    /// The history to summarise and drop.
    pub messages_to_summarize: Vec<AgentMessage>,
    /// A split turn's beginning, summarised apart (empty when the turn is not split).
    pub turn_prefix_messages: Vec<AgentMessage>,
    /// Whether the cut falls inside a turn.
    pub is_split_turn: bool,
    /// Estimated tokens of the current context.
    pub tokens_before: u64,
    /// The previous compaction's summary, to be updated.
    pub previous_summary: Option<String>,
    /// Files read and modified by the summarised part and by earlier built-in summaries.
    pub file_ops: FileOps,
    /// The settings used.
    pub settings: CompactionSettings,
}

/// Where the range to consider starts: the previous compaction's first kept entry (its
/// kept history has not been summarised yet), else the entry after that compaction, else 0.
fn boundary_start(path: &[PathEntry], previous: Option<usize>) -> usize {
    let Some(ci) = previous else { return 0 };
    let EntryKind::Compaction(record) = &path[ci].kind else {
        return ci + 1;
    };
    path[..ci]
        .iter()
        .position(|e| e.id == record.first_kept_entry_id)
        .unwrap_or(ci + 1)
}

fn messages_of(path: &[PathEntry]) -> Vec<AgentMessage> {
    path.iter()
        .filter_map(|e| e.context_message())
        // The recorded prompt and tools are the prompt's state, not conversation (pi 1.6).
        .filter(|m| !matches!(**m, AgentMessage::System(_)))
        .map(|m| m.into_owned())
        .collect()
}

/// Plans a compaction of the current branch `path` (root→leaf).
/// Errors: the branch ends in a compaction ([`CompactionError::AlreadyCompacted`]), or it
/// is empty or the cut leaves nothing to summarise ([`CompactionError::NothingToCompact`]).
pub fn prepare_compaction(
    path: &[PathEntry],
    settings: &CompactionSettings,
) -> Result<CompactionPreparation, CompactionError> {
    if matches!(path.last().map(|e| &e.kind), Some(EntryKind::Compaction(_))) {
        return Err(CompactionError::AlreadyCompacted);
    }
    if context_messages(path).is_empty() {
        return Err(CompactionError::NothingToCompact);
    }
    let previous = last_compaction_index(path);
    let start = boundary_start(path, previous);
    let tokens_before = estimate_context_tokens(&context_messages(path)).tokens;
    let cut = find_cut_point(path, start, path.len(), settings.keep_recent_tokens);
    let first_kept = path
        .get(cut.first_kept_index)
        .ok_or(CompactionError::NothingToCompact)?;
    let history_end = cut.turn_start_index.unwrap_or(cut.first_kept_index);
    let messages_to_summarize = messages_of(&path[start.min(history_end)..history_end]);
    let turn_prefix_messages = match cut.turn_start_index {
        Some(ts) => messages_of(&path[ts..cut.first_kept_index]),
        None => Vec::new(),
    };
    // pi 1.6: a cut that leaves nothing before it (a one-exchange session that fits in
    // `keepRecentTokens`) has nothing to summarise; pi 0.73 summarised the empty history.
    if messages_to_summarize.is_empty() && turn_prefix_messages.is_empty() {
        return Err(CompactionError::NothingToCompact);
    }
    let mut file_ops = FileOps::default();
    let mut previous_summary = None;
    if let Some(EntryKind::Compaction(record)) = previous.map(|ci| &path[ci].kind) {
        previous_summary = Some(record.summary.clone());
        if let (false, Some(details)) = (record.from_hook, &record.details) {
            file_ops.add_details(details);
        }
    }
    for m in messages_to_summarize.iter().chain(&turn_prefix_messages) {
        file_ops.add_message(m);
    }
    Ok(CompactionPreparation {
        first_kept_entry_id: first_kept.id.clone(),
        messages_to_summarize,
        turn_prefix_messages,
        is_split_turn: cut.is_split_turn(),
        tokens_before,
        previous_summary,
        file_ops,
        settings: *settings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::*;
    use serde_json::json;

    fn settings(keep: u64) -> CompactionSettings {
        CompactionSettings {
            keep_recent_tokens: keep,
            ..Default::default()
        }
    }

    #[test]
    fn refuses_after_a_compaction_and_on_empty_paths() {
        let path = vec![
            msg("u1", user("a")),
            compaction_entry("c", "S", "u1", json!({})),
        ];
        assert_eq!(
            prepare_compaction(&path, &settings(10)),
            Err(CompactionError::AlreadyCompacted)
        );
        assert_eq!(
            prepare_compaction(&[], &settings(10)),
            Err(CompactionError::NothingToCompact)
        );
    }

    #[test]
    fn a_one_turn_session_that_fits_has_nothing_to_compact() {
        // The recorded prompt before it is not conversation either.
        let prompt = AgentMessage::System(rho_agent::SystemMessage {
            content: rho_ai::UserContent::Text("You are rho.".into()),
            sections: None,
            tools_added: None,
            tools_removed: None,
            timestamp: 0,
        });
        let path = vec![
            msg("s", prompt),
            other("m"),
            msg("u1", user("hi")),
            msg("a1", assistant("ok", 500)),
        ];
        assert_eq!(
            prepare_compaction(&path, &settings(20_000)),
            Err(CompactionError::NothingToCompact)
        );
    }

    #[test]
    fn summarises_before_the_cut_and_tracks_files() {
        let path = vec![
            msg("u1", user(&chars(400))),
            msg(
                "a1",
                assistant_with(vec![tool_call("t", "edit", json!({"path": "x.rs"}))], 10),
            ),
            msg("r1", tool_result("t", &chars(400))),
            msg("u2", user(&chars(400))),
            msg("a2", assistant(&chars(400), 9_000)),
        ];
        let p = prepare_compaction(&path, &settings(200)).expect("prepares");
        assert_eq!(p.first_kept_entry_id, "u2");
        let roles: Vec<_> = p.messages_to_summarize.iter().map(|m| m.role()).collect();
        assert_eq!(roles, ["user", "assistant", "toolResult"]);
        assert_eq!(p.file_ops.lists().modified_files, ["x.rs"]);
        assert_eq!(p.tokens_before, 9_000);
    }

    #[test]
    fn comp_18_split_turn_separates_history_and_prefix() {
        let mut path = vec![
            msg("u0", user(&chars(40))),
            msg("a0", assistant(&chars(40), 10)),
            msg("u1", user("big job")),
        ];
        for i in 0..6 {
            path.push(msg(
                &format!("a{}", i + 1),
                assistant_with(
                    vec![tool_call(
                        &format!("t{i}"),
                        "read",
                        json!({"path": format!("f{i}")}),
                    )],
                    10,
                ),
            ));
            path.push(msg(
                &format!("r{i}"),
                tool_result(&format!("t{i}"), &chars(400)),
            ));
        }
        let p = prepare_compaction(&path, &settings(250)).expect("prepares");
        assert!(p.is_split_turn);
        assert_eq!(p.messages_to_summarize.len(), 2);
        assert!(matches!(p.turn_prefix_messages[0], AgentMessage::User(_)));
        let kept = path
            .iter()
            .position(|e| e.id == p.first_kept_entry_id)
            .expect("kept id on path");
        assert_eq!(p.turn_prefix_messages.len(), kept - 2);
        // Files of the prefix are tracked too.
        assert!(p.file_ops.lists().read_files.contains(&"f0".to_string()));
    }

    #[test]
    fn recompaction_starts_at_previous_first_kept_and_carries_summary_and_files() {
        let path = vec![
            msg("u1", user(&chars(400))),
            msg("u2", user(&chars(400))),
            compaction_entry(
                "c1",
                "OLD SUMMARY",
                "u2",
                json!({"readFiles": ["old.md"], "modifiedFiles": []}),
            ),
            msg("a2", assistant(&chars(400), 10)),
            msg("u3", user(&chars(400))),
            msg("a3", assistant(&chars(400), 10)),
        ];
        let p = prepare_compaction(&path, &settings(200)).expect("prepares");
        assert_eq!(p.previous_summary.as_deref(), Some("OLD SUMMARY"));
        assert_eq!(p.first_kept_entry_id, "u3");
        // u2 was kept last time and is summarised now; u1 was summarised already.
        let roles: Vec<_> = p.messages_to_summarize.iter().map(|m| m.role()).collect();
        assert_eq!(roles, ["user", "assistant"]);
        assert_eq!(p.file_ops.lists().read_files, ["old.md"]);
    }

    #[test]
    fn hook_made_compaction_details_are_not_carried() {
        let mut path = vec![
            msg("u1", user(&chars(400))),
            compaction_entry("c1", "S", "u1", json!({"readFiles": ["ext.md"]})),
            msg("u2", user(&chars(400))),
        ];
        if let EntryKind::Compaction(r) = &mut path[1].kind {
            r.from_hook = true;
        }
        let p = prepare_compaction(&path, &settings(50)).expect("prepares");
        assert!(p.file_ops.lists().read_files.is_empty());
    }
}
