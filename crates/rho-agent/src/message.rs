//! Agent messages (defined in [`rho_protocol::agent::message`], where every wire type lives)
//! and the agent's default conversion of them to LLM messages before each call.

use rho_ai::Message;

pub use rho_protocol::agent::message::{
    bash_execution_text, AgentMessage, BashExecutionMessage, BranchSummaryMessage,
    CompactionSummaryMessage, CustomMessage, SystemMessage,
};

/// The default conversion before each LLM call: every message that reaches the model, in order.
/// Takes owned or shared messages (`&[AgentMessage]`, `&[Arc<AgentMessage>]`).
pub fn convert_to_llm<M: std::borrow::Borrow<AgentMessage>>(messages: &[M]) -> Vec<Message> {
    messages
        .iter()
        .filter_map(|m| m.borrow().to_llm())
        .collect()
}
