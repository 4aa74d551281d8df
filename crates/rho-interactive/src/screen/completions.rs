//! What the editor offers after `/`: rho's built-in commands, then the extensions' commands,
//! skills (when `enableSkillCommands`) and prompt templates. A `/name` that is not built in
//! goes to the session's prompt, which runs extension commands and expands `/skill:` and
//! templates.

use rho_core::agent_session::AgentSession;
use rho_tui::editor::CompletionItem;

/// Built-in commands: name, description (shown in completion and /hotkeys).
pub const BUILTINS: &[(&str, &str)] = &[
    ("model", "Select model (opens selector UI)"),
    ("thinking", "Set thinking level"),
    ("scoped-models", "Enable/disable models for Ctrl+P cycling"),
    ("compact", "Manually compact the session context"),
    ("new", "Start a new session"),
    ("resume", "Resume a different session"),
    ("tree", "Navigate the session tree (switch branches)"),
    ("fork", "Create a new fork from a previous message"),
    (
        "clone",
        "Duplicate the current session at the current position",
    ),
    ("name", "Set session display name"),
    ("session", "Show session info and stats"),
    (
        "export",
        "Export session (HTML default, or specify path: .html/.jsonl)",
    ),
    (
        "import",
        "Import a JSONL session, preserving its ID and working directory",
    ),
    ("share", "Share session as a secret GitHub gist"),
    ("copy", "Copy last agent message to clipboard"),
    ("settings", "Open settings menu"),
    ("hotkeys", "Show all keyboard shortcuts"),
    (
        "reload",
        "Reload settings, skills, prompts, themes, and context files",
    ),
    ("changelog", "Show changelog entries"),
    ("login", "Sign in to a subscription or store an API key"),
    ("set", "Set a value: /set api-key <provider> <key>"),
    ("logout", "Remove a provider's stored credential"),
    (
        "mcp",
        "MCP servers: state, tools, sign in, reconnect, enable, disable",
    ),
    ("llama", "Manage llama.cpp router models"),
    (
        "permissions",
        "Show permission rules, mode and sandbox; check <tool> <argument> explains one call",
    ),
    ("trust", "Trust this project folder: /trust [yes|no|forget]"),
    ("quit", "Quit rho"),
];

/// The extension commands that complete their arguments (pi's `getArgumentCompletions`).
pub fn argument_commands(session: &AgentSession) -> Vec<String> {
    let commands = session.extensions().commands();
    let completing = commands
        .into_iter()
        .filter(|(_, def)| def.complete.is_some());
    completing.map(|(name, _)| name).collect()
}

/// Completion entries: built-ins, extension commands, skills (when `enableSkillCommands`),
/// prompt templates.
pub fn completions(session: &AgentSession) -> Vec<CompletionItem> {
    let item = |name: String, description: String| CompletionItem {
        value: format!("/{name}"),
        label: format!("/{name}"),
        description,
    };
    let mut items: Vec<CompletionItem> = BUILTINS
        .iter()
        .map(|(n, d)| item(n.to_string(), d.to_string()))
        .collect();
    for (name, def) in session.extensions().commands() {
        items.push(item(name, def.description.unwrap_or_default()));
    }
    if session.with_settings(|s| s.enable_skill_commands()) {
        for skill in session.skills() {
            items.push(item(format!("skill:{}", skill.name), skill.description));
        }
    }
    for t in session.templates() {
        items.push(item(t.name, t.description));
    }
    items
}
