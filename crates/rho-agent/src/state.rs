//! What the agent holds between and during runs (AC-1), and the options that shape a run.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use rho_ai::{Model, PartialMessage, StreamOptions, ThinkingLevel};

use crate::hooks::{default_stream_fn, NoHooks, SessionHooks, StreamFn};
use crate::stored::StoredMessage;
use crate::tool::AgentTool;

/// The agent's state. Read it with [`crate::Agent::with_state`]; change it through the
/// agent's setters, which store copies.
#[derive(Clone)]
pub struct AgentState {
    /// The system prompt sent with every call ("" = none), unless `system_sections` is set.
    pub system_prompt: String,
    /// pi 1.x's structured prompt (D18): named sections, recorded in the transcript with the
    /// tools as `system` messages before each request that changes them, the model being
    /// sent what those messages replay to. `None`: `system_prompt` is sent and nothing is
    /// recorded.
    pub system_sections: Option<Vec<(String, String)>>,
    /// With `system_sections`: a prompt sent in place of the replayed one without being
    /// recorded (an extension's `before_agent_start` result, pi's forced prompt).
    pub forced_system_prompt: Option<String>,
    /// The model; a placeholder named `unknown` until one is set.
    pub model: Model,
    /// The requested thinking level.
    pub thinking_level: ThinkingLevel,
    /// The tools offered to the model.
    pub tools: Vec<Arc<dyn AgentTool>>,
    /// More tools, asked for at every turn (see [`crate::tool::ToolSource`]).
    pub tool_source: Option<crate::tool::ToolSource>,
    /// The transcript. Each message is a cell shared with the session's entry (see
    /// [`StoredMessage`]): a long session is held once, and once on disk only while in use.
    pub messages: Vec<StoredMessage>,
    /// True from the start of a run until it fully stopped.
    pub is_streaming: bool,
    /// The assistant message being streamed, folded from provider events.
    pub streaming_message: Option<PartialMessage>,
    /// Ids of tool calls between `tool_execution_start` and `tool_execution_end`.
    pub pending_tool_calls: BTreeSet<String>,
    /// The last run's error (AC-5, AC-25); cleared when a run starts.
    pub error_message: Option<String>,
}

impl std::fmt::Debug for AgentState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tools: Vec<&str> = self.tools.iter().map(|t| t.name()).collect();
        f.debug_struct("AgentState")
            .field("system_prompt", &self.system_prompt)
            .field("model", &self.model.id)
            .field("thinking_level", &self.thinking_level)
            .field("tools", &tools)
            .field("messages", &self.messages.len())
            .field("is_streaming", &self.is_streaming)
            .field("pending_tool_calls", &self.pending_tool_calls)
            .field("error_message", &self.error_message)
            .finish()
    }
}

impl Default for AgentState {
    fn default() -> Self {
        Self {
            system_prompt: String::new(),
            system_sections: None,
            forced_system_prompt: None,
            model: placeholder_model(),
            thinking_level: ThinkingLevel::Off,
            tools: Vec::new(),
            tool_source: None,
            messages: Vec::new(),
            is_streaming: false,
            streaming_message: None,
            pending_tool_calls: BTreeSet::new(),
            error_message: None,
        }
    }
}

/// pi's placeholder model (`unknown` everywhere); a call with it fails with a clear error.
pub fn placeholder_model() -> Model {
    Model {
        id: "unknown".into(),
        name: "unknown".into(),
        api: "unknown".into(),
        provider: "unknown".into(),
        base_url: String::new(),
        reasoning: false,
        thinking_level_map: None,
        input: vec![rho_ai::InputKind::Text],
        cost: Default::default(),
        context_window: 0,
        max_tokens: 0,
        headers: None,
        compat: None,
        ..Default::default()
    }
}

/// How the tool calls of one assistant message run (AC-11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolExecution {
    /// Concurrently: starts in call order, ends in completion order (pi's default).
    #[default]
    Parallel,
    /// One after another.
    Sequential,
}

/// The transport, the owner's hooks and the knobs of the loop. Runs take a snapshot at their
/// start.
#[derive(Clone)]
pub struct AgentOptions {
    /// Starts each LLM call.
    pub stream_fn: StreamFn,
    /// Base options of each call (key, session id, headers, ...); the agent sets `cancel`
    /// and `reasoning`.
    pub stream_options: StreamOptions,
    /// The owner's up-calls (see [`SessionHooks`]); [`NoHooks`] for a bare agent.
    pub hooks: Arc<dyn SessionHooks>,
    /// Parallel (default) or sequential tool calls.
    pub tool_execution: ToolExecution,
    /// After an abort, how long a tool that ignores its cancellation token may keep running
    /// before the agent drops it and records `Tool execution aborted`; likewise how long a
    /// provider stream may take to deliver its `aborted` ending before the agent ends the
    /// message itself.
    pub abort_grace: Duration,
}

impl Default for AgentOptions {
    fn default() -> Self {
        Self {
            stream_fn: default_stream_fn(),
            stream_options: StreamOptions::default(),
            hooks: Arc::new(NoHooks),
            tool_execution: ToolExecution::Parallel,
            abort_grace: Duration::from_secs(2),
        }
    }
}

impl AgentOptions {
    /// Default options with a custom stream function (scripted providers, test servers).
    pub fn with_stream_fn(stream_fn: StreamFn) -> Self {
        Self {
            stream_fn,
            ..Self::default()
        }
    }
}
