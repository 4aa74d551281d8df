//! The built-in slash commands (their list for completion is the screen's). A `/name` that is
//! not built in goes to the session's prompt, which runs extension commands and expands
//! `/skill:` and templates.

use rho_core::agent_session::SessionError;

use super::safety_commands::{show_permissions, trust};
use super::session_cmds::show_changelog;
use super::session_nav::switch_notice;
use super::{Control, Cx};
use crate::dialogs::Dialogs;
use crate::screen::Screen;
use crate::shared::Shared;

impl Control {
    /// Runs `text` if it names a built-in command; false when it does not.
    pub(super) fn run_command(&mut self, text: &str, cx: &mut Cx) -> bool {
        let body = &text[1..];
        let (name, args) = match body.split_once(char::is_whitespace) {
            Some((n, a)) => (n, a.trim()),
            None => (body, ""),
        };
        let arg = (!args.is_empty()).then(|| args.to_string());
        let Cx {
            shared,
            screen,
            dialogs,
            ext,
        } = cx;
        match name {
            "model" => self.open_model_selector(arg, shared, screen, dialogs),
            "thinking" => match arg {
                Some(level) => self.set_thinking(level, shared),
                None => self.open_thinking_selector(shared, screen, dialogs),
            },
            "scoped-models" => dialogs.open_scoped_models(shared, screen),
            "compact" => self.compact(arg, shared),
            "new" => self.new_session(shared),
            "resume" => self.open_session_picker(shared),
            "tree" => self.open_tree(shared, screen, dialogs),
            "fork" => self.open_fork(shared, screen, dialogs),
            "clone" => self.clone_session(shared, screen),
            "import" => self.ask_import(args, shared, screen, dialogs),
            "share" => self.share(shared, screen),
            "changelog" => show_changelog(screen),
            "name" => set_name(args, shared, screen),
            "session" => show_session(shared, screen),
            "export" => export(arg, shared, screen),
            "copy" => copy_last(shared, screen),
            "settings" => dialogs.open_settings(shared, screen),
            "hotkeys" => {
                dialogs.open_hotkeys(shared, ext.shortcut_rows(), screen.fullscreen_height())
            }
            "reload" => self.reload_resources(cx),
            "login" => dialogs.open_login(arg, shared, screen),
            "set" => set_value(args, shared, screen, dialogs),
            "logout" => dialogs.open_logout(arg, shared, screen),
            "mcp" => dialogs.mcp_command(args, shared, screen),
            "llama" => self.llama(args, shared),
            "permissions" => show_permissions(args, shared, screen),
            "trust" => trust(arg.as_deref(), shared, screen),
            "quit" | "exit" => self.quit = true,
            _ => return false,
        }
        true
    }

    fn set_thinking(&mut self, level: String, shared: &Shared) {
        let models = shared.models.clone();
        let tx = self.notices.clone();
        let session = shared.session.clone();
        tokio::spawn(async move {
            let (text, error) = match models.set_level(&level).await {
                Ok(()) => (
                    format!("Thinking level: {}", session.thinking_level().as_str()),
                    false,
                ),
                Err(e) => (e.to_string(), true),
            };
            tx.notice(text, error);
        });
    }

    fn compact(&mut self, instructions: Option<String>, shared: &Shared) {
        let session = shared.session.clone();
        let tx = self.notices.clone();
        tokio::spawn(async move {
            // A compaction that ran reports through compaction_end (the transcript shows it);
            // only a refusal before it started needs a note.
            if let Err(e) = session.compact(instructions.as_deref()).await {
                if !matches!(e, SessionError::Compaction(_)) {
                    tx.notice(e.to_string(), true);
                }
            }
        });
    }

    /// /new: a fresh session file beside the current one (in memory without one).
    pub(super) fn new_session(&mut self, shared: &Shared) {
        let session = shared.session.clone();
        let tx = self.notices.clone();
        tokio::spawn(async move {
            let cancelled = session.new_session(None).await;
            tx.send(switch_notice(cancelled, "New session started"));
        });
    }
}

/// `/set api-key <provider> <key>` (decision D7: the command the missing-key error names).
fn set_value(args: &str, shared: &Shared, screen: &mut Screen, dialogs: &mut Dialogs) {
    let mut words = args.split_whitespace();
    match (words.next(), words.next(), words.next(), words.next()) {
        (Some("api-key"), Some(provider), Some(key), None) => {
            dialogs.store_key(provider, key, shared, screen)
        }
        _ => screen.notice("Usage: /set api-key <provider> <key>".into(), true),
    }
}

fn set_name(name: &str, shared: &Shared, screen: &mut Screen) {
    let session = &shared.session;
    if name.is_empty() {
        let current = session.with_session(|s| s.name().map(str::to_string));
        let text = match current {
            Some(n) => format!("Session name: {n}"),
            None => "Usage: /name <name>".into(),
        };
        return screen.notice(text, false);
    }
    match session.set_session_name(name) {
        Ok(()) => screen.notice(format!("Session name set: {name}"), false),
        Err(e) => screen.notice(e.to_string(), true),
    }
}

/// /session: file, id, message counts, tokens and cost.
fn show_session(shared: &Shared, screen: &mut Screen) {
    let stats = shared.session.stats();
    let (file, id) = shared.session.with_session(|s| {
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
    screen.notice(text, false);
}

/// /export [file]: HTML, or the current branch as JSONL for a `.jsonl` target.
fn export(out: Option<String>, shared: &Shared, screen: &mut Screen) {
    let cwd = shared.session.cwd().to_path_buf();
    let result = shared
        .session
        .with_session(|s| rho_export::export_live(s, out.as_deref(), &cwd));
    match result {
        Ok(target) => screen.notice(format!("Session exported to: {}", target.display()), false),
        Err(e) => screen.notice(format!("Failed to export session: {e:#}"), true),
    }
}

/// /copy: the last reply's text to the system clipboard through the terminal (OSC 52,
/// which works over ssh and in tmux with `set-clipboard on`).
pub(super) fn copy_last(shared: &Shared, screen: &mut Screen) {
    let stored = shared.session.agent().stored_messages();
    let assistants = stored.iter().rev().filter(|m| m.role() == "assistant");
    let last = assistants.filter_map(|m| m.get().ok()).find_map(|m| {
        m.as_assistant()
            .map(|a| rho_ai::message::join_text(&a.content))
            .filter(|t| !t.is_empty())
    });
    let Some(text) = last else {
        return screen.notice("No agent messages to copy yet.".into(), true);
    };
    screen.copy_to_clipboard(&text);
    screen.notice("Copied last agent message to clipboard".into(), false);
}
