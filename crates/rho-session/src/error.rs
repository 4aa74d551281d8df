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
        #[source]
        reason: LineError,
    },
    /// A line before the last one is not a valid entry (the file is left untouched).
    #[error("{path}:{line}: corrupt session entry ({reason}); the file was not modified, repair or delete that line and retry")]
    Corrupt {
        /// The file involved.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        #[source]
        reason: LineError,
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

/// Why a line of a session file is not a header (the text completes "line 1 ...") or not an
/// entry (the text is the reason in a corrupt-line error or a skipped-line warning).
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    /// The file has no first line.
    #[error("is missing (the file is empty)")]
    Empty,
    /// Line 1 is not UTF-8.
    #[error("is not UTF-8 text")]
    HeaderNotUtf8,
    /// Line 1 is not JSON.
    #[error("is not JSON ({0})")]
    HeaderNotJson(#[source] serde_json::Error),
    /// Line 1 is JSON but not a session header.
    #[error("has no \"type\":\"session\"")]
    NoSessionType,
    /// The header has no id.
    #[error("has no string \"id\"")]
    HeaderWithoutId,
    /// The header's fields have the wrong types.
    #[error("is not a valid header ({0})")]
    InvalidHeader(#[source] serde_json::Error),
    /// An entry line that is not UTF-8.
    #[error("not UTF-8 text")]
    NotUtf8,
    /// An entry line that serde could not read (its own words).
    #[error("{0}")]
    Json(#[source] serde_json::Error),
    /// An entry line that is not a JSON object; the first attempt's reason follows.
    #[error("not a JSON object: {0}")]
    NotAnObject(#[source] Box<LineError>),
    /// An entry without a string `type`.
    #[error("no string \"type\"")]
    NoType,
    /// A session header after line 1.
    #[error("a second session header")]
    SecondHeader,
    /// An entry without a string `id`.
    #[error("entry has no string \"id\"")]
    NoId,
    /// A `message` entry whose message does not decode.
    #[error("bad message: {0}")]
    BadMessage(#[source] serde_json::Error),
    /// A required field of an entry type is missing.
    #[error("{entry_type} entry lacks \"{field}\"")]
    Missing {
        /// The entry's type.
        entry_type: String,
        /// The field's wire name.
        field: &'static str,
    },
    /// A `context_edit` replacement object without valid `content`.
    #[error("context_edit replacement has no valid \"content\"")]
    ReplacementContent,
    /// A `context_edit` replacement that is neither `null` nor an object.
    #[error("context_edit replacement is neither null nor an object")]
    ReplacementShape,
    /// An old-format line that the migration to the current format cannot convert.
    #[error("cannot migrate: {0}")]
    Migrate(String),
}
