//! The RPC mode's wire types (interfaces spec §1): the response envelope, the typed `data` of
//! each command's response, and the extension UI requests. The RPC layer of the binary adapts
//! session calls into these; clients can read them back with the same types.

pub mod command;
mod dialect;
mod pi073;
mod pi1;
mod pi1_replies;
mod replies;
mod response;
mod stats;
mod ui;

pub use command::{Command, CommandError, ParseFailure, Request, StreamingBehavior, UiAnswer};
pub use dialect::{Dialect, UnknownDialect};
pub use pi1_replies::{
    BashExecutionUpdate, Disposition, DispositionReply, EntryList, NullableText, QueueContents,
    SessionTreeReply, ThinkingLevels, TreeNode,
};
pub use replies::{
    Cancelled, CommandInfo, CommandList, CompactReply, CycledModel, ExportedHtml, ForkResult,
    LastAssistantText, LastText, MessageList, ModelList, SessionState, SourceInfo,
    ThinkingLevelReply,
};
pub use response::Response;
pub use stats::{ContextUsage, SessionStats, SessionStatsReply, StatsScope, TokenTotals};
pub use ui::{UiRequest, UiRequestKind};
