//! The session side of the `codemode` tool (rho-codemode): which tools a script may call (the
//! active ones and the external ones such as MCP tools with `codemode` exposure), the `store()`
//! values as `codemode-store` custom entries on the current branch (so each branch sees the
//! values written on its path, and resumed sessions keep them), and waiting for MCP servers.
//! The tool object always exists, inactive unless turned on; no VM runs before a script.

use std::collections::BTreeMap;
use std::sync::{Arc, Weak};

use futures_util::future::BoxFuture;
use rho_agent::AgentTool;
use rho_codemode::{
    Callable, CodemodeHost, CodemodeTool, Presentation, StoreWrites, STORE_ENTRY_TYPE,
};
use rho_protocol::session::entry::EntryData;
use serde_json::{json, Value};

use super::{AgentSession, Inner, SessionOnlyEvent};

/// The codemode tool of the session `inner` will be.
pub(crate) fn tool(inner: Weak<Inner>) -> Arc<dyn AgentTool> {
    Arc::new(CodemodeTool::new(Arc::new(Host { inner })))
}

struct Host {
    inner: Weak<Inner>,
}

impl Host {
    fn session(&self) -> Option<AgentSession> {
        self.inner.upgrade().map(|inner| AgentSession { inner })
    }
}

impl CodemodeHost for Host {
    fn callable(&self) -> Vec<Callable> {
        let Some(s) = self.session() else {
            return Vec::new();
        };
        let external = s.external();
        let mut out: Vec<Callable> = external
            .as_ref()
            .map(|e| e.script_tools())
            .unwrap_or_default();
        let mut active = s.inner.agent.with_state(|st| st.tools.clone());
        if let Some(source) = external.as_ref().map(|e| e.tool_source()) {
            active.extend(source());
        }
        for tool in active {
            if !out.iter().any(|c| c.tool.name() == tool.name()) {
                out.push(Callable {
                    output_schema: tool.output_schema(),
                    tool,
                    namespace: None,
                    deferred: false,
                });
            }
        }
        out
    }

    fn wait_for(&self, words: Option<Vec<String>>) -> BoxFuture<'static, ()> {
        match self.session().and_then(|s| s.external()) {
            Some(e) => e.wait_for(words),
            None => Box::pin(async {}),
        }
    }

    fn load_store(&self) -> BTreeMap<String, Value> {
        let Some(s) = self.session() else {
            return BTreeMap::new();
        };
        let state = s.state();
        let mut store = BTreeMap::new();
        for entry in state.session.tree().branch() {
            let EntryData::Custom {
                custom_type,
                data: Some(data),
            } = &entry.data
            else {
                continue;
            };
            if custom_type != STORE_ENTRY_TYPE {
                continue;
            }
            let (Some(set), Some(deleted)) = (
                data.get("set").and_then(Value::as_object),
                data.get("delete").and_then(Value::as_array),
            ) else {
                continue;
            };
            for key in deleted.iter().filter_map(Value::as_str) {
                store.remove(key);
            }
            for (key, value) in set {
                store.insert(key.clone(), value.clone());
            }
        }
        store
    }

    fn presentation(&self) -> Presentation {
        self.session()
            .map(|s| s.state().settings.codemode())
            .unwrap_or_default()
    }

    fn prompt_guidelines(&self, name: &str) -> Vec<String> {
        crate::system_prompt::tool_guidelines(name)
            .iter()
            .map(|g| g.to_string())
            .collect()
    }

    fn save_store(&self, writes: &StoreWrites) -> Result<(), String> {
        let s = self.session().ok_or("the session has ended")?;
        let data = json!({"set": writes.set, "delete": writes.delete});
        let entry = s
            .state()
            .session
            .append_custom(STORE_ENTRY_TYPE, Some(data))
            .cloned()
            .map_err(|e| e.to_string())?;
        s.emit_session(SessionOnlyEvent::EntryAppended {
            entry: Box::new(entry),
        });
        Ok(())
    }
}

impl AgentSession {
    /// Makes the `codemode` tool active (pi: `--tools +codemode`, `defaultTools`, or an MCP
    /// server with `codemode` exposure); the system prompt lists it.
    pub fn activate_codemode(&self) {
        let mut names: Vec<String> = self
            .inner
            .agent
            .with_state(|s| s.tools.iter().map(|t| t.name().to_string()).collect());
        if names.iter().any(|n| n == rho_codemode::CODEMODE_TOOL_NAME) {
            return;
        }
        names.push(rho_codemode::CODEMODE_TOOL_NAME.to_string());
        self.set_active_tool_names(&names);
    }
}
