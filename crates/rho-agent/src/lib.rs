//! rho's agent core: runs a conversation against a model through `rho-ai`, executes the tool
//! calls the model makes, feeds the results back, and repeats until the model stops.

pub mod message;
pub mod tool;

pub use message::{
    convert_to_llm, AgentMessage, BashExecutionMessage, BranchSummaryMessage,
    CompactionSummaryMessage, CustomMessage,
};
pub use tool::{AgentTool, ProgressSink, ToolContext, ToolError, ToolOutput};
