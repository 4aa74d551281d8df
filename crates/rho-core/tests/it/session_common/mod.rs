//! Shared setup for AgentSession tests: a session over the scripted provider, and event
//! helpers that await events instead of sleeping.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rho_core::agent_session::{
    AgentSession, AgentSessionConfig, PromptOptions, SessionEvent, StaticCredentials,
};
use rho_core::settings::Settings;
use rho_extension_host::{EventHandler, Extension, ExtensionContext, ExtensionEvent};
use rho_testkit::scripted::{scripted_model, ScriptedProvider};
use serde_json::{json, Map, Value};
use tokio::sync::mpsc::UnboundedReceiver;

/// Settings with a 1 ms retry base delay (tests must not wait seconds).
pub fn fast_settings(extra: Value) -> Settings {
    let mut global = json!({"retry": {"baseDelayMs": 1}});
    if let (Some(g), Some(e)) = (global.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            g.insert(k.clone(), v.clone());
        }
    }
    Settings::from_scopes(global.as_object().cloned().unwrap_or_default(), Map::new())
}

/// A config over `provider` with the scripted model and a key for it.
pub fn config(provider: &ScriptedProvider) -> AgentSessionConfig {
    let mut c = AgentSessionConfig::new("/work");
    c.model = Some(scripted_model());
    c.credentials = Arc::new(StaticCredentials::new("scripted", "test-key"));
    c.stream_fn = provider.stream_fn();
    c.settings = fast_settings(json!({}));
    c
}

/// A session over `provider`.
pub fn session(provider: &ScriptedProvider) -> AgentSession {
    AgentSession::new(config(provider))
}

/// Runs `prompt(text)` on its own task, so the test can act while it runs.
pub fn spawn_prompt(
    s: &AgentSession,
    text: &str,
) -> tokio::task::JoinHandle<Result<(), rho_core::agent_session::SessionError>> {
    let s = s.clone();
    let text = text.to_string();
    tokio::spawn(async move { s.prompt(&text, PromptOptions::default()).await })
}

/// Every event already delivered, but `agent_settled` (pi 1.x's closing signal, which the
/// rule tests written for pi 0.73.1's event order do not expect; `drain_all` keeps it).
pub fn drain(rx: &mut UnboundedReceiver<SessionEvent>) -> Vec<SessionEvent> {
    drain_all(rx)
        .into_iter()
        .filter(|e| e.type_name() != "agent_settled")
        .collect()
}

/// Every event already delivered.
pub fn drain_all(rx: &mut UnboundedReceiver<SessionEvent>) -> Vec<SessionEvent> {
    let mut out = Vec::new();
    while let Ok(e) = rx.try_recv() {
        out.push(e);
    }
    out
}

/// The `type` names of events.
pub fn types(events: &[SessionEvent]) -> Vec<&'static str> {
    events.iter().map(|e| e.type_name()).collect()
}

/// Events as JSON.
pub fn json_events(events: &[SessionEvent]) -> Vec<Value> {
    events
        .iter()
        .map(|e| serde_json::to_value(e).expect("events serialize"))
        .collect()
}

/// Waits (bounded) for the first event named `name`, returning it.
pub async fn wait_for(rx: &mut UnboundedReceiver<SessionEvent>, name: &str) -> SessionEvent {
    tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let e = rx.recv().await.expect("session alive");
            if e.type_name() == name {
                return e;
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no {name} event within 5 s"))
}

/// A handler from a closure; results are returned as given.
pub fn handler(
    f: impl Fn(ExtensionEvent, ExtensionContext) -> Result<Option<Value>, String>
        + Send
        + Sync
        + 'static,
) -> EventHandler {
    let f = Arc::new(f);
    Arc::new(move |e, c| {
        let f = f.clone();
        Box::pin(async move { f(e, c) })
    })
}

/// An extension with one handler.
pub fn extension_on(
    path: &str,
    event: &str,
    f: impl Fn(ExtensionEvent, ExtensionContext) -> Result<Option<Value>, String>
        + Send
        + Sync
        + 'static,
) -> Extension {
    let mut e = Extension::new(path);
    e.on(event, handler(f));
    e
}

/// A shared log.
pub type Log = Arc<Mutex<Vec<String>>>;

/// The texts of the user messages and custom messages of a request, in order.
pub fn request_texts(ctx: &rho_ai::Context) -> Vec<String> {
    ctx.messages
        .iter()
        .map(|m| match m {
            rho_ai::Message::User(u) => format!("user:{}", u.content.text()),
            rho_ai::Message::Assistant(a) => format!("assistant:{}", a.text()),
            rho_ai::Message::ToolResult(t) => {
                format!("toolResult:{}", rho_ai::message::join_text(&t.content))
            }
        })
        .collect()
}

/// A tool named `name` with an empty-object schema that answers `text` and, when given,
/// notifies `ran` each time it executes.
pub struct StubTool {
    /// The tool name.
    pub name: &'static str,
    /// The result text.
    pub text: &'static str,
    /// Notified on every execution.
    pub ran: Option<Arc<tokio::sync::Notify>>,
}

impl StubTool {
    /// A stub answering `text`.
    pub fn new(name: &'static str, text: &'static str) -> Arc<Self> {
        Arc::new(Self {
            name,
            text,
            ran: None,
        })
    }

    /// A stub that notifies `ran` when it executes.
    pub fn notifying(name: &'static str, ran: Arc<tokio::sync::Notify>) -> Arc<Self> {
        Arc::new(Self {
            name,
            text: "ran",
            ran: Some(ran),
        })
    }
}

impl rho_agent::AgentTool for StubTool {
    fn name(&self) -> &str {
        self.name
    }
    fn label(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "a test tool"
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    fn execute(
        &self,
        _args: Value,
        _ctx: rho_agent::ToolContext,
    ) -> futures_util::future::BoxFuture<'static, Result<rho_agent::ToolOutput, rho_agent::ToolError>>
    {
        let ran = self.ran.clone();
        let text = self.text;
        Box::pin(async move {
            if let Some(n) = ran {
                n.notify_one();
            }
            Ok(rho_agent::ToolOutput::text(text))
        })
    }
}
