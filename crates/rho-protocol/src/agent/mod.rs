//! The agent's wire types: messages as pi writes them (the LLM roles from `rho-ai` plus pi's
//! own), the events of a run, and the queue delivery mode. `rho-agent` runs the loop that
//! produces them and re-exports them under its old paths.

pub mod assistant_event;
pub mod event;
pub mod message;
mod queue_mode;
pub mod stored;
mod stored_json;
pub mod system;

pub use assistant_event::AssistantEventJson;
pub use event::{pi073_update, AgentEvent, AgentEventKind, ToolExecutionResult};
pub use message::{
    bash_execution_text, AgentMessage, AssistantAsAgent, BashExecutionMessage,
    BranchSummaryMessage, CompactionSummaryMessage, CustomMessage, SystemMessage,
};
pub use queue_mode::QueueMode;
pub use stored::{
    decode_all, read_exact_at, stored_role, MessageFile, Origin, ReadError, StoredMessage,
};
pub use stored_json::JsonCopier;
pub use system::{initial_system_message, SystemState};
