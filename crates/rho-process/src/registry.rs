//! The record of child process groups, so nothing outlives rho: a group is ended on abort or
//! timeout by its runner, and every group still recorded is ended when rho exits (normal end,
//! stdin EOF, SIGTERM, SIGHUP, SIGINT). Background children of a finished command
//! (`server &`) keep their group alive, so a group is only forgotten once it has no member
//! left. Ending a group is SIGTERM, a grace of [`TERM_GRACE`], then SIGKILL (on Windows:
//! CTRL_BREAK, the grace, then its Job Object terminated; see [`crate::platform`]).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::platform::{self, Stop};

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
    let pid = pgid(&child);
    platform::adopt(pid);
    if let Some(pgid) = pgid_of(pid) {
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
            platform::release(pgid);
        }
    }
}

/// Forgets `pgid` whether or not members are left: after SIGKILL to the group nothing in it
/// runs again, and members init has not reaped yet are only zombies.
pub(crate) fn forget_group(pgid: u32) {
    if let Some(pgid) = pgid_of(pgid) {
        groups().retain(|&g| g != pgid);
        platform::release(pgid);
    }
}

/// Stops every process of the group.
pub(crate) fn stop_group(pgid: u32, stop: Stop) {
    if let Some(pgid) = pgid_of(pgid) {
        platform::stop_group(pgid, stop);
    }
}

/// Stops the process `pid` alone (a child that shares rho's group).
pub(crate) fn stop_process(pid: u32, stop: Stop) {
    if let Some(pid) = pgid_of(pid) {
        platform::stop_process(pid, stop);
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
        stop_group(pgid as u32, Stop::Ask);
    }
    let deadline = Instant::now() + TERM_GRACE;
    let mut left = all.clone();
    loop {
        left.retain(|&pgid| {
            platform::reap(pgid);
            group_alive(pgid)
        });
        if left.is_empty() || Instant::now() >= deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    for &pgid in &left {
        stop_group(pgid as u32, Stop::Force);
    }
    for pgid in all {
        platform::release(pgid);
    }
}

/// Whether any process is left in group `pgid` (a killed member that nobody reaped yet
/// still counts).
pub fn group_alive(pgid: i32) -> bool {
    platform::group_alive(pgid)
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
