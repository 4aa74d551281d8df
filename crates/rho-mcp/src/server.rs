//! One configured server: its state (connecting, connected, failed, disconnected), its listed
//! tools and prompts, and calls with the configured timeout (reset by progress) and abort.
//! A dropped connection shows as disconnected and is reconnected by the next call.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientRequest,
    GetPromptRequestParams, ReadResourceRequestParams,
};
use rmcp::service::PeerRequestOptions;
use serde_json::Value;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::config::{Exposure, ServerConfig};
use crate::connection::{connect, lock, Connection, Observer, ProgressFn};
use crate::error::{ConnectError, RequestError};
use crate::log::McpLog;
use crate::naming::server_tool_names;
use crate::process::CommandHook;

/// Where a server stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerState {
    Disabled,
    Connecting,
    Connected,
    Failed,
    Disconnected,
    /// An OAuth server without a usable token: the user has to sign in.
    NeedsAuth,
}

impl ServerState {
    /// The wire/display name.
    pub fn as_str(self) -> &'static str {
        match self {
            ServerState::Disabled => "disabled",
            ServerState::Connecting => "connecting",
            ServerState::Connected => "connected",
            ServerState::Failed => "failed",
            ServerState::Disconnected => "disconnected",
            ServerState::NeedsAuth => "needs-auth",
        }
    }
}

/// A tool a server listed, with its model-facing name.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedTool {
    pub name: String,
    pub tool: String,
    pub description: String,
    pub parameters: Value,
    pub annotations: Option<Value>,
    pub exposure: Exposure,
}

/// A prompt a server listed.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedPrompt {
    pub name: String,
    pub description: String,
    pub arguments: Vec<(String, bool)>,
}

#[derive(Default)]
struct Snapshot {
    state: Option<ServerState>,
    error: Option<String>,
    tools: Vec<ListedTool>,
    prompts: Vec<ListedPrompt>,
    has_resources: bool,
    instructions: Option<String>,
    pid: Option<i32>,
    /// The server's last `WWW-Authenticate` challenge, for the next sign-in.
    challenge: Option<String>,
}

/// Settings every server shares.
#[derive(Clone)]
pub struct ServerEnv {
    pub cwd: PathBuf,
    pub hook: Option<CommandHook>,
    pub log: Arc<McpLog>,
    /// Where OAuth servers' tokens are kept (`<agent dir>/mcp-auth.json`).
    pub auth: crate::oauth::store::McpAuthStore,
}

/// A server and its connection.
pub struct Server {
    pub config: ServerConfig,
    /// Starts as the config says; `/mcp` turns it on and off.
    enabled: std::sync::atomic::AtomicBool,
    env: ServerEnv,
    snap: Mutex<Snapshot>,
    conn: tokio::sync::Mutex<Option<Arc<Connection>>>,
    /// Cancelled by [`Server::stop`], so a connect in progress (which holds `conn` for up to
    /// the server's timeout) gives up at once; replaced by a fresh token each time.
    connecting: Mutex<CancellationToken>,
    /// Set by [`Server::close`]: the session is ending, nothing connects any more.
    closed: std::sync::atomic::AtomicBool,
    changed: watch::Sender<u64>,
    progress: Arc<Mutex<HashMap<rmcp::model::ProgressToken, ProgressFn>>>,
    weak: Weak<Server>,
}

impl Server {
    /// A server that has not connected yet.
    pub fn new(config: ServerConfig, env: ServerEnv) -> Arc<Server> {
        let state = if config.enabled {
            ServerState::Connecting
        } else {
            ServerState::Disabled
        };
        Arc::new_cyclic(|weak| Server {
            enabled: config.enabled.into(),
            config,
            env,
            snap: Mutex::new(Snapshot {
                state: Some(state),
                ..Default::default()
            }),
            conn: tokio::sync::Mutex::new(None),
            connecting: Mutex::new(CancellationToken::new()),
            closed: false.into(),
            changed: watch::channel(0).0,
            progress: Arc::default(),
            weak: weak.clone(),
        })
    }

    pub fn name(&self) -> &str {
        &self.config.name
    }

    /// Whether the server is on (as configured, or as `/mcp` last set it).
    pub fn enabled(&self) -> bool {
        self.enabled.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Turns the server on (connecting in the background) or off (stopping it).
    pub async fn set_enabled(self: &Arc<Self>, on: bool) {
        self.enabled.store(on, std::sync::atomic::Ordering::Release);
        if on {
            self.set(|s| s.state = Some(ServerState::Connecting));
            let me = self.clone();
            tokio::spawn(async move {
                let _ = me.client().await;
            });
        } else {
            // Disabled at once, before the (slow) stop: an enable while the old process is
            // still being stopped must not be overwritten when that stop ends.
            self.set(|s| {
                s.state = Some(ServerState::Disabled);
                s.tools.clear();
                s.error = None;
            });
            self.stop().await;
        }
    }

    /// The last `WWW-Authenticate` challenge of an OAuth server.
    pub fn challenge(&self) -> Option<String> {
        lock(&self.snap).challenge.clone()
    }

    /// After the stored credentials were deleted: disconnected, needing sign-in.
    pub async fn signed_out(&self) {
        self.stop().await;
        self.set(|s| {
            s.state = Some(ServerState::NeedsAuth);
            s.tools.clear();
            s.error = None;
        });
    }

    pub fn state(&self) -> ServerState {
        lock(&self.snap).state.unwrap_or(ServerState::Connecting)
    }

    pub fn error(&self) -> Option<String> {
        lock(&self.snap).error.clone()
    }

    pub fn tools(&self) -> Vec<ListedTool> {
        lock(&self.snap).tools.clone()
    }

    pub fn prompts(&self) -> Vec<ListedPrompt> {
        lock(&self.snap).prompts.clone()
    }

    pub fn has_resources(&self) -> bool {
        lock(&self.snap).has_resources
    }

    /// The process id of a connected stdio server (its process group id too).
    pub fn pid(&self) -> Option<i32> {
        lock(&self.snap).pid
    }

    pub fn instructions(&self) -> Option<String> {
        lock(&self.snap).instructions.clone()
    }

    /// Fires on every change of state or tool list.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    fn set(&self, f: impl FnOnce(&mut Snapshot)) {
        f(&mut lock(&self.snap));
        self.changed.send_modify(|n| *n += 1);
    }

    /// Resolves once the server left `connecting`.
    pub async fn settled(&self) {
        let mut rx = self.subscribe();
        let _ = rx
            .wait_for(|_| self.state() != ServerState::Connecting)
            .await;
    }

    /// The live connection, connecting or reconnecting as needed.
    pub async fn client(&self) -> Result<Arc<Connection>, RequestError> {
        if !self.enabled() {
            return Err(RequestError::Disabled(self.name().to_string()));
        }
        // Taken before waiting for the slot: a stop that comes while this call waits ends it too.
        let stopped = lock(&self.connecting).clone();
        let mut slot = self.conn.lock().await;
        let live = self.state() == ServerState::Connected;
        if let Some(c) = slot.as_ref().filter(|c| live && !c.is_closed()) {
            return Ok(c.clone());
        }
        if let Some(old) = slot.take() {
            old.stop().await;
        }
        self.set(|s| s.state = Some(ServerState::Connecting));
        let opened = if self.closed.load(std::sync::atomic::Ordering::Acquire) {
            Err(ConnectError::Stopped)
        } else {
            tokio::select! {
                opened = self.open() => opened,
                () = stopped.cancelled() => Err(ConnectError::Stopped),
            }
        };
        match opened {
            Ok(c) => {
                *slot = Some(c.clone());
                Ok(c)
            }
            Err(e) => {
                self.set(|s| match &e {
                    ConnectError::NeedsAuth { challenge, .. } => {
                        s.state = Some(ServerState::NeedsAuth);
                        s.challenge = Some(challenge.clone());
                        s.error = None;
                        s.tools.clear();
                    }
                    _ => {
                        s.state = Some(ServerState::Failed);
                        s.error = Some(e.to_string());
                    }
                });
                Err(RequestError::NotConnected {
                    server: self.name().to_string(),
                    source: Box::new(e),
                })
            }
        }
    }

    async fn open(&self) -> Result<Arc<Connection>, ConnectError> {
        let weak = self.weak.clone();
        let observer = Observer {
            server: self.config.name.clone(),
            log: self.env.log.clone(),
            progress: self.progress.clone(),
            tools_changed: Arc::new(move || {
                if let Some(server) = weak.upgrade() {
                    tokio::spawn(async move { server.refresh_tools().await });
                }
            }),
        };
        let conn = Arc::new(
            connect(
                &self.config,
                &self.env.cwd,
                self.env.hook.as_ref(),
                &self.env.auth,
                observer,
            )
            .await?,
        );
        let tools = self.list_tools(&conn).await?;
        let caps = conn
            .service
            .peer_info()
            .map(|i| i.capabilities.clone())
            .unwrap_or_default();
        let prompts = if caps.prompts.is_some() {
            list_prompts(&conn).await
        } else {
            Vec::new()
        };
        let instructions = conn.instructions();
        let pid = conn.process.as_ref().and_then(|p| p.pid());
        self.set(|s| {
            s.pid = pid;
            s.state = Some(ServerState::Connected);
            s.error = None;
            s.tools = tools;
            s.prompts = prompts;
            s.has_resources = caps.resources.is_some();
            s.instructions = instructions;
            s.challenge = None;
        });
        self.watch_exit(&conn);
        Ok(conn)
    }

    /// Marks the server disconnected when its process exits, unless a newer process has
    /// taken its place (a reconnect or an enable while the old one was still stopping).
    fn watch_exit(&self, conn: &Arc<Connection>) {
        let Some(process) = conn.process.clone() else {
            return;
        };
        let pid = process.pid();
        let weak = self.weak.clone();
        let tail = conn.stderr_tail.clone();
        tokio::spawn(async move {
            process.wait().await;
            let Some(server) = weak.upgrade() else {
                return;
            };
            let last = lock(&tail).last().cloned().unwrap_or_default();
            server.set(|s| {
                if s.state == Some(ServerState::Connected) && s.pid == pid {
                    s.state = Some(ServerState::Disconnected);
                    s.error = Some(
                        format!("the server process exited {last}")
                            .trim()
                            .to_string(),
                    );
                }
            });
        });
    }

    async fn list_tools(&self, conn: &Connection) -> Result<Vec<ListedTool>, ConnectError> {
        let listed = conn
            .service
            .peer()
            .list_all_tools()
            .await
            .map_err(ConnectError::ListTools)?;
        let raw: Vec<Value> = listed
            .iter()
            .filter_map(|t| serde_json::to_value(t).ok())
            .collect();
        let names: Vec<String> = raw
            .iter()
            .map(|t| {
                t.get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            })
            .collect();
        let model_names = server_tool_names(&self.config.name, &names, &|_| false);
        Ok(raw
            .iter()
            .zip(names.iter().zip(model_names))
            .map(|(t, (tool, name))| listed_tool(&self.config, t, tool, name))
            .collect())
    }

    /// Re-reads the tool list after `notifications/tools/list_changed`.
    pub async fn refresh_tools(&self) {
        let conn = self.conn.lock().await.clone();
        let Some(conn) = conn else {
            return;
        };
        if let Ok(tools) = self.list_tools(&conn).await {
            self.set(|s| s.tools = tools);
        }
    }

    /// Calls a tool; the timeout restarts on progress, `cancel` ends the call at once.
    pub async fn call_tool(
        &self,
        tool: &str,
        args: Value,
        cancel: CancellationToken,
        progress: ProgressFn,
    ) -> Result<Value, RequestError> {
        let conn = self.client().await?;
        let mut params = CallToolRequestParams::new(tool.to_string());
        if let Value::Object(map) = args {
            params = params.with_arguments(map);
        }
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        self.request(&conn, request, cancel, Some(progress)).await
    }

    /// Reads a resource.
    pub async fn read_resource(
        &self,
        uri: &str,
        cancel: CancellationToken,
    ) -> Result<Value, RequestError> {
        let conn = self.client().await?;
        let request = ClientRequest::ReadResourceRequest(rmcp::model::ReadResourceRequest::new(
            ReadResourceRequestParams::new(uri.to_string()),
        ));
        self.request(&conn, request, cancel, None).await
    }

    /// Lists resources (`templates` for resource templates), one page.
    pub async fn list_resources(
        &self,
        templates: bool,
        cursor: Option<String>,
    ) -> Result<Value, RequestError> {
        let conn = self.client().await?;
        let params = Some(rmcp::model::PaginatedRequestParams::default().with_cursor(cursor));
        let peer = conn.service.peer();
        let result = if templates {
            peer.list_resource_templates(params).await.and_then(|r| {
                serde_json::to_value(r).map_err(|_| rmcp::ServiceError::UnexpectedResponse)
            })
        } else {
            peer.list_resources(params).await.and_then(|r| {
                serde_json::to_value(r).map_err(|_| rmcp::ServiceError::UnexpectedResponse)
            })
        };
        result.map_err(|e| RequestError::Service(Box::new(e)))
    }

    /// Gets a prompt with its arguments.
    pub async fn get_prompt(
        &self,
        name: &str,
        args: serde_json::Map<String, Value>,
    ) -> Result<Value, RequestError> {
        let conn = self.client().await?;
        let mut params = GetPromptRequestParams::new(name.to_string());
        if !args.is_empty() {
            params = params.with_arguments(args);
        }
        let request = ClientRequest::GetPromptRequest(rmcp::model::GetPromptRequest::new(params));
        self.request(&conn, request, CancellationToken::new(), None)
            .await
    }

    async fn request(
        &self,
        conn: &Connection,
        request: ClientRequest,
        cancel: CancellationToken,
        progress: Option<ProgressFn>,
    ) -> Result<Value, RequestError> {
        let timeout = Duration::from_secs_f64(self.config.timeout_secs);
        let peer = conn.service.peer().clone();
        let options = PeerRequestOptions::with_timeout(timeout).reset_timeout_on_progress();
        let handle = peer
            .send_cancellable_request(request, options)
            .await
            .map_err(|e| self.failure(e))?;
        let (id, token) = (handle.id.clone(), handle.progress_token.clone());
        if let Some(p) = progress {
            lock(&self.progress).insert(token.clone(), p);
        }
        let outcome = tokio::select! {
            r = handle.await_response() => Some(r),
            _ = cancel.cancelled() => None,
        };
        lock(&self.progress).remove(&token);
        match outcome {
            None => {
                let _ = peer
                    .notify_cancelled(CancelledNotificationParam::new(
                        Some(id),
                        Some("aborted".into()),
                    ))
                    .await;
                Err(RequestError::Aborted)
            }
            Some(Ok(result)) => serde_json::to_value(result).map_err(RequestError::Json),
            Some(Err(rmcp::ServiceError::Timeout { .. })) => Err(RequestError::TimedOut {
                server: self.name().to_string(),
                secs: self.config.timeout_secs,
            }),
            Some(Err(e)) => Err(self.failure(e)),
        }
    }

    /// The request's error; a closed transport marks the server disconnected.
    fn failure(&self, e: rmcp::ServiceError) -> RequestError {
        let closed = self
            .conn
            .try_lock()
            .ok()
            .and_then(|c| c.as_ref().map(|c| c.is_closed()))
            .unwrap_or(false);
        if closed {
            self.set(|s| {
                s.state = Some(ServerState::Disconnected);
                s.error = Some(e.to_string());
            });
            return RequestError::Disconnected {
                server: self.name().to_string(),
                source: Box::new(e),
            };
        }
        RequestError::Service(Box::new(e))
    }

    /// Stops the server for good (the session ends): later calls do not connect again.
    pub async fn close(&self) {
        self.closed
            .store(true, std::sync::atomic::Ordering::Release);
        self.stop().await;
    }

    /// Stops the connection (stdio: stdin, SIGTERM, SIGKILL to the group); a connect in
    /// progress gives up at once and its process is killed.
    pub async fn stop(&self) {
        {
            let mut connecting = lock(&self.connecting);
            connecting.cancel();
            *connecting = CancellationToken::new();
        }
        let conn = self.conn.lock().await.take();
        if let Some(c) = conn {
            c.stop().await;
        }
    }
}

fn listed_tool(config: &ServerConfig, t: &Value, tool: &str, name: String) -> ListedTool {
    let title = t
        .get("title")
        .or_else(|| t.get("annotations").and_then(|a| a.get("title")))
        .and_then(Value::as_str);
    let description = t
        .get("description")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .or(title)
        .map(str::to_string)
        .unwrap_or_else(|| format!("MCP tool {tool} from server {}", config.name));
    let mut parameters = t.get("inputSchema").cloned().unwrap_or(Value::Null);
    if !parameters.is_object() {
        parameters = serde_json::json!({});
    }
    if let Value::Object(p) = &mut parameters {
        p.entry("type").or_insert_with(|| "object".into());
        p.entry("properties")
            .or_insert_with(|| serde_json::json!({}));
    }
    let hints: serde_json::Map<String, Value> = [
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ]
    .iter()
    .filter_map(|h| {
        t.get("annotations")
            .and_then(|a| a.get(*h))
            .filter(|v| v.is_boolean())
            .map(|v| (h.to_string(), v.clone()))
    })
    .collect();
    ListedTool {
        name,
        tool: tool.to_string(),
        description,
        parameters,
        annotations: (!hints.is_empty()).then_some(Value::Object(hints)),
        exposure: config.tool_exposure(tool),
    }
}

async fn list_prompts(conn: &Connection) -> Vec<ListedPrompt> {
    let Ok(prompts) = conn.service.peer().list_all_prompts().await else {
        return Vec::new();
    };
    prompts
        .iter()
        .filter_map(|p| serde_json::to_value(p).ok())
        .map(|p| ListedPrompt {
            name: p
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            description: p
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            arguments: p
                .get("arguments")
                .and_then(Value::as_array)
                .map(|args| {
                    args.iter()
                        .map(|a| {
                            (
                                a.get("name")
                                    .and_then(Value::as_str)
                                    .unwrap_or_default()
                                    .to_string(),
                                a.get("required").and_then(Value::as_bool).unwrap_or(false),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect()
}
