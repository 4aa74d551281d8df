//! Runs a shell command line the way the `bash` tool, `!cmd` and RPC `bash` all need: through
//! [`rho_process::ChildSpec`] (own process group, sandbox, key scrub), stdin closed, stdout
//! and stderr in one pipe so the output keeps the order it was written in, its tail kept as
//! the model sees it, progress as raw pieces or throttled snapshots, the group ended on abort
//! or timeout.

use std::ffi::OsString;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use rho_process::{ChildGroup, ChildSpec, KeyScrub};
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::output::{OutputBuffer, OutputSnapshot};
use crate::truncate::{DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES};

/// How often progress snapshots are sent at most.
pub const UPDATE_THROTTLE: Duration = Duration::from_millis(100);

/// How long output is still read after the shell exited (background children may hold the
/// pipe open for as long as they run).
const DRAIN: Duration = Duration::from_millis(200);

/// Which shell runs commands and how.
#[derive(Debug, Clone, Default)]
pub struct ShellConfig {
    /// The `shellPath` setting; must exist when set.
    pub shell_path: Option<PathBuf>,
    /// The `shellCommandPrefix` setting, run before every command.
    pub command_prefix: Option<String>,
    /// `<agentDir>/bin`, put first on PATH.
    pub bin_dir: Option<PathBuf>,
    /// Which provider keys the command does not inherit.
    pub scrub: KeyScrub,
    /// The session's sandbox; commands run unconfined without one.
    pub sandbox: Option<Arc<rho_sandbox::Sandbox>>,
}

/// Why a command stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecEnd {
    /// It exited; `None` when a signal ended it.
    Exited(Option<i32>),
    /// The timeout fired and the group was ended.
    TimedOut,
    /// The cancellation token fired and the group was ended.
    Aborted,
}

/// A finished command.
#[derive(Debug, Clone)]
pub struct ExecResult {
    /// How it ended.
    pub end: ExecEnd,
    /// Its output as the model sees it.
    pub output: OutputSnapshot,
}

/// Failures before a command could run.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// The working directory is missing.
    #[error("Working directory does not exist: {0}\nCannot execute bash commands.")]
    MissingCwd(String),
    /// The configured shell is missing.
    #[error("Custom shell path not found: {0}. Fix shellPath in settings.json or remove it.")]
    MissingShell(String),
    /// The shell could not be started.
    #[error("Failed to start shell {shell}: {source}")]
    Spawn {
        /// The shell tried.
        shell: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The sandbox refused to run anything (its mode cannot be enforced here).
    #[error(transparent)]
    Sandbox(#[from] rho_sandbox::SandboxError),
}

/// What the caller hears while the command runs.
pub enum Progress<'a> {
    /// Nothing until the end.
    Quiet,
    /// Every piece of output as it is read.
    Chunks(&'a mut (dyn FnMut(&[u8]) + Send)),
    /// Snapshots of the output's tail, at most every [`UPDATE_THROTTLE`].
    Snapshots(&'a mut (dyn FnMut(&OutputSnapshot) + Send)),
}

/// One command to run.
#[derive(Debug, Clone, Copy)]
pub struct ShellRun<'a> {
    /// The command line (the configured prefix goes first, on its own line).
    pub command: &'a str,
    /// Where it runs.
    pub cwd: &'a Path,
    /// Ended after this long, if set.
    pub timeout: Option<Duration>,
    /// Ended when this fires.
    pub cancel: &'a CancellationToken,
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
    })
}

/// The shell to use: `shellPath`, else `/bin/bash`, else `bash` on PATH, else `sh`.
pub fn resolve_shell(config: &ShellConfig) -> Result<PathBuf, ExecError> {
    if let Some(path) = &config.shell_path {
        if path.exists() {
            return Ok(path.clone());
        }
        return Err(ExecError::MissingShell(path.display().to_string()));
    }
    let bin_bash = PathBuf::from("/bin/bash");
    if bin_bash.exists() {
        return Ok(bin_bash);
    }
    Ok(find_on_path("bash").unwrap_or_else(|| PathBuf::from("sh")))
}

fn path_with_bin(bin_dir: &Path) -> OsString {
    let mut dirs = vec![bin_dir.to_path_buf()];
    if let Some(existing) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&existing));
    }
    std::env::join_paths(dirs).unwrap_or_default()
}

/// `shell -c script` in `cwd` under the configuration's sandbox and scrub.
fn shell_spec(shell: &Path, script: String, cwd: &Path, config: &ShellConfig) -> ChildSpec {
    let mut spec = ChildSpec::new(shell)
        .args(["-c".into(), OsString::from(script)])
        .cwd(cwd)
        .sandbox(config.sandbox.clone())
        .scrub(config.scrub.clone());
    if let Some(bin) = &config.bin_dir {
        spec = spec.env("PATH", path_with_bin(bin));
    }
    spec
}

/// Runs one command until it exits (and its output is read) or is ended.
pub async fn run_shell(
    run: ShellRun<'_>,
    config: &ShellConfig,
    mut progress: Progress<'_>,
) -> Result<ExecResult, ExecError> {
    if !run.cwd.is_dir() {
        return Err(ExecError::MissingCwd(run.cwd.display().to_string()));
    }
    let shell = resolve_shell(config)?;
    let script = match &config.command_prefix {
        Some(prefix) => format!("{prefix}\n{}", run.command),
        None => run.command.to_string(),
    };
    let spawn_error = |source| ExecError::Spawn {
        shell: shell.display().to_string(),
        source,
    };
    let mut cmd = shell_spec(&shell, script, run.cwd, config).command()?;
    let (reader, writer) = combined_pipe().map_err(spawn_error)?;
    cmd.stdout(Stdio::from(writer.try_clone().map_err(spawn_error)?))
        .stderr(Stdio::from(writer));
    let spawned = ChildGroup::spawn(cmd);
    // The parent's copies of the pipe's write end must close for EOF to arrive.
    let (group, _) = spawned.map_err(spawn_error)?;
    let mut reader = Some(reader);
    let mut output = OutputBuffer::new(DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES);
    let mut buf = vec![0u8; 64 * 1024];
    let deadline = run.timeout.map(|t| Instant::now() + t);
    let mut end: Option<ExecEnd> = None;
    let mut exited_at: Option<Instant> = None;
    let mut last_update: Option<Instant> = None;
    let mut dirty = false;
    loop {
        if end.is_some() && reader.is_none() {
            break;
        }
        let drain_deadline = exited_at.map(|t| t + DRAIN);
        let update_at = dirty
            .then(|| last_update.map(|t| t + UPDATE_THROTTLE))
            .flatten();
        tokio::select! {
            n = read_some(&mut reader, &mut buf) => match n {
                Ok(0) | Err(_) => reader = None,
                Ok(n) => {
                    output.push(&buf[..n]);
                    if let Progress::Chunks(f) = &mut progress {
                        f(&buf[..n]);
                    }
                    dirty = true;
                }
            },
            code = group.wait(), if end.is_none() => {
                end = Some(ExecEnd::Exited(code));
                exited_at = Some(Instant::now());
            }
            _ = run.cancel.cancelled(), if end.is_none() => {
                group.terminate().await;
                end = Some(ExecEnd::Aborted);
                exited_at = Some(Instant::now());
            }
            _ = sleep_until_opt(deadline), if end.is_none() && deadline.is_some() => {
                group.terminate().await;
                end = Some(ExecEnd::TimedOut);
                exited_at = Some(Instant::now());
            }
            _ = sleep_until_opt(drain_deadline), if drain_deadline.is_some() => reader = None,
            _ = sleep_until_opt(update_at), if update_at.is_some() => {}
        }
        if let Progress::Snapshots(f) = &mut progress {
            let due = last_update.is_none_or(|t| t.elapsed() >= UPDATE_THROTTLE);
            if dirty && due && end.is_none() {
                dirty = false;
                last_update = Some(Instant::now());
                f(&output.snapshot());
            }
        }
    }
    if let (Progress::Snapshots(f), true) = (&mut progress, dirty) {
        f(&output.snapshot());
    }
    Ok(ExecResult {
        end: end.unwrap_or(ExecEnd::Exited(None)),
        output: output.snapshot(),
    })
}

/// One pipe for stdout and stderr, so the output keeps the order it was written in.
fn combined_pipe() -> std::io::Result<(pipe::Receiver, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills both descriptors on success; each is owned exactly once below.
    let (read, write) = unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]))
    };
    Ok((pipe::Receiver::from_owned_fd(read)?, write))
}

async fn read_some(pipe: &mut Option<pipe::Receiver>, buf: &mut [u8]) -> std::io::Result<usize> {
    match pipe {
        Some(p) => p.read(buf).await,
        None => std::future::pending().await,
    }
}

async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn run(
        command: &str,
        cancel: &CancellationToken,
        on_chunk: &mut (dyn FnMut(&[u8]) + Send),
    ) -> ExecResult {
        let dir = std::env::temp_dir();
        let run = ShellRun {
            command,
            cwd: &dir,
            timeout: None,
            cancel,
        };
        run_shell(run, &ShellConfig::default(), Progress::Chunks(on_chunk))
            .await
            .expect("runs")
    }

    #[tokio::test]
    async fn output_keeps_its_order_across_stdout_and_stderr() {
        let mut chunks = Vec::new();
        let command = "echo 1; echo 2 >&2; echo 3; echo 4 >&2; exit 5";
        let r = run(command, &Default::default(), &mut |c| {
            chunks.extend_from_slice(c)
        })
        .await;
        assert_eq!(r.output.text, "1\n2\n3\n4\n");
        assert_eq!(chunks, b"1\n2\n3\n4\n");
        assert_eq!(r.end, ExecEnd::Exited(Some(5)));
    }

    #[tokio::test]
    async fn a_command_that_ignores_sigterm_is_killed_after_the_grace() {
        let cancel = CancellationToken::new();
        // Cancelled once the command says its trap is in place.
        let command = "trap '' TERM; echo ready; sleep 30; echo never";
        let r = run(command, &cancel.clone(), &mut |c| {
            if c.starts_with(b"ready") {
                cancel.cancel();
            }
        })
        .await;
        assert_eq!(r.end, ExecEnd::Aborted);
        assert_eq!(r.output.text, "ready\n");
    }
}
