//! The session's tool set as pi's `getAllTools` / `getActiveTools` / `setActiveTools` see it:
//! every built-in tool the binary configured (active or not), the loaded extensions' tools and
//! tools extensions registered after loading (pi's `registerTool` from `session_start` or a
//! command). The agent holds the active ones; the rest wait here to be activated.

use std::sync::Arc;

use rho_agent::AgentTool;
use rho_protocol::extension::calls::{ToolInfo, ToolsState};

use super::{lock, AgentSession};

fn info(tool: &Arc<dyn AgentTool>, source: &str) -> ToolInfo {
    ToolInfo {
        name: tool.name().to_string(),
        description: tool.description().to_string(),
        parameters: tool.parameters(),
        source: source.to_string(),
    }
}

impl AgentSession {
    /// Every tool that could be active, each name once: extension tools (loaded, then
    /// registered later) before the built-ins they replace.
    fn tool_pool(&self) -> Vec<(Arc<dyn AgentTool>, &'static str)> {
        let mut pool: Vec<(Arc<dyn AgentTool>, &'static str)> = Vec::new();
        let extension = self.inner.extensions.tools();
        let dynamic = lock(&self.inner.dynamic_tools).clone();
        for tool in extension.into_iter().chain(dynamic) {
            if !pool.iter().any(|(t, _)| t.name() == tool.name()) {
                pool.push((tool, "extension"));
            }
        }
        for tool in &self.inner.builtin_tools {
            if !pool.iter().any(|(t, _)| t.name() == tool.name()) {
                pool.push((tool.clone(), "builtin"));
            }
        }
        pool
    }

    /// The active tool names (in the agent's order) and every tool that could be active.
    pub fn tools_state(&self) -> ToolsState {
        let active = self
            .inner
            .agent
            .with_state(|s| s.tools.iter().map(|t| t.name().to_string()).collect());
        let mut all: Vec<ToolInfo> = self.tool_pool().iter().map(|(t, s)| info(t, s)).collect();
        // Built-ins first, as pi lists them.
        all.sort_by_key(|t| t.source != "builtin");
        ToolsState { active, all }
    }

    /// Makes exactly the tools `names` active, in that order; unknown names are ignored (pi's
    /// `setActiveTools`). The system prompt's tool list follows.
    pub fn set_active_tool_names(&self, names: &[String]) -> ToolsState {
        let pool = self.tool_pool();
        let mut chosen: Vec<Arc<dyn AgentTool>> = Vec::new();
        for name in names {
            let known = pool.iter().find(|(t, _)| t.name() == name);
            if let Some((tool, _)) = known {
                if !chosen.iter().any(|c| c.name() == name) {
                    chosen.push(tool.clone());
                }
            }
        }
        let active: Vec<String> = chosen.iter().map(|t| t.name().to_string()).collect();
        self.inner.agent.set_tools(chosen);
        self.rebuild_prompt_for(active);
        self.tools_state()
    }

    /// Adds a tool registered after loading and activates it; one of the same name (built-in
    /// or earlier) is replaced (pi: "Registering a tool activates it").
    pub fn register_dynamic_tool(&self, tool: Arc<dyn AgentTool>) {
        let name = tool.name().to_string();
        {
            let mut dynamic = lock(&self.inner.dynamic_tools);
            dynamic.retain(|t| t.name() != name);
            dynamic.push(tool.clone());
        }
        let mut tools = self.inner.agent.with_state(|s| s.tools.clone());
        tools.retain(|t| t.name() != name);
        tools.push(tool);
        let active: Vec<String> = tools.iter().map(|t| t.name().to_string()).collect();
        self.inner.agent.set_tools(tools);
        self.rebuild_prompt_for(active);
    }

    /// Forgets the tools registered after loading (their extensions were unloaded).
    pub(crate) fn drop_dynamic_tools(&self) -> Vec<Arc<dyn AgentTool>> {
        std::mem::take(&mut *lock(&self.inner.dynamic_tools))
    }

    /// Rebuilds the base system prompt for the active tool names (MSG-9).
    fn rebuild_prompt_for(&self, active: Vec<String>) {
        self.rebuild_base_prompt(|options| options.active_tools = Some(active));
    }
}
