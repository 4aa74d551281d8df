//! A sandbox for running the real `rho` binary: a temporary agent dir (`RHO_CODING_AGENT_DIR`)
//! whose models.json points a custom `openai-completions` provider at a loopback
//! [`MockServer`], a temporary project dir as cwd, and a clean environment (no host keys).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use rho_testkit::openai_chat::ChatStream;
use rho_testkit::MockServer;
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

/// One test's world.
pub struct Sandbox {
    /// The agent dir.
    pub agent: tempfile::TempDir,
    /// The project dir (the process cwd), canonical.
    pub cwd: PathBuf,
    _cwd_guard: tempfile::TempDir,
    /// The fake provider.
    pub server: MockServer,
}

impl Sandbox {
    /// A sandbox whose models.json defines provider `mock` with `mock-model` (text) and
    /// `mock-vision` (text + image), key `test-key`.
    pub async fn new() -> Sandbox {
        let server = MockServer::start().await;
        let agent = tempfile::tempdir().expect("agent dir");
        let cwd_guard = tempfile::tempdir().expect("cwd");
        let cwd = cwd_guard.path().canonicalize().expect("canonical cwd");
        let sandbox = Sandbox {
            agent,
            cwd,
            _cwd_guard: cwd_guard,
            server,
        };
        sandbox.write_models(&json!({
            "providers": {
                "mock": {
                    "baseUrl": format!("{}/v1", sandbox.server.url()),
                    "api": "openai-completions",
                    "apiKey": "test-key",
                    "compat": {"supportsDeveloperRole": false, "supportsStore": false},
                    "models": [
                        {"id": "mock-model", "name": "Mock Model", "contextWindow": 32000},
                        {"id": "mock-vision", "input": ["text", "image"]}
                    ]
                }
            }
        }));
        sandbox
    }

    /// Replaces models.json.
    pub fn write_models(&self, value: &Value) {
        std::fs::write(self.agent.path().join("models.json"), value.to_string())
            .expect("write models.json");
    }

    /// `<agent>/sessions/<encoded cwd>/`.
    pub fn session_dir(&self) -> PathBuf {
        let cwd = self.cwd.to_string_lossy();
        let encoded = format!("--{}--", cwd.trim_start_matches('/').replace('/', "-"));
        self.agent.path().join("sessions").join(encoded)
    }

    /// The session files of this project (not the entry indexes kept beside them).
    pub fn session_files(&self) -> Vec<PathBuf> {
        let Ok(dir) = std::fs::read_dir(self.session_dir()) else {
            return Vec::new();
        };
        let mut files: Vec<PathBuf> = dir
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        files.sort();
        files
    }

    /// `rho args` in the project dir with the sandbox environment and piped stdio. The RPC
    /// and JSON modes speak pi 0.73.1's dialect, whose shapes these tests assert; a test's own
    /// `--rpc-dialect` comes later and wins.
    pub fn command(&self, args: &[&str]) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_rho"));
        if args.contains(&"--mode") {
            cmd.args(["--rpc-dialect", "0.73"]);
        }
        cmd.args(args)
            .current_dir(&self.cwd)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.agent.path())
            .env("RHO_CODING_AGENT_DIR", self.agent.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        cmd
    }

    /// Runs `rho args`, feeding `stdin` (closed and empty when `None`).
    pub async fn rho(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let mut child = self.command(args).spawn().expect("spawn rho");
        let mut input = child.stdin.take().expect("stdin");
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).await.expect("write stdin");
        }
        drop(input);
        child.wait_with_output().await.expect("rho finishes")
    }
}

/// A streamed reply saying `text` in two deltas.
pub fn reply(text: &str) -> rho_testkit::MockResponse {
    let (a, b) = text.split_at(text.len() / 2);
    ChatStream::new("chatcmpl-1", "mock-model")
        .role()
        .text(a)
        .text(b)
        .finish("stop")
        .usage(12, 3, None)
        .done()
        .response()
}

/// stdout as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The text of every message in a Chat Completions request body, as `(role, text)`; array
/// contents are joined from their text parts.
pub fn chat_messages(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .expect("messages array")
        .iter()
        .map(|m| {
            let role = m["role"].as_str().unwrap_or_default().to_string();
            let text = match &m["content"] {
                Value::String(s) => s.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|p| p["text"].as_str())
                    .collect::<Vec<_>>()
                    .concat(),
                _ => String::new(),
            };
            (role, text)
        })
        .collect()
}

/// The lines of a JSONL file, parsed.
pub fn read_jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("read jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

/// A `message` entry line of a session file, as pi writes it.
pub fn message_line(id: &str, parent: Option<&str>, message: Value) -> String {
    json!({"type": "message", "id": id, "parentId": parent,
        "timestamp": "2026-01-01T00:00:00.000Z", "message": message})
    .to_string()
}

/// An assistant message of the `mock/mock-model` the sandbox's models.json defines.
pub fn assistant_message(text: &str) -> Value {
    json!({"role": "assistant", "content": [{"type": "text", "text": text}],
        "api": "openai-completions", "provider": "mock", "model": "mock-model",
        "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "stopReason": "stop", "timestamp": 2})
}
