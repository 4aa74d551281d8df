//! Opening a long session: spawn → first `get_state` response, then `get_messages`, and the
//! agent's peak RSS against the file size. Each agent opens its own copy of the session
//! [`RUNS`] + 1 times: the first open is the first time it sees the file (rho then keeps an
//! entry index beside it), the figures are the medians of the [`RUNS`] reopenings that follow,
//! which is what resuming a session costs.

use std::path::Path;
use std::time::Instant;

use crate::agent::{Agent, Kind};

/// Reopenings per agent and session size (one run's wall time swings with the load).
pub const RUNS: usize = 5;

/// What one agent measured on one session file.
pub struct SessionFigures {
    /// The first open of the file (no index kept yet).
    pub first_open_ms: f64,
    pub open_ms: f64,
    pub get_messages_ms: f64,
    pub messages: usize,
    pub peak_mib: f64,
}

/// Opens a copy of `file` once, then [`RUNS`] times more; the medians of the reopenings,
/// field by field. `None` if any run failed.
pub fn measure_median(
    kind: &Kind,
    agent_dir: &Path,
    cwd: &Path,
    file: &Path,
) -> Option<SessionFigures> {
    let copy = cwd.join(format!("open-{}.jsonl", kind.name()));
    // rho's entry index and leaf summary beside the copy.
    let sidecars = ["idx", "sum"].map(|ext| cwd.join(format!(".open-{}.jsonl.{ext}", kind.name())));
    std::fs::copy(file, &copy).expect("copy the session");
    remove_all(&sidecars);
    let first = measure(kind, agent_dir, cwd, &copy);
    let runs = (0..RUNS)
        .map(|_| measure(kind, agent_dir, cwd, &copy))
        .collect::<Option<Vec<_>>>();
    let _ = std::fs::remove_file(&copy);
    remove_all(&sidecars);
    let (first, runs) = (first?, runs?);
    let median = |field: fn(&SessionFigures) -> f64| {
        let mut values: Vec<f64> = runs.iter().map(field).collect();
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    Some(SessionFigures {
        first_open_ms: first.open_ms,
        open_ms: median(|f| f.open_ms),
        get_messages_ms: median(|f| f.get_messages_ms),
        messages: runs.iter().map(|f| f.messages).min().unwrap_or(0),
        peak_mib: median(|f| f.peak_mib),
    })
}

fn remove_all(paths: &[std::path::PathBuf]) {
    for path in paths {
        let _ = std::fs::remove_file(path);
    }
}

/// Opens `file` and times the two commands.
fn measure(kind: &Kind, agent_dir: &Path, cwd: &Path, file: &Path) -> Option<SessionFigures> {
    let path = file.to_string_lossy().into_owned();
    let start = Instant::now();
    let mut agent = Agent::spawn_on_mock(kind, agent_dir, cwd, ["--session", &path]);
    agent.send(r#"{"id":"s","type":"get_state"}"#);
    agent.wait_for(r#""command":"get_state""#, |_| {})?;
    let open = start.elapsed();
    let start = Instant::now();
    agent.send(r#"{"id":"m","type":"get_messages"}"#);
    let line = agent.wait_for(r#""command":"get_messages""#, |_| {})?;
    let get_messages = start.elapsed();
    let peak = agent.peak_kib();
    agent.finish();
    let messages = serde_json::from_str::<serde_json::Value>(&line)
        .ok()
        .and_then(|v| v["data"]["messages"].as_array().map(Vec::len))
        .unwrap_or(0);
    Some(SessionFigures {
        first_open_ms: open.as_secs_f64() * 1000.0,
        open_ms: open.as_secs_f64() * 1000.0,
        get_messages_ms: get_messages.as_secs_f64() * 1000.0,
        messages,
        peak_mib: peak as f64 / 1024.0,
    })
}
