//! What can go wrong reading, writing and finding sessions, each message naming the file (and the
//! line, for a bad entry) and saying what to do.

use std::path::PathBuf;

/// Errors of the session store. A failed load never modifies the file.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file system refused a read or write.
    #[error("cannot access session file {path}: {source}")]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// Line 1 is not a session header, so the file is not a session (it is left untouched).
    #[error("{path} is not a session file: line 1 {reason}; pass a session .jsonl file or move this file away")]
    NotASession {
        /// The file involved.
        path: PathBuf,
        /// What line 1 holds instead.
        reason: String,
    },
    /// A line before the last one is not a valid entry (the file is left untouched).
    #[error("{path}:{line}: corrupt session entry ({reason}); the file was not modified, repair or delete that line and retry")]
    Corrupt {
        /// The file involved.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A message released from memory could not be read back from the session file.
    #[error(transparent)]
    Unreadable(#[from] rho_protocol::agent::ReadError),
    /// Creating a session file where one already exists.
    #[error("session file {path} already exists; open it instead of creating it")]
    AlreadyExists {
        /// The file involved.
        path: PathBuf,
    },
    /// An operation named an entry id this session does not hold.
    #[error("entry '{id}' not found in this session")]
    UnknownEntry {
        /// The id asked for.
        id: String,
    },
    /// `--session <prefix>` matched nothing.
    #[error("No session found matching '{query}'")]
    NoMatch {
        /// The prefix asked for.
        query: String,
    },
    /// The session's stored working directory is gone.
    #[error("Stored session working directory does not exist: {cwd}")]
    MissingCwd {
        /// The header's `cwd`.
        cwd: String,
    },
    /// An entry could not be serialized (an extension put something odd in `details`/`data`).
    #[error("cannot serialize session entry: {0}")]
    Serialize(#[from] serde_json::Error),
}

impl StoreError {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        StoreError::Io {
            path: path.into(),
            source,
        }
    }
}

/// Something a load tolerated but the caller may want to show (e.g. a torn last line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadWarning {
    /// The file involved.
    pub path: PathBuf,
    /// 1-based line number.
    pub line: usize,
    /// What was tolerated.
    pub message: String,
}

impl std::fmt::Display for LoadWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.message)
    }
}
