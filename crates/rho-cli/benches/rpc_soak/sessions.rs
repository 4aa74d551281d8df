//! Opening a long session: spawn → first `get_state` response, then `get_messages`, and the
//! agent's peak RSS against the file size.

use std::path::Path;
use std::time::Instant;

use crate::agent::{Agent, Kind, ReaderMode};

/// What one agent measured on one session file.
pub struct SessionFigures {
    pub open_ms: f64,
    pub get_messages_ms: f64,
    pub messages: usize,
    pub peak_mib: f64,
}

/// Opens `file` (a copy, since agents may write to it) and times the two commands.
pub fn measure(kind: &Kind, agent_dir: &Path, cwd: &Path, file: &Path) -> Option<SessionFigures> {
    let copy = cwd.join(format!("open-{}.jsonl", kind.name()));
    std::fs::copy(file, &copy).expect("copy the session");
    let path = copy.to_string_lossy().into_owned();
    let args = [
        "--session",
        &path,
        "--provider",
        "mock",
        "--model",
        "mock-model",
    ];
    let mode = ReaderMode { pause_after: None };
    let start = Instant::now();
    let mut agent = Agent::spawn(kind, agent_dir, cwd, &args, mode);
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
