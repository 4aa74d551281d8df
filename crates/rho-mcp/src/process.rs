//! A stdio server's child process in its own process group. Stopping closes stdin (done by
//! dropping the transport), then sends SIGTERM, then SIGKILL to the whole group, so servers
//! started through wrappers (`npx`, `uvx`) leave no orphans. Dropping an unstopped group kills
//! it at once.

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};

use crate::config::Transport;
use crate::error::ConnectError;
use crate::values::{expand_home, resolve};

/// Adjusts a server's command before it is spawned (for example to run it in a sandbox).
/// Gets the server name and the command rho built.
pub type CommandHook = Arc<dyn Fn(&str, &mut Command) + Send + Sync>;

/// How long each stop step waits for the process to exit.
const STOP_STEP: Duration = Duration::from_millis(1500);

/// Builds the command of a stdio server: `command` with `args`, `env` (values resolved),
/// `cwd` relative to the session directory, in a new process group. This is the one place a
/// server's process is described; `hook` may wrap it.
pub fn build_command(
    name: &str,
    transport: &Transport,
    session_cwd: &Path,
    hook: Option<&CommandHook>,
) -> Result<Command, ConnectError> {
    let Transport::Stdio {
        command,
        args,
        env,
        cwd,
    } = transport
    else {
        return Err(ConnectError::NotStdio(name.to_string()));
    };
    let mut cmd = Command::new(expand_home(command));
    cmd.args(args.iter().map(|a| expand_home(a)));
    for (key, raw) in env {
        let value = resolve(raw).map_err(|source| ConnectError::Env {
            key: key.clone(),
            source,
        })?;
        cmd.env(key, value);
    }
    let dir = match cwd {
        Some(c) => session_cwd.join(expand_home(c)),
        None => session_cwd.to_path_buf(),
    };
    cmd.current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    if let Some(hook) = hook {
        hook(name, &mut cmd);
    }
    Ok(cmd)
}

/// A running server process and its group.
pub struct ProcessGroup {
    child: tokio::sync::Mutex<Child>,
    pgid: Option<i32>,
    stopped: std::sync::atomic::AtomicBool,
}

/// The pipes of a freshly spawned server.
pub struct Pipes {
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
    pub stderr: Option<ChildStderr>,
}

impl ProcessGroup {
    /// Spawns `cmd`; the caller owns the pipes.
    pub fn spawn(mut cmd: Command) -> std::io::Result<(ProcessGroup, Pipes)> {
        let mut child = cmd.spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(std::io::Error::other("server pipes are missing"));
        };
        let stderr = child.stderr.take();
        let pgid = child.id().and_then(|id| i32::try_from(id).ok());
        // Recorded with every other child group, so rho's signal handlers end the server
        // even when they exit without the orderly shutdown (issue 17).
        rho_tools::children::register_group(child.id().unwrap_or(0));
        Ok((
            ProcessGroup {
                child: tokio::sync::Mutex::new(child),
                pgid,
                stopped: std::sync::atomic::AtomicBool::new(false),
            },
            Pipes {
                stdin,
                stdout,
                stderr,
            },
        ))
    }

    /// The process id of the server (the group leader).
    pub fn pid(&self) -> Option<i32> {
        self.pgid
    }

    /// Resolves when the leader exits.
    pub async fn wait(&self) {
        let _ = self.child.lock().await.wait().await;
    }

    /// SIGTERM, then SIGKILL, to the group; call after stdin was closed.
    pub async fn stop(&self) {
        let mut child = self.child.lock().await;
        let exited = tokio::time::timeout(STOP_STEP, child.wait()).await.is_ok();
        self.signal(libc::SIGTERM);
        if !exited {
            let _ = tokio::time::timeout(STOP_STEP, child.wait()).await;
        }
        self.signal(libc::SIGKILL);
        let _ = child.wait().await;
        if let Some(pgid) = self.pgid {
            rho_tools::children::forget_group_if_empty(pgid as u32);
        }
        self.stopped
            .store(true, std::sync::atomic::Ordering::Release);
    }

    fn signal(&self, sig: i32) {
        if let Some(pgid) = self.pgid {
            // SAFETY: killpg only sends a signal; a group that is gone fails with ESRCH.
            unsafe {
                libc::killpg(pgid, sig);
            }
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        if !self.stopped.load(std::sync::atomic::Ordering::Acquire) {
            self.signal(libc::SIGKILL);
        }
    }
}
