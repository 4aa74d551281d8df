//! The points where the session layer plugs into the loop: the LLM call itself, context
//! rewriting and conversion before each call, and checks around every tool call.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use rho_ai::{
    AssistantMessage, AssistantStream, ContentBlock, Context, Message, Model, ProviderError,
    StreamOptions, ToolCall, ToolResultMessage,
};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::message::AgentMessage;

/// Starts one LLM call. Defaults to [`rho_ai::stream`]; tests inject scripted providers.
pub type StreamFn = Arc<
    dyn Fn(&Model, &Context, StreamOptions) -> Result<AssistantStream, ProviderError> + Send + Sync,
>;

/// Turns agent messages into the LLM messages of a request (custom roles → user messages).
/// It must convert each message on its own (no look at its neighbours): without a
/// [`TransformContextFn`] the agent converts only the messages added since the last call and
/// keeps the earlier result, so a turn costs O(new messages), not O(transcript).
pub type ConvertToLlmFn = Arc<dyn Fn(&[Arc<AgentMessage>]) -> Vec<Message> + Send + Sync>;

/// Rewrites the transcript before each call (pi's `transformContext`, the session's `context`
/// event). Gets a copy; the agent's state is unchanged. An `Err` fails the run (AC-5).
pub type TransformContextFn = Arc<
    dyn Fn(
            Vec<AgentMessage>,
            CancellationToken,
        ) -> BoxFuture<'static, Result<Vec<AgentMessage>, String>>
        + Send
        + Sync,
>;

/// What `before_tool_call` sees.
#[derive(Debug, Clone)]
pub struct BeforeToolCallContext {
    /// The assistant message that made the call.
    pub assistant_message: AssistantMessage,
    /// The call as the model sent it.
    pub tool_call: ToolCall,
    /// The validated (coerced) arguments.
    pub args: Value,
    /// The run's abort signal.
    pub cancel: CancellationToken,
}

/// A `before_tool_call` verdict.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCallDecision {
    /// True stops the call; the model gets an error result.
    pub block: bool,
    /// The error text (default `Tool execution was blocked`).
    pub reason: Option<String>,
}

/// Runs after validation, before execution (the session's `tool_call` event). `Ok(None)`
/// lets the call run; an `Err` becomes an error result with its text.
pub type BeforeToolCallFn = Arc<
    dyn Fn(BeforeToolCallContext) -> BoxFuture<'static, Result<Option<ToolCallDecision>, String>>
        + Send
        + Sync,
>;

/// What `after_tool_call` sees.
#[derive(Debug, Clone)]
pub struct AfterToolCallContext {
    /// The assistant message that made the call.
    pub assistant_message: AssistantMessage,
    /// The call as the model sent it.
    pub tool_call: ToolCall,
    /// The validated arguments.
    pub args: Value,
    /// The result so far.
    pub content: Vec<ContentBlock>,
    /// Its details.
    pub details: Option<Value>,
    /// Whether it is an error.
    pub is_error: bool,
    /// The run's abort signal.
    pub cancel: CancellationToken,
}

/// Field-by-field overrides from `after_tool_call` (no deep merge, AC-16).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolResultOverride {
    /// Replaces the content.
    pub content: Option<Vec<ContentBlock>>,
    /// Replaces the details.
    pub details: Option<Value>,
    /// Replaces the error flag.
    pub is_error: Option<bool>,
    /// Marks the result terminal: when every result of a batch is, the run stops (AC-18).
    pub terminate: Option<bool>,
}

/// Runs after a tool finished (the session's `tool_result` event). An `Err` becomes an error
/// result with its text.
pub type AfterToolCallFn = Arc<
    dyn Fn(AfterToolCallContext) -> BoxFuture<'static, Result<Option<ToolResultOverride>, String>>
        + Send
        + Sync,
>;

/// Resolves the API key for a provider right before each call (short-lived OAuth tokens).
/// `Ok(None)` keeps the key of the base options; an `Err` fails the run (AC-5).
pub type GetApiKeyFn =
    Arc<dyn Fn(&str) -> BoxFuture<'static, Result<Option<String>, String>> + Send + Sync>;

/// Asked after every `turn_end`; true ends the run at once, without polling the queues.
pub type ShouldStopAfterTurnFn =
    Arc<dyn Fn(&AssistantMessage, &[ToolResultMessage]) -> bool + Send + Sync>;

/// pi's bare-agent conversion (AC-27): only `user`, `assistant` and `toolResult` reach the
/// model. The session installs [`crate::message::convert_to_llm`] instead.
pub fn default_convert_to_llm<M: std::borrow::Borrow<AgentMessage>>(
    messages: &[M],
) -> Vec<Message> {
    messages
        .iter()
        .filter_map(|m| match m.borrow() {
            AgentMessage::User(u) => Some(Message::User(u.clone())),
            AgentMessage::Assistant(a) => Some(Message::Assistant(a.clone())),
            AgentMessage::ToolResult(t) => Some(Message::ToolResult(t.clone())),
            _ => None,
        })
        .collect()
}

/// The default stream function: the real providers.
pub fn default_stream_fn() -> StreamFn {
    Arc::new(rho_ai::stream)
}
