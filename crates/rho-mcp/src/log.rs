//! `<agent dir>/mcp.log`: server logging notifications and stderr lines, as
//! `<time> [<server>] <level> <logger>: <message>`; moved to `mcp.log.1` past 5 MB.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;

const MAX_BYTES: u64 = 5 * 1024 * 1024;

/// Appends lines to the MCP log; failures to write are ignored (logging must not break a call).
pub struct McpLog {
    path: Option<PathBuf>,
    /// The timestamp of an entry (rho-core's ISO format, passed in to keep one implementation).
    now: fn() -> String,
    lock: Mutex<()>,
}

impl McpLog {
    /// A log at `path`, or one that drops everything.
    pub fn new(path: Option<PathBuf>, now: fn() -> String) -> McpLog {
        McpLog {
            path,
            now,
            lock: Mutex::new(()),
        }
    }

    /// Appends one entry.
    pub fn write(&self, server: &str, level: &str, logger: &str, message: &str) {
        let Some(path) = &self.path else {
            return;
        };
        let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        if std::fs::metadata(path).is_ok_and(|m| m.len() > MAX_BYTES) {
            let _ = std::fs::rename(path, path.with_extension("log.1"));
        }
        let time = (self.now)();
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(f, "{time} [{server}] {level} {logger}: {message}");
        }
    }
}
