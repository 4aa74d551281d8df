//! The SIGKILL durability harness shared by the `kill_rpc` test (a few dozen trials in CI) and
//! the `kill_rpc` bench (hundreds): `rho --mode rpc --session <file>` runs a random script of
//! prompts (plain replies, bash tool rounds), manual compactions and session switches against
//! the loopback server, and is SIGKILLed at a random point: right after the n-th `message_end`,
//! or after the k-th stdout line of any kind (mid-stream, mid-tool, mid-compaction). Then the
//! file must load, and every entry whose event the client saw must be in it. The next trial
//! restarts rho on the same file, so files that end in a torn line are reopened too.
//!
//! A new session's file is written with its first assistant message (pi's lazy write): until
//! then nothing is on disk by design, so a trial that starts without a file and is killed
//! before any assistant `message_end` acknowledges nothing.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use rho_session::{load_file, EntryData};
use rho_testkit::openai_chat::ChatStream;
use rho_testkit::server::{MockResponse, MockServer};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};

/// Any single wait for rho's output; a trial that stalls this long has hung (a failure).
const WAIT: Duration = Duration::from_secs(30);
/// Trials that continue the same file before a fresh one starts.
const PER_FILE: usize = 5;

/// A tiny deterministic generator (xorshift64*), so a failing seed can be replayed.
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (0 is replaced, xorshift needs a non-zero state).
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    /// A value in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1)
    }
}

/// Where a trial kills rho.
#[derive(Debug, Clone, Copy)]
enum KillPoint {
    /// Right after the client read the n-th `message_end`.
    AfterMessageEnd(usize),
    /// After the k-th stdout line of any kind.
    AfterLine(usize),
}

/// What the client does.
#[derive(Debug, Clone, Copy)]
enum Action {
    Text,
    Tool,
    Compact,
    Switch,
}

/// Totals over all trials.
#[derive(Debug, Default)]
pub struct Outcome {
    pub trials: usize,
    /// Entries whose events the client saw (and so must be on disk).
    pub acknowledged: usize,
    /// Of those, missing from the file after the kill (must be 0).
    pub lost: Vec<String>,
    /// Files that did not load after a kill (must be empty).
    pub unreadable: Vec<String>,
}

/// Runs `trials` kill trials with seeds from `seed`; files live under `dir`.
pub async fn run(trials: usize, seed: u64, dir: &Path) -> Outcome {
    let mut rng = Rng::new(seed);
    let mut outcome = Outcome::default();
    for trial in 0..trials {
        let file = dir.join(format!("chain-{}.jsonl", trial / PER_FILE));
        let seen = one_trial(&mut rng, dir, &file).await;
        outcome.trials += 1;
        check(&file, &seen, trial, &mut outcome);
    }
    outcome
}

/// What the client saw before the kill.
#[derive(Default)]
struct Seen {
    /// Whether the file existed when the trial started.
    file_existed: bool,
    /// `(role, timestamp)` of each `message_end`.
    messages: Vec<(String, u64)>,
    /// Whether an assistant `message_end` was seen.
    assistant: bool,
    /// Summaries of `compaction_end` results.
    compactions: Vec<String>,
}

async fn one_trial(rng: &mut Rng, dir: &Path, file: &Path) -> Seen {
    let server = MockServer::start().await;
    let mut seen = Seen {
        file_existed: file.exists(),
        ..Default::default()
    };
    let mut rho = spawn(dir, &server, file).await;
    let point = if rng.below(2) == 0 {
        KillPoint::AfterMessageEnd(1 + rng.below(8) as usize)
    } else {
        KillPoint::AfterLine(1 + rng.below(120) as usize)
    };
    let mut lines = 0usize;
    let mut ends = 0usize;
    'actions: for i in 0..8 {
        let action = match rng.below(10) {
            0..=4 => Action::Text,
            5..=7 => Action::Tool,
            8 => Action::Compact,
            _ => Action::Switch,
        };
        let done = start_action(&mut rho, &server, action, i, file).await;
        loop {
            let Some(line) = rho.next_line().await else {
                break 'actions;
            };
            lines += 1;
            record(&line, &mut seen, &mut ends);
            let kill = match point {
                KillPoint::AfterMessageEnd(n) => line["type"] == "message_end" && ends == n,
                KillPoint::AfterLine(k) => lines == k,
            };
            if kill {
                break 'actions;
            }
            if done(&line) {
                break;
            }
        }
    }
    rho.kill().await;
    seen
}

/// Notes what `line` acknowledges.
fn record(line: &Value, seen: &mut Seen, ends: &mut usize) {
    match line["type"].as_str() {
        Some("message_end") => {
            *ends += 1;
            let m = &line["message"];
            let role = m["role"].as_str().unwrap_or_default().to_string();
            seen.assistant |= role == "assistant";
            seen.messages
                .push((role, m["timestamp"].as_u64().unwrap_or_default()));
        }
        Some("compaction_end") => {
            if let Some(s) = line["result"]["summary"].as_str() {
                seen.compactions.push(s.to_string());
            }
        }
        _ => {}
    }
}

type Done = Box<dyn Fn(&Value) -> bool + Send>;

/// Queues the replies `action` needs, sends it, and returns when its last line is due.
async fn start_action(
    rho: &mut Rho,
    server: &MockServer,
    action: Action,
    i: usize,
    file: &Path,
) -> Done {
    let id = format!("a{i}");
    let response_to = |id: String| -> Done { Box::new(move |v: &Value| v["id"] == id.as_str()) };
    let agent_end: Done = Box::new(|v: &Value| v["type"] == "agent_end");
    match action {
        Action::Text => {
            server.push(reply(&format!("answer {i}")));
            rho.send(json!({"id": id, "type": "prompt", "message": format!("question {i}")}))
                .await;
            agent_end
        }
        Action::Tool => {
            server.push(tool_call(i));
            server.push(reply(&format!("ran tool {i}")));
            rho.send(json!({"id": id, "type": "prompt", "message": format!("run {i}")}))
                .await;
            agent_end
        }
        Action::Compact => {
            server.push(reply(&format!("## Summary {i}\nthe conversation so far")));
            rho.send(json!({"id": id, "type": "compact"})).await;
            response_to(id)
        }
        Action::Switch => {
            rho.send(json!({"id": format!("{id}n"), "type": "new_session"}))
                .await;
            let path = file.to_string_lossy();
            rho.send(json!({"id": id, "type": "switch_session", "sessionPath": path}))
                .await;
            response_to(id)
        }
    }
}

/// A text reply in several deltas, so kills land mid-stream.
fn reply(text: &str) -> MockResponse {
    let mut stream = ChatStream::new("chatcmpl-k", "m1").role();
    for word in text.split_inclusive(' ') {
        stream = stream.text(word);
    }
    stream.finish("stop").usage(20, 5, None).done().response()
}

/// A reply that runs one bash command.
fn tool_call(i: usize) -> MockResponse {
    let args = json!({"command": format!("echo tool-{i}")}).to_string();
    ChatStream::new("chatcmpl-t", "m1")
        .role()
        .tool_call_start(0, &format!("call_{i}"), "bash")
        .tool_args(0, &args)
        .finish("tool_calls")
        .usage(30, 8, None)
        .done()
        .response()
}

/// Checks the file after a kill against what the client saw.
fn check(file: &Path, seen: &Seen, trial: usize, outcome: &mut Outcome) {
    let acknowledged = seen.file_existed || seen.assistant;
    if !acknowledged {
        return;
    }
    outcome.acknowledged += seen.messages.len() + seen.compactions.len();
    let loaded = match load_file(file) {
        Ok(l) => l,
        Err(e) => {
            outcome.unreadable.push(format!("trial {trial}: {e}"));
            return;
        }
    };
    let mut stored = Vec::new();
    let mut summaries = Vec::new();
    for entry in &loaded.entries {
        match &entry.data {
            EntryData::Compaction(c) => summaries.push(c.summary.clone()),
            _ => {
                if let Some(m) = entry.message() {
                    let v = serde_json::to_value(m).unwrap_or_default();
                    stored.push((
                        v["role"].as_str().unwrap_or_default().to_string(),
                        v["timestamp"].as_u64().unwrap_or_default(),
                    ));
                }
            }
        }
    }
    for m in &seen.messages {
        if !stored.contains(m) {
            outcome
                .lost
                .push(format!("trial {trial}: {} message at {}", m.0, m.1));
        }
    }
    for s in &seen.compactions {
        if !summaries.contains(s) {
            outcome
                .lost
                .push(format!("trial {trial}: compaction {s:?}"));
        }
    }
}

/// One `rho --mode rpc` process and its stdout lines.
struct Rho {
    child: Child,
    stdin: ChildStdin,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

async fn spawn(dir: &Path, server: &MockServer, file: &Path) -> Rho {
    let agent = dir.join("agent");
    let work = dir.join("work");
    std::fs::create_dir_all(&agent).expect("agent dir");
    std::fs::create_dir_all(&work).expect("work dir");
    let model = json!({"id": "m1", "reasoning": false, "contextWindow": 100000, "maxTokens": 1000});
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", server.url()), "api": "openai-completions",
        "apiKey": "sk-kill-test", "models": [model]}}});
    std::fs::write(agent.join("models.json"), models.to_string()).expect("models.json");
    let settings = json!({"retry": {"enabled": false}, "compaction": {"keepRecentTokens": 1}});
    std::fs::write(agent.join("settings.json"), settings.to_string()).expect("settings");
    let mut child = Command::new(env!("CARGO_BIN_EXE_rho"))
        .args([
            "--mode",
            "rpc",
            "--rpc-dialect",
            "0.73",
            "--model",
            "mock/m1",
            "--session",
        ])
        .arg(file)
        .arg("--session-dir")
        .arg(dir.join("sessions"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("RHO_CODING_AGENT_DIR", &agent)
        .current_dir(&work)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("rho starts");
    let stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    Rho {
        child,
        stdin,
        lines: BufReader::new(stdout).lines(),
    }
}

impl Rho {
    async fn send(&mut self, command: Value) {
        let mut line = command.to_string();
        line.push('\n');
        // A write to a rho that already died shows up as a closed stdout next.
        let _ = self.stdin.write_all(line.as_bytes()).await;
    }

    /// The next stdout line as JSON; `None` when rho exited.
    async fn next_line(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(WAIT, self.lines.next_line())
            .await
            .expect("rho answered within the wait (a hang is a failure)")
            .ok()??;
        serde_json::from_str(&line).ok()
    }

    async fn kill(mut self) {
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
    }
}

/// A seed from the clock, printed by the callers so a failure can be replayed with
/// `RHO_KILL_SEED`.
pub fn seed() -> u64 {
    std::env::var("RHO_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        })
}

/// A fresh directory for a run.
pub fn temp_dir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().to_path_buf();
    (dir, path)
}
