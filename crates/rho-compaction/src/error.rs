//! Why a compaction or branch summary did not produce a result. The texts are pi's; the
//! session layer prefixes them (`Auto-compaction failed: …`, `Compaction failed: …`).

use rho_ai::ProviderError;

/// A compaction or branch-summary failure.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CompactionError {
    /// The branch already ends in a compaction: there is nothing new to summarise.
    #[error("Already compacted")]
    AlreadyCompacted,
    /// The branch holds no entry the history could be kept from.
    #[error("Nothing to compact (session too small)")]
    NothingToCompact,
    /// The history summary request failed; holds the provider's error text.
    #[error("Summarization failed: {0}")]
    Summarization(String),
    /// The split-turn prefix summary request failed; holds the provider's error text.
    #[error("Turn prefix summarization failed: {0}")]
    TurnPrefix(String),
    /// The branch summary request failed; holds the provider's error text.
    #[error("{0}")]
    BranchSummary(String),
    /// The call could not start (no API key, unsupported API).
    #[error(transparent)]
    Provider(#[from] ProviderError),
    /// Aborted through the signal, or cancelled by an extension.
    #[error("Compaction cancelled")]
    Cancelled,
}

impl CompactionError {
    /// Whether this counts as `aborted` in `compaction_end` (COMP-13, COMP-17).
    pub fn is_aborted(&self) -> bool {
        matches!(self, CompactionError::Cancelled)
    }
}
