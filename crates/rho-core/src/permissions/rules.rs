//! Parsing rules, and the verdict for one tool call.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde_json::Value;

use super::pattern::matches;

/// Tools that only read: the ones plan mode keeps.
pub const READ_ONLY_TOOLS: [&str; 4] = ["read", "grep", "find", "ls"];
/// Tools that change files and nothing else: the ones accept-edits lets through.
pub const WRITING_FILE_TOOLS: [&str; 2] = ["write", "edit"];

/// The permission mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PermissionMode {
    /// Rules as written; a call no rule names runs.
    #[default]
    Default,
    /// Like default, and `ask` rules on write/edit are answered yes.
    AcceptEdits,
    /// Only read-only tools: the model looks and proposes, nothing changes.
    Plan,
    /// No questions: `ask` counts as allow (deny rules still hold).
    Bypass,
}

impl PermissionMode {
    /// The name used in settings and flags.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::AcceptEdits => "accept-edits",
            Self::Plan => "plan",
            Self::Bypass => "bypass",
        }
    }
}

impl fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `--permission-mode` or `permissions.defaultMode` value that names no mode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Unknown permission mode: {0}. Valid modes: default, accept-edits, plan, bypass")]
pub struct UnknownPermissionMode(pub String);

/// A permission rule that cannot be parsed; the text quotes it as written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// `tool(pattern` without `)`.
    #[error("permission rule {0:?} is missing its closing )")]
    Unclosed(String),
    /// `(pattern)` or an empty rule.
    #[error("permission rule {0:?} names no tool")]
    NoTool(String),
}

impl FromStr for PermissionMode {
    type Err = UnknownPermissionMode;
    fn from_str(s: &str) -> Result<Self, UnknownPermissionMode> {
        match s {
            "default" => Ok(Self::Default),
            "accept-edits" | "acceptEdits" => Ok(Self::AcceptEdits),
            "plan" => Ok(Self::Plan),
            "bypass" | "bypassPermissions" => Ok(Self::Bypass),
            other => Err(UnknownPermissionMode(other.to_string())),
        }
    }
}

/// One rule: a tool-name pattern and an optional argument pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// As written in settings.
    pub text: String,
    tool: String,
    argument: Option<String>,
}

impl Rule {
    /// Parses `tool` or `tool(pattern)`; tool names compare case-insensitively so Claude
    /// Code's `Bash(npm test)` works as written.
    pub fn parse(text: &str) -> Result<Rule, RuleError> {
        let trimmed = text.trim();
        let (tool, argument) = match trimmed.split_once('(') {
            Some((tool, rest)) => match rest.strip_suffix(')') {
                Some(arg) => (tool.trim(), Some(arg.to_string())),
                None => return Err(RuleError::Unclosed(text.to_string())),
            },
            None => (trimmed, None),
        };
        if tool.is_empty() {
            return Err(RuleError::NoTool(text.to_string()));
        }
        Ok(Rule {
            text: text.to_string(),
            tool: tool.to_lowercase(),
            argument: argument.filter(|a| !a.is_empty() && a != "*"),
        })
    }

    /// The argument pattern (`None`: the rule covers every call of its tool).
    pub(super) fn pattern(&self) -> Option<&str> {
        self.argument.as_deref()
    }

    fn names_tool(&self, tool: &str) -> bool {
        matches(&self.tool, &tool.to_lowercase(), false)
    }

    fn applies(&self, tool: &str, args: &Value, cwd: &Path) -> bool {
        if !self.names_tool(tool) {
            return false;
        }
        let Some(pattern) = &self.argument else {
            return true;
        };
        match tool_argument(tool, args, cwd) {
            Argument::Path { relative, absolute } if pattern.starts_with('/') => {
                matches(pattern, &absolute, true) || matches(pattern, &relative, true)
            }
            Argument::Path { relative, .. } => matches(pattern, &relative, true),
            Argument::Text(t) => matches(pattern, &t, false),
        }
    }
}

enum Argument {
    /// Relative to the project when inside it, and absolute; `/`-patterns match the latter.
    Path {
        relative: String,
        absolute: String,
    },
    Text(String),
}

/// What a rule's pattern is matched against: the command for `bash`, the path for file tools
/// (relative to the project when inside it; a pattern starting with `/` matches the absolute
/// path), the arguments as JSON for anything else.
fn tool_argument(tool: &str, args: &Value, cwd: &Path) -> Argument {
    let field = |name: &str| args.get(name).and_then(Value::as_str);
    match tool {
        "bash" => Argument::Text(field("command").unwrap_or_default().to_string()),
        "read" | "write" | "edit" | "grep" | "find" | "ls" => {
            let raw = field("path").unwrap_or(".");
            let absolute = cwd.join(raw);
            let relative = match absolute.strip_prefix(cwd) {
                Ok(rel) => rel.to_string_lossy().trim_start_matches("./").to_string(),
                Err(_) => raw.to_string(),
            };
            Argument::Path {
                relative,
                absolute: absolute.to_string_lossy().into_owned(),
            }
        }
        _ => Argument::Text(args.to_string()),
    }
}

/// What the rules say about one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Run it.
    Allow,
    /// Ask the user first; the text names the rule.
    Ask(String),
    /// Refuse; the text is the reason the model gets.
    Deny(String),
}

/// The rules and mode in force for a session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Permissions {
    /// The mode.
    pub mode: PermissionMode,
    /// `permissions.allow`.
    pub allow: Vec<Rule>,
    /// `permissions.ask`.
    pub ask: Vec<Rule>,
    /// `permissions.deny`.
    pub deny: Vec<Rule>,
}

impl Permissions {
    /// Rules from the three lists; unparsable rules are skipped with a warning each.
    pub fn from_lists(
        mode: PermissionMode,
        allow: &[String],
        ask: &[String],
        deny: &[String],
        warnings: &mut Vec<String>,
    ) -> Self {
        let mut parse = |list: &[String]| -> Vec<Rule> {
            list.iter()
                .filter_map(|t| {
                    Rule::parse(t)
                        .map_err(|e| warnings.push(e.to_string()))
                        .ok()
                })
                .collect()
        };
        Self {
            mode,
            allow: parse(allow),
            ask: parse(ask),
            deny: parse(deny),
        }
    }

    /// Whether nothing can ever be refused or asked (the pipeline then skips the check).
    pub fn is_open(&self) -> bool {
        self.mode != PermissionMode::Plan && self.ask.is_empty() && self.deny.is_empty()
    }

    /// Whether `tool` stays available in this mode (plan mode keeps only read-only tools).
    pub fn exposes(&self, tool: &str) -> bool {
        self.mode != PermissionMode::Plan || READ_ONLY_TOOLS.contains(&tool)
    }

    /// The verdict for `tool(args)` (see [`Self::decide`]).
    pub fn check(&self, tool: &str, args: &Value, cwd: &Path) -> Verdict {
        self.decide(tool, args, cwd).verdict
    }

    /// The verdict for `tool(args)` and what decided it: deny rules first, then ask; an
    /// allow rule with an argument pattern beats an ask rule for the whole tool
    /// (`ask: ["bash"]` with `allow: ["bash(git status*)"]` asks for everything but `git
    /// status`). A call no rule names runs, as in pi, whose tools never ask. For `bash` the
    /// rules see each simple command of the line (see [`super::bash_rules`]).
    pub fn decide(&self, tool: &str, args: &Value, cwd: &Path) -> Decision {
        if tool == "bash" {
            let line = args
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or_default();
            return super::bash_rules::decide(self, line);
        }
        let first = |rules: &[Rule]| rules.iter().find(|r| r.applies(tool, args, cwd)).cloned();
        let narrower_allow = || {
            self.allow
                .iter()
                .find(|r| r.argument.is_some() && r.applies(tool, args, cwd))
                .cloned()
        };
        self.judge(
            tool,
            first(&self.deny),
            first(&self.ask),
            narrower_allow,
            None,
        )
    }

    /// The verdict once the rules that apply are known: `deny` and `ask` are the first
    /// deny and ask rules that apply, `narrower_allow` finds an allow rule with a pattern
    /// that covers the whole call; `command` is the simple command a bash rule matched.
    pub(super) fn judge(
        &self,
        tool: &str,
        deny: Option<Rule>,
        ask: Option<Rule>,
        narrower_allow: impl FnOnce() -> Option<Rule>,
        command: Option<String>,
    ) -> Decision {
        let decided = |verdict: Verdict, rule: Option<Rule>, list: Option<RuleList>| Decision {
            verdict,
            rule: rule.map(|r| r.text),
            list,
            command: command.clone(),
        };
        if let Some(rule) = deny {
            let on = command
                .as_deref()
                .map(|c| format!(" (command: {c})"))
                .unwrap_or_default();
            let reason = format!(
                "Permission denied by rule {:?} in settings.json (permissions.deny){on}",
                rule.text
            );
            return decided(Verdict::Deny(reason), Some(rule), Some(RuleList::Deny));
        }
        if !self.exposes(tool) {
            let reason = format!(
                "Permission denied: plan mode allows only read-only tools ({}), not {tool}",
                READ_ONLY_TOOLS.join(", ")
            );
            return decided(Verdict::Deny(reason), None, None);
        }
        let Some(asked) = ask else {
            return decided(Verdict::Allow, None, None);
        };
        if self.mode == PermissionMode::Bypass {
            return decided(Verdict::Allow, Some(asked), Some(RuleList::Ask));
        }
        let edits_accepted =
            self.mode == PermissionMode::AcceptEdits && WRITING_FILE_TOOLS.contains(&tool);
        if edits_accepted {
            return decided(Verdict::Allow, Some(asked), Some(RuleList::Ask));
        }
        if asked.argument.is_none() {
            if let Some(allow) = narrower_allow() {
                return decided(Verdict::Allow, Some(allow), Some(RuleList::Allow));
            }
        }
        decided(
            Verdict::Ask(asked.text.clone()),
            Some(asked),
            Some(RuleList::Ask),
        )
    }

    /// The rules of one list that name `tool` (with or without a pattern).
    pub(super) fn naming<'a>(rules: &'a [Rule], tool: &'a str) -> impl Iterator<Item = &'a Rule> {
        rules.iter().filter(move |r| r.names_tool(tool))
    }
}

/// Which list a deciding rule is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleList {
    /// `permissions.allow`.
    Allow,
    /// `permissions.ask`.
    Ask,
    /// `permissions.deny`.
    Deny,
}

impl RuleList {
    /// The settings key.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }
}

/// A verdict and what decided it (for `rho permissions check` and `/permissions`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// The verdict.
    pub verdict: Verdict,
    /// The rule that decided, as written (`None`: no rule, or the mode decided).
    pub rule: Option<String>,
    /// Its list.
    pub list: Option<RuleList>,
    /// For `bash`: the simple command the rule matched (`…` marks computed parts).
    pub command: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn perms(mode: PermissionMode, allow: &[&str], ask: &[&str], deny: &[&str]) -> Permissions {
        let own = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        Permissions::from_lists(mode, &own(allow), &own(ask), &own(deny), &mut Vec::new())
    }

    const CWD: &str = "/p";

    fn check(p: &Permissions, tool: &str, args: Value) -> Verdict {
        p.check(tool, &args, Path::new(CWD))
    }

    #[test]
    fn deny_beats_ask_beats_allow() {
        let p = perms(
            PermissionMode::Default,
            &["bash(git status*)"],
            &["bash(git push*)", "write(src/**)"],
            &["bash(rm -rf*)", "Write(/p/.env)", "mcp__github__*"],
        );
        assert_eq!(
            check(&p, "bash", json!({"command": "git status -s"})),
            Verdict::Allow
        );
        assert!(matches!(
            check(&p, "bash", json!({"command": "rm -rf /"})),
            Verdict::Deny(_)
        ));
        assert_eq!(
            check(&p, "bash", json!({"command": "git push origin"})),
            Verdict::Ask("bash(git push*)".into())
        );
        assert_eq!(
            check(&p, "write", json!({"path": "src/a/b.rs"})),
            Verdict::Ask("write(src/**)".into())
        );
        assert_eq!(
            check(&p, "write", json!({"path": "docs/a.md"})),
            Verdict::Allow
        );
        assert!(matches!(
            check(&p, "write", json!({"path": ".env"})),
            Verdict::Deny(_)
        ));
        assert!(matches!(
            check(&p, "mcp__github__create_issue", json!({})),
            Verdict::Deny(_)
        ));
        assert_eq!(check(&p, "mcp__fs__read", json!({})), Verdict::Allow);
        let narrow = perms(
            PermissionMode::Default,
            &["bash(git status*)"],
            &["bash"],
            &[],
        );
        assert_eq!(
            check(&narrow, "bash", json!({"command": "git status"})),
            Verdict::Allow
        );
        assert_eq!(
            check(&narrow, "bash", json!({"command": "ls"})),
            Verdict::Ask("bash".into())
        );
    }

    #[test]
    fn modes_change_asks_and_plan_keeps_only_readers() {
        let ask = ["write", "bash(npm publish*)"];
        let edits = perms(PermissionMode::AcceptEdits, &[], &ask, &[]);
        assert_eq!(check(&edits, "write", json!({"path": "a"})), Verdict::Allow);
        assert!(matches!(
            check(&edits, "bash", json!({"command": "npm publish"})),
            Verdict::Ask(_)
        ));
        let bypass = perms(PermissionMode::Bypass, &[], &ask, &["bash(sudo*)"]);
        assert_eq!(
            check(&bypass, "bash", json!({"command": "npm publish"})),
            Verdict::Allow
        );
        assert!(matches!(
            check(&bypass, "bash", json!({"command": "sudo x"})),
            Verdict::Deny(_)
        ));
        let plan = perms(PermissionMode::Plan, &[], &[], &[]);
        assert!(plan.exposes("read") && !plan.exposes("write") && !plan.exposes("bash"));
        assert!(matches!(
            check(&plan, "edit", json!({"path": "a"})),
            Verdict::Deny(_)
        ));
        assert_eq!(
            check(&plan, "grep", json!({"pattern": "x"})),
            Verdict::Allow
        );
    }

    #[test]
    fn bad_rules_are_reported_not_fatal() {
        let mut warnings = Vec::new();
        let p = Permissions::from_lists(
            PermissionMode::Default,
            &[],
            &[],
            &["bash(rm".into(), "read".into()],
            &mut warnings,
        );
        assert_eq!(p.deny.len(), 1);
        assert!(
            warnings[0].contains("missing its closing )"),
            "{warnings:?}"
        );
        assert_eq!(
            "nope"
                .parse::<PermissionMode>()
                .map_err(|e| e.to_string().contains("Valid")),
            Err(true)
        );
    }
}
