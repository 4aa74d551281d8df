//! The points where the owner of the agent (the session) plugs into the loop: the agent's
//! up-calls, one trait ([`SessionHooks`]) installed once, and the LLM call itself
//! ([`StreamFn`], the transport). Everything the agent asks of its owner during a run goes
//! through that trait: context conversion and rewriting before each call, the call's key and
//! HTTP hooks, the checks around every tool call, the early stop after a turn.

use std::future::ready;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use rho_ai::{
    AssistantMessage, AssistantStream, ContentBlock, Context, Message, Model, ProviderError,
    StreamOptions, ThinkingLevel, ToolCall, ToolResultMessage,
};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::message::AgentMessage;

/// Starts one LLM call. Defaults to [`rho_ai::stream`]; tests inject scripted providers.
pub type StreamFn = Arc<
    dyn Fn(&Model, &Context, StreamOptions) -> Result<AssistantStream, ProviderError> + Send + Sync,
>;

/// What the agent needs of whoever owns it, asked during a run. Each method defaults to the
/// bare agent's behaviour (pi's agent core without hooks), so an owner implements only what it
/// takes part in; the session implements all of them. Runs take the hooks installed when
/// they start ([`crate::AgentOptions::hooks`]). Errors are text on purpose: each is the
/// message the failed run (`errorMessage`, AC-5) or tool result carries, as the model and the
/// client read it.
pub trait SessionHooks: Send + Sync {
    /// Turns agent messages into the LLM messages of a request (custom roles → user
    /// messages). It must convert each message on its own (no look at its neighbours):
    /// without [`Self::transforms_context`] the agent converts only the messages added since
    /// the last call and keeps the earlier result, so a turn costs O(new messages), not
    /// O(transcript). The default is pi's bare-agent conversion ([`default_convert_to_llm`]).
    fn convert_to_llm(&self, messages: &[Arc<AgentMessage>]) -> Vec<Message> {
        default_convert_to_llm(messages)
    }

    /// Whether [`Self::transform_context`] rewrites the transcript before the next call
    /// (asked before each call; the transform copies the whole transcript, so it is asked for
    /// only when someone takes part).
    fn transforms_context(&self) -> bool {
        false
    }

    /// Rewrites the transcript before a call (pi's `transformContext`, the session's
    /// `context` event). Gets a copy; the agent's state is unchanged. An `Err` fails the run
    /// (AC-5).
    fn transform_context(
        &self,
        messages: Vec<AgentMessage>,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Vec<AgentMessage>, String>> {
        let _ = cancel;
        Box::pin(ready(Ok(messages)))
    }

    /// Whether [`Self::transform_with_system`] rewrites the request (asked before each call).
    fn transforms_with_system(&self) -> bool {
        false
    }

    /// Rewrites the whole request after [`Self::transform_context`] (pi 1.6's
    /// `context_with_system`): the transcript with its system messages, led by one that
    /// declares the prompt and tools when the transcript records none. The system messages
    /// of what it returns are the request's prompt and tools. An `Err` fails the run (AC-5).
    fn transform_with_system(
        &self,
        messages: Vec<AgentMessage>,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Vec<AgentMessage>, String>> {
        let _ = cancel;
        Box::pin(ready(Ok(messages)))
    }

    /// Completes the options of one LLM call right before it starts: the key (a
    /// short-lived OAuth token refreshed first), the hooks around the HTTP exchange. An
    /// `Err` fails the run (AC-5).
    fn prepare_call(
        &self,
        model: &Model,
        options: StreamOptions,
        // The failed run's `errorMessage` itself (see the trait): text by design.
    ) -> BoxFuture<'static, Result<StreamOptions, String>> {
        let _ = model;
        Box::pin(ready(Ok(options)))
    }

    /// Routes one call made with a virtual model ([`Model::is_virtual`]) to the physical
    /// model and thinking level it goes to (pi's request preparation under a virtual
    /// selection): asked only for virtual models, before [`Self::prepare_call`]. Without an
    /// owner that routes, the call fails as pi's unrouted stream does. An `Err` fails the run
    /// (AC-5) with its text.
    fn route_call(
        &self,
        request: RouteRequest<'_>,
        // The failed run's `errorMessage` itself (see the trait): text by design.
    ) -> BoxFuture<'static, Result<(Model, ThinkingLevel), String>> {
        let error = format!(
            "Virtual model {}/{} must be routed before streaming",
            request.model.provider, request.model.id
        );
        Box::pin(ready(Err(error)))
    }

    /// Runs after a tool call's arguments were validated, before it executes (the session's
    /// permission rules and `tool_call` event). `Ok(None)` lets the call run; an `Err`
    /// becomes an error result with its text.
    fn before_tool_call(
        &self,
        call: BeforeToolCallContext,
    ) -> BoxFuture<'static, Result<Option<ToolCallDecision>, String>> {
        let _ = call;
        Box::pin(ready(Ok(None)))
    }

    /// Runs after a tool finished (the session's sandbox escalation and `tool_result`
    /// event). `Ok(None)` keeps the result; an `Err` becomes an error result with its text.
    fn after_tool_call(
        &self,
        call: AfterToolCallContext,
    ) -> BoxFuture<'static, Result<Option<ToolResultOverride>, String>> {
        let _ = call;
        Box::pin(ready(Ok(None)))
    }

    /// pi 1.6's actionable `turn_end` (`finishTurn`): asked once a turn's reply and tool
    /// results are final, before its `turn_end` event, and awaited. The owner may change the
    /// transcript meanwhile (entries it appends, context edits); true asks for one more
    /// provider request, which the run makes unless tool results, steering or a follow-up
    /// already make one. A failed or aborted reply still ends the run.
    fn finish_turn(
        &self,
        reply: &AssistantMessage,
        results: &[ToolResultMessage],
    ) -> BoxFuture<'static, bool> {
        let _ = (reply, results);
        Box::pin(ready(false))
    }

    /// Asked after every `turn_end`; true ends the run at once, without polling the queues.
    fn stop_after_turn(&self, reply: &AssistantMessage, results: &[ToolResultMessage]) -> bool {
        let _ = (reply, results);
        false
    }
}

/// What [`SessionHooks::route_call`] sees of one call.
pub struct RouteRequest<'a> {
    /// The selected virtual model.
    pub model: &'a Model,
    /// The selected thinking level.
    pub thinking: ThinkingLevel,
    /// The call's messages, as the provider would get them.
    pub messages: &'a [Message],
    /// Whether a message the user wrote follows the latest reply in the transcript (pi's
    /// `user` reason; custom and other messages of the session's own do not count).
    pub user_turn: bool,
    /// The run's abort signal.
    pub cancel: &'a CancellationToken,
}

/// No owner taking part: the bare agent.
pub struct NoHooks;

impl SessionHooks for NoHooks {}

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

/// A [`SessionHooks::before_tool_call`] verdict.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCallDecision {
    /// True stops the call; the model gets an error result.
    pub block: bool,
    /// The error text (default `Tool execution was blocked`).
    pub reason: Option<String>,
}

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

/// Field-by-field overrides from [`SessionHooks::after_tool_call`] (no deep merge, AC-16).
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

/// pi's bare-agent conversion (AC-27): only `user`, `assistant` and `toolResult` reach the
/// model. The session converts with [`crate::message::convert_to_llm`] instead.
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
