//! Permission rules and modes, in the shape Claude Code users know: settings.json
//! `permissions: {allow, ask, deny}` with `tool(argument-pattern)` rules, and the modes
//! `default`, `accept-edits`, `plan`, `bypass`. Checked for every tool call (built-in,
//! extension, MCP) in the session's one tool pipeline, before extension `tool_call` handlers.

mod bash_rules;
pub mod check;
mod pattern;
mod rules;
pub mod shell_line;

pub use rules::{
    Decision, PermissionMode, Permissions, Rule, RuleError, RuleList, UnknownPermissionMode,
    Verdict, READ_ONLY_TOOLS, WRITING_FILE_TOOLS,
};
