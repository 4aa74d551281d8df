//! Runs a shell command the way the `bash` tool and the session's `!cmd` both need: own process
//! group, stdin closed, stdout and stderr interleaved, throttled progress, the whole group
//! killed on abort or timeout.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::output::{OutputBuffer, OutputSnapshot};
use crate::truncate::{DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES};

/// How often progress snapshots are sent at most.
pub const UPDATE_THROTTLE: Duration = Duration::from_millis(100);

/// Which shell runs commands and how.
#[derive(Debug, Clone, Default)]
pub struct ShellConfig {
    /// The `shellPath` setting; must exist when set.
    pub shell_path: Option<PathBuf>,
    /// The `shellCommandPrefix` setting, run before every command.
    pub command_prefix: Option<String>,
    /// `<agentDir>/bin`, put first on PATH.
    pub bin_dir: Option<PathBuf>,
    /// The session's sandbox; commands run unconfined without one.
    pub sandbox: Option<std::sync::Arc<rho_sandbox::Sandbox>>,
}

/// Why a command stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecEnd {
    /// It exited; `None` when a signal ended it.
    Exited(Option<i32>),
    /// The timeout fired and the group was killed.
    TimedOut,
    /// The cancellation token fired and the group was killed.
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

fn kill_group(pid: u32) {
    if pid == 0 {
        return;
    }
    // SAFETY: kill(2) with a negative pid signals the process group we created; no memory is touched.
    unsafe {
        libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
    }
}

/// Runs `command` in `cwd`; `on_update` gets throttled snapshots while output arrives.
pub async fn run_shell_command(
    command: &str,
    cwd: &Path,
    config: &ShellConfig,
    timeout: Option<Duration>,
    cancel: &CancellationToken,
    mut on_update: impl FnMut(&OutputSnapshot),
) -> Result<ExecResult, ExecError> {
    if !cwd.is_dir() {
        return Err(ExecError::MissingCwd(cwd.display().to_string()));
    }
    let shell = resolve_shell(config)?;
    let full_command = match &config.command_prefix {
        Some(prefix) => format!("{prefix}\n{command}"),
        None => command.to_string(),
    };
    let mut cmd =
        crate::sandbox_hook::shell_command(&shell, full_command, config.sandbox.as_ref())?;
    cmd.current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(bin) = &config.bin_dir {
        cmd.env("PATH", path_with_bin(bin));
    }
    let mut child = cmd.spawn().map_err(|source| ExecError::Spawn {
        shell: shell.display().to_string(),
        source,
    })?;
    let pid = child.id().unwrap_or(0);
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let mut output = OutputBuffer::new(DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES);
    let (mut out_buf, mut err_buf) = (vec![0u8; 65536], vec![0u8; 65536]);
    let deadline = timeout.map(|t| Instant::now() + t);
    let mut end: Option<ExecEnd> = None;
    let mut exited_at: Option<Instant> = None;
    let mut last_update: Option<Instant> = None;
    let mut dirty = false;
    loop {
        let pipes_open = stdout.is_some() || stderr.is_some();
        if end.is_some() && !pipes_open {
            break;
        }
        let drain_deadline = exited_at.map(|t| t + Duration::from_millis(200));
        let update_at = if dirty {
            last_update.map(|t| t + UPDATE_THROTTLE)
        } else {
            None
        };
        tokio::select! {
            n = read_some(&mut stdout, &mut out_buf) => {
                handle_read(n, &mut stdout, &out_buf, &mut output, &mut dirty);
            }
            n = read_some(&mut stderr, &mut err_buf) => {
                handle_read(n, &mut stderr, &err_buf, &mut output, &mut dirty);
            }
            status = child.wait(), if end.is_none() => {
                end = Some(ExecEnd::Exited(status.ok().and_then(|s| s.code())));
                exited_at = Some(Instant::now());
            }
            _ = cancel.cancelled(), if end.is_none() => {
                kill_group(pid);
                let _ = child.wait().await;
                end = Some(ExecEnd::Aborted);
                exited_at = Some(Instant::now());
            }
            _ = sleep_until_opt(deadline), if end.is_none() && deadline.is_some() => {
                kill_group(pid);
                let _ = child.wait().await;
                end = Some(ExecEnd::TimedOut);
                exited_at = Some(Instant::now());
            }
            _ = sleep_until_opt(drain_deadline), if drain_deadline.is_some() => {
                stdout = None;
                stderr = None;
            }
            _ = sleep_until_opt(update_at), if update_at.is_some() => {}
        }
        let due = last_update.is_none_or(|t| t.elapsed() >= UPDATE_THROTTLE);
        if dirty && due && end.is_none() {
            dirty = false;
            last_update = Some(Instant::now());
            on_update(&output.snapshot());
        }
    }
    if dirty {
        on_update(&output.snapshot());
    }
    Ok(ExecResult {
        end: end.unwrap_or(ExecEnd::Exited(None)),
        output: output.snapshot(),
    })
}

async fn read_some<R: tokio::io::AsyncRead + Unpin>(
    pipe: &mut Option<R>,
    buf: &mut [u8],
) -> std::io::Result<usize> {
    match pipe {
        Some(p) => p.read(buf).await,
        None => std::future::pending().await,
    }
}

fn handle_read<R>(
    n: std::io::Result<usize>,
    pipe: &mut Option<R>,
    buf: &[u8],
    output: &mut OutputBuffer,
    dirty: &mut bool,
) {
    match n {
        Ok(0) | Err(_) => *pipe = None,
        Ok(n) => {
            output.push(&buf[..n]);
            *dirty = true;
        }
    }
}

async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
