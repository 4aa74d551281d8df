//! The RPC mode's wire types (interfaces spec §1): the response envelope, the typed `data` of
//! each command's response, and the extension UI requests. The RPC layer of the binary adapts
//! session calls into these; clients can read them back with the same types.

mod dialect;
mod replies;
mod response;
mod stats;
mod ui;

pub use dialect::{Dialect, UnknownDialect};
pub use replies::{
    Cancelled, CommandInfo, CommandList, CycledModel, ExportedHtml, ForkResult, LastAssistantText,
    MessageList, ModelList, SessionState, SourceInfo, ThinkingLevelReply,
};
pub use response::Response;
pub use stats::{ContextUsage, SessionStats, SessionStatsReply, TokenTotals};
pub use ui::{UiRequest, UiRequestKind};
