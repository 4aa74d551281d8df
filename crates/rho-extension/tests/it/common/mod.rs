//! Helpers for driving the compiled examples through rho's process extension host: where the
//! example binaries are, loading them, a session over the scripted provider, and event helpers
//! that await events instead of sleeping.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rho_agent::AgentMessage;
use rho_core::agent_session::{AgentSession, AgentSessionConfig, SessionEvent, StaticCredentials};
use rho_core::settings::Settings;
use rho_extension_host::process::{ProcessExtension, ProcessOptions};
use rho_testkit::scripted::{scripted_model, ScriptedProvider};
use serde_json::{json, Map, Value};
use tokio::sync::mpsc::UnboundedReceiver;

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The compiled example `name`. `cargo test` builds examples next to the test binaries;
/// when only a test target was built (`--test NAME`), they are built once into a target dir
/// of their own (the outer cargo holds the lock of the main one). That first build is slow:
/// examples link the dev-dependencies, so it compiles rho-core; `cargo test -p rho-extension`
/// avoids it.
pub fn example(name: &str) -> String {
    let exe = std::env::current_exe().expect("test binary path");
    let beside = exe
        .parent()
        .and_then(Path::parent)
        .expect("target dir")
        .join("examples")
        .join(name);
    if beside.exists() {
        return beside.to_string_lossy().into_owned();
    }
    separate_build().join(name).to_string_lossy().into_owned()
}

fn separate_build() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let target = manifest().join("../../target/rho-extension-examples");
            let status = std::process::Command::new(env!("CARGO"))
                .args([
                    "build",
                    "-q",
                    "-p",
                    "rho-extension",
                    "--examples",
                    "--target-dir",
                ])
                .arg(&target)
                .status()
                .expect("cargo runs");
            assert!(
                status.success(),
                "cargo build -p rho-extension --examples failed"
            );
            target.join("debug/examples")
        })
        .clone()
}

/// Starts example `name` through rho's host and handshakes.
pub async fn load_process(name: &str, options: ProcessOptions) -> ProcessExtension {
    let path = example(name);
    ProcessExtension::spawn(&path, &[], options)
        .await
        .unwrap_or_else(|e| panic!("{name} loads: {e}"))
}

/// A session over `provider` with the scripted model, fast retries, and `extra` settings.
pub fn config(provider: &ScriptedProvider, extra: Value) -> AgentSessionConfig {
    let mut global = json!({"retry": {"baseDelayMs": 1}});
    if let (Some(g), Some(e)) = (global.as_object_mut(), extra.as_object()) {
        g.extend(e.clone());
    }
    let mut c = AgentSessionConfig::new("/work");
    c.model = Some(scripted_model());
    c.credentials = Arc::new(StaticCredentials::new("scripted", "test-key"));
    c.stream_fn = provider.stream_fn();
    c.settings = Settings::from_scopes(global.as_object().cloned().unwrap_or_default(), Map::new());
    c
}

/// A session over `provider` with the example `name` loaded.
pub async fn session_with(provider: &ScriptedProvider, name: &str) -> AgentSession {
    let mut c = config(provider, json!({}));
    c.extensions = vec![load_process(name, ProcessOptions::default())
        .await
        .extension()];
    AgentSession::new(c)
}

/// Every event already delivered, as JSON.
pub fn drain(rx: &mut UnboundedReceiver<SessionEvent>) -> Vec<Value> {
    let mut out = Vec::new();
    while let Ok(e) = rx.try_recv() {
        out.push(serde_json::to_value(&e).expect("events serialize"));
    }
    out
}

/// The `extension_error` events among `events`.
pub fn errors(events: &[Value]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e["type"] == "extension_error")
        .cloned()
        .collect()
}

/// Waits (bounded) for the first event named `name`.
pub async fn wait_for(rx: &mut UnboundedReceiver<SessionEvent>, name: &str) -> SessionEvent {
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let e = rx.recv().await.expect("session alive");
            if e.type_name() == name {
                return e;
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no {name} event within 10 s"))
}

/// The texts of a request's messages, `role:text`, in order.
pub fn request_texts(ctx: &rho_protocol::Context) -> Vec<String> {
    ctx.messages
        .iter()
        .map(|m| match m {
            rho_protocol::Message::User(u) => format!("user:{}", u.content.text()),
            rho_protocol::Message::Assistant(a) => format!("assistant:{}", a.text()),
            rho_protocol::Message::ToolResult(t) => {
                format!(
                    "toolResult:{}",
                    rho_protocol::message::join_text(&t.content)
                )
            }
        })
        .collect()
}

/// The tool results of the session, in order.
pub fn tool_results(s: &AgentSession) -> Vec<rho_protocol::ToolResultMessage> {
    s.messages()
        .into_iter()
        .filter_map(|m| match m {
            AgentMessage::ToolResult(t) => Some(t),
            _ => None,
        })
        .collect()
}

/// The session's entries as JSON.
pub fn entries(s: &AgentSession) -> Vec<Value> {
    s.with_session(|m| {
        m.entries()
            .iter()
            .map(|e| serde_json::to_value(e).expect("entry json"))
            .collect()
    })
}

/// A `bash` tool that answers `ran: <command>` without running anything.
pub struct EchoBash;

impl rho_agent::AgentTool for EchoBash {
    fn name(&self) -> &str {
        "bash"
    }
    fn label(&self) -> &str {
        "bash"
    }
    fn description(&self) -> &str {
        "runs commands"
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]})
    }
    fn execute(
        &self,
        args: Value,
        _ctx: rho_agent::ToolContext,
    ) -> futures_util::future::BoxFuture<'static, Result<rho_agent::ToolOutput, rho_agent::ToolError>>
    {
        let cmd = args["command"].as_str().unwrap_or_default().to_string();
        Box::pin(async move { Ok(rho_agent::ToolOutput::text(format!("ran: {cmd}"))) })
    }
}
