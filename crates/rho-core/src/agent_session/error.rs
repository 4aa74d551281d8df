//! Why a session operation was refused. The texts are the user-facing messages of the seed
//! and pi (D7, P-6, CMD-7, AUTH-10), so RPC clients see exactly these strings.

/// A refused prompt, queue or model operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// No model is selected (D7).
    #[error("No model selected. Run '/model <name>' to select a model.")]
    NoModel,
    /// The provider has no key (D7); the text names the provider's env var.
    #[error("{0}")]
    NoApiKey(String),
    /// Only an unusable OAuth credential exists (D7).
    #[error("{0}")]
    OAuthFailed(String),
    /// A prompt while streaming without a streaming behaviour (P-6).
    #[error("Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.")]
    StreamingWithoutBehavior,
    /// steer/followUp of an extension command (CMD-7).
    #[error("Extension command \"/{0}\" cannot be queued. Use prompt() or execute the command when not streaming.")]
    CommandCannotBeQueued(String),
    /// `set_model` to a provider without credentials (AUTH-10).
    #[error("No API key for {provider}/{id}")]
    ModelWithoutKey {
        /// Provider.
        provider: String,
        /// Model id.
        id: String,
    },
    /// The agent refused to start (already running, nothing to continue).
    #[error(transparent)]
    Agent(#[from] rho_agent::AgentError),
    /// A compaction could not run; the text is the `compaction_end` error.
    #[error("{0}")]
    Compaction(String),
    /// A user shell command could not be started (missing cwd or shell).
    #[error("{0}")]
    Bash(String),
    /// The session file could not be written or read.
    #[error("{0}")]
    Store(String),
}

impl From<crate::session::SessionError> for SessionError {
    fn from(e: crate::session::SessionError) -> Self {
        SessionError::Store(e.to_string())
    }
}
