//! Opening a long session: spawn → first `get_state` response, then `get_messages`, and the
//! agent's peak RSS against the file size; the median of [`RUNS`] runs of each.

use std::path::Path;
use std::time::Instant;

use crate::agent::{Agent, Kind};

/// Runs per agent and session size (one run's wall time swings with the load).
pub const RUNS: usize = 3;

/// What one agent measured on one session file.
pub struct SessionFigures {
    pub open_ms: f64,
    pub get_messages_ms: f64,
    pub messages: usize,
    pub peak_mib: f64,
}

/// The median of [`RUNS`] runs of [`measure`], field by field; `None` if any run failed.
pub fn measure_median(
    kind: &Kind,
    agent_dir: &Path,
    cwd: &Path,
    file: &Path,
) -> Option<SessionFigures> {
    let runs = (0..RUNS)
        .map(|_| measure(kind, agent_dir, cwd, file))
        .collect::<Option<Vec<_>>>()?;
    let median = |field: fn(&SessionFigures) -> f64| {
        let mut values: Vec<f64> = runs.iter().map(field).collect();
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    Some(SessionFigures {
        open_ms: median(|f| f.open_ms),
        get_messages_ms: median(|f| f.get_messages_ms),
        messages: runs.iter().map(|f| f.messages).min().unwrap_or(0),
        peak_mib: median(|f| f.peak_mib),
    })
}

/// Opens `file` (a copy, since agents may write to it) and times the two commands.
pub fn measure(kind: &Kind, agent_dir: &Path, cwd: &Path, file: &Path) -> Option<SessionFigures> {
    let copy = cwd.join(format!("open-{}.jsonl", kind.name()));
    std::fs::copy(file, &copy).expect("copy the session");
    let path = copy.to_string_lossy().into_owned();
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
    let _ = std::fs::remove_file(&copy);
    let messages = serde_json::from_str::<serde_json::Value>(&line)
        .ok()
        .and_then(|v| v["data"]["messages"].as_array().map(Vec::len))
        .unwrap_or(0);
    Some(SessionFigures {
        open_ms: open.as_secs_f64() * 1000.0,
        get_messages_ms: get_messages.as_secs_f64() * 1000.0,
        messages,
        peak_mib: peak as f64 / 1024.0,
    })
}
