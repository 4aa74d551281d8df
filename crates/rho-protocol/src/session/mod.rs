//! The session's wire types: the records of a session file, the events session listeners
//! (RPC, JSON mode, the TUI) receive, and what pickers show about a session file.
//!
//! They carry agent messages and events ([`crate::agent`]), so this module is behind
//! the `agent` feature: the extension SDK, which needs only [`crate::extension`], stays free
//! of the model and agent crates.

mod compaction;
pub mod entry;
pub mod events;
pub mod pi1;
mod summary;

pub use compaction::{CompactionAfter, CompactionResult};
pub use entry::{
    CompactionData, EntryData, RawLine, SessionEntry, SessionHeader, UsageData, CURRENT_VERSION,
};
pub use events::{
    CompactionReason, SessionEvent, SessionEventKind, SessionOnlyEvent, SummarySource,
};
pub use summary::SessionSummary;
