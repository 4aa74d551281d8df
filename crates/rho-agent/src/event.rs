//! Agent events (interfaces spec §1.5), defined with their wire form in
//! [`rho_protocol::agent::event`] and re-exported here under their old paths.

pub use rho_protocol::agent::{
    AgentEvent, AgentEventKind, AssistantEventJson, ToolExecutionResult,
};
