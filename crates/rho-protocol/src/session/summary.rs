//! What a session picker shows about one session file.

use std::path::PathBuf;

use super::entry::SessionHeader;

/// What a session picker shows about one file.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSummary {
    /// The file.
    pub path: PathBuf,
    /// Its header.
    pub header: SessionHeader,
    /// Latest session name, if any.
    pub name: Option<String>,
    /// Latest user/assistant message time, else the header time, else the file mtime (Unix ms).
    pub modified_ms: i64,
    /// File size in bytes.
    pub size: u64,
    /// Number of `message` entries.
    pub message_count: usize,
    /// Text of the first user message.
    pub first_message: Option<String>,
}
