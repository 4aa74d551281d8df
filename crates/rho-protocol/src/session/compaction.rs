//! What a compaction produced, as `compact` returns it and `compaction_end` carries it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `CompactionResult = {summary, firstKeptEntryId, tokensBefore, details?}` (interfaces
/// spec §1.4, §6.10): what `compact` returns and `compaction_end.result` carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CompactionResult {
    /// The summary that replaces the dropped history.
    pub summary: String,
    /// The first entry kept verbatim.
    pub first_kept_entry_id: String,
    /// Estimated context tokens before the compaction.
    pub tokens_before: u64,
    /// Built-in: `{readFiles, modifiedFiles}`; extensions: anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// What pi 1.x adds to a compaction's result (`compact`'s reply and `compaction_end.result`
/// in the 1.x dialect): the estimated context after it and what the summary cost.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CompactionAfter {
    /// Heuristic tokens of the rebuilt context (system prompt and messages).
    pub estimated_tokens_after: u64,
    /// The summary requests' usage, when the compaction recorded one.
    pub usage: Option<crate::Usage>,
}
