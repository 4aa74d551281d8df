//! One call checked from outside a run: `rho permissions check <tool> <argument>` and
//! `/permissions check`. The argument is written as the user types it on one line; the
//! answer is the decision and, in words, the rule that made it.

use std::path::Path;

use serde_json::{json, Value};

use super::{Decision, Permissions, Verdict};

/// A call to check that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error(
    "the argument of {tool} must be its arguments as JSON ({source}), e.g. '{{\"query\": \"x\"}}'"
)]
pub struct ArgumentError {
    /// The tool named.
    pub tool: String,
    /// Why the argument is not JSON.
    #[source]
    pub source: serde_json::Error,
}

/// The arguments of a call to `tool` given as the user writes them on one line.
pub fn call_args(tool: &str, argument: &str) -> Result<Value, ArgumentError> {
    match tool {
        "bash" => Ok(json!({ "command": argument })),
        "read" | "write" | "edit" | "grep" | "find" | "ls" => Ok(json!({ "path": argument })),
        _ => serde_json::from_str(argument).map_err(|source| ArgumentError {
            tool: tool.to_string(),
            source,
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
) -> Result<Decision, ArgumentError> {
    let args = call_args(tool, argument)?;
    Ok(permissions.decide(tool, &args, cwd))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permissions::PermissionMode;

    fn permissions(deny: &[&str]) -> Permissions {
        let deny: Vec<String> = deny.iter().map(|r| r.to_string()).collect();
        Permissions::from_lists(PermissionMode::Default, &[], &[], &deny, &mut Vec::new())
    }

    #[test]
    fn the_argument_is_read_as_each_tool_takes_it() {
        let read = |tool, argument| call_args(tool, argument).ok();
        assert_eq!(read("bash", "ls -la"), Some(json!({"command": "ls -la"})));
        assert_eq!(read("edit", "src/a.rs"), Some(json!({"path": "src/a.rs"})));
        assert_eq!(read("search", r#"{"q": 1}"#), Some(json!({"q": 1})));
        let err = call_args("search", "q").expect_err("not JSON").to_string();
        assert!(
            err.starts_with("the argument of search must be its arguments as JSON ("),
            "{err}"
        );
    }

    #[test]
    fn a_denied_command_names_its_rule_list_and_simple_command() {
        let p = permissions(&["bash(rm -rf*)"]);
        let decision = check(&p, Path::new("/w"), "bash", "true && rm -rf build").expect("valid");
        let lines = explain(&decision);
        assert!(lines[0].starts_with("deny: "), "{lines:?}");
        assert_eq!(lines[1], "rule: bash(rm -rf*) (permissions.deny)");
        assert_eq!(lines[2], "command: rm -rf build");
    }

    #[test]
    fn a_call_no_rule_names_runs_and_says_so() {
        let decision = check(&permissions(&[]), Path::new("/w"), "read", "a.txt").expect("valid");
        assert_eq!(
            explain(&decision),
            ["allow", "rule: none names this call, so it runs (as in pi)"]
        );
    }
}
