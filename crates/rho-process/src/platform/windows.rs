//! Process groups on Windows: a new console process group per child (so CTRL_BREAK reaches
//! it and not rho) and a Job Object with kill-on-close holding it and everything it starts.
//!
//! The child is put in its job right after `CreateProcess` returns; a grandchild it starts in
//! that instant (before the assignment) would escape the job. A shell does not start anything
//! that fast, and std offers no suspended start to close the gap.

use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};
use std::os::windows::process::{CommandExt, ExitStatusExt};
use std::process::ExitStatus;
use std::sync::Mutex;

use windows_sys::Win32::Foundation::{HANDLE, STILL_ACTIVE};
use windows_sys::Win32::System::Console::{GenerateConsoleCtrlEvent, CTRL_BREAK_EVENT};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JobObjectBasicAccountingInformation,
    JobObjectExtendedLimitInformation, QueryInformationJobObject, SetInformationJobObject,
    TerminateJobObject, JOBOBJECT_BASIC_ACCOUNTING_INFORMATION,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
};
use windows_sys::Win32::System::Threading::{
    GetExitCodeProcess, OpenProcess, TerminateProcess, CREATE_NEW_PROCESS_GROUP,
    PROCESS_QUERY_LIMITED_INFORMATION, PROCESS_SET_QUOTA, PROCESS_TERMINATE,
};

use super::Stop;

/// The exit code a forced stop gives (what `taskkill /F` gives too).
const KILLED: u32 = 1;

/// The job of each group, by its leader's pid.
static JOBS: Mutex<Vec<(i32, OwnedHandle)>> = Mutex::new(Vec::new());

fn jobs() -> std::sync::MutexGuard<'static, Vec<(i32, OwnedHandle)>> {
    JOBS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` on the job of group `pgid`, if it has one.
fn with_job<T>(pgid: i32, f: impl FnOnce(HANDLE) -> T) -> Option<T> {
    let jobs = jobs();
    let (_, job) = jobs.iter().find(|(g, _)| *g == pgid)?;
    Some(f(job.as_raw_handle() as HANDLE))
}

/// An open handle on process `pid` with `access`, closed on drop.
fn open_process(pid: i32, access: u32) -> Option<OwnedHandle> {
    let pid = u32::try_from(pid).ok()?;
    // SAFETY: OpenProcess returns a new handle or null; a non-null one is owned here.
    let handle = unsafe { OpenProcess(access, 0, pid) };
    // SAFETY: non-null, fresh and owned by nobody else.
    (!handle.is_null()).then(|| unsafe { OwnedHandle::from_raw_handle(handle as _) })
}

/// Starts the child in a console process group of its own.
pub(crate) fn own_group(cmd: &mut std::process::Command) {
    cmd.creation_flags(CREATE_NEW_PROCESS_GROUP);
}

/// Puts the just-started child `pid` in a new kill-on-close job and records the job. When
/// Windows refuses (an old system whose own job forbids nesting), the group is the child
/// alone: stops then reach the leader only.
pub(crate) fn adopt(pid: u32) {
    let Ok(pgid) = i32::try_from(pid) else {
        return;
    };
    if let Some(job) = new_job(pgid) {
        jobs().push((pgid, job));
    }
}

fn new_job(pid: i32) -> Option<OwnedHandle> {
    // SAFETY: unnamed job with default security; null on failure.
    let raw = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
    if raw.is_null() {
        return None;
    }
    // SAFETY: a fresh handle owned by nobody else.
    let job = unsafe { OwnedHandle::from_raw_handle(raw as _) };
    let mut limits = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    let process = open_process(pid, PROCESS_SET_QUOTA | PROCESS_TERMINATE)?;
    // SAFETY: both handles are valid for the calls; the limits struct outlives them.
    let assigned = unsafe {
        SetInformationJobObject(
            raw,
            JobObjectExtendedLimitInformation,
            std::ptr::from_ref(&limits).cast(),
            size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
        ) != 0
            && AssignProcessToJobObject(raw, process.as_raw_handle() as HANDLE) != 0
    };
    assigned.then_some(job)
}

/// Closes group `pgid`'s job (which ends whatever is still in it: kill-on-close).
pub(crate) fn release(pgid: i32) {
    jobs().retain(|(g, _)| *g != pgid);
}

/// Stops every process of group `pgid`: CTRL_BREAK to its console group, or the whole job
/// terminated.
pub(crate) fn stop_group(pgid: i32, stop: Stop) {
    match stop {
        Stop::Ask => {
            if let Ok(group) = u32::try_from(pgid) {
                // SAFETY: no memory is passed; fails harmlessly when rho has no console.
                unsafe { GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, group) };
            }
        }
        Stop::Force => {
            // SAFETY: the job handle is valid while the record is locked.
            let ended = with_job(pgid, |job| unsafe { TerminateJobObject(job, KILLED) });
            if ended.is_none() {
                stop_process(pgid, Stop::Force);
            }
        }
    }
}

/// Stops the process `pid` alone (a child that shares rho's console group): there is no
/// gentle request for one process, so asking does nothing and the grace runs out.
pub(crate) fn stop_process(pid: i32, stop: Stop) {
    if stop == Stop::Ask {
        return;
    }
    if let Some(process) = open_process(pid, PROCESS_TERMINATE) {
        // SAFETY: a valid handle opened with PROCESS_TERMINATE.
        unsafe { TerminateProcess(process.as_raw_handle() as HANDLE, KILLED) };
    }
}

/// Nothing to collect: Windows keeps no zombies.
pub(crate) fn reap(_pgid: i32) {}

/// Whether anything of group `pgid` still runs: its job's active processes, or the leader
/// alone when it has no job.
pub(crate) fn group_alive(pgid: i32) -> bool {
    match active_processes(pgid) {
        Some(active) => active > 0,
        None => process_alive(pgid),
    }
}

/// How many processes group `pgid`'s job holds (`None`: no job, or Windows would not say).
fn active_processes(pgid: i32) -> Option<u32> {
    with_job(pgid, |job| {
        let mut info = JOBOBJECT_BASIC_ACCOUNTING_INFORMATION::default();
        // SAFETY: the job handle is valid while the record is locked; `info` is the class's
        // struct and outlives the call.
        let ok = unsafe {
            QueryInformationJobObject(
                job,
                JobObjectBasicAccountingInformation,
                std::ptr::from_mut(&mut info).cast(),
                size_of::<JOBOBJECT_BASIC_ACCOUNTING_INFORMATION>() as u32,
                std::ptr::null_mut(),
            ) != 0
        };
        ok.then_some(info.ActiveProcesses)
    })
    .flatten()
}

fn process_alive(pid: i32) -> bool {
    let Some(process) = open_process(pid, PROCESS_QUERY_LIMITED_INFORMATION) else {
        return false;
    };
    let mut code = 0u32;
    // SAFETY: a valid handle opened for querying; `code` outlives the call.
    let ok = unsafe { GetExitCodeProcess(process.as_raw_handle() as HANDLE, &mut code) != 0 };
    ok && code == STILL_ACTIVE as u32
}

/// The status reported for a child whose wait failed: a forced stop's.
pub(crate) fn killed_status() -> ExitStatus {
    ExitStatus::from_raw(KILLED)
}

/// Run on Windows (CI runs them under Wine: `scripts/wine-run` as cargo's runner).
#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    /// `cmd.exe` running `ping` for a minute: a leader with a child of its own.
    fn pinging() -> std::process::Command {
        let mut cmd = std::process::Command::new("cmd.exe");
        cmd.args(["/c", "ping -n 60 127.0.0.1 >NUL"]);
        own_group(&mut cmd);
        cmd
    }

    fn within(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if done() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        done()
    }

    #[test]
    fn the_job_holds_the_grandchildren_and_a_forced_stop_ends_them_all() {
        let mut child = pinging().spawn().expect("cmd.exe starts");
        let pgid = i32::try_from(child.id()).expect("pid");
        adopt(child.id());
        // cmd.exe and the ping it started are both in the job.
        let both = within(Duration::from_secs(20), || {
            active_processes(pgid).is_some_and(|n| n >= 2)
        });
        assert!(both, "job processes: {:?}", active_processes(pgid));
        assert!(group_alive(pgid));
        stop_group(pgid, Stop::Force);
        let status = child.wait().expect("wait");
        assert_eq!(status.code(), Some(KILLED as i32));
        let gone = within(Duration::from_secs(10), || !group_alive(pgid));
        assert!(gone, "job processes left: {:?}", active_processes(pgid));
        release(pgid);
        assert_eq!(active_processes(pgid), None);
    }

    #[test]
    fn closing_the_job_ends_what_is_left_in_it() {
        let mut child = pinging().spawn().expect("cmd.exe starts");
        let pgid = i32::try_from(child.id()).expect("pid");
        adopt(child.id());
        assert!(group_alive(pgid));
        // Kill-on-close: releasing the record (or rho's exit) ends the group, long before
        // the minute of pings is over (the exit code is the system's: Wine gives 0).
        release(pgid);
        let ended = within(Duration::from_secs(10), || {
            child.try_wait().is_ok_and(|s| s.is_some())
        });
        assert!(ended, "cmd.exe still runs after its job was closed");
        assert!(!process_alive(pgid));
    }

    #[test]
    fn a_process_without_a_job_is_stopped_alone() {
        let mut child = pinging().spawn().expect("cmd.exe starts");
        let pid = i32::try_from(child.id()).expect("pid");
        assert!(group_alive(pid), "the leader alone counts without a job");
        stop_process(pid, Stop::Ask);
        assert!(
            process_alive(pid),
            "there is no gentle stop for one process"
        );
        stop_process(pid, Stop::Force);
        assert_eq!(child.wait().expect("wait").code(), Some(KILLED as i32));
        assert!(!group_alive(pid));
    }
}
