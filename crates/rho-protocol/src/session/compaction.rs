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
