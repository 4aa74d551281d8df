//! Quick state commands (interfaces spec §1.4): `get_state`, `get_messages`,
//! `get_session_stats`, `get_last_assistant_text`, `get_commands`, the queue modes and the
//! auto-compaction / auto-retry switches.

use std::path::Path;
use std::sync::Arc;

use rho_ai::StopReason;
use serde_json::{json, Map, Value};

use super::command::Command;
use super::response::Reply;
use super::Rpc;

/// Runs one state command.
pub fn handle(rpc: &Rpc, command: Command) -> Reply {
    let s = &rpc.session;
    match command {
        Command::GetState => Reply::Data(get_state(rpc)),
        Command::GetMessages => messages(rpc),
        Command::GetSessionStats => Reply::Data(stats(rpc)),
        Command::GetLastAssistantText => Reply::Data(last_assistant_text(rpc)),
        Command::GetCommands => Reply::Data(json!({ "commands": commands(rpc) })),
        Command::SetSteeringMode { mode } => {
            s.set_steering_mode(mode);
            Reply::Done
        }
        Command::SetFollowUpMode { mode } => {
            s.set_follow_up_mode(mode);
            Reply::Done
        }
        Command::SetAutoCompaction { enabled } => super::dispatch::done(
            s.set_global_setting_field("compaction", "enabled", enabled.into()),
        ),
        Command::SetAutoRetry { enabled } => {
            super::dispatch::done(s.set_global_setting_field("retry", "enabled", enabled.into()))
        }
        _ => Reply::Error("not a state command".into()),
    }
}

fn get_state(rpc: &Rpc) -> Value {
    let s = &rpc.session;
    let agent = s.agent();
    let mut m = Map::new();
    if let Some(model) = s.model() {
        m.insert("model".into(), json!(model));
    }
    m.insert("thinkingLevel".into(), json!(s.thinking_level()));
    m.insert("isStreaming".into(), s.is_streaming().into());
    m.insert("isCompacting".into(), s.is_compacting().into());
    m.insert("steeringMode".into(), agent.steering_mode().as_str().into());
    m.insert(
        "followUpMode".into(),
        agent.follow_up_mode().as_str().into(),
    );
    s.with_session(|store| {
        if let Some(p) = store.path() {
            m.insert("sessionFile".into(), p.to_string_lossy().into());
        }
        m.insert("sessionId".into(), store.session_id().into());
        if let Some(name) = store.name() {
            m.insert("sessionName".into(), name.into());
        }
    });
    let auto = s.with_settings(|st| st.compaction_enabled());
    m.insert("autoCompactionEnabled".into(), auto.into());
    let count = agent.with_state(|state| state.messages.len());
    m.insert("messageCount".into(), count.into());
    m.insert(
        "pendingMessageCount".into(),
        s.pending_message_count().into(),
    );
    if let Some(servers) = crate::mcp::status() {
        m.insert("mcpServers".into(), servers);
    }
    Value::Object(m)
}

/// `{"messages": [...]}` encoded straight from the transcript (no copy, no `Value` tree).
fn messages(rpc: &Rpc) -> Reply {
    #[derive(serde::Serialize)]
    struct Messages<'a> {
        #[serde(serialize_with = "shared")]
        messages: &'a [Arc<rho_agent::AgentMessage>],
    }
    fn shared<S: serde::Serializer>(
        messages: &&[Arc<rho_agent::AgentMessage>],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(messages.iter().map(|m| &**m))
    }
    let encoded = rpc.session.agent().with_state(|state| {
        serde_json::to_vec(&Messages {
            messages: &state.messages,
        })
    });
    match encoded {
        Ok(data) => Reply::Encoded(data),
        Err(e) => Reply::Error(format!("cannot serialize the messages: {e}")),
    }
}

fn stats(rpc: &Rpc) -> Value {
    let s = &rpc.session;
    let mut v = json!(s.stats());
    if let Value::Object(m) = &mut v {
        s.with_session(|store| {
            if let Some(p) = store.path() {
                m.insert("sessionFile".into(), p.to_string_lossy().into());
            }
            m.insert("sessionId".into(), store.session_id().into());
        });
        if let Some(usage) = s.model().and_then(|model| s.context_usage(&model)) {
            m.insert("contextUsage".into(), json!(usage));
        }
    }
    v
}

/// The last assistant reply's text (aborted empty replies skipped); `{}` when none.
fn last_assistant_text(rpc: &Rpc) -> Value {
    let messages = rpc.session.shared_messages();
    let text = messages
        .iter()
        .rev()
        .filter_map(|m| m.as_assistant())
        .find(|a| !(a.stop_reason == StopReason::Aborted && a.content.is_empty()))
        .map(|a| a.text().trim().to_string())
        .filter(|t| !t.is_empty());
    match text {
        Some(t) => json!({ "text": t }),
        None => json!({}),
    }
}

/// Extension commands, then prompt templates, then skills (`skill:<name>`).
fn commands(rpc: &Rpc) -> Vec<Value> {
    let s = &rpc.session;
    let agent_dir = rho_core::session::paths::agent_dir();
    let cwd = s.cwd().to_path_buf();
    let mut out: Vec<Value> = s
        .extensions()
        .commands()
        .into_iter()
        .map(|(name, def)| {
            let mut c = json!({"name": name, "source": "extension",
                "sourceInfo": {"path": "<builtin>", "source": "builtin", "scope": "temporary", "origin": "top-level"}});
            if let Some(d) = def.description {
                c["description"] = d.into();
            }
            c
        })
        .collect();
    for t in s.templates() {
        out.push(
            json!({"name": t.name, "description": t.description, "source": "prompt",
            "sourceInfo": source_info(&t.file_path, None, &agent_dir, &cwd)}),
        );
    }
    for k in s.skills() {
        out.push(json!({"name": format!("skill:{}", k.name), "description": k.description,
            "source": "skill", "sourceInfo": source_info(&k.file_path, Some(&k.base_dir), &agent_dir, &cwd)}));
    }
    out
}

/// Where a resource came from: auto-discovered under the agent dir (user) or a project
/// dir (`.rho/`, or `.pi/` for pi users), else given on the command line (temporary).
/// `baseDir` is, as in pi, the root it was discovered under; for a command-line path, the
/// directory given (`base_dir`) or the file's own directory.
fn source_info(path: &Path, base_dir: Option<&Path>, agent_dir: &Path, cwd: &Path) -> Value {
    let projects = rho_core::resources::project_dirs::project_dirs(cwd);
    let (source, scope, root) = if path.starts_with(agent_dir) {
        ("auto", "user", agent_dir.to_path_buf())
    } else if let Some(project) = projects.iter().find(|p| path.starts_with(p)) {
        ("auto", "project", project.clone())
    } else {
        let own = path.parent().unwrap_or(path).to_path_buf();
        ("cli", "temporary", base_dir.map_or(own, Path::to_path_buf))
    };
    json!({"path": path.to_string_lossy(), "source": source, "scope": scope,
        "origin": "top-level", "baseDir": root.to_string_lossy()})
}
