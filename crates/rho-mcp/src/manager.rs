//! Every configured server of a session: connects them in the background, offers their tools
//! to the agent (direct ones, deferred ones loaded by `tool_search`, the resource tools), lets
//! the first prompt wait up to 10 s for servers with direct tools, expands prompt slash
//! commands and stops every server at the end.

use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures_util::future::{join_all, BoxFuture};
use rho_agent::{AgentTool, ToolSource};
use serde_json::{json, Value};

use crate::config::{pattern_matches, Exposure, McpConfig};
use crate::connection::lock;
use crate::error::{PromptError, RequestError};
use crate::resources::resource_tools;
use crate::search::{SearchSource, ToolSearch};
use crate::server::{ListedTool, Server, ServerEnv, ServerState};
use crate::tool::McpTool;

/// How long the first prompt waits for servers with direct tools.
pub const FIRST_PROMPT_WAIT: Duration = Duration::from_secs(10);

/// Options of a session's MCP servers.
pub struct McpOptions {
    pub env: ServerEnv,
    /// `--tools` entries starting with `mcp__`: only matching MCP tools are kept.
    pub tool_patterns: Option<Vec<String>>,
}

/// The servers of one session: mcp.json's, then those extensions registered.
pub struct McpManager {
    pub(crate) servers: Mutex<Vec<Arc<Server>>>,
    /// What every server shares, for servers extensions register later.
    pub(crate) env: ServerEnv,
    /// Servers extensions registered under a name mcp.json defines, which wins (`/mcp` shows
    /// the override).
    pub(crate) overridden: Mutex<Vec<crate::ServerConfig>>,
    patterns: Option<Vec<String>>,
    loaded: Mutex<Vec<String>>,
    /// Servers no prompt has waited for yet: the configured ones until the first prompt, then
    /// those extensions register.
    pub(crate) unawaited: Mutex<Vec<Arc<Server>>>,
    /// Tool objects per model name, reused while the listing is unchanged.
    pub(crate) cache: Mutex<Vec<Arc<McpTool>>>,
    pub errors: Vec<String>,
    auto_enable_codemode: bool,
    weak: Weak<McpManager>,
}

impl McpManager {
    /// Starts connecting every enabled server in the background. Must run inside tokio.
    pub fn start(config: McpConfig, options: McpOptions) -> Arc<McpManager> {
        let servers: Vec<Arc<Server>> = config
            .servers
            .into_iter()
            .map(|c| Server::new(c, options.env.clone()))
            .collect();
        for s in servers.iter().filter(|s| s.enabled()) {
            connect_in_background(s);
        }
        Arc::new_cyclic(|weak| McpManager {
            servers: Mutex::new(servers.clone()),
            env: options.env,
            overridden: Mutex::new(Vec::new()),
            patterns: options.tool_patterns,
            loaded: Mutex::new(Vec::new()),
            unawaited: Mutex::new(servers),
            cache: Mutex::new(Vec::new()),
            errors: config.errors,
            auto_enable_codemode: config.auto_enable_codemode != Some(false),
            weak: weak.clone(),
        })
    }

    /// The servers now (a registration or unregistration changes the list).
    pub fn servers(&self) -> Vec<Arc<Server>> {
        lock(&self.servers).clone()
    }

    fn allowed(&self, name: &str) -> bool {
        self.patterns
            .as_ref()
            .is_none_or(|p| p.iter().any(|pat| pattern_matches(pat, name)))
    }

    /// Every tool of every connected server, whatever its exposure.
    pub fn listed_tools(&self) -> Vec<(Arc<Server>, ListedTool)> {
        self.servers()
            .iter()
            .filter(|s| s.enabled())
            .flat_map(|s| s.tools().into_iter().map(move |t| (s.clone(), t)))
            .filter(|(_, t)| self.allowed(&t.name))
            .collect()
    }

    /// The tools the model sees now.
    pub fn tools(&self) -> Vec<Arc<dyn AgentTool>> {
        let loaded = lock(&self.loaded).clone();
        let listed = self.listed_tools();
        let mut out: Vec<Arc<dyn AgentTool>> = Vec::new();
        for (server, t) in &listed {
            let declared = t.exposure == Exposure::Direct
                || (t.exposure.is_searchable() && loaded.contains(&t.name));
            if declared {
                out.push(self.tool_object(server, t));
            }
        }
        if self.servers().iter().any(|s| may_defer(s)) {
            if let Some(me) = self.weak.upgrade() {
                out.push(Arc::new(ToolSearch { source: me }));
            }
        }
        let with_resources: Vec<Arc<Server>> = self
            .servers()
            .iter()
            .filter(|s| s.has_resources() && s.config.exposure != Exposure::Hidden)
            .cloned()
            .collect();
        if !with_resources.is_empty() {
            out.extend(
                resource_tools(with_resources)
                    .into_iter()
                    .filter(|r| self.allowed(r.name())),
            );
        }
        out
    }

    /// Every tool a codemode script may call: each connected server's tools but hidden ones,
    /// declared or not (pi: scripts do not depend on the active tool set).
    pub fn script_tools(&self) -> Vec<Arc<McpTool>> {
        self.listed_tools()
            .iter()
            .filter(|(_, t)| t.exposure != Exposure::Hidden)
            .map(|(server, t)| self.mcp_tool(server, t))
            .collect()
    }

    /// Whether the `codemode` tool should be on: some enabled server has `codemode` exposure
    /// (for the server or a tool) and `autoEnableCodemode` is not `false`. Decided from the
    /// configuration, so the tool is there before servers connect.
    pub fn wants_codemode(&self) -> bool {
        self.auto_enable_codemode
            && self
                .servers()
                .iter()
                .any(|s| s.enabled() && has_exposure(s, Exposure::Codemode))
    }

    /// Waits for the servers a script reaches: all of them, or those whose namespace
    /// (`mcp__<server>`) starts one of `words`.
    pub async fn wait_for(&self, words: Option<&[String]>) {
        let named = |s: &Server| {
            let ns = crate::naming::namespace(s.name());
            words.is_none_or(|w| w.iter().any(|w| w.starts_with(&ns)))
        };
        join_all(
            self.servers()
                .iter()
                .filter(|s| s.enabled() && named(s))
                .map(|s| s.settled()),
        )
        .await;
    }

    fn tool_object(&self, server: &Arc<Server>, t: &ListedTool) -> Arc<dyn AgentTool> {
        self.mcp_tool(server, t)
    }

    fn mcp_tool(&self, server: &Arc<Server>, t: &ListedTool) -> Arc<McpTool> {
        let mut cache = lock(&self.cache);
        if let Some(hit) = cache.iter().find(|c| c.listed == *t) {
            return hit.clone();
        }
        let tool = Arc::new(McpTool::new(server.clone(), t.clone()));
        cache.retain(|c| c.listed.name != t.name);
        cache.push(tool.clone());
        tool
    }

    /// The agent's tool source.
    pub fn tool_source(self: &Arc<Self>) -> ToolSource {
        let me = Arc::downgrade(self);
        Arc::new(move || me.upgrade().map(|m| m.tools()).unwrap_or_default())
    }

    /// The first prompt waits at most [`FIRST_PROMPT_WAIT`] for servers with direct tools, and
    /// so does the first prompt after an extension registered one.
    pub async fn before_prompt(&self) {
        let servers = std::mem::take(&mut *lock(&self.unawaited));
        let waits = servers
            .iter()
            .filter(|s| s.enabled() && has_direct(s))
            .map(|s| s.settled());
        let _ = tokio::time::timeout(FIRST_PROMPT_WAIT, join_all(waits)).await;
    }

    /// Waits until every enabled server connected or failed.
    pub async fn wait_all(&self) {
        join_all(
            self.servers()
                .iter()
                .filter(|s| s.enabled())
                .map(|s| s.settled()),
        )
        .await;
    }

    /// State of every server, for `get_state`, `rho mcp list` and `/mcp`.
    pub fn status(&self) -> Value {
        let servers: Vec<Value> = self
            .servers()
            .iter()
            .map(|s| {
                let tools: Vec<Value> = s
                    .tools()
                    .iter()
                    .map(|t| json!({"name": t.name, "tool": t.tool, "exposure": t.exposure.as_str()}))
                    .collect();
                let mut v = json!({
                    "name": s.name(),
                    "state": s.state().as_str(),
                    "exposure": s.config.exposure.as_str(),
                    "source": s.config.source.display().to_string(),
                    "tools": tools,
                    "prompts": s.prompts().iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
                    "resources": s.has_resources(),
                });
                if let Some(e) = s.error() {
                    v["error"] = json!(e);
                }
                if let Some(pid) = s.pid().filter(|_| s.state() == ServerState::Connected) {
                    v["pid"] = json!(pid);
                }
                if s.config.scope == crate::config::Scope::Extension {
                    v["scope"] = json!(s.config.scope.as_str());
                }
                let overrides: Vec<String> = self
                    .overrides(s.name())
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect();
                if !overrides.is_empty() {
                    v["overrides"] = json!(overrides);
                }
                v
            })
            .collect();
        json!({"servers": servers, "errors": self.errors})
    }

    /// `/mcp__<server>__<prompt> args` as prompt slash commands: (name, description).
    pub fn prompt_commands(&self) -> Vec<(String, String)> {
        self.servers()
            .iter()
            .flat_map(|s| {
                s.prompts().into_iter().map(move |p| {
                    (
                        crate::naming::tool_name(s.name(), &p.name, &|_| false),
                        p.description,
                    )
                })
            })
            .collect()
    }

    /// Expands `/mcp__server__prompt args` into the prompt's text; `None` when the text names
    /// no prompt. Positional words fill the prompt's arguments in order (a prompt with one argument
    /// gets the whole text); `key=value` names one.
    pub async fn expand_command(&self, text: &str) -> Option<Result<String, PromptError>> {
        let rest = text.strip_prefix('/')?;
        let (command, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        if !command.starts_with("mcp__") {
            return None;
        }
        let (server, prompt) = self.servers().iter().find_map(|s| {
            s.prompts()
                .into_iter()
                .find(|p| crate::naming::tool_name(s.name(), &p.name, &|_| false) == command)
                .map(|p| (s.clone(), p))
        })?;
        let mut map = serde_json::Map::new();
        let mut positional = prompt.arguments.iter();
        let whole = prompt.arguments.len() == 1 && !args.contains('=') && !args.trim().is_empty();
        if whole {
            map.insert(prompt.arguments[0].0.clone(), json!(args.trim()));
        }
        for word in args.split_whitespace().filter(|_| !whole) {
            match word.split_once('=') {
                Some((k, v)) if prompt.arguments.iter().any(|(n, _)| n == k) => {
                    map.insert(k.to_string(), json!(v));
                }
                _ => {
                    if let Some((name, _)) = positional.find(|(n, _)| !map.contains_key(n)) {
                        map.insert(name.clone(), json!(word));
                    }
                }
            }
        }
        if let Some((missing, _)) = prompt
            .arguments
            .iter()
            .find(|(n, req)| *req && !map.contains_key(n))
        {
            return Some(Err(PromptError::MissingArgument {
                command: command.to_string(),
                argument: missing.clone(),
            }));
        }
        Some(
            server
                .get_prompt(&prompt.name, map)
                .await
                .map(|r| prompt_text(&r))
                .map_err(PromptError::from),
        )
    }

    /// Stops every server for good (stdio: stdin, SIGTERM, SIGKILL to the group); a server
    /// still connecting gives up at once instead of waiting out its timeout.
    pub async fn shutdown(&self) {
        join_all(self.servers().iter().map(|s| s.close())).await;
    }

    /// The server called `name`.
    pub fn server(&self, name: &str) -> Result<Arc<Server>, RequestError> {
        self.servers()
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| RequestError::UnknownServer(name.to_string()))
    }

    /// Reconnects one server by name.
    pub async fn reconnect(&self, name: &str) -> Result<(), RequestError> {
        let server = self.server(name)?;
        server.stop().await;
        server.client().await.map(|_| ())
    }
}

/// Starts connecting `server` without waiting for it.
pub(crate) fn connect_in_background(server: &Arc<Server>) {
    let s = server.clone();
    tokio::spawn(async move {
        let _ = s.client().await;
    });
}

/// Whether an enabled server's config has `deferred` tools, which `tool_search` is for (pi
/// turns it on for them; `codemode` tools are for the codemode tool). Decided from the config,
/// so `tool_search` is declared before the server connects.
fn may_defer(s: &Server) -> bool {
    s.enabled() && has_exposure(s, Exposure::Deferred)
}

fn has_direct(s: &Server) -> bool {
    has_exposure(s, Exposure::Direct)
}

/// Whether the server or one of its `toolExposure` entries has `exposure`.
fn has_exposure(s: &Server, exposure: Exposure) -> bool {
    s.config.exposure == exposure || s.config.tool_exposure.iter().any(|(_, e)| *e == exposure)
}

/// The text of a `GetPromptResult`'s messages, joined by blank lines.
fn prompt_text(result: &Value) -> String {
    result
        .get("messages")
        .and_then(Value::as_array)
        .map(|msgs| {
            msgs.iter()
                .filter_map(|m| {
                    let c = m.get("content")?;
                    c.get("text")
                        .and_then(Value::as_str)
                        .or_else(|| {
                            c.get("resource")
                                .and_then(|r| r.get("text"))
                                .and_then(Value::as_str)
                        })
                        .map(str::to_string)
                })
                .collect::<Vec<_>>()
                .join("\n\n")
        })
        .unwrap_or_default()
}

impl SearchSource for McpManager {
    fn candidates(&self) -> Vec<ListedTool> {
        let loaded = lock(&self.loaded).clone();
        self.listed_tools()
            .into_iter()
            .map(|(_, t)| t)
            .filter(|t| t.exposure.is_searchable() && !loaded.contains(&t.name))
            .collect()
    }

    fn load(&self, names: &[String]) {
        let mut loaded = lock(&self.loaded);
        for n in names {
            if !loaded.contains(n) {
                loaded.push(n.clone());
            }
        }
    }

    fn wait_all(&self) -> BoxFuture<'static, ()> {
        let me = self.weak.upgrade();
        Box::pin(async move {
            if let Some(m) = me {
                McpManager::wait_all(&m).await;
            }
        })
    }
}
