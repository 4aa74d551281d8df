//! Runs a command to its end, blocking the calling thread: for the short commands rho waits on
//! outside any async context of its own (`!command` config values, package installs, `gh`).
//! The child gets its own process group, recorded in the registry (so rho's exit ends it);
//! when the timeout passes the group is ended (SIGTERM, [`TERM_GRACE`], SIGKILL) and the run
//! fails with [`RunError::TimedOut`]. Output is read by a thread per pipe, so a chatty child
//! never blocks on a full pipe while rho waits for its exit.

use std::io::Read;
use std::process::{ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use rho_sandbox::SandboxError;

use super::platform::{self, Stop};
use super::registry::{self, TERM_GRACE};
use super::ChildSpec;

/// Where the child's stdout and stderr go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// Collected into [`Finished`].
    Captured,
    /// rho's own stdout and stderr (a command run for the user at the terminal).
    Inherited,
}

/// A command that ran to its end.
#[derive(Debug, Clone)]
pub struct Finished {
    /// How it exited.
    pub status: ExitStatus,
    /// Its stdout ([`Output::Captured`]; empty otherwise).
    pub stdout: Vec<u8>,
    /// Its stderr ([`Output::Captured`]; empty otherwise).
    pub stderr: Vec<u8>,
}

/// Why a command did not run to its end.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The sandbox refused to run anything (its mode cannot be enforced here).
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// The program could not be started (missing, not executable, ...).
    #[error("could not start {program}: {source}")]
    Spawn {
        /// The program as the caller named it.
        program: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// It was still running when the timeout passed; its process group was ended.
    #[error("{program} did not finish within {} s and was stopped", .timeout.as_secs_f64())]
    TimedOut {
        /// The program as the caller named it.
        program: String,
        /// The time it had.
        timeout: Duration,
    },
}

/// What the helper threads report.
enum Event {
    Exited(Option<ExitStatus>),
    Stdout(Vec<u8>),
    Stderr(Vec<u8>),
}

/// Runs `spec` until it exits and its output pipes close, or until `timeout` passes (`None`:
/// no limit), blocking the calling thread.
pub fn run_to_end(
    spec: &ChildSpec,
    output: Output,
    timeout: Option<Duration>,
) -> Result<Finished, RunError> {
    let program = spec.program().display().to_string();
    let mut cmd = spec.std_command()?;
    let (out, err) = match output {
        Output::Captured => (Stdio::piped(), Stdio::piped()),
        Output::Inherited => (Stdio::inherit(), Stdio::inherit()),
    };
    cmd.stdout(out).stderr(err);
    let spawned = if spec.own_group() {
        registry::spawn_recorded(|| cmd.spawn(), std::process::Child::id)
    } else {
        cmd.spawn()
    };
    let mut child = spawned.map_err(|source| RunError::Spawn {
        program: program.clone(),
        source,
    })?;
    let pid = child.id();
    let (tx, events) = mpsc::channel();
    let mut pending = 1;
    if let Some(pipe) = child.stdout.take() {
        pending += 1;
        read_in_thread(pipe, tx.clone(), Event::Stdout);
    }
    if let Some(pipe) = child.stderr.take() {
        pending += 1;
        read_in_thread(pipe, tx.clone(), Event::Stderr);
    }
    std::thread::spawn(move || {
        let _ = tx.send(Event::Exited(child.wait().ok()));
    });
    let deadline = timeout.map(|t| Instant::now() + t);
    let mut finished = Collected::default();
    while pending > 0 {
        let event = match deadline {
            Some(at) => events.recv_timeout(at.saturating_duration_since(Instant::now())),
            None => events.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match event {
            Ok(event) => {
                finished.take(event);
                pending -= 1;
            }
            Err(RecvTimeoutError::Timeout) => {
                end(pid, spec.own_group(), &events, finished.exited.is_some());
                return Err(RunError::TimedOut {
                    program,
                    timeout: timeout.unwrap_or_default(),
                });
            }
            // Every helper is done (a thread that cannot send has nothing left to say).
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    if spec.own_group() {
        registry::forget_group_if_empty(pid);
    }
    Ok(Finished {
        status: finished
            .exited
            .flatten()
            .unwrap_or_else(platform::killed_status),
        stdout: finished.stdout,
        stderr: finished.stderr,
    })
}

/// What the helper threads reported so far.
#[derive(Default)]
struct Collected {
    exited: Option<Option<ExitStatus>>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

impl Collected {
    fn take(&mut self, event: Event) {
        match event {
            Event::Exited(status) => self.exited = Some(status),
            Event::Stdout(bytes) => self.stdout = bytes,
            Event::Stderr(bytes) => self.stderr = bytes,
        }
    }
}

fn read_in_thread<R: Read + Send + 'static>(
    mut pipe: R,
    tx: mpsc::Sender<Event>,
    event: fn(Vec<u8>) -> Event,
) {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        let _ = tx.send(event(bytes));
    });
}

/// Ends a run past its timeout: SIGTERM, up to [`TERM_GRACE`] for the leader to exit, then
/// SIGKILL to whatever is left; returns once the leader is reaped. The output threads end
/// when the last holder of the pipes is gone.
fn end(pid: u32, own_group: bool, events: &Receiver<Event>, exited: bool) {
    let signal = |stop| match own_group {
        true => registry::stop_group(pid, stop),
        false => registry::stop_process(pid, stop),
    };
    signal(Stop::Ask);
    let mut exited = exited;
    let grace_ends = Instant::now() + TERM_GRACE;
    while !exited {
        match events.recv_timeout(grace_ends.saturating_duration_since(Instant::now())) {
            Ok(Event::Exited(_)) => exited = true,
            Ok(_) => {}
            Err(_) => break,
        }
    }
    signal(Stop::Force);
    while !exited {
        match events.recv() {
            Ok(Event::Exited(_)) => exited = true,
            Ok(_) => {}
            Err(_) => break,
        }
    }
    if own_group {
        registry::forget_group(pid);
    }
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;

    fn sh(script: &str) -> ChildSpec {
        ChildSpec::new("sh").args(["-c", script])
    }

    #[test]
    fn output_and_status_are_collected() {
        let done = run_to_end(
            &sh("printf out; printf err >&2; exit 4"),
            Output::Captured,
            None,
        )
        .expect("runs");
        assert_eq!(done.status.code(), Some(4));
        assert_eq!(done.stdout, b"out");
        assert_eq!(done.stderr, b"err");
    }

    #[test]
    fn a_missing_program_says_which() {
        let err = run_to_end(
            &ChildSpec::new("rho-no-such-program"),
            Output::Captured,
            None,
        )
        .expect_err("cannot start");
        assert!(matches!(err, RunError::Spawn { .. }), "{err:?}");
        assert!(err
            .to_string()
            .starts_with("could not start rho-no-such-program: "));
    }

    /// A command that hangs, with a background child holding its pipes, is ended at the
    /// timeout: the whole group, not only the shell.
    #[test]
    fn a_hanging_command_and_its_group_end_at_the_timeout() {
        let dir = std::env::temp_dir().join(format!("rho-process-run-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let pid_file = dir.join("pgid");
        let script = format!(
            "trap '' TERM; echo $$ > '{}'; sleep 30 & sleep 30",
            pid_file.display()
        );
        let err = run_to_end(&sh(&script), Output::Captured, Some(Duration::from_secs(1)))
            .expect_err("times out");
        assert!(matches!(err, RunError::TimedOut { .. }), "{err:?}");
        assert_eq!(
            err.to_string(),
            "sh did not finish within 1 s and was stopped"
        );
        let pgid: i32 = std::fs::read_to_string(&pid_file)
            .expect("the shell wrote its pid")
            .trim()
            .parse()
            .expect("a pid");
        let _ = std::fs::remove_dir_all(&dir);
        assert!(!registry::recorded_groups().contains(&pgid));
        let gone = registry::group_gone_within(pgid, Duration::from_secs(5));
        assert!(gone, "group {pgid} is gone");
    }
}

/// Run on Windows (CI runs them under Wine).
#[cfg(test)]
#[cfg(windows)]
mod windows_tests {
    use super::*;

    fn cmd(script: &str) -> ChildSpec {
        ChildSpec::new("cmd.exe").args(["/c", script])
    }

    #[test]
    fn output_and_exit_code_are_collected() {
        let done = run_to_end(&cmd("echo out& exit /b 4"), Output::Captured, None).expect("runs");
        assert_eq!(done.status.code(), Some(4));
        assert_eq!(String::from_utf8_lossy(&done.stdout).trim_end(), "out");
    }

    /// A hanging command is ended at the timeout with its whole job (the leader's `ping`).
    #[test]
    fn a_hanging_command_and_its_job_end_at_the_timeout() {
        let err = run_to_end(
            &cmd("ping -n 60 127.0.0.1"),
            Output::Captured,
            Some(Duration::from_secs(1)),
        )
        .expect_err("times out");
        assert!(matches!(err, RunError::TimedOut { .. }), "{err:?}");
        assert_eq!(
            err.to_string(),
            "cmd.exe did not finish within 1 s and was stopped"
        );
        assert!(registry::recorded_groups().is_empty());
    }
}
