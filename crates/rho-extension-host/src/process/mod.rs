//! Extensions as child processes speaking JSONL over stdin/stdout (docs/extensions.md).
//!
//! [`ProcessExtension::spawn`] starts a program, performs the handshake and turns what it
//! registers into an ordinary [`Extension`]: its handlers, commands and tools forward over the
//! pipe, so the [`ExtensionRunner`](super::ExtensionRunner) applies the same rules (order,
//! chaining, error isolation) to in-process and out-of-process extensions. A crashed, hung or
//! garbling process turns into handler errors (reported as `extension_error`); rho never waits
//! past a request's deadline.

pub mod calls;
pub mod connection;
pub mod late_trust;
pub mod oauth;
mod registrations;
pub mod session_calls;
mod setup;
pub mod spawn;
pub mod tool;
pub mod wire;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

pub use connection::Connection;
pub use tool::ProcessTool;
pub use wire::Registration;

use super::{CommandDef, Extension, ExtensionEvent, ShortcutDef};
use wire::Request;

/// Deadlines and start-up data for extension processes.
#[derive(Debug, Clone)]
pub struct ProcessOptions {
    /// How long an event handler may take (default 5 s).
    pub event_timeout: Duration,
    /// How long a command may take (default 5 min: commands may run turns).
    pub command_timeout: Duration,
    /// How long a tool call may take (default 10 min; aborts cancel earlier).
    pub tool_timeout: Duration,
    /// How long the process may take to register (default 10 s).
    pub handshake_timeout: Duration,
    /// Working directory of the process, also sent in `hello`.
    pub cwd: Option<PathBuf>,
    /// Whether a UI answers `ui_*` calls (sent in `hello`).
    pub has_ui: bool,
    /// Flag values by name (sent in `hello`).
    pub flags: Map<String, Value>,
    /// The session's mode (`tui`, `rpc`, `json`, `print`; sent in `hello`).
    pub mode: Option<String>,
    /// Whether the project is trusted (sent in `hello`).
    pub project_trusted: bool,
}

impl Default for ProcessOptions {
    fn default() -> Self {
        Self {
            event_timeout: Duration::from_secs(5),
            command_timeout: Duration::from_secs(300),
            tool_timeout: Duration::from_secs(600),
            handshake_timeout: Duration::from_secs(10),
            cwd: None,
            has_ui: false,
            flags: Map::new(),
            mode: None,
            project_trusted: true,
        }
    }
}

/// Why an extension process could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// The program could not be started.
    #[error(
        "cannot start extension {program:?}: {source}; check the path and that it is executable"
    )]
    Spawn {
        /// The program.
        program: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// It started but did not register properly.
    #[error("extension {path} failed the handshake: {reason}; it must answer hello with a register line (docs/extensions.md)")]
    Handshake {
        /// The extension's path.
        path: String,
        /// What went wrong.
        #[source]
        reason: HandshakeError,
    },
}

/// What went wrong between starting an extension and its `register` line.
#[derive(Debug, thiserror::Error)]
pub enum HandshakeError {
    /// stdin or stdout was not piped.
    #[error("its stdio pipes could not be opened")]
    NoPipes,
    /// The hello message could not be encoded.
    #[error("{0}")]
    Encode(#[source] serde_json::Error),
    /// No line within the handshake timeout.
    #[error("no register message within {0} ms")]
    TimedOut(u128),
    /// Writing hello or reading the answer failed.
    #[error("pipe error: {0}")]
    Pipe(#[source] std::io::Error),
    /// The process closed stdout without a line.
    #[error("it exited or closed stdout before registering")]
    Closed,
    /// The first line is not JSON.
    #[error("first line is not JSON ({source}): {line}")]
    NotJson {
        /// The parse error.
        source: serde_json::Error,
        /// The start of the line.
        line: String,
    },
    /// The first line is JSON but not a register message.
    #[error("first line must be {{\"type\":\"register\",...}}, got: {0}")]
    NotRegister(String),
    /// A register message with missing or wrong fields.
    #[error("invalid register message: {0}")]
    InvalidRegister(#[source] serde_json::Error),
}

/// A running extension process and what it registered.
#[derive(Clone)]
pub struct ProcessExtension {
    connection: Connection,
    registration: Arc<Registration>,
    options: ProcessOptions,
    path: String,
}

impl ProcessExtension {
    /// Starts `program args` and performs the handshake. The extension's path (in error
    /// reports) is its first argument (the script of `python3 ext.py`), or the program.
    pub async fn spawn(
        program: &str,
        args: &[String],
        options: ProcessOptions,
    ) -> Result<Self, ProcessError> {
        let path = args.first().cloned().unwrap_or_else(|| program.to_string());
        let started = spawn::start(program, args, path.clone(), &options).await?;
        started
            .connection
            .attach(started.child, started.stderr_forwarder);
        Ok(Self {
            connection: started.connection,
            registration: Arc::new(started.registration),
            options,
            path,
        })
    }

    /// What the process registered.
    pub fn registration(&self) -> &Registration {
        &self.registration
    }

    /// The connection (requests, liveness).
    pub fn connection(&self) -> &Connection {
        &self.connection
    }

    /// An [`Extension`] whose handlers, commands and tools forward to the process. The
    /// process lives as long as any clone of it (or of this value).
    pub fn extension(&self) -> Extension {
        let mut ext = Extension::new(self.path.clone());
        for event in &self.registration.events {
            ext.on(event, self.event_handler());
        }
        for spec in &self.registration.providers {
            ext.register_provider(provider_def(spec.clone(), &self.connection, &self.options));
        }
        for spec in &self.registration.virtual_models {
            ext.register_virtual_model(virtual_model_def(
                spec.clone(),
                &self.connection,
                &self.options,
            ));
        }
        for spec in &self.registration.mcp_servers {
            ext.register_mcp_server(spec.clone());
        }
        for spec in &self.registration.flags {
            ext.declare_flag(spec.name.clone());
        }
        for spec in &self.registration.commands {
            ext.register_command(self.command(spec));
            if let Some(path) = &spec.path {
                ext.set_command_path(&spec.name, path);
            }
        }
        for spec in &self.registration.shortcuts {
            ext.register_shortcut(self.shortcut(spec.key.clone(), spec.description.clone()));
        }
        for spec in &self.registration.tools {
            ext.register_tool(Arc::new(ProcessTool::new(
                spec.clone(),
                self.connection.clone(),
                self.options.tool_timeout,
            )));
        }
        // Components (footer, widgets, dialogs) may appear at any time; requests go out only
        // for what is declared or announced.
        ext.set_renderer(super::render::ProcessRenderer::new(
            self.connection.clone(),
            self.registration.renderers.clone(),
            self.options.event_timeout,
        ));
        let conn = self.connection.clone();
        ext.set_closer(Arc::new(move |grace| {
            let conn = conn.clone();
            Box::pin(async move { conn.close(grace).await })
        }));
        ext
    }

    fn event_handler(&self) -> super::EventHandler {
        let conn = self.connection.clone();
        let deadline = self.options.event_timeout;
        Arc::new(move |event: ExtensionEvent, ctx| {
            let conn = conn.clone();
            Box::pin(async move {
                conn.bind(&ctx);
                let reply = conn
                    .request(event.type_name(), deadline, None, |id| Request::Event {
                        id,
                        event: &event,
                    })
                    .await?;
                Ok((!reply.is_null()).then_some(reply))
            })
        })
    }

    /// Tells the process its shortcut `key` was pressed.
    fn shortcut(&self, key: String, description: Option<String>) -> ShortcutDef {
        let conn = self.connection.clone();
        let deadline = self.options.command_timeout;
        let pressed = key.clone();
        ShortcutDef {
            key,
            description,
            handler: Arc::new(move |ctx| {
                let (conn, key) = (conn.clone(), pressed.clone());
                Box::pin(async move {
                    conn.bind(&ctx);
                    let what = format!("shortcut {key}");
                    conn.request(&what, deadline, None, |id| Request::Shortcut { id, key })
                        .await
                        .map(|_| ())
                })
            }),
        }
    }

    fn command(&self, spec: &wire::CommandSpec) -> CommandDef {
        command_def(self.connection.clone(), spec, &self.options)
    }
}

/// A provider whose replies (when it streams them) and sign-in run in the process behind
/// `conn`.
pub(crate) fn provider_def(
    spec: rho_protocol::extension::ProviderSpec,
    conn: &Connection,
    options: &ProcessOptions,
) -> super::ProviderDef {
    let stream = spec
        .streams
        .then(|| provider_stream(conn.clone(), spec.name.clone(), options.tool_timeout));
    let oauth = spec.oauth.as_ref().map(|o| {
        Arc::new(oauth::ProcessOAuth {
            conn: conn.clone(),
            provider: spec.name.clone(),
            name: o.name.clone(),
            deadline: options.command_timeout,
            key_deadline: options.event_timeout,
        }) as Arc<dyn rho_ai::oauth::OAuthProvider>
    });
    let refresh = spec
        .refreshes
        .then(|| provider_refresh(conn.clone(), spec.name.clone(), options.tool_timeout));
    super::ProviderDef {
        name: spec.name,
        config: spec.config,
        stream,
        oauth,
        refresh,
    }
}

/// Runs provider `name`'s `refreshModels` in the process (`refresh_models` request).
fn provider_refresh(conn: Connection, name: String, deadline: Duration) -> super::ProviderRefresh {
    Arc::new(move |allow_network, credential, stored| {
        let (conn, provider) = (conn.clone(), name.clone());
        Box::pin(async move {
            let what = format!("refreshModels of provider {provider}");
            let value = conn
                .request(&what, deadline, None, |id| Request::RefreshModels {
                    id,
                    provider,
                    allow_network,
                    credential,
                    stored,
                })
                .await
                .map_err(|e| e.to_string())?;
            serde_json::from_value(value).map_err(|e| format!("{what} answered badly: {e}"))
        })
    })
}

/// Streams a reply of provider `name` in the process (`stream` request).
fn provider_stream(conn: Connection, name: String, deadline: Duration) -> super::ProviderStream {
    Arc::new(move |model, context, options, events| {
        let (conn, provider) = (conn.clone(), name.clone());
        Box::pin(async move {
            let what = format!("a reply of provider {provider}");
            conn.request_stream(&what, deadline, events, |id| Request::Stream {
                id,
                provider,
                model,
                context,
                options,
            })
            .await
        })
    })
}

/// A virtual model whose router runs in the process behind `conn` (`route` requests).
pub(crate) fn virtual_model_def(
    spec: rho_protocol::virtual_model::VirtualModelSpec,
    conn: &Connection,
    options: &ProcessOptions,
) -> super::VirtualModelDef {
    let conn = conn.clone();
    // As long as a reply may take: a router may ask a classifier model first.
    let deadline = options.tool_timeout;
    let (provider, model_id) = (spec.provider.clone(), spec.id.clone());
    let route: super::VirtualRoute = Arc::new(move |request, ctx| {
        let (conn, provider, model_id) = (conn.clone(), provider.clone(), model_id.clone());
        Box::pin(async move {
            conn.bind(&ctx);
            let what = format!("the router of virtual model {provider}/{model_id}");
            conn.request(&what, deadline, None, |id| Request::Route {
                id,
                provider,
                model_id,
                request,
            })
            .await
        })
    });
    super::VirtualModelDef { spec, route }
}

/// A command whose runs are `command` requests to the process behind `conn`, and whose
/// argument completions (when `spec.completes`) are `command_completions` requests.
pub(crate) fn command_def(
    conn: Connection,
    spec: &wire::CommandSpec,
    options: &ProcessOptions,
) -> CommandDef {
    let deadline = options.command_timeout;
    let complete = spec
        .completes
        .then(|| command_completer(conn.clone(), spec.name.clone(), options.event_timeout));
    let cmd_name = spec.name.clone();
    CommandDef {
        name: spec.name.clone(),
        description: spec.description.clone(),
        handler: Arc::new(move |args, ctx| {
            let conn = conn.clone();
            let name = cmd_name.clone();
            Box::pin(async move {
                conn.bind(&ctx);
                let what = format!("command /{name}");
                conn.request(&what, deadline, None, |id| Request::Command {
                    id,
                    name,
                    args,
                })
                .await
                .map(|_| ())
            })
        }),
        complete,
    }
}

/// Asks the process behind `conn` for the completions of command `name`'s arguments (within
/// the event deadline: the user is typing).
fn command_completer(
    conn: Connection,
    name: String,
    deadline: Duration,
) -> super::CommandCompleter {
    Arc::new(move |prefix| {
        let (conn, name) = (conn.clone(), name.clone());
        Box::pin(async move {
            let what = format!("the completions of /{name}");
            let reply = conn
                .request(&what, deadline, None, |id| Request::CommandCompletions {
                    id,
                    name,
                    prefix,
                })
                .await?;
            serde_json::from_value(reply)
                .map_err(|e| format!("{what}: not a list of completions ({e})"))
        })
    })
}
