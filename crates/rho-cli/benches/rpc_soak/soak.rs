//! Memory soak (issue 17): one agent with sessions on answers 1,000 short prompts, then 300
//! prompts whose replies are 50 KB each. Reports resident memory (VmRSS, not the peak) after
//! the first prompt, after the 1,000 and after the 300, each read once the agent is idle
//! again; the target is ≤ 2× the first figure.

use std::path::Path;

use rho_testkit::openai_chat::ChatStream;
use rho_testkit::MockServer;
use serde_json::json;

use crate::agent::{Agent, Kind};

const SHORT: usize = 1_000;
const LARGE: usize = 300;
const LARGE_BYTES: usize = 50 * 1024;

/// Resident memory after each phase, in MiB.
pub struct SoakFigures {
    pub first: f64,
    pub after_short: f64,
    pub after_large: f64,
    /// After the 300: (anonymous, file-backed) parts, and the peak, in MiB.
    pub parts: (f64, f64),
    pub peak: f64,
    pub wall_s: f64,
}

fn reply(text: &str) -> rho_testkit::MockResponse {
    let mut stream = ChatStream::new("chatcmpl-soak", "mock-model").role();
    for piece in text.as_bytes().chunks(512) {
        stream = stream.text(std::str::from_utf8(piece).unwrap_or("x"));
    }
    stream.finish("stop").usage(20, 5, None).done().response()
}

/// A config dir of its own: a window large enough for 15 MB of replies, compaction off.
fn soak_agent_dir(home: &Path, server: &MockServer) -> std::path::PathBuf {
    let dir = home.join("soak-agent");
    std::fs::create_dir_all(&dir).expect("soak agent dir");
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", server.url()), "api": "openai-completions",
        "apiKey": "test-key",
        "compat": {"supportsDeveloperRole": false, "supportsStore": false},
        "models": [{"id": "mock-model", "contextWindow": 100_000_000, "maxTokens": 1000}]}}});
    std::fs::write(dir.join("models.json"), models.to_string()).expect("models.json");
    let settings = json!({"compaction": {"enabled": false}});
    std::fs::write(dir.join("settings.json"), settings.to_string()).expect("settings.json");
    dir
}

/// Asks `get_state` until the agent is idle: its post-run work is done, so the figure is the
/// memory it keeps between prompts.
fn wait_idle(agent: &mut Agent, prompt: usize) -> Option<()> {
    for n in 0.. {
        let id = format!("idle-{prompt}-{n}");
        agent.send(&json!({"id": id, "type": "get_state"}).to_string());
        let state = agent.wait_for(&format!(r#""id":"{id}""#), |_| {})?;
        if state.contains(r#""isStreaming":false"#) {
            return Some(());
        }
    }
    None
}

/// Runs the soak against one agent; `None` if it exited or stalled.
pub fn measure(kind: &Kind, server: &MockServer, home: &Path, cwd: &Path) -> Option<SoakFigures> {
    let agent_dir = soak_agent_dir(home, server);
    let sessions = home.join(format!("soak-sessions-{}", kind.name()));
    let sessions = sessions.to_string_lossy().into_owned();
    let mut agent = Agent::spawn_on_mock(kind, &agent_dir, cwd, ["--session-dir", &sessions]);
    let start = std::time::Instant::now();
    let large = "y".repeat(LARGE_BYTES);
    let mut figures = SoakFigures {
        first: 0.0,
        after_short: 0.0,
        after_large: 0.0,
        parts: (0.0, 0.0),
        peak: 0.0,
        wall_s: 0.0,
    };
    for i in 0..SHORT + LARGE {
        let text = if i < SHORT {
            format!("short answer {i}")
        } else {
            large.clone()
        };
        server.push(reply(&text));
        let id = format!("p{i}");
        let prompt = json!({"id": id, "type": "prompt", "message": format!("prompt {i}")});
        agent.send(&prompt.to_string());
        let refused =
            format!(r#""id":"{id}","type":"response","command":"prompt","success":false"#);
        let mut error = None;
        agent.wait_for(r#"{"type":"agent_end""#, |line| {
            if line.contains(&refused) {
                error = Some(line.to_string());
            }
        })?;
        if let Some(line) = error {
            println!("{} refused prompt {i}: {line}", kind.name());
        }
        wait_idle(&mut agent, i)?;
        let rss = agent.rss_kib() as f64 / 1024.0;
        match i + 1 {
            1 => figures.first = rss,
            n if n == SHORT => figures.after_short = rss,
            n if n == SHORT + LARGE => {
                figures.after_large = rss;
                let (anon, file) = agent.rss_parts_kib();
                figures.parts = (anon as f64 / 1024.0, file as f64 / 1024.0);
                figures.peak = agent.peak_kib() as f64 / 1024.0;
            }
            _ => {}
        }
    }
    figures.wall_s = start.elapsed().as_secs_f64();
    agent.finish();
    Some(figures)
}

/// Prints the soak table for each agent.
pub fn report(kinds: &[Kind], server: &MockServer, home: &Path, cwd: &Path) {
    println!(
        "soak: {SHORT} short prompts, then {LARGE} replies of {} KB, sessions on; RSS in MiB",
        LARGE_BYTES / 1024
    );
    println!(
        "{:<4} {:>12} {:>20} {:>22} {:>8}",
        "", "first prompt", "after 1,000 prompts", "after 300 × 50 KB", "wall s"
    );
    for kind in kinds {
        let Some(f) = measure(kind, server, home, cwd) else {
            println!("{:<4} failed (the agent exited or stalled)", kind.name());
            continue;
        };
        println!(
            "{:<4} {:>12.1} {:>13.1} ({:.2}×) {:>15.1} ({:.2}×) {:>8.1}",
            kind.name(),
            f.first,
            f.after_short,
            f.after_short / f.first,
            f.after_large,
            f.after_large / f.first,
            f.wall_s
        );
        println!(
            "{:<4} after the 300: {:.1} anonymous + {:.1} file-backed; peak {:.1}",
            "", f.parts.0, f.parts.1, f.peak
        );
    }
}
