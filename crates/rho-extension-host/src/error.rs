//! Why a call from an extension into rho failed. The text is what the extension hears (the
//! `error` of the reply to its call, or the message an in-process handler gets), so each says
//! what went wrong and, where the extension can act on it, what to do.

/// The session's own error, kept as the source (rho-core's types are above this crate).
pub type SessionFailure = Box<dyn std::error::Error + Send + Sync>;

/// Why the session side of the extension API refused or failed a call.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The context outlived its session (an extension kept `ctx` past a session switch).
    #[error("This extension ctx is stale: the session it belonged to has ended.")]
    Stale,
    /// The host cannot do this at all (a mode or test host without the capability); the text
    /// completes "this session ...".
    #[error("this session {0}")]
    Unsupported(&'static str),
    /// An action before the extension is bound to a session (pi's text, CM-9 / EXT-22).
    #[error(
        "{} ({method}: call rho from an event, command or tool handler)",
        crate::process::connection::NOT_INITIALIZED
    )]
    NotInitialized {
        /// The method called.
        method: String,
    },
    /// A call's parameters do not have the documented shape.
    #[error("{method}: invalid params: {source}")]
    InvalidParams {
        /// The method called.
        method: String,
        /// What serde found wrong.
        #[source]
        source: serde_json::Error,
    },
    /// `deliverAs` named no route.
    #[error("{method}: deliverAs must be \"steer\", \"followUp\" or \"nextTurn\", got {value:?}")]
    DeliverAs {
        /// The method called.
        method: String,
        /// The value given.
        value: String,
    },
    /// No call of that name.
    #[error("unknown method {0:?}; see docs/extensions.md for the calls rho serves")]
    UnknownMethod(String),
    /// `set_model` named a model the session does not know.
    #[error("set_model: no model {provider}/{model_id}")]
    UnknownModel {
        /// The provider named.
        provider: String,
        /// The model id named.
        model_id: String,
    },
    /// `complete`'s context is not a conversation.
    #[error("complete: invalid context: {0}")]
    InvalidContext(#[source] serde_json::Error),
    /// `exec` could not confine the program as the session's sandbox requires.
    #[error("exec: {0}")]
    ExecSandbox(#[source] rho_sandbox::SandboxError),
    /// `exec` could not start the program.
    #[error("exec: cannot run {command:?}: {source}")]
    ExecSpawn {
        /// The program.
        command: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// `shutdown` in a mode that does not quit when an extension asks.
    #[error("shutdown: this mode does not quit on an extension's request")]
    NoShutdown,
    /// A call could not write its answer where the extension host waits for it.
    #[error("{method}: cannot write {}: {source}", file.display())]
    AnswerFile {
        /// The method called.
        method: &'static str,
        /// The file asked for.
        file: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An answer could not be turned into JSON.
    #[error("the answer could not be encoded: {0}")]
    Encode(#[source] serde_json::Error),
    /// The session refused or failed the change; its own error says why.
    #[error(transparent)]
    Session(SessionFailure),
    /// `oauth_notify` / `oauth_prompt` named no sign-in under way.
    #[error("{method}: no sign-in under way for request {request}")]
    NoLogin {
        /// The method called.
        method: String,
        /// The request named.
        request: u64,
    },
    /// `session_setup_append` named no session setup under way.
    #[error("session_setup_append: no session setup under way for request {0}; append in newSession's setup only")]
    NoSetup(u64),
    /// The extension's `setup` of a new session failed.
    #[error("the new session's setup failed: {0}")]
    Setup(String),
    /// A session call the extension made was refused; the text is pi's where pi has one.
    #[error("{0}")]
    Refused(String),
    /// The user cancelled the sign-in's question (pi's text).
    #[error("Login cancelled")]
    LoginCancelled,
}

impl HostError {
    /// The session's error `e`, as the extension hears it.
    pub fn session(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        HostError::Session(Box::new(e))
    }
}

/// A handler's error is the text its extension reports (`extension_error`), so a failed host
/// call turns into that text with `?` inside a handler.
impl From<HostError> for String {
    fn from(e: HostError) -> String {
        e.to_string()
    }
}
