//! Why an RPC command failed. The text becomes the response's `error`, which clients compare
//! (pi's texts), so each variant displays exactly what pi sends; the causes stay reachable
//! through `source()` until [`super::response::Reply`] turns the error into that text.

use std::path::PathBuf;

use rho_core::agent_session::SessionError;

/// A failed session or export command.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The session refused or failed the operation.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The command is refused in this state; the text is pi's (or the dialect's).
    #[error("{0}")]
    Refused(&'static str),
    /// The reply could not be serialized.
    #[error("cannot serialize the result: {0}")]
    Serialize(#[source] serde_json::Error),
    /// The exported page could not be written.
    #[error("Cannot write {}: {source}", path.display())]
    Write {
        /// Where it was to go.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A command was routed to the session handler by mistake.
    #[error("not a session command")]
    NotASessionCommand,
}
