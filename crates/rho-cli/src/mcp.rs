//! MCP wiring: the session's servers (rho-mcp's manager as the session's external tools:
//! mcp.json's and those extensions register), `--no-mcp`, `mcp__` patterns in `--tools`, a
//! restart at /reload, shutdown at exit and `rho mcp login|logout` (the other `rho mcp`
//! commands are in `mcp_cli`). With no server configured or registered nothing MCP runs: no
//! manager, no task, no process.

use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use rho_core::agent_session::{ExternalError, ExternalServers, ExternalTools};
use rho_mcp::{McpManager, McpOptions, ServerEnv};
use rho_protocol::extension::McpServerSpec;

use crate::args::Args;

/// The running manager (replaced by /reload).
static MANAGER: Mutex<Option<Arc<McpManager>>> = Mutex::new(None);

fn manager() -> Option<Arc<McpManager>> {
    MANAGER.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

fn set_manager(manager: Option<Arc<McpManager>>) -> Option<Arc<McpManager>> {
    let mut current = MANAGER.lock().unwrap_or_else(|p| p.into_inner());
    std::mem::replace(&mut *current, manager)
}

struct External(Arc<McpManager>);

impl ExternalTools for External {
    fn tool_source(&self) -> rho_agent::ToolSource {
        self.0.tool_source()
    }
    fn before_prompt(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.0.before_prompt())
    }
    fn expand_command<'a>(
        &'a self,
        text: &'a str,
    ) -> BoxFuture<'a, Option<Result<String, ExternalError>>> {
        Box::pin(async move {
            let expanded = self.0.expand_command(text).await?;
            Some(expanded.map_err(ExternalError::from))
        })
    }
    fn status(&self) -> Option<serde_json::Value> {
        Some(self.0.status()["servers"].clone())
    }
    fn script_tools(&self) -> Vec<rho_codemode::Callable> {
        self.0
            .script_tools()
            .into_iter()
            .map(|tool| {
                let server = tool.server();
                let description = server.config.summary().map(str::to_string).or_else(|| {
                    server
                        .instructions()
                        .and_then(|i| i.trim().lines().next().map(str::to_string))
                });
                let namespace = rho_codemode::Namespace {
                    name: rho_mcp::naming::namespace(server.name()),
                    aliases: vec![server.name().to_string()],
                    description,
                    instructions: server.instructions(),
                };
                rho_codemode::Callable {
                    deferred: tool.listed.exposure == rho_mcp::Exposure::Deferred,
                    tool,
                    namespace: Some(namespace),
                    output_schema: Some(rho_mcp::tool::script_result_schema()),
                }
            })
            .collect()
    }
    fn wants_codemode(&self) -> bool {
        self.0.wants_codemode()
    }
    fn wait_for(&self, words: Option<Vec<String>>) -> BoxFuture<'static, ()> {
        let manager = self.0.clone();
        Box::pin(async move { manager.wait_for(words.as_deref()).await })
    }
}

/// What every server of a session shares: the cwd, `mcp.log`, `mcp-auth.json`.
pub fn server_env(agent_dir: &Path, cwd: &Path) -> ServerEnv {
    ServerEnv {
        cwd: cwd.to_path_buf(),
        hook: None,
        log: Arc::new(rho_mcp::log::McpLog::new(
            Some(agent_dir.join("mcp.log")),
            rho_session::time::now_iso,
        )),
        auth: rho_mcp::McpAuthStore::new(agent_dir),
    }
}

/// What MCP start-up needs besides the flags: the MCP servers the loaded extensions
/// registered, and whether one of them handles `mcp_servers_change` (it may connect them
/// itself, so they are not reported when rho's MCP support is off).
pub struct ExtensionServers {
    pub servers: Vec<McpServerSpec>,
    pub handled: bool,
}

impl ExtensionServers {
    /// What `extensions` registered while loading.
    pub fn of(extensions: &[rho_extension_host::Extension]) -> ExtensionServers {
        ExtensionServers {
            servers: extensions
                .iter()
                .flat_map(|e| e.mcp_servers().iter().cloned())
                .collect(),
            handled: extensions
                .iter()
                .any(|e| e.handlers_for("mcp_servers_change").next().is_some()),
        }
    }
}

/// Starts the configured and registered servers in the background; `None` when MCP is off
/// (`on`: pi's `builtin:mcp` is, see `extensions::builtin_on`) or there is no server.
pub fn start(
    args: &Args,
    (agent_dir, cwd): (&Path, &Path),
    (project_trusted, on): (bool, bool),
    registered: ExtensionServers,
    warnings: &mut Vec<String>,
) -> Option<Arc<dyn ExternalTools>> {
    if !on {
        if !registered.handled {
            let unconnected = registered.servers.iter();
            warnings
                .extend(unconnected.map(|s| rho_core::agent_session::unconnected_text(&s.name)));
        }
        return None;
    }
    let config = rho_mcp::load_config_trusted(agent_dir, cwd, project_trusted);
    warnings.extend(config.errors.iter().cloned());
    let registered: Vec<rho_mcp::ServerConfig> = registered
        .servers
        .iter()
        .filter_map(|spec| {
            validated(spec)
                .map_err(|e| warnings.push(e.to_string()))
                .ok()
        })
        .collect();
    if config.is_empty() && registered.is_empty() {
        return None;
    }
    let manager = McpManager::start(config, options(tool_patterns(args), agent_dir, cwd));
    for server in registered {
        manager.register(server);
    }
    set_manager(Some(manager.clone()));
    Some(Arc::new(External(manager)))
}

fn options(tool_patterns: Option<Vec<String>>, agent_dir: &Path, cwd: &Path) -> McpOptions {
    McpOptions {
        env: server_env(agent_dir, cwd),
        tool_patterns,
    }
}

/// The `--tools` names that pick MCP tools (`mcp__…`), if any.
fn tool_patterns(args: &Args) -> Option<Vec<String>> {
    args.tools.as_ref().and_then(|t| {
        let mcp: Vec<String> = t
            .iter()
            .filter(|n| n.starts_with("mcp__"))
            .cloned()
            .collect();
        (!mcp.is_empty()).then_some(mcp)
    })
}

/// A registered server's config checked by mcp.json's parser; the error is pi's text.
fn validated(spec: &McpServerSpec) -> Result<rho_mcp::ServerConfig, ExternalError> {
    rho_mcp::config::registered(&spec.name, &spec.config, &spec.extension_path).map_err(|e| {
        format!(
            "Invalid MCP server registered by extension \"{}\": {e}",
            spec.extension_path
        )
        .into()
    })
}

/// Where servers extensions register while the session runs go: the running manager, or one
/// started for the first registration. `on`: `None` when MCP is off, else whether a server
/// that wants the `codemode` tool may turn it on.
pub fn owner(
    args: &Args,
    (agent_dir, cwd): (&Path, &Path),
    (project_trusted, on): (bool, Option<bool>),
) -> Option<Arc<dyn ExternalServers>> {
    let codemode = on?;
    Some(Arc::new(Owner {
        tool_patterns: tool_patterns(args),
        dirs: (agent_dir.to_path_buf(), cwd.to_path_buf()),
        project_trusted,
        codemode,
    }))
}

struct Owner {
    /// `--tools`' MCP names, for the manager the first registration starts.
    tool_patterns: Option<Vec<String>>,
    dirs: (std::path::PathBuf, std::path::PathBuf),
    project_trusted: bool,
    codemode: bool,
}

impl ExternalServers for Owner {
    fn register(&self, spec: McpServerSpec) -> Result<Arc<dyn ExternalTools>, ExternalError> {
        let config = validated(&spec)?;
        let mut current = MANAGER.lock().unwrap_or_else(|p| p.into_inner());
        let manager = current
            .get_or_insert_with(|| {
                let (agent_dir, cwd) = (&self.dirs.0, &self.dirs.1);
                let options = options(self.tool_patterns.clone(), agent_dir, cwd);
                // mcp.json had no server at start, but its `autoEnableCodemode` still holds
                // for the servers extensions register.
                let configured = rho_mcp::load_config_trusted(agent_dir, cwd, self.project_trusted);
                let config = rho_mcp::McpConfig {
                    auto_enable_codemode: configured.auto_enable_codemode,
                    ..Default::default()
                };
                McpManager::start(config, options)
            })
            .clone();
        drop(current);
        manager.register(config);
        Ok(Arc::new(External(manager)))
    }

    fn activates_codemode(&self) -> bool {
        self.codemode
    }

    fn unregister(&self, name: &str, extension_path: &str) {
        if let Some(manager) = manager() {
            manager.unregister(name, Path::new(extension_path));
        }
    }
}

/// /reload: stops the running servers, then starts what the configuration files and the
/// reloaded extensions say now (added, removed and changed servers take effect).
pub async fn restart(
    args: &Args,
    dirs: (&Path, &Path),
    switches: (bool, bool),
    registered: ExtensionServers,
    warnings: &mut Vec<String>,
) -> Option<Arc<dyn ExternalTools>> {
    shutdown().await;
    start(args, dirs, switches, registered, warnings)
}

/// The running manager, for `/mcp`.
pub fn running() -> Option<Arc<McpManager>> {
    manager()
}

/// Stops every server (stdin, SIGTERM, SIGKILL to each group).
pub async fn shutdown() {
    if let Some(m) = set_manager(None) {
        m.shutdown().await;
    }
}

/// `rho mcp login <server>` / `rho mcp logout <server>` (`args` after the verb): sign in to an
/// OAuth server (the browser opens its authorization page; a pasted redirect URL works too)
/// or delete its tokens. `-l` requires the server to be defined in the project.
pub fn sign_in_command(verb: &str, args: &[String], (agent_dir, cwd): (&Path, &Path)) -> ExitCode {
    let local = args.iter().any(|a| a == "-l" || a == "--local");
    let browser = !args.iter().any(|a| a == "--no-browser");
    let names: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let [name] = names.as_slice() else {
        return fail(format!(
            "Usage: rho mcp {verb} <server> [-l]\nUse \"rho mcp --help\" for usage."
        ));
    };
    let trusted = crate::project::Project::resolve(None, agent_dir, cwd, &mut Vec::new()).trusted();
    let config = rho_mcp::load_config_trusted(agent_dir, cwd, trusted);
    let Some(server) = config.servers.iter().find(|s| s.name == **name) else {
        let known: Vec<&str> = config.servers.iter().map(|s| s.name.as_str()).collect();
        let known = if known.is_empty() {
            "none".to_string()
        } else {
            known.join(", ")
        };
        return fail(format!(
            "No MCP server named \"{name}\". Configured: {known}."
        ));
    };
    if local && server.scope != rho_mcp::config::Scope::Project {
        return fail(format!(
            "MCP server \"{name}\" is defined in {}, not in the project; omit --local.",
            server.source.display()
        ));
    }
    let Some((url, _)) = rho_mcp::oauth::oauth_target(server) else {
        return fail(rho_mcp::oauth::SignInError::NotOAuth(server.name.clone()));
    };
    let store = rho_mcp::McpAuthStore::new(agent_dir);
    if verb == "logout" {
        return match store.remove(name, url) {
            Ok(true) => {
                println!("Signed out of MCP server \"{name}\".");
                ExitCode::SUCCESS
            }
            Ok(false) => {
                println!("No stored credentials for MCP server \"{name}\".");
                ExitCode::SUCCESS
            }
            Err(e) => fail(e),
        };
    }
    let server = server.clone();
    let signed = crate::login_cli::in_terminal(name, browser, move |ui, cancel| {
        Box::pin(async move { rho_mcp::oauth::sign_in(&server, &store, ui, None, &cancel).await })
    });
    match signed {
        Ok(Ok(())) => {
            println!(
                "Signed in to MCP server \"{name}\". Credentials saved to {}",
                agent_dir.join("mcp-auth.json").display()
            );
            ExitCode::SUCCESS
        }
        Ok(Err(e)) => fail(e),
        Err(e) => fail(e),
    }
}

fn fail(e: impl std::fmt::Display) -> ExitCode {
    eprintln!("Error: {e}");
    ExitCode::FAILURE
}
