//! MCP wiring: the session's servers (rho-mcp's manager as the session's external tools),
//! `--no-mcp`, `mcp__` patterns in `--tools`, a restart at /reload, shutdown at exit and
//! `rho mcp list|add|remove`.
//! With no server configured nothing MCP runs: no manager, no task, no process.

use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use rho_core::agent_session::{ExternalError, ExternalTools};
use rho_mcp::{McpManager, McpOptions, ServerEnv};

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
fn server_env(agent_dir: &Path, cwd: &Path) -> ServerEnv {
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

/// Starts the configured servers in the background; `None` when MCP is off or unconfigured.
pub fn start(
    args: &Args,
    agent_dir: &Path,
    cwd: &Path,
    project_trusted: bool,
    warnings: &mut Vec<String>,
) -> Option<Arc<dyn ExternalTools>> {
    if args.no_mcp {
        return None;
    }
    let config = rho_mcp::load_config_trusted(agent_dir, cwd, project_trusted);
    warnings.extend(config.errors.iter().cloned());
    if config.is_empty() {
        return None;
    }
    let patterns = args.tools.as_ref().and_then(|t| {
        let mcp: Vec<String> = t
            .iter()
            .filter(|n| n.starts_with("mcp__"))
            .cloned()
            .collect();
        (!mcp.is_empty()).then_some(mcp)
    });
    let manager = McpManager::start(
        config,
        McpOptions {
            env: server_env(agent_dir, cwd),
            tool_patterns: patterns,
        },
    );
    set_manager(Some(manager.clone()));
    Some(Arc::new(External(manager)))
}

/// /reload: stops the running servers, then starts what the configuration files say now
/// (added, removed and changed servers take effect).
pub async fn restart(
    args: &Args,
    agent_dir: &Path,
    cwd: &Path,
    project_trusted: bool,
    warnings: &mut Vec<String>,
) -> Option<Arc<dyn ExternalTools>> {
    shutdown().await;
    start(args, agent_dir, cwd, project_trusted, warnings)
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

/// `rho mcp list|add|remove`.
pub fn command(argv: &[String]) -> ExitCode {
    let agent_dir = rho_session::paths::agent_dir();
    let cwd = std::env::current_dir().unwrap_or_default();
    let local = argv.iter().any(|a| a == "-l" || a == "--local");
    let rest: Vec<&String> = argv
        .iter()
        .skip(1)
        .filter(|a| *a != "-l" && *a != "--local")
        .collect();
    let file = if local {
        cwd.join(crate::project::PROJECT_DIR).join("mcp.json")
    } else {
        agent_dir.join("mcp.json")
    };
    match argv.first().map(String::as_str) {
        Some("list") => list(&agent_dir, &cwd),
        Some("add") => add(&file, &rest),
        Some(verb @ ("login" | "logout")) => sign_in_command(verb, &agent_dir, &cwd, local, &rest),
        Some("remove") => match rest.first() {
            Some(name) => match rho_mcp::edit::remove_server(&file, name) {
                Ok(true) => {
                    println!("Removed MCP server \"{name}\" from {}", file.display());
                    ExitCode::SUCCESS
                }
                Ok(false) => {
                    eprintln!("{} does not define MCP server \"{name}\"", file.display());
                    ExitCode::FAILURE
                }
                Err(e) => fail(e),
            },
            None => usage(),
        },
        _ => usage(),
    }
}

fn usage() -> ExitCode {
    eprintln!("Usage: rho mcp list | rho mcp add [-l] <name> (--url <url> | -- <command> [args...]) [--env K=V] [--header K=V] | rho mcp remove [-l] <name> | rho mcp login [-l] <name> [--no-browser] | rho mcp logout [-l] <name>");
    ExitCode::FAILURE
}

fn fail(e: impl std::fmt::Display) -> ExitCode {
    eprintln!("Error: {e}");
    ExitCode::FAILURE
}

fn add(file: &Path, rest: &[&String]) -> ExitCode {
    use rho_mcp::ordered::Json;
    let Some(name) = rest.first() else {
        return usage();
    };
    let mut entry: Vec<(String, Json)> = Vec::new();
    let (mut env, mut headers) = (Vec::new(), Vec::new());
    let mut i = 1;
    while i < rest.len() {
        match rest[i].as_str() {
            "--" => {
                let cmd: Vec<Json> = rest[i + 1..]
                    .iter()
                    .map(|a| Json::String(a.to_string()))
                    .collect();
                let mut it = cmd.into_iter();
                if let Some(c) = it.next() {
                    entry.push(("command".into(), c));
                    let args: Vec<Json> = it.collect();
                    if !args.is_empty() {
                        entry.push(("args".into(), Json::Array(args)));
                    }
                }
                break;
            }
            "--url" if i + 1 < rest.len() => {
                entry.push(("url".into(), Json::String(rest[i + 1].to_string())));
                i += 1;
            }
            flag @ ("--env" | "--header") if i + 1 < rest.len() => {
                let Some((k, v)) = rest[i + 1].split_once('=') else {
                    return fail(format!("{flag} expects KEY=VALUE"));
                };
                let target = if flag == "--env" {
                    &mut env
                } else {
                    &mut headers
                };
                target.push((k.to_string(), Json::String(v.to_string())));
                i += 1;
            }
            other => return fail(format!("unknown option {other}")),
        }
        i += 1;
    }
    if !env.is_empty() {
        entry.push(("env".into(), Json::Object(env)));
    }
    if !headers.is_empty() {
        entry.push(("headers".into(), Json::Object(headers)));
    }
    let entry = Json::Object(entry);
    if let Err(e) =
        rho_mcp::config::validate(name, entry.clone(), file, rho_mcp::config::Scope::User)
    {
        return fail(e);
    }
    match rho_mcp::edit::add_server(file, name, entry) {
        Ok(replaced) => {
            let verb = if replaced { "Updated" } else { "Added" };
            println!("{verb} MCP server \"{name}\" in {}", file.display());
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

/// `rho mcp login <server>` / `rho mcp logout <server>`: sign in to an OAuth server (the
/// browser opens its authorization page; a pasted redirect URL works too) or delete its tokens.
/// `-l` requires the server to be defined in the project.
fn sign_in_command(
    verb: &str,
    agent_dir: &Path,
    cwd: &Path,
    local: bool,
    rest: &[&String],
) -> ExitCode {
    let browser = !rest.iter().any(|a| *a == "--no-browser");
    let Some(name) = rest.iter().find(|a| !a.starts_with('-')) else {
        return usage();
    };
    let config = rho_mcp::load_config(agent_dir, cwd);
    let Some(server) = config
        .servers
        .iter()
        .find(|s| s.name == **name && (!local || s.scope == rho_mcp::config::Scope::Project))
    else {
        return fail(format!("No MCP server named \"{name}\"."));
    };
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

fn list(agent_dir: &Path, cwd: &Path) -> ExitCode {
    let config = rho_mcp::load_config(agent_dir, cwd);
    let mut ok = config.errors.is_empty();
    for e in &config.errors {
        println!("error: {e}");
    }
    if config.is_empty() {
        println!("No MCP servers configured.");
        return if ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    let Ok(runtime) = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    else {
        return fail("cannot start the async runtime");
    };
    let manager = runtime.block_on(async {
        let m = McpManager::start(
            config,
            McpOptions {
                env: server_env(agent_dir, cwd),
                tool_patterns: None,
            },
        );
        m.wait_all().await;
        m
    });
    for s in manager.servers() {
        let state = s.state();
        println!(
            "{} ({}, {}) {}",
            s.name(),
            state.as_str(),
            s.config.exposure.as_str(),
            s.config.source.display()
        );
        if s.enabled() && state != rho_mcp::ServerState::Connected {
            ok = false;
        }
        if let Some(e) = s.error() {
            println!("  error: {e}");
        }
        if state == rho_mcp::ServerState::NeedsAuth {
            println!("  sign in with: rho mcp login {}", s.name());
        }
        for t in s.tools() {
            let mark = if t.exposure != s.config.exposure {
                format!(" [{}]", t.exposure.as_str())
            } else {
                String::new()
            };
            println!("  {}{mark}", t.name);
        }
    }
    runtime.block_on(manager.shutdown());
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
