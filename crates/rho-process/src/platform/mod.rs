//! The operating system's side of child process groups, one file per platform, so the rest
//! of the crate speaks only of groups, stops and liveness:
//!
//! - unix: a child leads a process group of its own (`setpgid`); a stop is SIGTERM or SIGKILL
//!   to the whole group; a group is alive while `kill(-pgid, 0)` succeeds.
//! - Windows: a child starts in a new console process group and is put in a Job Object with
//!   kill-on-close (so everything it starts is in the job too, and nothing outlives rho even
//!   if rho dies without cleaning up); a gentle stop is CTRL_BREAK to its console group, a
//!   hard stop terminates the job; a group is alive while its job has active processes.
//!
//! A group is named by its leader's pid on both (on unix that is the process group id).

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub(crate) use unix::*;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub(crate) use windows::*;

/// How hard to stop a group or a process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// Ask it to end (SIGTERM; CTRL_BREAK on Windows).
    Ask,
    /// End it now (SIGKILL; TerminateJobObject / TerminateProcess on Windows).
    Force,
}
