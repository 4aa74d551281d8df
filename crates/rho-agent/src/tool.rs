//! The tool trait: what the model can call. Tools get validated arguments, a cancellation
//! token and a progress sink, and return content blocks plus details for the UI.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use rho_ai::{ContentBlock, Tool};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// What a tool produced: content for the model, details for UIs and session files.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolOutput {
    /// Text and images for the model.
    pub content: Vec<ContentBlock>,
    /// Structured data (diffs, paths, truncation info); never sent to the model.
    pub details: Option<Value>,
}

impl ToolOutput {
    /// An output of one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![ContentBlock::text(text)],
            details: None,
        }
    }
}

/// A tool failure; its message becomes the text of an `isError` tool result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    /// What went wrong, written for the model to read and act on.
    pub message: String,
    /// Optional details kept with the result.
    pub details: Option<Value>,
}

impl ToolError {
    /// An error with a message only.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            details: None,
        }
    }
}

/// Tools that join the agent's set while it runs (MCP servers connecting, deferred tools
/// loaded by a search). Read at the start of every turn, after the fixed tools.
pub type ToolSource = Arc<dyn Fn() -> Vec<Arc<dyn AgentTool>> + Send + Sync>;

/// Receives cumulative partial results while a tool runs (each replaces the previous).
pub type ProgressSink = Arc<dyn Fn(ToolOutput) + Send + Sync>;

/// What a running tool gets besides its arguments.
#[derive(Clone)]
pub struct ToolContext {
    /// The tool call's id.
    pub call_id: String,
    /// Fires on abort; long-running tools must stop promptly.
    pub cancel: CancellationToken,
    /// Progress updates.
    pub progress: ProgressSink,
    /// Runs other tools on behalf of this call through the agent's tool pipeline (pi's
    /// `ctx.executeTool`); set for every call the agent runs.
    pub nested: Option<crate::nested::NestedCalls>,
    /// The call that made this one, for a call a tool made through [`ToolContext::nested`].
    pub parent_call_id: Option<String>,
}

impl ToolContext {
    /// A context with a fresh token and a progress sink that drops updates (SDK use, tests).
    pub fn detached(call_id: impl Into<String>) -> Self {
        Self {
            call_id: call_id.into(),
            cancel: CancellationToken::new(),
            progress: Arc::new(|_| {}),
            nested: None,
            parent_call_id: None,
        }
    }
}

/// Whether a tool may run alongside the other calls of the same assistant message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExecutionMode {
    /// May run concurrently with other calls (default).
    #[default]
    Parallel,
    /// Forces the whole batch it appears in to run one call at a time (AC-11).
    Sequential,
}

/// A tool the agent can run.
pub trait AgentTool: Send + Sync {
    /// Unique name the model calls it by.
    fn name(&self) -> &str;
    /// Short human label for UIs.
    fn label(&self) -> &str;
    /// What it does, for the model.
    fn description(&self) -> &str;
    /// JSON Schema of the arguments.
    fn parameters(&self) -> Value;
    /// Runs the tool with arguments already validated against [`AgentTool::parameters`].
    fn execute(
        &self,
        args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>>;

    /// Whether calls of this tool force sequential execution of their batch.
    fn execution_mode(&self) -> ExecutionMode {
        ExecutionMode::Parallel
    }

    /// Rewrites raw arguments before validation (pi's `prepareArguments`), e.g. to accept a
    /// legacy argument shape.
    fn prepare_arguments(&self, args: Value) -> Value {
        args
    }

    /// Behaviour hints (MCP's `readOnlyHint`, `destructiveHint`, `idempotentHint`,
    /// `openWorldHint`), for extensions that decide which calls need confirmation.
    fn annotations(&self) -> Option<Value> {
        None
    }

    /// What a script receives for the call `call_id` when the tool's model-facing content is
    /// not all of it (an MCP tool's whole `CallToolResult`); asked once, after a call made
    /// through [`ToolContext::nested`].
    fn take_script_value(&self, _call_id: &str) -> Option<Value> {
        None
    }

    /// The JSON Schema of what a script's call resolves to when that is not the tool's text
    /// (pi's `outputSchema`; the value comes from [`AgentTool::take_script_value`]).
    fn output_schema(&self) -> Option<Value> {
        None
    }

    /// Changes to how the declared tools (`declared`, this one among them) are presented to
    /// the model, asked before every request (pi's `prepareLoadout`; codemode uses it).
    fn prepare_loadout(&self, _declared: &[Arc<dyn AgentTool>]) -> Option<LoadoutChanges> {
        None
    }

    /// The tool as the model sees it.
    fn definition(&self) -> Tool {
        Tool {
            name: self.name().to_string(),
            description: self.description().to_string(),
            parameters: self.parameters(),
        }
    }
}

/// What a tool's [`AgentTool::prepare_loadout`] changes in the declarations sent to the model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadoutChanges {
    /// New descriptions, by tool name.
    pub descriptions: Vec<(String, String)>,
    /// Tools left out of the declarations; they stay callable (from scripts).
    pub hidden: Vec<String>,
}

/// The declarations of `tools` sent to the model, after every tool's
/// [`AgentTool::prepare_loadout`].
pub fn definitions(tools: &[Arc<dyn AgentTool>]) -> Vec<Tool> {
    let (mut defs, hidden) = loadout(tools);
    defs.retain(|d| !hidden.contains(&d.name));
    defs
}

/// The declarations of `tools` with the descriptions every tool's
/// [`AgentTool::prepare_loadout`] gives them, and the names those hooks hide from requests.
/// Kept apart because pi records the described tools (hidden ones too) in system messages and
/// leaves the hidden ones out only when it sends a request.
pub fn loadout(tools: &[Arc<dyn AgentTool>]) -> (Vec<Tool>, Vec<String>) {
    let mut defs: Vec<Tool> = tools.iter().map(|t| t.definition()).collect();
    let mut hidden = Vec::new();
    for changes in tools.iter().filter_map(|t| t.prepare_loadout(tools)) {
        for (name, description) in changes.descriptions {
            if let Some(d) = defs.iter_mut().find(|d| d.name == name) {
                d.description = description;
            }
        }
        hidden.extend(changes.hidden);
    }
    (defs, hidden)
}
