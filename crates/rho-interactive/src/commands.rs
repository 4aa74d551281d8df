//! The built-in slash commands. A `/name` that is not built in goes to the session's prompt,
//! which runs extension commands and expands `/skill:` and templates.

use rho_core::agent_session::{AgentSession, SessionError};
use rho_tui::editor::CompletionItem;

use super::app::{App, AppMsg};

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
    (
        "permissions",
        "Show permission rules, mode and sandbox; check <tool> <argument> explains one call",
    ),
    ("trust", "Trust this project folder: /trust [yes|no|forget]"),
    ("quit", "Quit rho"),
];

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

impl App {
    /// Runs `text` if it names a built-in command; false when it does not.
    pub(super) fn run_command(&mut self, text: &str) -> bool {
        let body = &text[1..];
        let (name, args) = match body.split_once(char::is_whitespace) {
            Some((n, a)) => (n, a.trim()),
            None => (body, ""),
        };
        let arg = (!args.is_empty()).then(|| args.to_string());
        match name {
            "model" => self.open_model_selector(arg),
            "thinking" => match arg {
                Some(level) => self.set_thinking(level),
                None => self.open_thinking_selector(),
            },
            "scoped-models" => self.open_scoped_models(),
            "compact" => self.compact(arg),
            "new" => self.new_session(),
            "resume" => self.open_session_picker(),
            "tree" => self.open_tree(),
            "fork" => self.open_fork(),
            "clone" => self.clone_session(),
            "import" => self.ask_import(args),
            "share" => self.share(),
            "changelog" => self.show_changelog(),
            "name" => self.set_name(args),
            "session" => self.show_session(),
            "export" => self.export(arg),
            "copy" => self.copy_last(),
            "settings" => self.open_settings(),
            "hotkeys" => self.open_hotkeys(),
            "reload" => self.reload_resources(),
            "login" => self.open_login(arg),
            "set" => self.set_value(args),
            "logout" => self.open_logout(arg),
            "mcp" => self.mcp_command(args),
            "permissions" => self.show_permissions(args),
            "trust" => self.trust(arg.as_deref()),
            "quit" | "exit" => self.quit = true,
            _ => return false,
        }
        true
    }

    /// `/set api-key <provider> <key>` (decision D7: the command the missing-key error names).
    fn set_value(&mut self, args: &str) {
        let mut words = args.split_whitespace();
        match (words.next(), words.next(), words.next(), words.next()) {
            (Some("api-key"), Some(provider), Some(key), None) => self.store_key(provider, key),
            _ => self.notice("Usage: /set api-key <provider> <key>".into(), true),
        }
    }

    fn set_thinking(&mut self, level: String) {
        let models = self.models.clone();
        let tx = self.tx.clone();
        let session = self.session.clone();
        tokio::spawn(async move {
            let (text, error) = match models.set_level(&level).await {
                Ok(()) => (
                    format!("Thinking level: {}", session.thinking_level().as_str()),
                    false,
                ),
                Err(e) => (e.to_string(), true),
            };
            let _ = tx.send(AppMsg::Notice { text, error });
        });
    }

    fn compact(&mut self, instructions: Option<String>) {
        let session = self.session.clone();
        let tx = self.tx.clone();
        tokio::spawn(async move {
            // A compaction that ran reports through compaction_end (the transcript shows it);
            // only a refusal before it started needs a note.
            if let Err(e) = session.compact(instructions.as_deref()).await {
                if !matches!(e, SessionError::Compaction(_)) {
                    let _ = tx.send(AppMsg::Notice {
                        text: e.to_string(),
                        error: true,
                    });
                }
            }
        });
    }

    /// /new: a fresh session file beside the current one (in memory without one).
    pub(super) fn new_session(&mut self) {
        let session = self.session.clone();
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let cancelled = session.new_session(None).await;
            let _ = tx.send(switch_notice(cancelled, "New session started"));
        });
    }

    fn set_name(&mut self, name: &str) {
        if name.is_empty() {
            let current = self.session.with_session(|s| s.name().map(str::to_string));
            let text = match current {
                Some(n) => format!("Session name: {n}"),
                None => "Usage: /name <name>".into(),
            };
            return self.notice(text, false);
        }
        match self.session.set_session_name(name) {
            Ok(()) => self.notice(format!("Session name set: {name}"), false),
            Err(e) => self.notice(e.to_string(), true),
        }
    }

    /// /session: file, id, message counts, tokens and cost.
    fn show_session(&mut self) {
        let stats = self.session.stats();
        let (file, id) = self.session.with_session(|s| {
            (
                s.path()
                    .map_or("(in memory)".to_string(), |p| p.display().to_string()),
                s.session_id().to_string(),
            )
        });
        let t = &stats.tokens;
        let text = format!(
            "Session info\nFile: {file}\nID: {id}\n\nMessages\nUser: {}\nAssistant: {}\nTool calls: {}\nTool results: {}\nTotal: {}\n\nTokens\nInput: {}\nOutput: {}\nCache read: {}\nCache write: {}\nTotal: {}\n\nCost: ${:.4}",
            stats.user_messages,
            stats.assistant_messages,
            stats.tool_calls,
            stats.tool_results,
            stats.total_messages,
            t.input,
            t.output,
            t.cache_read,
            t.cache_write,
            t.total,
            stats.cost,
        );
        self.notice(text, false);
    }

    /// /export [file]: HTML, or the current branch as JSONL for a `.jsonl` target.
    fn export(&mut self, out: Option<String>) {
        let cwd = self.session.cwd().to_path_buf();
        let result = self
            .session
            .with_session(|s| rho_export::export_live(s, out.as_deref(), &cwd));
        match result {
            Ok(target) => self.notice(format!("Session exported to: {}", target.display()), false),
            Err(e) => self.notice(format!("Failed to export session: {e:#}"), true),
        }
    }

    /// /copy: the last reply's text to the system clipboard through the terminal (OSC 52,
    /// which works over ssh and in tmux with `set-clipboard on`).
    pub(super) fn copy_last(&mut self) {
        let stored = self.session.agent().stored_messages();
        let assistants = stored.iter().rev().filter(|m| m.role() == "assistant");
        let last = assistants.filter_map(|m| m.get().ok()).find_map(|m| {
            m.as_assistant()
                .map(|a| rho_ai::message::join_text(&a.content))
                .filter(|t| !t.is_empty())
        });
        let Some(text) = last else {
            return self.notice("No agent messages to copy yet.".into(), true);
        };
        let osc = format!(
            "\x1b]52;c;{}\x07",
            rho_tools::image::encode_base64(text.as_bytes())
        );
        use std::io::Write;
        let mut out = std::io::stdout();
        let _ = out.write_all(osc.as_bytes());
        let _ = out.flush();
        self.notice("Copied last agent message to clipboard".into(), false);
    }
}

/// The note after a session switch.
/// What loading a session file tolerated, as one warning notice per line it names.
pub(super) fn send_load_warnings(
    tx: &tokio::sync::mpsc::UnboundedSender<AppMsg>,
    warnings: &[rho_session::LoadWarning],
) {
    for w in warnings {
        let _ = tx.send(AppMsg::Notice {
            text: format!("Warning: {w}"),
            error: true,
        });
    }
}

pub(super) fn switch_notice(cancelled: bool, done: &str) -> AppMsg {
    let text = if cancelled {
        "Cancelled by an extension".to_string()
    } else {
        done.to_string()
    };
    AppMsg::Notice { text, error: false }
}
