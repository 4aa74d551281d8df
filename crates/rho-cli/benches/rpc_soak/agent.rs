//! One agent process in RPC mode (rho, or pi given as a command) with a reader thread on its
//! stdout, plus what /proc says about it (peak RSS, CPU time).

use std::io::{BufWriter, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

/// Which agent to run.
#[derive(Clone)]
pub enum Kind {
    /// A rho binary: the one built with this bench, or one named by `--rho name=path`
    /// (another tree's build, measured side by side in the same run).
    Rho { name: String, path: String },
    /// A pi command line, e.g. `node ~/.cache/pi073/.../dist/cli.js`.
    Pi(Vec<String>),
}

impl Kind {
    /// The rho built with this bench.
    pub fn this_rho() -> Kind {
        Kind::Rho {
            name: "rho".into(),
            path: env!("CARGO_BIN_EXE_rho").into(),
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Kind::Rho { name, .. } => name,
            Kind::Pi(_) => "pi",
        }
    }
}

/// How the reader treats `message_update` lines.
#[derive(Clone, Copy)]
pub struct ReaderMode {
    /// Sleep this long once, after this many `message_update` lines (`None`: never pause).
    pub pause_after: Option<(u64, Duration)>,
}

/// A running agent.
pub struct Agent {
    child: Child,
    stdin: Option<BufWriter<ChildStdin>>,
    /// Every line that is not a `message_update`, in order.
    pub lines: mpsc::Receiver<String>,
    /// `message_update` lines read so far.
    pub updates: Arc<AtomicU64>,
    /// stdout bytes read so far.
    pub bytes: Arc<AtomicU64>,
    reader: Option<JoinHandle<()>>,
}

impl Agent {
    /// Spawns the agent with `agent_dir` as its config dir and `cwd` as its project.
    pub fn spawn(
        kind: &Kind,
        agent_dir: &Path,
        cwd: &Path,
        args: &[&str],
        mode: ReaderMode,
    ) -> Agent {
        let mut cmd = match kind {
            Kind::Rho { path, .. } => Command::new(path),
            Kind::Pi(parts) => {
                let mut c = Command::new(&parts[0]);
                c.args(&parts[1..]);
                c
            }
        };
        cmd.args(["--mode", "rpc"])
            .args(args)
            .current_dir(cwd)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", agent_dir)
            .env("RHO_CODING_AGENT_DIR", agent_dir)
            .env("PI_CODING_AGENT_DIR", agent_dir)
            .env("PI_SKIP_VERSION_CHECK", "1")
            .env("PI_OFFLINE", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().expect("the agent starts");
        let stdout = child.stdout.take().expect("stdout");
        let stdin = BufWriter::new(child.stdin.take().expect("stdin"));
        let (tx, lines) = mpsc::channel();
        let updates = Arc::new(AtomicU64::new(0));
        let bytes = Arc::new(AtomicU64::new(0));
        let (u, b) = (updates.clone(), bytes.clone());
        let reader = std::thread::spawn(move || read_lines(stdout, tx, u, b, mode));
        Agent {
            child,
            stdin: Some(stdin),
            lines,
            updates,
            bytes,
            reader: Some(reader),
        }
    }

    /// An agent on the loopback server's mock model with a fast reader, given one session
    /// option (e.g. `["--session", file]` or `["--session-dir", dir]`).
    pub fn spawn_on_mock(kind: &Kind, agent_dir: &Path, cwd: &Path, session: [&str; 2]) -> Agent {
        let args = [
            session[0],
            session[1],
            "--provider",
            "mock",
            "--model",
            "mock-model",
        ];
        let mode = ReaderMode { pause_after: None };
        Agent::spawn(kind, agent_dir, cwd, &args, mode)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes one command line.
    pub fn send(&mut self, json: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(json.as_bytes()).expect("write command");
        stdin.write_all(b"\n").expect("write command");
        stdin.flush().expect("flush command");
    }

    /// The next non-update line whose text contains `needle` (earlier lines are passed to
    /// `seen`); `None` if the agent exited or went quiet for five minutes.
    pub fn wait_for(&self, needle: &str, mut seen: impl FnMut(&str)) -> Option<String> {
        loop {
            let line = self.lines.recv_timeout(Duration::from_secs(300)).ok()?;
            if line.contains(needle) {
                return Some(line);
            }
            seen(&line);
        }
    }

    /// Peak resident memory so far, in KiB (VmHWM).
    pub fn peak_kib(&self) -> u64 {
        status_kib(self.pid(), "VmHWM:")
    }

    /// Resident memory now, in KiB (VmRSS).
    pub fn rss_kib(&self) -> u64 {
        status_kib(self.pid(), "VmRSS:")
    }

    /// Proportional set size now, in KiB: each shared page divided among the processes that
    /// map it, so summed over processes it is the memory they take together.
    pub fn pss_kib(&self) -> u64 {
        field_kib(&format!("/proc/{}/smaps_rollup", self.pid()), "Pss:")
    }

    /// The anonymous (heap, stacks) and file-backed (the binary's pages) parts of the
    /// resident memory now, in KiB.
    pub fn rss_parts_kib(&self) -> (u64, u64) {
        (
            status_kib(self.pid(), "RssAnon:"),
            status_kib(self.pid(), "RssFile:"),
        )
    }

    /// CPU time (utime + stime) so far, in ms.
    pub fn cpu_ms(&self) -> f64 {
        cpu_ms(self.pid())
    }

    /// CPU time on every thread alive now, in ms, from the scheduler's own nanosecond count
    /// (`/proc/<pid>/task/*/schedstat`): utime and stime tick every 10 ms, which rounds an
    /// idle agent's few milliseconds of work to nothing.
    pub fn cpu_ms_precise(&self) -> f64 {
        let tasks = std::fs::read_dir(format!("/proc/{}/task", self.pid()));
        let ns: u64 = tasks
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
            .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
            .sum();
        ns as f64 / 1e6
    }

    /// Closes stdin and waits for the exit.
    pub fn finish(mut self) {
        self.stdin = None;
        let _ = self.child.wait();
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads stdout in large chunks as fast as it comes (or pausing once, as `mode` says).
fn read_lines(
    mut stdout: impl Read,
    tx: mpsc::Sender<String>,
    updates: Arc<AtomicU64>,
    bytes: Arc<AtomicU64>,
    mode: ReaderMode,
) {
    let mut chunk = vec![0u8; 256 * 1024];
    let mut line: Vec<u8> = Vec::new();
    let mut paused = false;
    loop {
        let n = match stdout.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        bytes.fetch_add(n as u64, Ordering::Relaxed);
        let mut rest = &chunk[..n];
        while let Some(nl) = memchr::memchr(b'\n', rest) {
            line.extend_from_slice(&rest[..nl]);
            rest = &rest[nl + 1..];
            if is_update(&line) {
                let seen = updates.fetch_add(1, Ordering::Relaxed) + 1;
                if let Some((after, pause)) = mode.pause_after {
                    if !paused && seen >= after {
                        paused = true;
                        std::thread::sleep(pause);
                    }
                }
            } else {
                let _ = tx.send(String::from_utf8_lossy(&line).into_owned());
            }
            line.clear();
        }
        line.extend_from_slice(rest);
    }
}

fn is_update(line: &[u8]) -> bool {
    const PREFIX: &[u8] = b"{\"type\":\"message_update\"";
    line.starts_with(PREFIX)
}

fn status_kib(pid: u32, field: &str) -> u64 {
    field_kib(&format!("/proc/{pid}/status"), field)
}

/// A `Name: <n> kB` line of a /proc file.
fn field_kib(path: &str, field: &str) -> u64 {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn cpu_ms(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let after = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    (ticks(11) + ticks(12)) as f64 * 1000.0 / hz
}
