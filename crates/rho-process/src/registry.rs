//! The record of child process groups, so nothing outlives rho: a group is ended on abort or
//! timeout by its runner, and every group still recorded is ended when rho exits (normal end,
//! stdin EOF, SIGTERM, SIGHUP, SIGINT). Background children of a finished command
//! (`server &`) keep their group alive, so a group is only forgotten once it has no member
//! left. Ending a group is SIGTERM, a grace of [`TERM_GRACE`], then SIGKILL.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a group gets between SIGTERM and SIGKILL.
pub const TERM_GRACE: Duration = Duration::from_secs(1);

static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

fn groups() -> std::sync::MutexGuard<'static, Vec<i32>> {
    GROUPS.lock().unwrap_or_else(|e| e.into_inner())
}

fn pgid_of(pgid: u32) -> Option<i32> {
    i32::try_from(pgid).ok().filter(|&g| g > 0)
}

/// Starts a child with `spawn` (built with `process_group(0)`) and records its group, the
/// record locked throughout: rho's exit, which takes the same lock, either finds the group
/// or comes before the child exists. Recording after the spawn returned left a window in
/// which a command could already run (and print its pid) while an exit missed it.
pub(crate) fn spawn_recorded<T>(
    spawn: impl FnOnce() -> std::io::Result<T>,
    pgid: impl FnOnce(&T) -> u32,
) -> std::io::Result<T> {
    let mut recorded = groups();
    let child = spawn()?;
    if let Some(pgid) = pgid_of(pgid(&child)) {
        recorded.push(pgid);
    }
    Ok(child)
}

/// Forgets `pgid` when no process is left in it (its command and all background children
/// ended); a group with members stays recorded until rho exits.
pub(crate) fn forget_group_if_empty(pgid: u32) {
    if let Some(pgid) = pgid_of(pgid) {
        if !group_alive(pgid) {
            groups().retain(|&g| g != pgid);
        }
    }
}

/// Forgets `pgid` whether or not members are left: after SIGKILL to the group nothing in it
/// runs again, and members init has not reaped yet are only zombies.
pub(crate) fn forget_group(pgid: u32) {
    if let Some(pgid) = pgid_of(pgid) {
        groups().retain(|&g| g != pgid);
    }
}

/// Sends `signal` to every process of the group.
pub(crate) fn signal_group(pgid: u32, signal: libc::c_int) {
    if let Some(pgid) = pgid_of(pgid) {
        // SAFETY: kill(2) with a negative pid signals the process group we created; no
        // memory is touched.
        unsafe {
            libc::kill(-pgid, signal);
        }
    }
}

/// Sends `signal` to the process `pid` alone (a child that shares rho's group).
pub(crate) fn signal_process(pid: u32, signal: libc::c_int) {
    if let Some(pid) = pgid_of(pid) {
        // SAFETY: kill(2) on a child we started; no memory is touched.
        unsafe {
            libc::kill(pid, signal);
        }
    }
}

/// Ends every recorded group (rho is exiting): SIGTERM to all, up to [`TERM_GRACE`] for them
/// to go, then SIGKILL to what is left; then the sandbox's empty placeholder folders go.
/// Blocks for at most the grace; safe to call more than once.
pub fn end_all_groups() {
    end_groups();
    rho_sandbox::remove_placeholders();
}

fn end_groups() {
    let all = std::mem::take(&mut *groups());
    if all.is_empty() {
        return;
    }
    for &pgid in &all {
        signal_group(pgid as u32, libc::SIGTERM);
    }
    let deadline = Instant::now() + TERM_GRACE;
    let mut left = all;
    loop {
        left.retain(|&pgid| {
            reap(pgid);
            group_alive(pgid)
        });
        if left.is_empty() || Instant::now() >= deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    for pgid in left {
        signal_group(pgid as u32, libc::SIGKILL);
    }
}

/// Collects our own exited children in the group, so a zombie leader does not count as alive
/// (at exit nobody else will wait for it).
fn reap(pgid: i32) {
    // SAFETY: waitpid with WNOHANG only collects exit statuses of our children in the group.
    unsafe { while libc::waitpid(-pgid, std::ptr::null_mut(), libc::WNOHANG) > 0 {} }
}

/// Whether any process is left in group `pgid` (signal 0 only checks; a killed member that
/// nobody reaped yet still counts).
pub fn group_alive(pgid: i32) -> bool {
    // SAFETY: signal 0 performs the permission and existence checks only.
    unsafe { libc::kill(-pgid, 0) == 0 }
}

/// Whether group `pgid` has no member left within `within`. Members rho did not start itself
/// (a shell's background children) are reaped by init a moment after they were killed, and
/// nothing tells rho when, so this looks every 10 ms (for tests and checks after an end).
pub fn group_gone_within(pgid: i32, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    loop {
        if !group_alive(pgid) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The recorded groups (for tests).
pub fn recorded_groups() -> Vec<i32> {
    groups().clone()
}
