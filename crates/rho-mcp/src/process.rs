//! A stdio server's child process, started through rho's one child-process module
//! ([`rho_process`]): its own process group, recorded so rho's exit ends it. Stopping
//! closes stdin (done by dropping the transport), waits a moment for the server to exit, then
//! sends SIGTERM and SIGKILL to the whole group, so servers started through wrappers (`npx`,
//! `uvx`) leave no orphans. Dropping an unstopped group kills it at once.

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use rho_process::{ChildGroup, ChildPipes, ChildSpec, KeyScrub};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout, Command};

use crate::config::Transport;
use crate::error::ConnectError;
use crate::values::{expand_home, resolve};

/// Adjusts a server's command before it is spawned (for example to run it in a sandbox).
/// Gets the server name and the command rho built.
pub type CommandHook = Arc<dyn Fn(&str, &mut Command) + Send + Sync>;

/// How long a server whose stdin closed gets to exit by itself.
const STOP_PATIENCE: Duration = Duration::from_millis(1500);

/// Builds the command of a stdio server: `command` with `args`, `env` (values resolved),
/// `cwd` relative to the session directory, in a new process group, unsandboxed and with the
/// user's whole environment (servers are configured by the user, as in pi). This is the one
/// place a server's process is described; `hook` may wrap it.
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
    let dir = match cwd {
        Some(c) => session_cwd.join(expand_home(c)),
        None => session_cwd.to_path_buf(),
    };
    let mut spec = ChildSpec::new(expand_home(command))
        .args(args.iter().map(|a| expand_home(a)))
        .cwd(dir)
        .scrub(KeyScrub::keep_all());
    for (key, raw) in env {
        let value = resolve(raw).map_err(|source| ConnectError::Env {
            key: key.clone(),
            source,
        })?;
        spec = spec.env(key, value);
    }
    let mut cmd = spec.command().map_err(|e| ConnectError::Spawn {
        command: command.clone(),
        source: std::io::Error::other(e),
    })?;
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(hook) = hook {
        hook(name, &mut cmd);
    }
    Ok(cmd)
}

/// A running server process and its group.
pub struct ProcessGroup {
    group: ChildGroup,
}

/// The pipes of a freshly spawned server.
pub struct Pipes {
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
    pub stderr: Option<ChildStderr>,
}

impl ProcessGroup {
    /// Spawns `cmd`; the caller owns the pipes.
    pub fn spawn(cmd: Command) -> std::io::Result<(ProcessGroup, Pipes)> {
        let (group, pipes) = ChildGroup::spawn(cmd)?;
        let ChildPipes {
            stdin: Some(stdin),
            stdout: Some(stdout),
            stderr,
        } = pipes
        else {
            return Err(std::io::Error::other("server pipes are missing"));
        };
        Ok((
            ProcessGroup { group },
            Pipes {
                stdin,
                stdout,
                stderr,
            },
        ))
    }

    /// The process id of the server (the group leader).
    pub fn pid(&self) -> Option<i32> {
        i32::try_from(self.group.pid()).ok()
    }

    /// Resolves when the leader exits.
    pub async fn wait(&self) {
        self.group.wait().await;
    }

    /// Waits a moment for the server to exit, then SIGTERM and SIGKILL to the group; call
    /// after stdin was closed.
    pub async fn stop(&self) {
        self.group.stop_after(STOP_PATIENCE).await;
    }
}
