//! Why a session operation was refused or failed: the one `SessionError` of the agent session.
//! The texts are the user-facing messages of the seed and pi (D7, P-6, CMD-7, AUTH-10), so RPC
//! clients see exactly these strings. What the session store itself reports (a file it cannot
//! read or write) is rho-session's [`StoreError`], kept as the source.

use std::path::PathBuf;

use rho_session::StoreError;

/// A refused or failed prompt, queue, model, tree or session-file operation.
#[derive(Debug, thiserror::Error)]
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
    /// A message released from memory could not be read back from the session file.
    #[error(transparent)]
    Unreadable(#[from] rho_agent::ReadError),
    /// A compaction could not run; the text is the `compaction_end` error.
    #[error("{0}")]
    Compaction(String),
    /// A user shell command could not be started (missing cwd or shell).
    #[error("{0}")]
    Bash(String),
    /// Tree navigation while a run is active: the branch would change under it.
    #[error("Cannot navigate the session tree while the agent is working. Wait for it to finish or abort it first.")]
    TreeWhileStreaming,
    /// Tree navigation or fork named an entry the session does not have.
    #[error("Entry {0} not found")]
    EntryNotFound(String),
    /// A branch summary was requested without a model (pi's text).
    #[error("No model available for summarization")]
    NoSummaryModel,
    /// The branch summary call failed; the text is the summariser's error.
    #[error("{0}")]
    BranchSummary(String),
    /// Fork at an entry that is not a user message (interfaces §1.4).
    #[error("Invalid entry ID for forking")]
    InvalidForkEntry,
    /// Fork or clone of a `--no-session` session (there is no directory to write to).
    #[error("Cannot {0} an in-memory session (started with --no-session)")]
    InMemoryFork(&'static str),
    /// Clone of a session without entries (interfaces §1.4).
    #[error("Cannot clone session: no current entry selected")]
    NothingToClone,
    /// An external slash command (an MCP prompt) could not be expanded.
    #[error("{0}")]
    Command(String),
    /// The session file could not be written or read.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The session file to open records a working directory that no longer exists.
    #[error("{source}\nSession: {}\nCurrent working directory: {cwd}", .session.display())]
    SessionCwdGone {
        /// Why the store refused it (names the missing directory). Boxed so every
        /// `Result<_, SessionError>` stays small (with Windows' larger paths it passed clippy's
        /// large-error limit).
        #[source]
        source: Box<StoreError>,
        /// The session file.
        session: PathBuf,
        /// rho's working directory.
        cwd: String,
    },
    /// The session's task is gone (it can only end by a bug): nothing more can run.
    #[error(
        "The session stopped working (an internal error ended its task); restart rho to go on"
    )]
    Stopped,
}
