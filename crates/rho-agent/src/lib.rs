//! rho's agent core: runs a conversation against a model through `rho-ai`, executes the tool
//! calls the model makes, feeds the results back, and repeats until the model stops.
//!
//! [`Agent`] holds the state; `prompt()`/`continue_()` start a run on its own task; events
//! reach every [`Agent::subscribe`]r in order; `steer()`/`follow_up()` queue messages;
//! `abort()` stops the provider stream and every running tool.
//!
//! Where rho differs from pi 0.73.1's agent core (decisions.md binds these):
//! - Steering interrupts (D4). A steering message that arrives while the model streams
//!   cancels that call; the partial reply is ended with `stopReason: "aborted"` and
//!   [`DISCARDED_TEXT`] as its `errorMessage` (see [`is_discarded`]), its turn ends, and
//!   it is not kept in the transcript (sessions do not persist it); the model is then
//!   called again, in a new turn, with the steering message appended. Steering
//!   that arrives while tools run lets running calls finish and answers calls not yet
//!   started with `Skipped due to queued user message.`. Only steering that arrived during
//!   the current turn interrupts; messages a `one-at-a-time` poll left queued wait their turn.
//!   In `one-at-a-time` mode the turn that answers a delivered steering message is not
//!   interrupted at all (pi: "one steering message per completed assistant turn"): steering
//!   sent meanwhile is delivered once that answer and its tool calls are complete.
//! - Subscribers receive events through unbounded channels instead of being awaited in turn
//!   (AC-24): a slow or panicking subscriber cannot hold up or break the loop, and every
//!   subscriber sees the same order. `is_streaming` turns false right after `agent_end` is
//!   sent, not after subscribers handled it; a session that must finish its `agent_end`
//!   work before the next step does so on its own side.
//! - Abort (D6) also bounds misbehaving parts: a tool or provider stream that ignores the
//!   signal is given up on after [`AgentOptions::abort_grace`].

pub mod agent;
pub mod event;
pub mod hooks;
pub mod message;
pub mod nested;
mod nested_record;
pub mod queue;
pub mod rank;
mod run;
mod run_failure;
pub mod schema;
pub mod script_values;
mod shared;
pub mod state;
mod system;
pub use rho_protocol::agent::stored;
pub mod tool;
mod tools_exec;

pub use agent::{Agent, AgentError, EventReceiver, PromptInput};
pub use event::{AgentEvent, AgentEventKind, AssistantEventJson, ToolExecutionResult};
pub use hooks::{
    default_convert_to_llm, AfterToolCallContext, BeforeToolCallContext, NoHooks, RouteRequest,
    SessionHooks, StreamFn, ToolCallDecision, ToolResultOverride,
};
pub use message::{
    convert_to_llm, AgentMessage, BashExecutionMessage, BranchSummaryMessage,
    CompactionSummaryMessage, CustomMessage, SystemMessage,
};
pub use nested::{NestedCalls, NestedOutcome};
pub use queue::QueueMode;
pub use rho_protocol::agent::{
    decode_all, stored_role, JsonCopier, MessageFile, Origin, ReadError, StoredMessage,
};
pub use run::{is_discarded, DISCARDED_TEXT};
pub use script_values::{ScriptValueSlot, ScriptValues};
pub use state::{AgentOptions, AgentState, ToolExecution};
pub use tool::{
    definitions, AgentTool, ExecutionMode, LoadoutChanges, ProgressSink, ToolContext, ToolError,
    ToolOutput, ToolSource,
};
pub use tools_exec::SKIPPED_TEXT;
