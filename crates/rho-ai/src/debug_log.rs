//! rho's debug log: where provider diagnostics too big for a session go. It is off unless the
//! `RHO_DEBUG_LOG` environment variable names a file; records are then appended to it.
//!
//! What it receives: the whole body of a provider's error response and the whole text of an
//! in-stream provider error, of which a reply's `errorMessage` keeps the first
//! [`crate::http::ERROR_BODY_CAP`] bytes (issue 17 #10: a 10 MB error page must not become a
//! 10 MB session entry). pi 1.6 has no such log; its `/debug` command writes the screen and
//! the messages to `pi-debug.log`.
//!
//! Writing is best effort: a log that cannot be opened or written never fails a call. Each
//! record is written with one call under a lock, so records of concurrent calls do not mix.

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

/// The variable that turns the log on: the path of the file to append to.
pub const ENV: &str = "RHO_DEBUG_LOG";

/// The log's path, read from the environment once.
pub fn path() -> Option<&'static PathBuf> {
    static PATH: OnceLock<Option<PathBuf>> = OnceLock::new();
    PATH.get_or_init(|| {
        std::env::var_os(ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    })
    .as_ref()
}

/// Whether records are kept.
pub fn enabled() -> bool {
    path().is_some()
}

/// Appends a record titled `what` holding `pieces` one after the other, bytes as they came.
pub fn record(what: &str, pieces: &[&[u8]]) {
    let Some(path) = path() else {
        return;
    };
    static LOCK: Mutex<()> = Mutex::new(());
    let len: usize = pieces.iter().map(|p| p.len()).sum();
    let mut entry = format!(
        "--- {} ms: {what} ({len} bytes)\n",
        crate::message::now_ms()
    )
    .into_bytes();
    entry.reserve(len + 8);
    for piece in pieces {
        entry.extend_from_slice(piece);
    }
    entry.extend_from_slice(b"\n--- end\n");
    let _guard = LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path);
    if let Ok(mut file) = file {
        let _ = file.write_all(&entry);
    }
}
