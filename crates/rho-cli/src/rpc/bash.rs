//! The `bash` and `abort_bash` commands: runs a command line with `sh -c` in its own process
//! group (so `abort_bash` and shutdown kill the whole tree), collects stdout and stderr in
//! arrival order, and builds the `BashResult` (interfaces spec §1.4).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use rho_agent::BashExecutionMessage;
use serde::Serialize;
use std::os::fd::{FromRawFd, OwnedFd};

use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;

use super::bash_output::{sanitize, truncate_tail, MAX_BYTES};

/// The `bash` response data.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BashResult {
    /// Cleaned, tail-truncated output.
    pub output: String,
    /// Absent when the command was cancelled or killed by a signal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// True after `abort_bash`.
    pub cancelled: bool,
    /// True when `output` is a tail.
    pub truncated: bool,
    /// The whole output, when it was cut or large.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_output_path: Option<String>,
}

impl BashResult {
    /// The `bashExecution` message recorded in the session.
    pub fn to_message(&self, command: &str) -> BashExecutionMessage {
        BashExecutionMessage {
            command: command.to_string(),
            output: self.output.clone(),
            exit_code: self.exit_code,
            cancelled: self.cancelled,
            truncated: self.truncated,
            full_output_path: self.full_output_path.clone(),
            timestamp: rho_ai::now_ms(),
            exclude_from_context: None,
        }
    }
}

struct Running {
    pgid: i32,
    cancelled: bool,
}

/// Runs user commands; remembers the running ones so they can be killed.
#[derive(Default)]
pub struct BashRunner {
    running: Mutex<Vec<Arc<Mutex<Running>>>>,
}

impl BashRunner {
    /// Runs `command` in `cwd` (`prefix`, the `shellCommandPrefix` setting, goes first on
    /// its own line) until it exits or is killed.
    pub async fn run(
        &self,
        command: &str,
        cwd: &Path,
        prefix: Option<&str>,
    ) -> std::io::Result<BashResult> {
        let script = match prefix {
            Some(p) if !p.is_empty() => format!("{p}\n{command}"),
            _ => command.to_string(),
        };
        let (reader, writer) = pipe()?;
        let mut shell = tokio::process::Command::new("sh");
        shell
            .arg("-c")
            .arg(&script)
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::from(writer.try_clone()?))
            .stderr(Stdio::from(writer))
            .process_group(0)
            .kill_on_drop(true);
        // Spawned and registered under one lock, so `abort_all` never misses a fresh shell.
        let (mut child, entry) = {
            let mut running = lock(&self.running);
            let child = shell.spawn()?;
            rho_tools::children::register_group(child.id().unwrap_or(0));
            let entry = Arc::new(Mutex::new(Running {
                pgid: child.id().map_or(0, |p| p as i32),
                cancelled: false,
            }));
            running.push(entry.clone());
            (child, entry)
        };
        // The parent's copies of the pipe's write end must close for EOF to arrive.
        drop(shell);
        let raw = collect(reader).await;
        let status = child.wait().await;
        rho_tools::children::forget_group_if_empty(lock(&entry).pgid as u32);
        lock(&self.running).retain(|r| !Arc::ptr_eq(r, &entry));
        let cancelled = lock(&entry).cancelled;
        let exit_code = match status {
            Ok(s) if !cancelled => s.code(),
            _ => None,
        };
        Ok(finish(&raw, exit_code, cancelled))
    }

    /// Kills every running command's process group; their results report `cancelled`.
    pub fn abort_all(&self) {
        for r in lock(&self.running).iter() {
            let mut r = lock(r);
            r.cancelled = true;
            rho_tools::children::kill_group(r.pgid as u32);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// One pipe for stdout and stderr, so the output keeps the order it was written in.
fn pipe() -> std::io::Result<(pipe::Receiver, OwnedFd)> {
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

/// Reads the pipe until every writer (the shell and its children) has closed it.
async fn collect(mut reader: pipe::Receiver) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 16 * 1024];
    while let Ok(n) = reader.read(&mut buf).await {
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
    }
    out
}

fn finish(raw: &[u8], exit_code: Option<i32>, cancelled: bool) -> BashResult {
    let text = sanitize(raw);
    let (output, truncated) = truncate_tail(&text);
    let full_output_path = (truncated || text.len() > MAX_BYTES)
        .then(|| save_full_output(&text))
        .flatten();
    BashResult {
        output,
        exit_code,
        cancelled,
        truncated,
        full_output_path,
    }
}

/// `$TMPDIR/pi-bash-<16 hex>.log`; `None` (with a warning) if it cannot be written.
fn save_full_output(text: &str) -> Option<String> {
    let id = rho_core::session::ids::uuid_v4().replace('-', "");
    let path: PathBuf = std::env::temp_dir().join(format!("pi-bash-{}.log", &id[..16]));
    match std::fs::write(&path, text) {
        Ok(()) => Some(path.to_string_lossy().into_owned()),
        Err(e) => {
            eprintln!(
                "Warning: cannot save the full bash output to {}: {e}",
                path.display()
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn runs_in_cwd_with_combined_output_and_exit_code() {
        let dir = tempfile::tempdir().expect("tempdir");
        let runner = BashRunner::default();
        let r = runner
            .run("pwd; echo err >&2; exit 3", dir.path(), Some("echo pre"))
            .await
            .expect("runs");
        let cwd = dir.path().canonicalize().expect("canonical");
        assert_eq!(r.exit_code, Some(3));
        assert!(!r.cancelled && !r.truncated);
        assert!(
            r.output.starts_with(&format!("pre\n{}\n", cwd.display())),
            "{}",
            r.output
        );
        assert!(r.output.contains("err\n"));
    }

    #[tokio::test]
    async fn large_output_is_cut_and_saved() {
        let dir = tempfile::tempdir().expect("tempdir");
        let r = BashRunner::default()
            .run("seq 1 3000", dir.path(), None)
            .await
            .expect("runs");
        assert!(r.truncated);
        assert!(r.output.ends_with("3000\n"));
        let path = r.full_output_path.expect("saved");
        let full = std::fs::read_to_string(&path).expect("log file");
        assert!(full.starts_with("1\n2\n"));
        let _ = std::fs::remove_file(path);
    }
}
