//! Why an MCP server could not be reached or a request to it failed.
//!
//! The texts are what the model (as a tool error), `/mcp` and the RPC client see, so they say
//! which server and what to do; the enums keep the underlying rmcp, io and shell errors as
//! sources.

use rho_ai::config_value::ShellError;

/// A configured `env` or `headers` value whose `!command` gave no value.
#[derive(Debug, thiserror::Error)]
#[error("command `{command}` failed: {source}")]
pub struct ValueError {
    /// The command (without `!`).
    pub command: String,
    /// Why it gave no value.
    pub source: ShellError,
}

/// Why connecting to a server failed.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// A stdio command was asked of a server configured with a URL.
    #[error("server \"{0}\" is not a stdio server")]
    NotStdio(String),
    /// An `env` value could not be resolved.
    #[error("env {key}: {source}")]
    Env {
        /// The variable.
        key: String,
        /// Why.
        source: ValueError,
    },
    /// A `headers` value could not be resolved.
    #[error("header {name}: {source}")]
    Header {
        /// The header.
        name: String,
        /// Why.
        source: ValueError,
    },
    /// A header name or value is not valid in HTTP.
    #[error("header {0} is not a valid HTTP header")]
    InvalidHeader(String),
    /// The server's command could not be started.
    #[error("cannot start \"{command}\": {source}")]
    Spawn {
        /// The configured command.
        command: String,
        /// The spawn error.
        source: std::io::Error,
    },
    /// A stdio server did not complete `initialize`; `stderr` is the tail of what it wrote
    /// (already formatted as `\nstderr:\n<lines>`, or empty).
    #[error("{reason}{stderr}")]
    Stdio {
        /// What went wrong.
        #[source]
        reason: InitializeError,
        /// The server's last stderr lines.
        stderr: String,
    },
    /// An HTTP server did not complete `initialize`.
    #[error(transparent)]
    Http(InitializeError),
    /// The server was stopped (rho shutting down, /mcp reconnecting or turning it off) before
    /// it finished connecting.
    #[error("stopped before it finished connecting")]
    Stopped,
    /// An HTTP server asked for authorization (401) and no stored token works: the user has
    /// to sign in. `challenge` is its `WWW-Authenticate` value (empty when none came).
    #[error("requires sign-in. Run /mcp (or `rho mcp login {server}`) to sign in.")]
    NeedsAuth {
        /// The server's name.
        server: String,
        /// The challenge, for the sign-in's discovery.
        challenge: String,
    },
    /// An HTTP server has a header set to send its token, and it was refused (401).
    #[error("the server refused the configured Authorization header (HTTP 401): {0}")]
    Unauthorized(#[source] Box<rmcp::service::ClientInitializeError>),
    /// The stored OAuth state could not be used.
    #[error("OAuth: {0}")]
    OAuth(String),
    /// The first `tools/list` failed.
    #[error("tools/list failed: {0}")]
    ListTools(#[source] rmcp::ServiceError),
}

/// Why `initialize` did not complete.
#[derive(Debug, thiserror::Error)]
pub enum InitializeError {
    /// The handshake failed.
    #[error(transparent)]
    Failed(Box<rmcp::service::ClientInitializeError>),
    /// No answer within the connect timeout.
    #[error("initialize timed out after {0}s")]
    TimedOut(u64),
}

/// Why a request to a server failed.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// The server is disabled in mcp.json.
    #[error("MCP server \"{0}\" is disabled")]
    Disabled(String),
    /// The server could not be (re)connected.
    #[error("MCP server \"{server}\" is not connected: {source}")]
    NotConnected {
        /// The server.
        server: String,
        /// Why.
        source: Box<ConnectError>,
    },
    /// The call was aborted by the user.
    #[error("Operation aborted")]
    Aborted,
    /// The server did not answer within its timeout.
    #[error("MCP server \"{server}\" did not answer within {secs}s")]
    TimedOut {
        /// The server.
        server: String,
        /// The configured timeout.
        secs: f64,
    },
    /// The connection closed under the request.
    #[error("MCP server \"{server}\" disconnected: {source}")]
    Disconnected {
        /// The server.
        server: String,
        /// The transport's error.
        source: Box<rmcp::ServiceError>,
    },
    /// The server answered with an error, or the request could not be sent.
    #[error(transparent)]
    Service(Box<rmcp::ServiceError>),
    /// The answer could not be turned into JSON.
    #[error(transparent)]
    Json(serde_json::Error),
    /// No server of that name is configured.
    #[error("unknown MCP server \"{0}\"")]
    UnknownServer(String),
}

/// Why `/mcp__server__prompt` could not be expanded.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    /// A required argument was not given.
    #[error("/{command}: missing argument \"{argument}\"")]
    MissingArgument {
        /// The command as typed (without `/`).
        command: String,
        /// The prompt's argument.
        argument: String,
    },
    /// `prompts/get` failed.
    #[error(transparent)]
    Request(#[from] RequestError),
}

/// An mcp.json entry that breaks pi's rules; the text names the server and the field.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A project entry without `command` or `url` overrides a global server, and there is none.
    #[error("server \"{0}\" needs \"command\" or \"url\", or a global server to override")]
    NothingToOverride(String),
    /// An override sets a key overrides cannot set.
    #[error("server \"{0}\": an override can only set {keys}", keys = crate::config::OVERRIDE_KEYS.join(", "))]
    OverrideKey(String),
    /// Two names map to the same tool namespace.
    #[error("server \"{name}\" conflicts with \"{other}\"")]
    Conflict {
        /// The new server.
        name: String,
        /// The server already using the namespace.
        other: String,
    },
    /// The name has characters tool names cannot carry.
    #[error("invalid server name \"{0}\" (use letters, digits, \"_\" and \"-\")")]
    InvalidName(String),
    /// The entry is not an object.
    #[error("server \"{0}\" must be an object")]
    NotObject(String),
    /// One field has the wrong type or value; `problem` says which and what it must be.
    #[error("server \"{name}\": {problem}")]
    Field {
        /// The server.
        name: String,
        /// What is wrong.
        problem: &'static str,
    },
    /// `exposure` or `toolExposure` is wrong.
    #[error("server \"{name}\": {source}")]
    Exposure {
        /// The server.
        name: String,
        /// What is wrong.
        source: ExposureError,
    },
    /// Neither `command` nor `url`.
    #[error("server \"{0}\" needs either \"command\" (stdio) or \"url\" (streamable HTTP)")]
    NoTransport(String),
}

/// A wrong `exposure` or `toolExposure` value.
#[derive(Debug, thiserror::Error)]
pub enum ExposureError {
    /// `exposure` is not one of the four values.
    #[error("exposure must be one of {EXPOSURES}")]
    Server,
    /// A `toolExposure` value is not one of the four values.
    #[error("toolExposure \"{0}\" must be one of {EXPOSURES}")]
    Tool(String),
    /// `toolExposure` is not an object.
    #[error("toolExposure must map tool names to exposures")]
    NotMap,
}

const EXPOSURES: &str = "\"codemode\", \"deferred\", \"direct\", \"hidden\"";
