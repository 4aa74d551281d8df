//! Process groups on unix: `setpgid(0, 0)` in the child, signals to `-pgid`.

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::ExitStatus;

use super::Stop;

fn signal_number(stop: Stop) -> libc::c_int {
    match stop {
        Stop::Ask => libc::SIGTERM,
        Stop::Force => libc::SIGKILL,
    }
}

/// Makes the child the leader of a new process group.
pub(crate) fn own_group(cmd: &mut std::process::Command) {
    cmd.process_group(0);
}

/// Nothing to do after the spawn: the group exists from the child's first instruction.
pub(crate) fn adopt(_pid: u32) {}

/// Nothing is held per group.
pub(crate) fn release(_pgid: i32) {}

/// Signals every process of group `pgid`.
pub(crate) fn stop_group(pgid: i32, stop: Stop) {
    // SAFETY: kill(2) with a negative pid signals the process group we created; no memory
    // is touched.
    unsafe {
        libc::kill(-pgid, signal_number(stop));
    }
}

/// Signals the process `pid` alone.
pub(crate) fn stop_process(pid: i32, stop: Stop) {
    // SAFETY: kill(2) on a child we started; no memory is touched.
    unsafe {
        libc::kill(pid, signal_number(stop));
    }
}

/// Collects our own exited children in the group, so a zombie leader does not count as alive
/// (at exit nobody else will wait for it).
pub(crate) fn reap(pgid: i32) {
    // SAFETY: waitpid with WNOHANG only collects exit statuses of our children in the group.
    unsafe { while libc::waitpid(-pgid, std::ptr::null_mut(), libc::WNOHANG) > 0 {} }
}

/// Whether any process is left in group `pgid` (signal 0 only checks; a killed member that
/// nobody reaped yet still counts).
pub(crate) fn group_alive(pgid: i32) -> bool {
    // SAFETY: signal 0 performs the permission and existence checks only.
    unsafe { libc::kill(-pgid, 0) == 0 }
}

/// The status reported for a child whose wait failed: killed by SIGKILL.
pub(crate) fn killed_status() -> ExitStatus {
    ExitStatus::from_raw(libc::SIGKILL)
}
