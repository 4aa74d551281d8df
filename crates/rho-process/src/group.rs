//! A started child and its process group: recorded in the registry from the moment it exists,
//! its exit watched by a task (so any number of callers can wait for it while another ends
//! it), ended with SIGTERM and then SIGKILL (CTRL_BREAK, then the job terminated, on Windows). Dropping a group whose leader still runs kills
//! the group; a finished leader's background children are left to rho's exit.

use std::process::ExitStatus;
use std::time::Duration;

use tokio::process::{ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::sync::watch;

use super::platform::Stop;
use super::registry::{self, TERM_GRACE};

/// The pipes a caller asked for (`Stdio::piped()`), taken from the child.
#[derive(Debug, Default)]
pub struct ChildPipes {
    /// The child's stdin.
    pub stdin: Option<ChildStdin>,
    /// The child's stdout.
    pub stdout: Option<ChildStdout>,
    /// The child's stderr.
    pub stderr: Option<ChildStderr>,
}

/// How the leader ended: `None` while it runs, then its status (`None` inside when waiting
/// for it failed, so nothing is known but that it is gone).
type Exit = Option<Option<ExitStatus>>;

/// A running child in its own process group.
#[derive(Debug)]
pub struct ChildGroup {
    pgid: u32,
    exit: watch::Receiver<Exit>,
}

impl ChildGroup {
    /// Spawns `cmd` (built by [`super::ChildSpec::command`], so in its own group) and records
    /// the group. Must run inside a tokio runtime.
    pub fn spawn(mut cmd: Command) -> std::io::Result<(ChildGroup, ChildPipes)> {
        let mut child = registry::spawn_recorded(|| cmd.spawn(), |c| c.id().unwrap_or(0))?;
        let pgid = child.id().unwrap_or(0);
        let pipes = ChildPipes {
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            stderr: child.stderr.take(),
        };
        let (tx, exit) = watch::channel(None);
        tokio::spawn(async move {
            let status = child.wait().await.ok();
            let _ = tx.send(Some(status));
        });
        Ok((ChildGroup { pgid, exit }, pipes))
    }

    /// The leader's pid, which is the group id.
    pub fn pid(&self) -> u32 {
        self.pgid
    }

    /// Resolves when the leader has exited, with its exit code (`None` after a signal).
    pub async fn wait(&self) -> Option<i32> {
        let mut exit = self.exit.clone();
        let ended = exit.wait_for(Option::is_some).await;
        let code = match ended.as_deref() {
            Ok(Some(Some(status))) => status.code(),
            _ => None,
        };
        registry::forget_group_if_empty(self.pgid);
        code
    }

    /// The leader's exit status once it has exited.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        match &*self.exit.borrow() {
            Some(Some(status)) => Some(*status),
            _ => None,
        }
    }

    /// Whether the leader has exited.
    pub fn has_exited(&self) -> bool {
        self.exit.borrow().is_some()
    }

    /// Ends the group: SIGTERM, up to [`TERM_GRACE`] for the leader to exit, then SIGKILL to
    /// whatever is left of the group.
    pub async fn terminate(&self) {
        registry::stop_group(self.pgid, Stop::Ask);
        let _ = tokio::time::timeout(TERM_GRACE, self.wait()).await;
        registry::stop_group(self.pgid, Stop::Force);
        self.wait().await;
    }

    /// Waits up to `patience` for the leader to exit by itself (a server whose stdin was
    /// closed), then [`Self::terminate`]s the group.
    pub async fn stop_after(&self, patience: Duration) {
        let _ = tokio::time::timeout(patience, self.wait()).await;
        self.terminate().await;
    }
}

impl Drop for ChildGroup {
    fn drop(&mut self) {
        if !self.has_exited() {
            registry::stop_group(self.pgid, Stop::Force);
        }
        registry::forget_group_if_empty(self.pgid);
    }
}
