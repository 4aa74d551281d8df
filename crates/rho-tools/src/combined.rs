//! Shell commands whose stdout and stderr share one pipe, so their output keeps the order it
//! was written in, run side by side and killable together (the RPC `bash` command). Each
//! runs in its own process group, recorded in [`crate::children`], so `abort_all` and rho's
//! exit (SIGTERM included) kill the whole tree.

use std::os::fd::{FromRawFd, OwnedFd};
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;

use crate::children;

/// A finished combined run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CombinedOutput {
    /// stdout and stderr, as written.
    pub raw: Vec<u8>,
    /// The exit code; `None` when cancelled or ended by a signal.
    pub exit_code: Option<i32>,
    /// True when [`CombinedRuns::abort_all`] killed it.
    pub cancelled: bool,
}

struct Running {
    pgid: u32,
    cancelled: bool,
}

/// The commands running now; any number at once.
#[derive(Default)]
pub struct CombinedRuns {
    running: Mutex<Vec<Arc<Mutex<Running>>>>,
}

impl CombinedRuns {
    /// Runs `sh -c script` in `cwd` with stdin closed until it exits or is killed, and every
    /// process that inherited its output has closed it.
    pub async fn run(&self, script: &str, cwd: &Path) -> std::io::Result<CombinedOutput> {
        self.run_streaming(script, cwd, |_| {}).await
    }

    /// [`Self::run`], handing each piece of output to `on_chunk` as it arrives (pi 1.x's
    /// `bash_execution_update` events).
    pub async fn run_streaming(
        &self,
        script: &str,
        cwd: &Path,
        on_chunk: impl FnMut(&[u8]),
    ) -> std::io::Result<CombinedOutput> {
        let (reader, writer) = combined_pipe()?;
        let mut shell = tokio::process::Command::new("sh");
        shell
            .arg("-c")
            .arg(script)
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
            let pgid = child.id().unwrap_or(0);
            children::register_group(pgid);
            let entry = Arc::new(Mutex::new(Running {
                pgid,
                cancelled: false,
            }));
            running.push(entry.clone());
            (child, entry)
        };
        // The parent's copies of the pipe's write end must close for EOF to arrive.
        drop(shell);
        let raw = collect(reader, on_chunk).await;
        let status = child.wait().await;
        children::forget_group_if_empty(lock(&entry).pgid);
        lock(&self.running).retain(|r| !Arc::ptr_eq(r, &entry));
        let cancelled = lock(&entry).cancelled;
        let exit_code = match status {
            Ok(s) if !cancelled => s.code(),
            _ => None,
        };
        Ok(CombinedOutput {
            raw,
            exit_code,
            cancelled,
        })
    }

    /// Kills every running command's process group; their results report `cancelled`.
    pub fn abort_all(&self) {
        for r in lock(&self.running).iter() {
            let mut r = lock(r);
            r.cancelled = true;
            children::kill_group(r.pgid);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
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

/// Reads the pipe until every writer (the shell and its children) has closed it.
async fn collect(mut reader: pipe::Receiver, mut on_chunk: impl FnMut(&[u8])) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 16 * 1024];
    while let Ok(n) = reader.read(&mut buf).await {
        if n == 0 {
            break;
        }
        on_chunk(&buf[..n]);
        out.extend_from_slice(&buf[..n]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn output_keeps_its_order_across_stdout_and_stderr() {
        let dir = tempfile::tempdir().expect("tempdir");
        let r = CombinedRuns::default()
            .run("echo 1; echo 2 >&2; echo 3; echo 4 >&2; exit 5", dir.path())
            .await
            .expect("runs");
        assert_eq!(String::from_utf8_lossy(&r.raw), "1\n2\n3\n4\n");
        assert_eq!((r.exit_code, r.cancelled), (Some(5), false));
    }

    #[tokio::test]
    async fn chunks_arrive_as_written_and_add_up_to_the_output() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut chunks = Vec::new();
        let r = CombinedRuns::default()
            .run_streaming("echo one; echo two >&2", dir.path(), |c| {
                chunks.extend_from_slice(c)
            })
            .await
            .expect("runs");
        assert_eq!(chunks, r.raw);
        assert_eq!(String::from_utf8_lossy(&chunks), "one\ntwo\n");
    }

    #[tokio::test]
    async fn abort_all_kills_every_running_command() {
        let dir = tempfile::tempdir().expect("tempdir");
        let runs = Arc::new(CombinedRuns::default());
        let started = |name: &str| dir.path().join(name);
        let spawn = |name: &'static str| {
            let runs = runs.clone();
            let cwd = dir.path().to_path_buf();
            tokio::spawn(async move {
                runs.run(&format!("touch {name}; sleep 30"), &cwd)
                    .await
                    .expect("runs")
            })
        };
        let (a, b) = (spawn("a"), spawn("b"));
        while !(started("a").exists() && started("b").exists()) {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        runs.abort_all();
        for r in [a.await.expect("joins"), b.await.expect("joins")] {
            assert!(r.cancelled);
            assert_eq!(r.exit_code, None);
        }
    }
}
