//! What a nested call resolves to in a script when that is more than the tool's content (an
//! MCP tool's whole `CallToolResult`, `bash`'s `{ output, exit_code, ... }`): the tool keeps
//! it by call id while it runs, and [`crate::AgentTool::take_script_value`] hands it over once.
//! Only nested calls keep a value, so calls the model makes cost nothing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::tool::ToolContext;

/// A tool's values waiting for their scripts. Cheap to clone.
#[derive(Clone, Default)]
pub struct ScriptValues(Arc<Mutex<HashMap<String, Value>>>);

/// Where one nested call's value goes.
pub struct ScriptValueSlot {
    values: ScriptValues,
    id: String,
}

impl ScriptValues {
    /// A slot for the call `ctx` runs; `None` unless another tool made the call.
    pub fn slot(&self, ctx: &ToolContext) -> Option<ScriptValueSlot> {
        ctx.parent_call_id.as_ref().map(|_| ScriptValueSlot {
            values: self.clone(),
            id: ctx.call_id.clone(),
        })
    }

    /// Removes and returns the value of `call_id`.
    pub fn take(&self, call_id: &str) -> Option<Value> {
        self.lock().remove(call_id)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Value>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl ScriptValueSlot {
    /// Keeps `value` for the script.
    pub fn keep(self, value: Value) {
        self.values.lock().insert(self.id, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_nested_calls_keep_a_value_and_it_is_taken_once() {
        let values = ScriptValues::default();
        assert!(values.slot(&ToolContext::detached("c1")).is_none());
        let mut ctx = ToolContext::detached("c1/1");
        ctx.parent_call_id = Some("c1".into());
        values.slot(&ctx).expect("nested").keep(json!({"a": 1}));
        assert_eq!(values.take("c1/1"), Some(json!({"a": 1})));
        assert_eq!(values.take("c1/1"), None);
    }
}
