//! Tools and slash commands from outside the session, such as MCP servers (the `rho-mcp`
//! crate, wired in by the binary). The session asks for their tools at every turn, lets the
//! first prompt wait for them, and offers them slash commands before templates expand.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use rho_agent::ToolSource;
use rho_protocol::extension::McpServerSpec;

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

/// The owner of the external tools (the binary, which runs the MCP servers), for the servers
/// extensions register while the session runs (pi's `registerMcpServer`). It exists only where
/// MCP is on; it starts nothing until a server is registered.
pub trait ExternalServers: Send + Sync {
    /// Adds `spec` (the same name from the same extension replaces it) and connects it; the
    /// external tools to use from now on. Refused with pi's text when the config is invalid.
    fn register(&self, spec: McpServerSpec) -> Result<Arc<dyn ExternalTools>, ExternalError>;
    /// Closes the server `name` the extension at `extension_path` registered; its tools are
    /// gone from the next listing on.
    fn unregister(&self, name: &str, extension_path: &str);
    /// Whether a registered server that wants the `codemode` tool (its exposure) turns it on,
    /// as configured ones do at start.
    fn activates_codemode(&self) -> bool {
        false
    }
}

/// pi's report of a registered server nothing connects (MCP off, no extension handling
/// `mcp_servers_change`).
pub fn unconnected_text(name: &str) -> String {
    format!(
        "MCP server \"{name}\" is registered, but no loaded extension connects MCP servers; \
         another extension may have replaced the built-in MCP support"
    )
}

impl super::AgentSession {
    /// A server an extension registered while the session runs: its owner connects it and
    /// the session takes the owner's tools from now on. Without an owner (MCP off) nothing
    /// connects it: pi's report is returned unless an extension handles `mcp_servers_change`
    /// (it may connect servers itself).
    pub fn register_external_server(
        &self,
        spec: McpServerSpec,
    ) -> Result<Option<String>, ExternalError> {
        let Some(owner) = self.inner.services.external_servers.clone() else {
            let handled = self
                .inner
                .services
                .extensions
                .has_handlers("mcp_servers_change");
            return Ok((!handled).then(|| unconnected_text(&spec.name)));
        };
        let tools = owner.register(spec)?;
        let codemode = owner.activates_codemode() && tools.wants_codemode();
        self.set_external(Some(tools));
        if codemode {
            self.activate_codemode();
        }
        Ok(None)
    }

    /// Closes a server an extension registered (nothing without an owner).
    pub fn unregister_external_server(&self, name: &str, extension_path: &str) {
        if let Some(owner) = &self.inner.services.external_servers {
            owner.unregister(name, extension_path);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::agent_session::{AgentSession, AgentSessionConfig};

    struct NoTools;

    impl ExternalTools for NoTools {
        fn tool_source(&self) -> ToolSource {
            Arc::new(Vec::new)
        }
        fn before_prompt(&self) -> BoxFuture<'_, ()> {
            Box::pin(async {})
        }
        fn expand_command<'a>(
            &'a self,
            _text: &'a str,
        ) -> BoxFuture<'a, Option<Result<String, ExternalError>>> {
            Box::pin(async { None })
        }
    }

    /// Records what it is asked; refuses names starting with `bad`.
    #[derive(Default)]
    struct Owner(Mutex<Vec<String>>);

    impl ExternalServers for Owner {
        fn register(&self, spec: McpServerSpec) -> Result<Arc<dyn ExternalTools>, ExternalError> {
            if spec.name.starts_with("bad") {
                return Err(format!("Invalid MCP server {}", spec.name).into());
            }
            self.0.lock().unwrap().push(format!("+{}", spec.name));
            Ok(Arc::new(NoTools))
        }
        fn unregister(&self, name: &str, extension_path: &str) {
            self.0
                .lock()
                .unwrap()
                .push(format!("-{name} {extension_path}"));
        }
    }

    fn spec(name: &str) -> McpServerSpec {
        McpServerSpec {
            name: name.into(),
            config: serde_json::json!({"command": "x"}),
            extension_path: "/e.ts".into(),
        }
    }

    #[tokio::test]
    async fn without_an_owner_a_registration_is_reported_unless_an_extension_handles_it() {
        let session = AgentSession::new(AgentSessionConfig::new("/tmp"));
        let told = session.register_external_server(spec("jira")).unwrap();
        assert_eq!(told, Some(unconnected_text("jira")));
        assert!(told
            .unwrap()
            .starts_with("MCP server \"jira\" is registered, but no loaded"));
        let mut config = AgentSessionConfig::new("/tmp");
        let mut connector = rho_extension_host::Extension::new("/connector.ts");
        connector.on(
            "mcp_servers_change",
            Arc::new(|_, _| Box::pin(async { Ok(None) })),
        );
        config.extensions = vec![connector];
        let handled = AgentSession::new(config)
            .register_external_server(spec("jira"))
            .unwrap();
        assert_eq!(handled, None);
        assert!(session.external().is_none());
    }

    #[tokio::test]
    async fn the_owner_takes_registrations_and_the_session_its_tools() {
        let owner = Arc::new(Owner::default());
        let mut config = AgentSessionConfig::new("/tmp");
        config.external_servers = Some(owner.clone());
        let session = AgentSession::new(config);
        assert!(session.external().is_none());
        assert_eq!(
            session.register_external_server(spec("jira")).unwrap(),
            None
        );
        assert!(session.external().is_some());
        let refused = session.register_external_server(spec("bad"));
        assert_eq!(refused.unwrap_err().to_string(), "Invalid MCP server bad");
        session.unregister_external_server("jira", "/e.ts");
        assert_eq!(*owner.0.lock().unwrap(), ["+jira", "-jira /e.ts"]);
    }
}
