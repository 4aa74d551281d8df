//! `get_session_stats`: message counts, token and cost totals, and the context's fill.

use serde::{Deserialize, Serialize};

/// What `get_session_stats` counts: pi 0.73.1 the messages in context (pi 1.x's `system`
/// messages left out), pi 1.x every message entry of the file (earlier branches and
/// compacted history included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatsScope {
    /// The agent's current context.
    Context,
    /// Every message entry in the session file.
    File,
}

/// Token and cost totals of the session's assistant replies, and message counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SessionStats {
    /// User messages.
    pub user_messages: usize,
    /// Assistant messages.
    pub assistant_messages: usize,
    /// Tool calls made.
    pub tool_calls: usize,
    /// Tool results.
    pub tool_results: usize,
    /// All messages.
    pub total_messages: usize,
    /// Token totals.
    pub tokens: TokenTotals,
    /// USD.
    pub cost: f64,
}

/// Token totals.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TokenTotals {
    /// Uncached input.
    pub input: u64,
    /// Output.
    pub output: u64,
    /// Cache reads.
    pub cache_read: u64,
    /// Cache writes.
    pub cache_write: u64,
    /// Sum.
    pub total: u64,
}

/// `{tokens, contextWindow, percent}`; `tokens` and `percent` are `null` while unknown.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ContextUsage {
    /// Estimated context tokens, `None` right after a compaction.
    pub tokens: Option<u64>,
    /// The model's context window.
    pub context_window: u64,
    /// `tokens / contextWindow × 100`.
    pub percent: Option<f64>,
}

/// `get_session_stats`'s `data`: the totals, then the session's file and id, then the
/// context's fill when a model is set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SessionStatsReply {
    /// Counts and totals.
    #[serde(flatten)]
    pub stats: SessionStats,
    /// The session file (absent in memory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_file: Option<String>,
    /// The session id.
    pub session_id: String,
    /// How full the model's context is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_usage: Option<ContextUsage>,
}
