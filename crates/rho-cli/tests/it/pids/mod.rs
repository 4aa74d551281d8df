//! Watching processes a test made rho start: a pid the process wrote to a file, and whether
//! it is still running. Both wait with a bounded deadline rather than a fixed sleep.

#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

/// True while `pid` exists and is not a zombie.
pub fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence.
    if unsafe { libc::kill(pid, 0) } != 0 {
        return false;
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat
        .rsplit_once(") ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .unwrap_or("Z");
    !matches!(state, "Z" | "X")
}

/// Waits (bounded, 20 s) for a file holding a pid, written by the process itself.
pub async fn read_pid(path: &Path) -> i32 {
    for _ in 0..2000 {
        if let Some(pid) = std::fs::read_to_string(path)
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{} was never written", path.display());
}

/// Waits (bounded) for `pid` to be gone; false if it is still running after 10 s.
pub async fn ends(pid: i32) -> bool {
    for _ in 0..1000 {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}
