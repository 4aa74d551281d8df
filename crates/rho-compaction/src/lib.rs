//! The compaction engine: when the context is too full, summarise the older part of the
//! current branch and keep the recent part verbatim (session-behavior §12, interfaces
//! §4.3, §6.10). Also branch summaries for tree navigation.
//!
//! Decoupled from the session file: the engine reads the branch as [`PathEntry`] values,
//! plans with [`prepare_compaction`], summarises through an injected stream function
//! ([`Summarizer`]), and returns a [`CompactionResult`] the session store writes. The
//! extension hook is a [`HookDecision`] the session layer passes in.

pub mod branch_summary;
pub mod compact;
pub mod cut_point;
pub mod entry;
pub mod error;
pub mod file_ops;
pub mod from_session;
pub mod hook;
pub mod prepare;
pub mod prompts;
pub mod retry;
pub mod serialize;
pub mod settings;
pub mod summarize;
pub mod tokens;
pub mod trigger;
pub mod usage;

#[cfg(test)]
mod test_support;

pub use branch_summary::{
    branch_entries, prepare_branch_entries, summarize_branch, BranchSummary, BranchSummaryOptions,
};
pub use compact::{compact, run_compaction, Compacted, CompactionResult};
pub use cut_point::{find_cut_point, CutPoint};
pub use entry::{context_messages, CompactionRecord, EntryKind, PathEntry};
pub use error::CompactionError;
pub use file_ops::{FileLists, FileOps};
pub use hook::HookDecision;
pub use prepare::{prepare_compaction, CompactionPreparation};
pub use retry::{RetryEvent, RetryListener, SummaryRetry};
pub use settings::{BranchSummarySettings, CompactionSettings};
pub use summarize::{default_stream_fn, Summarizer};
pub use tokens::{context_tokens, estimate_context_tokens, estimate_tokens, ContextEstimate};
pub use trigger::{threshold_check, threshold_tokens, CheckPoint};
pub use usage::{context_usage, ContextUsage};
