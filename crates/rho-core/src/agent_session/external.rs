//! Tools and slash commands from outside the session, such as MCP servers (the `rho-mcp`
//! crate, wired in by the binary). The session asks for their tools at every turn, lets the
//! first prompt wait for them, and offers them slash commands before templates expand.

use futures_util::future::BoxFuture;
use rho_agent::ToolSource;

/// Why an external command failed; its text is shown to the user as is.
pub type ExternalError = Box<dyn std::error::Error + Send + Sync>;

/// A provider of tools and commands the session does not own.
pub trait ExternalTools: Send + Sync {
    /// The agent's source of these tools (asked at every turn).
    fn tool_source(&self) -> ToolSource;
    /// Runs before a prompt's messages are built; may wait for tools to arrive.
    fn before_prompt(&self) -> BoxFuture<'_, ()>;
    /// Expands a `/command args` it owns into prompt text; `None` when it is not its command.
    fn expand_command<'a>(
        &'a self,
        text: &'a str,
    ) -> BoxFuture<'a, Option<Result<String, ExternalError>>>;
    /// Tools codemode scripts may call besides the session's active ones (MCP tools with
    /// `codemode` or `deferred` exposure), with their namespaces.
    fn script_tools(&self) -> Vec<rho_codemode::Callable> {
        Vec::new()
    }
    /// Whether these tools want the `codemode` tool on (an MCP server with `codemode` exposure).
    fn wants_codemode(&self) -> bool {
        false
    }
    /// The servers' state as RPC `get_state` reports it (`mcpServers`); `None` without any.
    fn status(&self) -> Option<serde_json::Value> {
        None
    }
    /// Waits for what a script reaches (`None`: everything; else the words of its source).
    fn wait_for(&self, _words: Option<Vec<String>>) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }
}
