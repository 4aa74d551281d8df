//! The permission check at the head of the tool pipeline: runs for every call before the
//! extensions' `tool_call` handlers, asks through the mode's UI `confirm` for `ask` rules, and
//! refuses with a clear reason where there is no UI to ask (print mode).

use rho_agent::ToolCallDecision;
use serde_json::Value;

use super::AgentSession;
use crate::permissions::Verdict;

fn block(reason: String) -> ToolCallDecision {
    ToolCallDecision {
        block: true,
        reason: Some(reason),
    }
}

/// A short form of the call for the question: the command or path, else the arguments.
fn summary(tool: &str, args: &Value) -> String {
    let text = ["command", "path"]
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
        .map(str::to_string)
        .unwrap_or_else(|| args.to_string());
    format!("{tool}: {text}")
}

impl AgentSession {
    /// `Some(decision)` when the rules stop the call; `None` lets it go on to the extensions.
    pub(crate) async fn permission_gate(
        &self,
        tool: &str,
        args: &Value,
    ) -> Option<ToolCallDecision> {
        let verdict = self
            .inner
            .services
            .permissions
            .check(tool, args, self.cwd());
        let rule = match verdict {
            Verdict::Allow => return None,
            Verdict::Deny(reason) => return Some(block(reason)),
            Verdict::Ask(rule) => rule,
        };
        let ui = super::lock(&self.inner.services.ui).clone();
        if !ui.has_ui() {
            return Some(block(format!(
                "Permission required: rule {rule:?} (permissions.ask) needs approval for {}, \
                 and this mode cannot ask. Add an allow rule or use --permission-mode bypass.",
                summary(tool, args)
            )));
        }
        let message = format!(
            "{}\n\nRule {rule:?} asks before this runs.",
            summary(tool, args)
        );
        if ui.confirm("Allow this tool call?".into(), message).await {
            None
        } else {
            Some(block(format!(
                "Permission denied by the user (rule {rule:?}) for {}",
                summary(tool, args)
            )))
        }
    }
}
