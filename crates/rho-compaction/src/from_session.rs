//! The session store's branch as the engine's [`PathEntry`] list. The one place that knows
//! both shapes, so neither the store nor the engine depends on the other's internals.

use rho_agent::{BranchSummaryMessage, CustomMessage, ReadError};

use super::entry::{CompactionRecord, EntryKind, PathEntry};
use rho_session::time::parse_iso;
use rho_session::{EntryData, SessionEntry};

/// Converts one stored entry.
pub fn path_entry(entry: &SessionEntry) -> Result<PathEntry, ReadError> {
    let timestamp = parse_iso(&entry.timestamp).unwrap_or(0);
    let kind = match &entry.data {
        EntryData::Message(m) => EntryKind::Message((*m.get()?).clone()),
        EntryData::CustomMessage {
            custom_type,
            content,
            display,
            details,
        } => EntryKind::CustomMessage(CustomMessage {
            custom_type: custom_type.clone(),
            content: content.clone(),
            display: *display,
            details: details.as_deref().cloned(),
            timestamp,
        }),
        EntryData::BranchSummary {
            from_id,
            summary,
            details,
            from_hook,
            ..
        } if !summary.is_empty() => EntryKind::BranchSummary {
            message: BranchSummaryMessage {
                summary: summary.clone(),
                from_id: Some(from_id.clone()),
                timestamp,
            },
            details: details.as_deref().cloned(),
            from_hook: from_hook.unwrap_or(false),
        },
        EntryData::Compaction(c) => EntryKind::Compaction(CompactionRecord {
            summary: c.summary.clone(),
            first_kept_entry_id: c.first_kept_entry_id.clone(),
            tokens_before: c.tokens_before,
            details: c.details.clone(),
            from_hook: c.from_hook.unwrap_or(false),
            timestamp,
        }),
        _ => EntryKind::Other,
    };
    Ok(PathEntry {
        id: entry.id.clone(),
        kind,
    })
}

/// Converts a root→leaf branch.
pub fn path_entries(branch: &[&SessionEntry]) -> Result<Vec<PathEntry>, ReadError> {
    branch.iter().map(|e| path_entry(e)).collect()
}

/// The timestamp (Unix ms) of the latest compaction entry on the branch, for the
/// stale-message guard (COMP-5).
pub fn latest_compaction_timestamp(branch: &[&SessionEntry]) -> Option<i64> {
    branch
        .iter()
        .rev()
        .find(|e| matches!(e.data, EntryData::Compaction(_)))
        .and_then(|e| parse_iso(&e.timestamp))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rho_agent::AgentMessage;
    use rho_ai::UserMessage;
    use rho_session::SessionManager;

    #[test]
    fn stored_entries_map_to_engine_entries() {
        let mut s = SessionManager::in_memory("/w");
        s.append_message(AgentMessage::User(UserMessage::text("hi")))
            .expect("append");
        s.append_model_change("p", "m").expect("append");
        s.append_custom_message("note", rho_ai::UserContent::Text("x".into()), true, None)
            .expect("append");
        let branch = s.tree().branch();
        let path = path_entries(&branch).expect("in memory");
        assert!(path[0].is_user_message());
        assert!(matches!(path[1].kind, EntryKind::Other));
        assert!(matches!(path[2].kind, EntryKind::CustomMessage(_)));
        assert_eq!(latest_compaction_timestamp(&branch), None);
    }
}
