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
    Callable, CodemodeHost, CodemodeTool, Presentation, SaveError, StoreWrites, STORE_ENTRY_TYPE,
};
use rho_protocol::session::entry::EntryData;
use serde_json::{json, Value};

use super::{AgentSession, Inner};

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
        let mut active = s.inner.services.agent.with_state(|st| st.tools.clone());
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
        let mut store = BTreeMap::new();
        for entry in s.state().session.tree().branch() {
            if let EntryData::Custom {
                custom_type,
                data: Some(data),
            } = &entry.data
            {
                if custom_type == STORE_ENTRY_TYPE {
                    apply(&mut store, data);
                }
            }
        }
        for data in s.pending_store().iter() {
            apply(&mut store, data);
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

    /// Queued, not appended: the run loop persists the turn's messages behind the run, so
    /// an entry appended now could land before them (under load, before the prompt) and a
    /// fork there would keep it. [`AgentSession::write_codemode_store`] writes it in order.
    fn save_store(&self, writes: &StoreWrites) -> Result<(), SaveError> {
        let s = self.session().ok_or(SaveError::SessionEnded)?;
        let data = json!({"set": writes.set, "delete": writes.delete});
        s.pending_store().push(data);
        Ok(())
    }
}

/// Applies one `codemode-store` entry's data to `store`.
fn apply(store: &mut BTreeMap<String, Value>, data: &Value) {
    let (Some(set), Some(deleted)) = (
        data.get("set").and_then(Value::as_object),
        data.get("delete").and_then(Value::as_array),
    ) else {
        return;
    };
    for key in deleted.iter().filter_map(Value::as_str) {
        store.remove(key);
    }
    for (key, value) in set {
        store.insert(key.clone(), value.clone());
    }
}

impl AgentSession {
    fn pending_store(&self) -> std::sync::MutexGuard<'_, Vec<Value>> {
        self.inner
            .services
            .codemode_store
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// Appends the queued `store()` writes as `codemode-store` entries; the run loop calls it
    /// before persisting a tool result (pi's order: the entry, then the script's result).
    pub(crate) fn write_codemode_store(&self) {
        let pending = std::mem::take(&mut *self.pending_store());
        for data in pending {
            if self
                .append_custom_entry(STORE_ENTRY_TYPE, Some(data))
                .is_err()
            {
                self.announce_save_failure();
            }
        }
    }

    /// Makes the `codemode` tool active (pi: `--tools +codemode`, `defaultTools`, or an MCP
    /// server with `codemode` exposure); the system prompt lists it.
    pub fn activate_codemode(&self) {
        let mut names: Vec<String> = self
            .inner
            .services
            .agent
            .with_state(|s| s.tools.iter().map(|t| t.name().to_string()).collect());
        if names.iter().any(|n| n == rho_codemode::CODEMODE_TOOL_NAME) {
            return;
        }
        names.push(rho_codemode::CODEMODE_TOOL_NAME.to_string());
        self.set_active_tool_names(&names);
    }
}
