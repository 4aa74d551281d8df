//! Every child rho starts runs in its own process group, and each group is recorded here so
//! nothing outlives rho: a group is killed on abort or timeout by its runner, and every
//! group still recorded is killed when rho exits (normal end, stdin EOF, SIGTERM, SIGHUP,
//! SIGINT). Background children of a finished command (`server &`) keep their group alive,
//! so a group is only forgotten once it has no member left.

use std::sync::Mutex;

static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

fn groups() -> std::sync::MutexGuard<'static, Vec<i32>> {
    GROUPS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Records the process group `pgid` (the pid of a child started with `process_group(0)`).
pub fn register_group(pgid: u32) {
    if let Ok(pgid) = i32::try_from(pgid) {
        if pgid > 0 {
            groups().push(pgid);
        }
    }
}

/// Forgets `pgid` when no process is left in it (its command and all background children
/// ended); a group with members stays recorded until rho exits.
pub fn forget_group_if_empty(pgid: u32) {
    let Ok(pgid) = i32::try_from(pgid) else {
        return;
    };
    if !group_alive(pgid) {
        groups().retain(|&g| g != pgid);
    }
}

/// SIGKILLs one group now.
pub fn kill_group(pgid: u32) {
    if let Ok(pgid) = i32::try_from(pgid) {
        if pgid > 0 {
            // SAFETY: kill(2) with a negative pid signals the process group we created; no
            // memory is touched.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
}

/// SIGKILLs every recorded group (rho is exiting). Safe to call more than once.
pub fn kill_all_groups() {
    let all = std::mem::take(&mut *groups());
    for pgid in all {
        kill_group(pgid as u32);
    }
}

/// Whether any process is left in the group (signal 0 only checks).
fn group_alive(pgid: i32) -> bool {
    // SAFETY: signal 0 performs the permission and existence checks only.
    unsafe { libc::kill(-pgid, 0) == 0 }
}

/// The recorded groups (for tests).
pub fn recorded_groups() -> Vec<i32> {
    groups().clone()
}
