//! One call checked from outside a run: `rho permissions check <tool> <argument>` and
//! `/permissions check`. The argument is written as the user types it on one line; the
//! answer is the decision and, in words, the rule that made it.

use std::path::Path;

use serde_json::{json, Value};

use super::{Decision, Permissions, Verdict};

/// The arguments of a call to `tool` given as the user writes them on one line.
pub fn call_args(tool: &str, argument: &str) -> Result<Value, String> {
    match tool {
        "bash" => Ok(json!({ "command": argument })),
        "read" | "write" | "edit" | "grep" | "find" | "ls" => Ok(json!({ "path": argument })),
        _ => serde_json::from_str(argument).map_err(|e| {
            format!("the argument of {tool} must be its arguments as JSON ({e}), e.g. '{{\"query\": \"x\"}}'")
        }),
    }
}

/// The decision in words, one fact a line.
pub fn explain(decision: &Decision) -> Vec<String> {
    let mut lines = vec![match &decision.verdict {
        Verdict::Allow => "allow".to_string(),
        Verdict::Ask(_) => "ask".to_string(),
        Verdict::Deny(reason) => format!("deny: {reason}"),
    }];
    match (&decision.rule, decision.list) {
        (Some(rule), Some(list)) => {
            lines.push(format!("rule: {rule} (permissions.{})", list.as_str()))
        }
        _ if matches!(decision.verdict, Verdict::Allow) => {
            lines.push("rule: none names this call, so it runs (as in pi)".into())
        }
        _ => {}
    }
    if let Some(command) = &decision.command {
        lines.push(format!("command: {command}"));
    }
    lines
}

/// Decides `tool argument` under `permissions` for a project in `cwd`.
pub fn check(
    permissions: &Permissions,
    cwd: &Path,
    tool: &str,
    argument: &str,
) -> Result<Decision, String> {
    let args = call_args(tool, argument)?;
    Ok(permissions.decide(tool, &args, cwd))
}
