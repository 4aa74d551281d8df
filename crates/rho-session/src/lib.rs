//! The session store: pi-compatible JSONL session files (format 3), their entry tree, and the
//! LLM context rebuilt from it (interfaces spec §4).
//!
//! One concept per file: [`entry`] (the records), `decode` (parsing a line), [`load`] (reading a
//! file), `migrate` (older formats), [`writer`] (durable appends), [`tree`] (ids, leaf,
//! branches), [`context`] (`buildSessionContext`), [`manager`] (the API modes use), [`listing`]
//! (finding sessions), [`paths`] (where files live), [`time`] and [`ids`].

mod batch_decode;
mod codec;
pub mod context;
mod cycles;
mod decode;
mod disk_message;
pub mod env;
/// The records of a session file (defined in `rho-protocol`, shared with the UIs).
pub use rho_protocol::session::entry;
pub mod error;
mod fast_message;
pub mod ids;
mod index;
mod index_keeper;
mod lazy;
mod lazy_tree;
pub mod listing;
pub mod load;
pub mod manager;
mod migrate;
pub mod paths;
mod summary;
pub mod time;
pub mod tree;
mod tree_view;
mod unsaved;
pub mod writer;

pub use context::{
    branch_state, build_context, build_context_for_path, BranchState, ModelRef, SessionContext,
};
pub use entry::{
    CompactionData, EntryData, RawLine, SessionEntry, SessionHeader, UsageData, CURRENT_VERSION,
};
pub use error::{LineError, LoadWarning, StoreError};
pub use index::remove as remove_index;
pub use listing::{
    find_session, is_path_argument, list_all_sessions, list_sessions, most_recent_session,
    summarize, FoundSession, SessionSummary,
};
pub use load::{load_file, load_file_and_index, LoadedFile};
pub use manager::{ForkScope, SessionManager};
pub use tree::SessionTree;
pub use writer::Durability;
