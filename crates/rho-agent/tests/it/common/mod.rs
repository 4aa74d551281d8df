//! Shared helpers for the crate-level tests: an agent wired to a scripted provider, event
//! collection with timeouts, and configurable test tools.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;
use rho_agent::{
    AgentEvent, AgentMessage, AgentOptions, AgentTool, EventReceiver, ExecutionMode, ToolContext,
    ToolError, ToolOutput,
};
use rho_ai::{Context, Message, UserMessage};
use rho_testkit::scripted::{scripted_model, ScriptedProvider, ScriptedReply, Step};
use serde_json::{json, Value};
use tokio::sync::Notify;

pub use rho_agent::Agent;

/// An agent on the scripted model and the provider's stream function.
pub fn agent(provider: &ScriptedProvider) -> Agent {
    agent_with(provider, |_| {})
}

/// Like [`agent`], with options adjusted first.
pub fn agent_with(provider: &ScriptedProvider, f: impl FnOnce(&mut AgentOptions)) -> Agent {
    let mut options = AgentOptions::with_stream_fn(provider.stream_fn());
    f(&mut options);
    let agent = Agent::new(options);
    agent.set_model(scripted_model());
    agent
}

pub fn user(text: &str) -> AgentMessage {
    AgentMessage::User(UserMessage::text(text))
}

/// The next event, failing the test after 5 s.
pub async fn next(rx: &mut EventReceiver) -> Arc<AgentEvent> {
    tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .expect("event within 5 s")
        .expect("agent alive")
}

/// Events up to and including the first matching one.
pub async fn until(
    rx: &mut EventReceiver,
    pred: impl Fn(&AgentEvent) -> bool,
) -> Vec<Arc<AgentEvent>> {
    let mut out = Vec::new();
    loop {
        let e = next(rx).await;
        let stop = pred(&e);
        out.push(e);
        if stop {
            return out;
        }
    }
}

/// Events up to and including `agent_end`.
pub async fn run_events(rx: &mut EventReceiver) -> Vec<Arc<AgentEvent>> {
    until(rx, |e| matches!(e, AgentEvent::AgentEnd { .. })).await
}

pub fn types(events: &[Arc<AgentEvent>]) -> Vec<&'static str> {
    events.iter().map(|e| e.type_name()).collect()
}

/// Types with the role of message events and the tool of tool events appended
/// (`message_start:user`, `tool_execution_end:b`).
pub fn labels(events: &[Arc<AgentEvent>]) -> Vec<String> {
    events
        .iter()
        .filter(|e| !matches!(***e, AgentEvent::MessageUpdate { .. }))
        .map(|e| match &**e {
            AgentEvent::MessageStart { message } => format!("{}:{}", e.type_name(), message.role()),
            AgentEvent::MessageEnd { message } => format!("{}:{}", e.type_name(), message.role()),
            AgentEvent::ToolExecutionStart { tool_call_id, .. }
            | AgentEvent::ToolExecutionEnd { tool_call_id, .. } => {
                format!("{}:{}", e.type_name(), tool_call_id)
            }
            _ => e.type_name().to_string(),
        })
        .collect()
}

/// The text of every message of a request, role-prefixed (`user:hi`, `toolResult:ok`).
pub fn request_texts(ctx: &Context) -> Vec<String> {
    ctx.messages
        .iter()
        .map(|m| match m {
            Message::User(u) => format!("user:{}", u.content.text()),
            Message::Assistant(a) => format!("assistant:{}", a.text()),
            Message::ToolResult(t) => {
                format!("toolResult:{}", rho_ai::message::join_text(&t.content))
            }
        })
        .collect()
}

/// What a test tool does when executed.
#[derive(Clone)]
pub enum Behavior {
    /// Returns `echo <args>`.
    Echo,
    /// Fails with this text.
    Fail(String),
    /// Reports progress twice, then returns `done`.
    Progress,
    /// Waits for the gate (→ `released`) or the abort signal (→ error `Command aborted`).
    Gate(Arc<Notify>),
    /// Ignores the abort signal and sleeps this long.
    Stubborn(Duration),
}

/// A configurable tool that logs its executions and signals when one starts.
#[derive(Clone)]
pub struct TestTool {
    pub name: String,
    pub behavior: Behavior,
    pub mode: ExecutionMode,
    pub schema: Value,
    pub log: Arc<Mutex<Vec<String>>>,
    pub entered: Arc<Notify>,
}

impl TestTool {
    pub fn new(name: &str, behavior: Behavior) -> Self {
        Self {
            name: name.into(),
            behavior,
            mode: ExecutionMode::Parallel,
            schema: json!({"type": "object", "properties": {"x": {"type": "number"}}}),
            log: Arc::default(),
            entered: Arc::new(Notify::new()),
        }
    }

    pub fn arc(self) -> Arc<dyn AgentTool> {
        Arc::new(self)
    }

    pub fn executions(&self) -> Vec<String> {
        self.log.lock().expect("log").clone()
    }
}

impl AgentTool for TestTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn label(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        "a test tool"
    }
    fn parameters(&self) -> Value {
        self.schema.clone()
    }
    fn execution_mode(&self) -> ExecutionMode {
        self.mode
    }
    fn execute(
        &self,
        args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        self.log
            .lock()
            .expect("log")
            .push(format!("{}:{}", ctx.call_id, args));
        self.entered.notify_one();
        let behavior = self.behavior.clone();
        Box::pin(async move {
            match behavior {
                Behavior::Echo => Ok(ToolOutput::text(format!("echo {args}"))),
                Behavior::Fail(t) => Err(ToolError::new(t)),
                Behavior::Progress => {
                    (ctx.progress)(ToolOutput::text("1"));
                    (ctx.progress)(ToolOutput::text("1 2"));
                    Ok(ToolOutput::text("done"))
                }
                Behavior::Gate(gate) => tokio::select! {
                    _ = gate.notified() => Ok(ToolOutput::text("released")),
                    _ = ctx.cancel.cancelled() => Err(ToolError::new("Command aborted")),
                },
                Behavior::Stubborn(d) => {
                    tokio::time::sleep(d).await;
                    Ok(ToolOutput::text("finished anyway"))
                }
            }
        })
    }
}

/// Collects every event of the next run on a background task.
pub fn collect_run(agent: &Agent) -> tokio::task::JoinHandle<Vec<Arc<AgentEvent>>> {
    let mut rx = agent.subscribe();
    tokio::spawn(async move { run_events(&mut rx).await })
}

/// Replaces the value of every `"timestamp":<digits>` and `"durationMs":<digits>` with 0,
/// keeping the key order of the serialized JSON (for snapshots).
pub fn zero_timestamps(json: &str) -> String {
    let mut out = json.to_string();
    for key in ["\"timestamp\":", "\"durationMs\":"] {
        out = zero_numbers_after(&out, key);
    }
    out
}

fn zero_numbers_after(json: &str, key: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut rest = json;
    while let Some(i) = rest.find(key) {
        out.push_str(&rest[..i + key.len()]);
        out.push('0');
        rest = rest[i + key.len()..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

pub fn hang() -> ScriptedReply {
    ScriptedReply::new().with_text(&["par"]).step(Step::Hang)
}

pub fn two_calls() -> ScriptedReply {
    ScriptedReply::tool_calls(&[("c1", "a", json!({})), ("c2", "b", json!({}))])
}

pub const SEQUENTIAL: [&str; 8] = [
    "tool_execution_start:c1",
    "tool_execution_end:c1",
    "message_start:toolResult",
    "message_end:toolResult",
    "tool_execution_start:c2",
    "tool_execution_end:c2",
    "message_start:toolResult",
    "message_end:toolResult",
];

pub fn tool_slice(l: &[String]) -> Vec<String> {
    l.iter()
        .skip_while(|s| !s.starts_with("tool_execution_start"))
        .take_while(|s| *s != "turn_end")
        .cloned()
        .collect()
}

pub fn result_texts(agent: &Agent) -> Vec<(String, bool)> {
    agent
        .messages()
        .iter()
        .filter_map(|m| match m {
            AgentMessage::ToolResult(t) => {
                Some((rho_ai::message::join_text(&t.content), t.is_error))
            }
            _ => None,
        })
        .collect()
}
