//! A test driver for `rho --mode rpc`: a temp agent dir whose models.json points a custom
//! provider at a `MockServer`, the spawned binary, and helpers that await stdout lines.

#![allow(dead_code)]

pub mod stream;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use rho_testkit::openai_chat::ChatStream;
use rho_testkit::server::{MockResponse, MockServer};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::mpsc;

/// How long any awaited line may take.
const WAIT: Duration = Duration::from_secs(20);

/// One running `rho --mode rpc` against a mock provider `mock` (models `m1`, `m2`, and the
/// reasoning model `r1`).
pub struct Rpc {
    pub server: MockServer,
    pub home: tempfile::TempDir,
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::UnboundedReceiver<Value>,
    /// Every line read so far, in order.
    pub seen: Vec<Value>,
    /// Lines not yet consumed by a wait.
    backlog: Vec<Value>,
}

/// Options for starting.
#[derive(Default)]
pub struct Start {
    /// Keep sessions in `<home>/sessions` instead of `--no-session`.
    pub with_sessions: bool,
    /// Extra settings.json content.
    pub settings: Option<Value>,
    /// Start without `--model` (rho's real "no model" state, D7).
    pub no_model: bool,
    /// Extra files under the agent dir: (relative path, content).
    pub files: Vec<(&'static str, &'static str)>,
    /// Extra command-line arguments.
    pub args: Vec<String>,
    /// A home dir prepared beforehand (its `work/` is the process cwd).
    pub home: Option<tempfile::TempDir>,
    /// Write rho's stderr into this file instead of the test's stderr.
    pub stderr_to: Option<PathBuf>,
    /// More models.json providers, given the mock server's URL (e.g. a built-in provider
    /// pointed at it).
    pub providers: Option<fn(&str) -> Value>,
    /// A directory put first on rho's PATH (e.g. with program shims).
    pub path_prefix: Option<PathBuf>,
    /// No `--model mock/m1`: the test's own arguments or settings choose the model.
    pub own_model: bool,
}

impl Rpc {
    /// Starts with `--no-session`.
    pub async fn start() -> Rpc {
        Self::start_with(Start::default()).await
    }

    /// Starts with options.
    pub async fn start_with(mut opts: Start) -> Rpc {
        let server = MockServer::start().await;
        let home = opts
            .home
            .take()
            .unwrap_or_else(|| tempfile::tempdir().expect("tempdir"));
        let agent = home.path().join("agent");
        std::fs::create_dir_all(&agent).expect("agent dir");
        let model = |id: &str, reasoning: bool| json!({"id": id, "reasoning": reasoning, "contextWindow": 100000, "maxTokens": 1000});
        let mut models = json!({"providers": {"mock": {
            "baseUrl": format!("{}/v1", server.url()), "api": "openai-completions",
            "apiKey": "sk-literal-test-key",
            "models": [model("m1", false), model("m2", false), model("r1", true)]}}});
        if let Some(more) = opts.providers {
            if let (Some(all), Value::Object(extra)) =
                (models["providers"].as_object_mut(), more(&server.url()))
            {
                all.extend(extra);
            }
        }
        if opts.no_model {
            // Without any key the §6.5 chain finds no usable model.
            models = json!({"providers": {}});
        }
        std::fs::write(agent.join("models.json"), models.to_string()).expect("models.json");
        if let Some(settings) = &opts.settings {
            std::fs::write(agent.join("settings.json"), settings.to_string()).expect("settings");
        }
        for (rel, content) in &opts.files {
            let path = agent.join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("dirs");
            std::fs::write(path, content).expect("file");
        }
        let work = home.path().join("work");
        std::fs::create_dir_all(&work).expect("work dir");
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_rho"));
        // pi 0.73.1's dialect, whose shapes these tests assert; `opts.args` may choose another.
        cmd.args(["--mode", "rpc", "--rpc-dialect", "0.73"]);
        cmd.args(&opts.args);
        if !opts.no_model && !opts.own_model {
            cmd.args(["--model", "mock/m1"]);
        }
        if opts.with_sessions {
            let dir = home.path().join("sessions");
            cmd.arg("--session-dir").arg(dir);
        } else {
            cmd.arg("--no-session");
        }
        let path = std::env::var("PATH").unwrap_or_default();
        let path = match &opts.path_prefix {
            Some(dir) => format!("{}:{path}", dir.display()),
            None => path,
        };
        cmd.env_clear()
            .env("PATH", path)
            .env("HOME", home.path())
            .env("TMPDIR", home.path())
            .env("RHO_CODING_AGENT_DIR", &agent)
            .current_dir(&work)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(match &opts.stderr_to {
                Some(path) => Stdio::from(std::fs::File::create(path).expect("stderr file")),
                None => Stdio::inherit(),
            })
            .kill_on_drop(true);
        let mut child = cmd.spawn().expect("rho starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                let v: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        Rpc {
            server,
            stdin: child.stdin.take(),
            home,
            child,
            lines,
            seen: Vec::new(),
            backlog: Vec::new(),
        }
    }

    /// The agent dir.
    pub fn agent_dir(&self) -> PathBuf {
        self.home.path().join("agent")
    }

    /// The process cwd.
    pub fn work_dir(&self) -> PathBuf {
        self.home.path().join("work")
    }

    /// The sessions dir (with `with_sessions`).
    pub fn sessions_dir(&self) -> PathBuf {
        self.home.path().join("sessions")
    }

    /// Writes raw bytes to stdin.
    pub async fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).await.expect("write stdin");
        stdin.flush().await.expect("flush stdin");
    }

    /// Writes one command line.
    pub async fn send(&mut self, command: Value) {
        let mut line = command.to_string();
        line.push('\n');
        self.send_raw(line.as_bytes()).await;
    }

    /// Sends a command and waits for the response with its id.
    pub async fn call(&mut self, command: Value) -> Value {
        let id = command["id"].clone();
        assert!(!id.is_null(), "call() needs an id");
        self.send(command).await;
        self.response(&id).await
    }

    /// Waits for the response carrying `id`.
    pub async fn response(&mut self, id: &Value) -> Value {
        self.wait(|v| v["type"] == "response" && &v["id"] == id)
            .await
    }

    /// Waits for the next line (not yet consumed) matching `pred`; lines before it stay in
    /// the backlog for later waits.
    pub async fn wait(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(i);
        }
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let line = tokio::time::timeout_at(deadline, self.lines.recv())
                .await
                .unwrap_or_else(|_| panic!("timed out; lines so far: {:#?}", self.seen))
                .unwrap_or_else(|| panic!("stdout closed; lines so far: {:#?}", self.seen));
            self.seen.push(line.clone());
            if pred(&line) {
                return line;
            }
            self.backlog.push(line);
        }
    }

    /// Waits for an event of `kind`.
    pub async fn event(&mut self, kind: &str) -> Value {
        self.wait(|v| v["type"] == kind).await
    }

    /// Index in `seen` of the first line matching `pred`.
    pub fn position(&self, pred: impl Fn(&Value) -> bool) -> Option<usize> {
        self.seen.iter().position(pred)
    }

    /// Closes stdin and waits for the exit code.
    pub async fn close(mut self) -> Option<i32> {
        drop(self.stdin.take());
        let status = tokio::time::timeout(WAIT, self.child.wait())
            .await
            .expect("rho exits after EOF")
            .expect("wait");
        status.code()
    }

    /// Sends a prompt and waits for its `agent_end`; returns the assistant reply text.
    pub async fn prompt_ok(&mut self, id: &str, text: &str) -> String {
        let r = self
            .call(json!({"id": id, "type": "prompt", "message": text}))
            .await;
        assert_eq!(r["success"], true, "prompt accepted: {r}");
        let end = self.event("agent_end").await;
        self.idle().await;
        let last = end["messages"]
            .as_array()
            .and_then(|m| m.last())
            .cloned()
            .expect("agent_end has messages");
        last["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_string()
    }
}

/// A complete streamed text reply.
pub fn reply(text: &str) -> MockResponse {
    ChatStream::new("chatcmpl-1", "m1")
        .role()
        .text(text)
        .finish("stop")
        .usage(20, 5, None)
        .done()
        .response()
}

/// A reply that streams `text` and then hangs (until aborted).
pub fn hanging_reply(text: &str) -> MockResponse {
    ChatStream::new("chatcmpl-h", "m1")
        .role()
        .text(text)
        .response_then_hang()
}

/// A reply that streams `first`, pauses `pause`, then finishes with `rest`.
pub fn slow_reply(first: &str, pause: Duration, rest: &str) -> MockResponse {
    paused_reply(first, rho_testkit::server::Chunk::Delay(pause), rest)
}

/// A reply that streams `first`, waits until `gate` opens, then finishes with `rest`.
pub fn gated_reply(first: &str, gate: &rho_testkit::gate::Gate, rest: &str) -> MockResponse {
    paused_reply(first, rho_testkit::server::Chunk::Wait(gate.clone()), rest)
}

fn paused_reply(first: &str, pause: rho_testkit::server::Chunk, rest: &str) -> MockResponse {
    let head = ChatStream::new("chatcmpl-s", "m1").role().text(first);
    let mut response = head.response_then_hang();
    response.chunks.pop();
    response.chunks.push(pause);
    let tail = ChatStream::new("chatcmpl-s", "m1")
        .text(rest)
        .finish("stop")
        .usage(20, 5, None)
        .done()
        .response();
    response.chunks.extend(tail.chunks);
    response
}

/// True for a `message_update` carrying a text delta.
pub fn is_text_delta(v: &Value) -> bool {
    v["type"] == "message_update" && v["assistantMessageEvent"]["type"] == "text_delta"
}

/// The text of every user message in a request body sent to the mock.
pub fn user_texts(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter(|m| m["role"] == "user")
                .map(|m| match &m["content"] {
                    Value::String(s) => s.clone(),
                    Value::Array(parts) => parts
                        .iter()
                        .filter_map(|p| p["text"].as_str())
                        .collect::<Vec<_>>()
                        .join(""),
                    _ => String::new(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Reads a file as text.
pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

impl Rpc {
    /// After `agent_end` the run loop still finishes its post-run checks (retry, compaction,
    /// queued messages) before a new prompt is accepted; asks `get_state` until it is idle.
    pub async fn idle(&mut self) {
        for n in 0..10_000 {
            let state = self
                .call(json!({"id": format!("idle-{n}"), "type": "get_state"}))
                .await;
            if state["data"]["isStreaming"] == false {
                return;
            }
        }
        panic!("the session never became idle");
    }

    /// Closes stdin without waiting for the exit.
    pub fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }
}
