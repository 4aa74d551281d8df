//! One live MCP session over rmcp: a stdio child or a streamable HTTP endpoint. The handler
//! routes progress notifications to the running call, writes log notifications to `mcp.log`
//! and reports `tools/list_changed`.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[allow(deprecated)]
// logging notifications are deprecated (SEP-2577) but servers still send them
use rmcp::model::{
    ClientConfig, Implementation, LoggingMessageNotificationParam, ProgressNotificationParam,
    ProgressToken,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use tokio::io::AsyncBufReadExt;

use crate::config::{ServerConfig, Transport};
use crate::error::{ConnectError, InitializeError};
use crate::log::McpLog;
use crate::process::{build_command, CommandHook, ProcessGroup};
use crate::values::resolve;

/// The least time `initialize` gets, whatever the per-request timeout.
const CONNECT_TIMEOUT_SECS: f64 = 30.0;

/// Receives progress text of a running call.
pub type ProgressFn = Arc<dyn Fn(String) + Send + Sync>;

/// What a connection reports back to its server.
#[derive(Clone)]
pub struct Observer {
    pub server: String,
    pub log: Arc<McpLog>,
    pub progress: Arc<Mutex<HashMap<ProgressToken, ProgressFn>>>,
    pub tools_changed: Arc<dyn Fn() + Send + Sync>,
}

/// rmcp's client handler for one server.
pub struct Handler {
    observer: Observer,
}

impl ClientHandler for Handler {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _ctx: NotificationContext<RoleClient>,
    ) {
        let sink = lock(&self.observer.progress)
            .get(&params.progress_token)
            .cloned();
        if let Some(sink) = sink {
            let total = params.total.map(|t| format!("/{t}")).unwrap_or_default();
            sink(
                params
                    .message
                    .clone()
                    .unwrap_or_else(|| format!("Progress {}{total}", params.progress)),
            );
        }
    }

    #[allow(deprecated)]
    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _ctx: NotificationContext<RoleClient>,
    ) {
        let level = serde_json::to_value(params.level)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let message = match &params.data {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        self.observer.log.write(
            &self.observer.server,
            &level,
            params.logger.as_deref().unwrap_or("-"),
            &message,
        );
    }

    async fn on_tool_list_changed(&self, _ctx: NotificationContext<RoleClient>) {
        (self.observer.tools_changed)();
    }

    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.client_info = Implementation::new("rho", env!("CARGO_PKG_VERSION"));
        info
    }
}

/// A connected server.
pub struct Connection {
    pub service: RunningService<RoleClient, Handler>,
    pub process: Option<Arc<ProcessGroup>>,
    /// The tail of the server's stderr, for error reports.
    pub stderr_tail: Arc<Mutex<Vec<String>>>,
}

impl Connection {
    /// Whether the transport is gone (the process exited, the HTTP session closed).
    pub fn is_closed(&self) -> bool {
        self.service.is_closed() || self.service.peer().is_transport_closed()
    }

    /// The first line of the server's instructions.
    pub fn instructions(&self) -> Option<String> {
        self.service
            .peer_info()
            .and_then(|i| i.instructions.clone())
            .filter(|s| !s.trim().is_empty())
    }

    /// Closes the session; for stdio, stdin first, then SIGTERM and SIGKILL to the group.
    pub async fn stop(&self) {
        self.service.cancellation_token().cancel();
        if let Some(p) = &self.process {
            p.stop().await;
        }
    }
}

/// Connects to `config`, waiting at most its timeout for `initialize`.
pub async fn connect(
    config: &ServerConfig,
    session_cwd: &Path,
    hook: Option<&CommandHook>,
    auth: &crate::oauth::store::McpAuthStore,
    observer: Observer,
) -> Result<Connection, ConnectError> {
    let handler = Handler {
        observer: observer.clone(),
    };
    // Starting a server (npx downloads, Python imports) can take longer than one request.
    let limit = Duration::from_secs_f64(config.timeout_secs.max(CONNECT_TIMEOUT_SECS));
    match &config.transport {
        Transport::Stdio { command, .. } => {
            let cmd = build_command(&config.name, &config.transport, session_cwd, hook)?;
            let (group, pipes) =
                ProcessGroup::spawn(cmd).map_err(|source| ConnectError::Spawn {
                    command: command.clone(),
                    source,
                })?;
            let group = Arc::new(group);
            let tail = Arc::new(Mutex::new(Vec::new()));
            if let Some(stderr) = pipes.stderr {
                spawn_stderr_reader(stderr, observer.clone(), tail.clone());
            }
            let started =
                tokio::time::timeout(limit, handler.serve((pipes.stdout, pipes.stdin))).await;
            let service = match started {
                Ok(Ok(s)) => s,
                failed => {
                    group.stop().await;
                    let reason = match failed {
                        Ok(Err(e)) => InitializeError::Failed(Box::new(e)),
                        _ => InitializeError::TimedOut(limit.as_secs()),
                    };
                    return Err(ConnectError::Stdio {
                        reason,
                        stderr: stderr_text(&tail),
                    });
                }
            };
            Ok(Connection {
                service,
                process: Some(group),
                stderr_tail: tail,
            })
        }
        Transport::Http { url, headers, .. } => {
            crate::oauth::install_tls();
            let mut http = StreamableHttpClientTransportConfig::with_uri(url.as_str());
            for (name, raw) in headers {
                let value = resolve(raw).map_err(|source| ConnectError::Header {
                    name: name.clone(),
                    source,
                })?;
                if name.eq_ignore_ascii_case("authorization") {
                    let token = value.strip_prefix("Bearer ").unwrap_or(&value);
                    http.auth_header = Some(token.to_string());
                    continue;
                }
                let (Ok(n), Ok(v)) = (
                    http::HeaderName::try_from(name.as_str()),
                    http::HeaderValue::try_from(value.as_str()),
                ) else {
                    return Err(ConnectError::InvalidHeader(name.clone()));
                };
                http.custom_headers.insert(n, v);
            }
            let started = match crate::oauth::authorized_client(config, auth)
                .await
                .map_err(ConnectError::OAuth)?
            {
                Some(client) => {
                    let transport = StreamableHttpClientTransport::with_client(client, http);
                    tokio::time::timeout(limit, handler.serve(transport)).await
                }
                None => {
                    let transport = StreamableHttpClientTransport::from_config(http);
                    tokio::time::timeout(limit, handler.serve(transport)).await
                }
            };
            let service = match started {
                Ok(Ok(s)) => s,
                Ok(Err(e)) => return Err(http_error(config, e)),
                Err(_) => {
                    return Err(ConnectError::Http(InitializeError::TimedOut(
                        limit.as_secs(),
                    )))
                }
            };
            Ok(Connection {
                service,
                process: None,
                stderr_tail: Arc::new(Mutex::new(Vec::new())),
            })
        }
    }
}

/// A 401 from a server that signs in with OAuth needs the user; from one with a configured
/// `Authorization` header, that header was refused.
fn http_error(config: &ServerConfig, e: rmcp::service::ClientInitializeError) -> ConnectError {
    match crate::oauth::auth_challenge(&e) {
        Some(challenge) if crate::oauth::oauth_target(config).is_some() => {
            ConnectError::NeedsAuth {
                server: config.name.clone(),
                challenge,
            }
        }
        Some(_) => ConnectError::Unauthorized(Box::new(e)),
        None => ConnectError::Http(InitializeError::Failed(Box::new(e))),
    }
}

/// The server's last stderr lines, to append to an error: empty when it wrote none.
fn stderr_text(tail: &Mutex<Vec<String>>) -> String {
    let lines = lock(tail);
    if lines.is_empty() {
        return String::new();
    }
    format!("\nstderr:\n{}", lines.join("\n"))
}

fn spawn_stderr_reader(
    stderr: tokio::process::ChildStderr,
    observer: Observer,
    tail: Arc<Mutex<Vec<String>>>,
) {
    tokio::spawn(async move {
        let mut lines = tokio::io::BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            observer.log.write(&observer.server, "stderr", "-", &line);
            let mut t = lock(&tail);
            t.push(line);
            if t.len() > 20 {
                t.remove(0);
            }
        }
    });
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
