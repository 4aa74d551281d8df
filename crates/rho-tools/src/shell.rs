//! Runs a shell command line the way the `bash` tool, `!cmd` and RPC `bash` all need: through
//! [`rho_process::ChildSpec`] (own process group, sandbox, key scrub), stdin closed, stdout
//! and stderr in one pipe so the output keeps the order it was written in, its tail kept as
//! the model sees it, progress as raw pieces or throttled snapshots, the group ended on abort
//! or timeout.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rho_process::shell::{self, Host, ShellNotFound};
use rho_process::{combined_pipe, ChildGroup, ChildSpec, KeyScrub, OutputReader};
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
    /// The session's variables the command sees (the `bash` tool's `PI_SESSION_ID`, ...);
    /// `None` for user commands. Inherited values of [`SESSION_ENV_NAMES`] never pass.
    pub session_env: Option<SessionEnv>,
}

/// The variables pi 1.6 gives the model's shell commands about the session they run in.
pub const SESSION_ENV_NAMES: [&str; 5] = [
    "PI_SESSION_ID",
    "PI_SESSION_FILE",
    "PI_PROVIDER",
    "PI_MODEL",
    "PI_REASONING_LEVEL",
];

/// Gives the session's variables, asked when each command starts (a model or thinking-level
/// change applies to the next command).
#[derive(Clone)]
pub struct SessionEnv(pub Arc<dyn Fn() -> Vec<(&'static str, String)> + Send + Sync>);

impl std::fmt::Debug for SessionEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SessionEnv")
    }
}

/// The shell a command line is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ShellKind {
    /// bash (`shellPath`, Git Bash on Windows), `bash -c <prefix + command>`.
    #[default]
    Bash,
    /// PowerShell (Windows only; the `powershell` tool), run as pi runs it.
    PowerShell,
}

/// pi's flags for PowerShell, the command following `-Command`.
const POWERSHELL_ARGS: [&str; 5] = [
    "-NoProfile",
    "-NonInteractive",
    "-ExecutionPolicy",
    "Bypass",
    "-Command",
];

/// Put before every PowerShell command so its output is UTF-8 (pi's).
const POWERSHELL_UTF8: &str =
    "try { [Console]::OutputEncoding=[System.Text.Encoding]::UTF8 } catch {}\n";

/// Put after a command for Windows PowerShell 5.1 (pi's, pi issue #8842): 5.1 turns a native
/// program's redirected stderr into error records and fails `$?` although the program exited
/// 0; this exits 0 then, else 0 or 1 as `-Command` would. The lone `;` keeps an unfinished
/// last statement a parse error instead of running into the suffix.
const WINDOWS_POWERSHELL_EXIT: &str = "\n;\nif ($?) { exit 0 }\nif (($LASTEXITCODE -eq 0) -and (\"$($Error[0].FullyQualifiedErrorId)\" -like \"NativeCommandError*\")) { exit 0 }\nexit 1";

/// The script PowerShell at `shell` runs for `command`: UTF-8 output first, and for Windows
/// PowerShell (not pwsh) the exit-code suffix, unless a final backtick would continue the
/// command into it.
fn powershell_script(shell: &Path, command: &str) -> String {
    let windows_powershell = shell
        .file_name()
        .is_some_and(|name| name.eq_ignore_ascii_case("powershell.exe"));
    let suffix = match windows_powershell && !command.ends_with('`') {
        true => WINDOWS_POWERSHELL_EXIT,
        false => "",
    };
    format!("{POWERSHELL_UTF8}{command}{suffix}")
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
    /// No shell where pi looks for one, or the configured one is missing.
    #[error(transparent)]
    NotFound(#[from] ShellNotFound),
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

/// The shell to use: `shellPath`, else on unix `/bin/bash`, `bash` on PATH or `sh`, on
/// Windows Git Bash or `bash.exe` on PATH (see [`rho_process::shell`]).
pub fn resolve_shell(config: &ShellConfig) -> Result<PathBuf, ExecError> {
    Ok(shell::bash(config.shell_path.as_deref(), &Host::current())?)
}

/// The PowerShell the `powershell` tool runs (Windows only: `pwsh.exe`, else Windows
/// PowerShell).
pub fn resolve_powershell() -> Result<PathBuf, ExecError> {
    Ok(shell::powershell(&Host::current())?)
}

fn path_with_bin(bin_dir: &Path) -> OsString {
    let mut dirs = vec![bin_dir.to_path_buf()];
    if let Some(existing) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&existing));
    }
    std::env::join_paths(dirs).unwrap_or_default()
}

/// The shell and its arguments for `command`, per the configuration's kind.
fn shell_command(
    kind: ShellKind,
    config: &ShellConfig,
    command: &str,
) -> Result<(PathBuf, Vec<OsString>), ExecError> {
    match kind {
        ShellKind::Bash => {
            let script = match &config.command_prefix {
                Some(prefix) => format!("{prefix}\n{command}"),
                None => command.to_string(),
            };
            Ok((resolve_shell(config)?, vec!["-c".into(), script.into()]))
        }
        ShellKind::PowerShell => {
            let shell = resolve_powershell()?;
            let mut args: Vec<OsString> = POWERSHELL_ARGS.iter().map(OsString::from).collect();
            args.push(powershell_script(&shell, command).into());
            Ok((shell, args))
        }
    }
}

/// `shell args…` in `cwd` under the configuration's sandbox and scrub.
fn shell_spec(shell: &Path, args: Vec<OsString>, cwd: &Path, config: &ShellConfig) -> ChildSpec {
    let mut spec = ChildSpec::new(shell)
        .args(args)
        .cwd(cwd)
        .sandbox(config.sandbox.clone())
        .scrub(config.scrub.clone());
    if let Some(bin) = &config.bin_dir {
        spec = spec.env("PATH", path_with_bin(bin));
    }
    for name in SESSION_ENV_NAMES {
        spec = spec.env_remove(name);
    }
    for (name, value) in config.session_env.iter().flat_map(|vars| (vars.0)()) {
        spec = spec.env(name, value);
    }
    spec
}

/// Runs one command in bash until it exits (and its output is read) or is ended.
pub async fn run_shell(
    run: ShellRun<'_>,
    config: &ShellConfig,
    progress: Progress<'_>,
) -> Result<ExecResult, ExecError> {
    run_in(ShellKind::Bash, run, config, progress).await
}

/// Runs one command in the `kind` of shell until it exits (and its output is read) or is
/// ended. PowerShell takes neither `shellPath` nor the command prefix, which are bash's.
pub async fn run_in(
    kind: ShellKind,
    run: ShellRun<'_>,
    config: &ShellConfig,
    mut progress: Progress<'_>,
) -> Result<ExecResult, ExecError> {
    if !run.cwd.is_dir() {
        return Err(ExecError::MissingCwd(run.cwd.display().to_string()));
    }
    let (shell, args) = shell_command(kind, config, run.command)?;
    let spawn_error = |source| ExecError::Spawn {
        shell: shell.display().to_string(),
        source,
    };
    let mut cmd = shell_spec(&shell, args, run.cwd, config).command()?;
    let (reader, writer) = combined_pipe().map_err(spawn_error)?;
    let (stdout, stderr) = writer.stdio_pair().map_err(spawn_error)?;
    cmd.stdout(stdout).stderr(stderr);
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

async fn read_some(pipe: &mut Option<OutputReader>, buf: &mut [u8]) -> std::io::Result<usize> {
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
#[cfg(unix)]
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
    async fn the_session_variables_are_asked_for_at_each_command_and_stale_ones_never_pass() {
        let level = Arc::new(std::sync::Mutex::new("low"));
        let read = level.clone();
        let vars = SessionEnv(Arc::new(move || {
            let level = *read.lock().expect("lock");
            vec![
                ("PI_SESSION_ID", "s1".to_string()),
                ("PI_REASONING_LEVEL", level.to_string()),
            ]
        }));
        let config = ShellConfig {
            session_env: Some(vars),
            ..ShellConfig::default()
        };
        let cancel = CancellationToken::new();
        let dir = std::env::temp_dir();
        let command = "echo $PI_SESSION_ID $PI_REASONING_LEVEL; echo [$PI_MODEL]";
        let mut outputs = Vec::new();
        for next in ["high", "high"] {
            let run = ShellRun {
                command,
                cwd: &dir,
                timeout: None,
                cancel: &cancel,
            };
            let args = vec!["-c".into(), command.into()];
            let spec = shell_spec(Path::new("/bin/sh"), args, &dir, &config);
            assert!(
                format!("{spec:?}").contains("PI_MODEL"),
                "an inherited PI_MODEL is removed"
            );
            let r = run_shell(run, &config, Progress::Quiet)
                .await
                .expect("runs");
            outputs.push(r.output.text);
            *level.lock().expect("lock") = next;
        }
        assert_eq!(outputs, ["s1 low\n[]\n", "s1 high\n[]\n"]);
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

    #[tokio::test]
    async fn powershell_is_refused_outside_windows() {
        let run = ShellRun {
            command: "Get-Date",
            cwd: &std::env::temp_dir(),
            timeout: None,
            cancel: &CancellationToken::new(),
        };
        let err = run_in(
            ShellKind::PowerShell,
            run,
            &Default::default(),
            Progress::Quiet,
        )
        .await
        .expect_err("not on Windows");
        assert_eq!(
            err.to_string(),
            "The powershell tool is only available on Windows."
        );
    }
}

/// pi's wrapping of a PowerShell command (pure: checked on every platform).
#[cfg(test)]
mod powershell_tests {
    use super::*;

    #[test]
    fn pwsh_gets_utf8_output_and_the_command_as_is() {
        let script = powershell_script(Path::new("C:/pf/PowerShell/7/pwsh.exe"), "Get-Date");
        assert_eq!(
            script,
            "try { [Console]::OutputEncoding=[System.Text.Encoding]::UTF8 } catch {}\nGet-Date"
        );
    }

    #[test]
    fn windows_powershell_gets_the_exit_code_suffix_unless_a_backtick_ends_the_command() {
        let shell = Path::new("C:/Windows/System32/WindowsPowerShell/v1.0/PowerShell.exe");
        let script = powershell_script(shell, "git push 2>&1");
        assert!(script.ends_with("git push 2>&1\n;\nif ($?) { exit 0 }\nif (($LASTEXITCODE -eq 0) -and (\"$($Error[0].FullyQualifiedErrorId)\" -like \"NativeCommandError*\")) { exit 0 }\nexit 1"), "{script}");
        let continued = powershell_script(shell, "Get-ChildItem `");
        assert!(continued.ends_with("Get-ChildItem `"), "{continued}");
    }
}
