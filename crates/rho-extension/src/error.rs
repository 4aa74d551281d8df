//! The one error type of the library: what a handler returns and what a call into rho yields.

/// Why a handler or a call into rho failed. A handler's `Err` is sent to rho as the request's
/// `error` (rho reports it as `extension_error`; for `tool_call` it blocks the tool with this
/// text as the reason), so the `Display` text is what the user reads.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The handler's own failure, with the message it chose.
    #[error("{0}")]
    Handler(String),
    /// rho answered a call with an error.
    #[error("{method}: {message}")]
    Rho {
        /// The call's method, e.g. `send_message`.
        method: String,
        /// rho's message.
        message: String,
    },
    /// rho closed the connection before answering (it is shutting the extension down).
    #[error("{0}: the connection to rho closed before the reply")]
    Closed(String),
    /// A value could not be converted to or from JSON.
    #[error("invalid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// Reading from rho or writing to it failed.
    #[error("i/o with rho failed: {0}")]
    Io(#[from] std::io::Error),
}

impl Error {
    /// A handler failure with `message` (what rho shows, or the block reason of `tool_call`).
    pub fn msg(message: impl Into<String>) -> Self {
        Self::Handler(message.into())
    }
}

impl From<String> for Error {
    fn from(message: String) -> Self {
        Self::Handler(message)
    }
}

impl From<&str> for Error {
    fn from(message: &str) -> Self {
        Self::Handler(message.to_string())
    }
}
