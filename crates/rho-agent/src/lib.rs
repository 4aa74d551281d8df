//! rho's agent core: runs a conversation against a model through `rho-ai`, executes the tool
//! calls the model makes, feeds the results back, and repeats until the model stops.
//!
//! [`Agent`] holds the state; `prompt()`/`continue_()` start a run on its own task; events
//! reach every [`Agent::subscribe`]r in order; `steer()`/`follow_up()` queue messages;
//! `abort()` stops the provider stream and every running tool.

pub mod agent;
pub mod event;
pub mod hooks;
pub mod message;
pub mod queue;
mod run;
pub mod schema;
mod shared;
pub mod state;
pub mod testing;
pub mod tool;
mod tools_exec;

pub use agent::{Agent, AgentError, EventReceiver, PromptInput};
pub use event::{AgentEvent, ToolExecutionResult};
pub use hooks::{
    default_convert_to_llm, AfterToolCallContext, AfterToolCallFn, BeforeToolCallContext,
    BeforeToolCallFn, ConvertToLlmFn, GetApiKeyFn, ShouldStopAfterTurnFn, StreamFn,
    ToolCallDecision, ToolResultOverride, TransformContextFn,
};
pub use message::{
    convert_to_llm, AgentMessage, BashExecutionMessage, BranchSummaryMessage,
    CompactionSummaryMessage, CustomMessage,
};
pub use queue::QueueMode;
pub use state::{AgentOptions, AgentState, ToolExecution};
pub use tool::{AgentTool, ExecutionMode, ProgressSink, ToolContext, ToolError, ToolOutput};
pub use tools_exec::SKIPPED_TEXT;
