//! The engine's view of the current branch: the path root→leaf as the session store sees
//! it, reduced to what compaction needs. The store converts its entries into these; the
//! engine never reads or writes the session file.

use std::borrow::Cow;

use rho_agent::{AgentMessage, BranchSummaryMessage, CompactionSummaryMessage, CustomMessage};
use serde_json::Value;

/// A `compaction` entry already on the path (interfaces spec §4.3).
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionRecord {
    /// The summary text.
    pub summary: String,
    /// Where the kept history starts.
    pub first_kept_entry_id: String,
    /// Context tokens before that compaction.
    pub tokens_before: u64,
    /// `{readFiles, modifiedFiles}` for built-in summaries; anything for extension ones.
    pub details: Option<Value>,
    /// True when an extension produced it (its details are then not ours to read).
    pub from_hook: bool,
    /// The entry's timestamp in Unix ms.
    pub timestamp: i64,
}

impl CompactionRecord {
    /// The message this entry contributes to the context (`compactionSummary`).
    pub fn to_message(&self) -> AgentMessage {
        AgentMessage::CompactionSummary(CompactionSummaryMessage {
            summary: self.summary.clone(),
            tokens_before: self.tokens_before,
            timestamp: self.timestamp,
        })
    }
}

/// What kind of entry sits on the path, with the data compaction needs from it.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // short-lived, built per compaction; boxing would copy every message
pub enum EntryKind {
    /// A `message` entry.
    Message(AgentMessage),
    /// A `custom_message` entry (an extension message in the context).
    CustomMessage(CustomMessage),
    /// A `branch_summary` entry.
    BranchSummary {
        /// Summary, `fromId` and timestamp.
        message: BranchSummaryMessage,
        /// `{readFiles, modifiedFiles}` for built-in summaries.
        details: Option<Value>,
        /// True when an extension produced it.
        from_hook: bool,
    },
    /// A `compaction` entry.
    Compaction(CompactionRecord),
    /// Any entry that contributes nothing to the context (model or thinking change, label,
    /// session info, extension state).
    Other,
}

/// One entry of the current branch.
#[derive(Debug, Clone, PartialEq)]
pub struct PathEntry {
    /// The entry id.
    pub id: String,
    /// Its kind and data.
    pub kind: EntryKind,
}

impl PathEntry {
    /// A `message` entry.
    pub fn message(id: impl Into<String>, message: AgentMessage) -> Self {
        Self {
            id: id.into(),
            kind: EntryKind::Message(message),
        }
    }

    /// The message of a `message` entry.
    pub fn as_message(&self) -> Option<&AgentMessage> {
        match &self.kind {
            EntryKind::Message(m) => Some(m),
            _ => None,
        }
    }

    /// The message a `message`, `custom_message` or `branch_summary` entry puts in the
    /// context (compaction entries are handled by the caller: they replace history).
    pub fn context_message(&self) -> Option<Cow<'_, AgentMessage>> {
        match &self.kind {
            EntryKind::Message(m) => Some(Cow::Borrowed(m)),
            EntryKind::CustomMessage(c) => Some(Cow::Owned(AgentMessage::Custom(c.clone()))),
            EntryKind::BranchSummary { message, .. } => {
                Some(Cow::Owned(AgentMessage::BranchSummary(message.clone())))
            }
            EntryKind::Compaction(_) | EntryKind::Other => None,
        }
    }

    /// Whether this is a `message` entry holding a user message.
    pub fn is_user_message(&self) -> bool {
        matches!(&self.kind, EntryKind::Message(AgentMessage::User(_)))
    }
}

/// The index of the last compaction entry on the path.
pub fn last_compaction_index(path: &[PathEntry]) -> Option<usize> {
    path.iter()
        .rposition(|e| matches!(e.kind, EntryKind::Compaction(_)))
}

/// What one entry emits into a rebuilt context (empty branch summaries emit nothing).
fn emit(entry: &PathEntry) -> Option<Cow<'_, AgentMessage>> {
    match &entry.kind {
        EntryKind::BranchSummary { message, .. } if message.summary.is_empty() => None,
        _ => entry.context_message(),
    }
}

/// The context messages of a path, as `buildSessionContext` emits them (interfaces spec
/// §4.8 steps 4-5): without a compaction every entry in order; with one, its summary, then
/// the entries before it from `firstKeptEntryId` on, then every entry after it. Branch
/// summaries with an empty summary emit nothing.
pub fn context_messages(path: &[PathEntry]) -> Vec<Cow<'_, AgentMessage>> {
    let Some(ci) = last_compaction_index(path) else {
        return path.iter().filter_map(emit).collect();
    };
    let EntryKind::Compaction(record) = &path[ci].kind else {
        unreachable!("last_compaction_index points at a compaction entry");
    };
    let mut out = vec![Cow::Owned(record.to_message())];
    if let Some(kept) = path[..ci]
        .iter()
        .position(|e| e.id == record.first_kept_entry_id)
    {
        out.extend(path[kept..ci].iter().filter_map(emit));
    }
    out.extend(path[ci + 1..].iter().filter_map(emit));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::*;

    fn roles(path: &[PathEntry]) -> Vec<&'static str> {
        context_messages(path).iter().map(|m| m.role()).collect()
    }

    #[test]
    fn without_compaction_every_context_entry_in_order() {
        let path = vec![
            other("m"),
            msg("u1", user("hi")),
            custom_entry("c1", "note"),
            msg("a1", assistant("ok", 10)),
        ];
        assert_eq!(roles(&path), ["user", "custom", "assistant"]);
    }

    #[test]
    fn with_compaction_summary_then_kept_then_after() {
        let path = vec![
            msg("u1", user("old")),
            msg("a1", assistant("old", 10)),
            msg("u2", user("kept")),
            msg("a2", assistant("kept", 20)),
            compaction_entry("c", "S", "u2", serde_json::json!({})),
            msg("u3", user("new")),
        ];
        let ctx = context_messages(&path);
        let r: Vec<_> = ctx.iter().map(|m| m.role()).collect();
        assert_eq!(r, ["compactionSummary", "user", "assistant", "user"]);
        match ctx[1].as_ref() {
            AgentMessage::User(u) => assert_eq!(u.content.text(), "kept"),
            other => panic!("expected user, got {other:?}"),
        }
    }

    #[test]
    fn unknown_first_kept_id_keeps_nothing_before_the_compaction() {
        let path = vec![
            msg("u1", user("old")),
            compaction_entry("c", "S", "gone", serde_json::json!({})),
            msg("u3", user("new")),
        ];
        assert_eq!(roles(&path), ["compactionSummary", "user"]);
    }
}
