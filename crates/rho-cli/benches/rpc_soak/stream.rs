//! Long streamed replies: N text deltas from the loopback server, read by a fast reader or by
//! one that pauses mid-stream. Reports wall time, the agent's CPU time and its peak RSS.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rho_testkit::openai_chat::ChatStream;
use rho_testkit::MockServer;

use crate::agent::{Agent, Kind, ReaderMode};

/// The two-byte pieces a reply is made of (2 bytes per delta, as in the issue's figures).
const PIECES: [&str; 6] = ["lo", "re", "m ", "ip", "su", "m "];

/// How long the slow reader stops reading.
pub const PAUSE: Duration = Duration::from_secs(2);

/// What one configuration measured.
pub struct StreamFigures {
    pub replies: usize,
    pub wall_ms: f64,
    pub cpu_ms: f64,
    pub peak_mib: f64,
    pub updates_read: u64,
    pub mib_read: f64,
    /// `message_end` and `agent_end` of every reply carried the whole text.
    pub complete: bool,
}

impl StreamFigures {
    pub fn cpu_us_per_delta(&self, deltas: usize) -> f64 {
        self.cpu_ms * 1000.0 / (self.replies * deltas) as f64
    }
}

/// The reply text of `deltas` deltas.
fn reply_text(deltas: usize) -> String {
    (0..deltas).map(|i| PIECES[i % PIECES.len()]).collect()
}

fn reply(deltas: usize) -> rho_testkit::MockResponse {
    let mut stream = ChatStream::new("chatcmpl-soak", "mock-model").role();
    for i in 0..deltas {
        stream = stream.text(PIECES[i % PIECES.len()]);
    }
    stream
        .finish("stop")
        .usage(12, deltas as u64, None)
        .done()
        .response()
}

/// One measurement: `replies` replies of `deltas` deltas, a fast or a pausing reader, and
/// rho's RPC dialect (`None`: the agent's default).
pub struct Run<'a> {
    pub deltas: usize,
    pub replies: usize,
    pub slow: bool,
    pub dialect: Option<&'a str>,
}

/// Streams the run's replies through one agent process. A slow reader pauses once, after
/// its 100th `message_update`.
pub fn measure(
    kind: &Kind,
    server: &MockServer,
    agent_dir: &Path,
    cwd: &Path,
    run: Run<'_>,
) -> Option<StreamFigures> {
    let Run {
        deltas,
        replies,
        slow,
        dialect,
    } = run;
    let mode = ReaderMode {
        pause_after: slow.then_some((100, PAUSE)),
    };
    let mut args = vec![
        "--no-session",
        "--provider",
        "mock",
        "--model",
        "mock-model",
    ];
    if let Some(d) = dialect {
        args.extend(["--rpc-dialect", d]);
    }
    let mut agent = Agent::spawn(kind, agent_dir, cwd, &args, mode);
    agent.send(r#"{"id":"s","type":"get_state"}"#);
    agent.wait_for(r#""command":"get_state""#, |_| {})?;
    let expected = reply_text(deltas);
    let (cpu0, start) = (agent.cpu_ms(), Instant::now());
    let mut complete = true;
    for r in 0..replies {
        server.push(reply(deltas));
        agent.send(&format!(
            r#"{{"id":"p{r}","type":"prompt","message":"go"}}"#
        ));
        let mut ended = false;
        let end = agent.wait_for(r#"{"type":"agent_end""#, |line| {
            if line.starts_with(r#"{"type":"message_end""#)
                && line.contains(r#""role":"assistant""#)
            {
                ended = line.contains(&expected);
            }
        })?;
        complete &= ended && end.contains(&expected);
    }
    let (wall, cpu, peak) = (start.elapsed(), agent.cpu_ms() - cpu0, agent.peak_kib());
    let figures = StreamFigures {
        replies,
        wall_ms: wall.as_secs_f64() * 1000.0,
        cpu_ms: cpu,
        peak_mib: peak as f64 / 1024.0,
        updates_read: agent.updates.load(Ordering::Relaxed),
        mib_read: agent.bytes.load(Ordering::Relaxed) as f64 / (1024.0 * 1024.0),
        complete,
    };
    agent.finish();
    Some(figures)
}
