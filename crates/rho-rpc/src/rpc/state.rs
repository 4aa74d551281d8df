//! Quick state commands (interfaces spec §1.4): `get_state`, `get_messages`,
//! `get_session_stats`, `get_last_assistant_text`, `get_commands`, the queue modes and the
//! auto-compaction / auto-retry switches.

use std::path::Path;

use rho_protocol::agent::{JsonCopier, StoredMessage};
use rho_protocol::rpc::{CommandInfo, CommandList, SessionState, SessionStatsReply, SourceInfo};

use super::dispatch::to_data;
use super::response::Reply;
use super::Rpc;
use crate::event_out::LinePieces;
use rho_protocol::rpc::Command;

/// Runs one state command.
pub fn handle(rpc: &Rpc, command: Command) -> Reply {
    let s = &rpc.session;
    match command {
        Command::GetState => to_data(&get_state(rpc)),
        Command::GetMessages => messages(rpc),
        Command::GetSessionStats => to_data(&stats(rpc)),
        Command::GetLastAssistantText => to_data(&rpc.dialect.last_text(last_assistant_text(rpc))),
        Command::GetCommands => to_data(&CommandList {
            commands: commands(rpc),
        }),
        Command::SetSteeringMode { mode } => {
            s.set_steering_mode(mode);
            Reply::Done
        }
        Command::SetFollowUpMode { mode } => {
            s.set_follow_up_mode(mode);
            Reply::Done
        }
        Command::SetAutoCompaction { enabled } => super::dispatch::done(
            s.set_global_setting_field("compaction", "enabled", enabled.into()),
        ),
        Command::SetAutoRetry { enabled } => {
            super::dispatch::done(s.set_global_setting_field("retry", "enabled", enabled.into()))
        }
        _ => Reply::Error("not a state command".into()),
    }
}

fn get_state(rpc: &Rpc) -> SessionState {
    let s = &rpc.session;
    let agent = s.agent();
    let (session_file, session_id, session_name) = s.with_session(|store| {
        (
            store.path().map(|p| p.to_string_lossy().into_owned()),
            store.session_id().to_string(),
            store.name().map(str::to_string),
        )
    });
    SessionState {
        model: s.model(),
        thinking_level: s.thinking_level(),
        is_streaming: s.is_streaming(),
        is_compacting: s.is_compacting(),
        steering_mode: agent.steering_mode().as_str().into(),
        follow_up_mode: agent.follow_up_mode().as_str().into(),
        session_file,
        session_id,
        session_name,
        auto_compaction_enabled: s.with_settings(|st| st.compaction_enabled()),
        message_count: agent.with_state(|state| {
            let shown =
                |m: &&StoredMessage| rpc.dialect.shows_system_messages() || m.role() != "system";
            state.messages.iter().filter(shown).count()
        }),
        pending_message_count: s.pending_message_count(),
        mcp_servers: s.external().and_then(|e| e.status()),
    }
}

/// `{"messages": [...]}` written in pieces straight from the transcript as the client reads
/// it: held messages are encoded, the others copied from the session file as stored, so
/// neither the conversation nor the reply is ever whole in memory.
fn messages(rpc: &Rpc) -> Reply {
    let mut messages = rpc.session.agent().stored_messages();
    if !rpc.dialect.shows_system_messages() {
        messages.retain(|m| m.role() != "system");
    }
    Reply::Pieces(Box::new(MessagePieces {
        messages,
        next: 0,
        copier: JsonCopier::default(),
    }))
}

/// Bytes per piece of a `get_messages` reply.
const PIECE_BYTES: u64 = 64 * 1024;

/// The pieces of `{"messages":[...]}`.
struct MessagePieces {
    messages: Vec<StoredMessage>,
    /// The next message to write; `messages.len() + 1` once the closing brackets are out.
    next: usize,
    copier: JsonCopier,
}

impl LinePieces for MessagePieces {
    fn next_piece(&mut self, out: &mut Vec<u8>) -> bool {
        if self.next > self.messages.len() {
            return false;
        }
        if self.next == 0 {
            out.extend_from_slice(br#"{"messages":["#);
        }
        let (from, mut size) = (self.next, 0);
        while self.next < self.messages.len() && size < PIECE_BYTES {
            let stored = &self.messages[self.next];
            size += stored.origin().map_or(1024, |o| o.end() - o.offset());
            self.next += 1;
        }
        out.reserve(size as usize + 4096);
        let mut first = from == 0;
        let messages = &self.messages[from..self.next];
        self.copier.each(messages, |json| {
            if !std::mem::take(&mut first) {
                out.push(b',');
            }
            match json {
                Ok(json) => out.extend_from_slice(json),
                Err(e) => {
                    // Too late for an error response: the reply is already under way.
                    eprintln!("rho: get_messages: {e}");
                    out.extend_from_slice(b"null");
                }
            }
        });
        if self.next == self.messages.len() {
            out.extend_from_slice(b"]}");
            self.next += 1;
        }
        true
    }
}

fn stats(rpc: &Rpc) -> SessionStatsReply {
    let s = &rpc.session;
    let (session_file, session_id) = s.with_session(|store| {
        (
            store.path().map(|p| p.to_string_lossy().into_owned()),
            store.session_id().to_string(),
        )
    });
    SessionStatsReply {
        stats: s.stats_over(rpc.dialect.stats_scope()),
        session_file,
        session_id,
        context_usage: s.model().and_then(|model| s.context_usage(&model)),
    }
}

/// The text of the last assistant reply the dialect reads (see [`Dialect::answers_last_text`]).
///
/// [`Dialect::answers_last_text`]: rho_protocol::rpc::Dialect::answers_last_text
fn last_assistant_text(rpc: &Rpc) -> Option<String> {
    let stored = rpc.session.agent().stored_messages();
    let assistants = stored.iter().rev().filter(|m| m.role() == "assistant");
    assistants
        .filter_map(|m| m.get().ok())
        .find_map(|m| {
            let a = m.as_assistant()?;
            rpc.dialect
                .answers_last_text(a)
                .then(|| a.text().trim().to_string())
        })
        .filter(|t| !t.is_empty())
}

/// Extension commands, then prompt templates, then skills (`skill:<name>`).
fn commands(rpc: &Rpc) -> Vec<CommandInfo> {
    let s = &rpc.session;
    let cwd = s.cwd().to_path_buf();
    let mut out: Vec<CommandInfo> = s
        .extensions()
        .commands()
        .into_iter()
        .map(|(name, def)| CommandInfo {
            name,
            description: def.description,
            source: "extension".into(),
            source_info: SourceInfo {
                path: "<builtin>".into(),
                source: "builtin".into(),
                scope: "temporary".into(),
                origin: "top-level".into(),
                base_dir: None,
            },
        })
        .collect();
    for t in s.templates() {
        out.push(CommandInfo {
            name: t.name.clone(),
            description: Some(t.description.clone()),
            source: "prompt".into(),
            source_info: source_info(rpc, &t.file_path, None, &cwd),
        });
    }
    for k in s.skills() {
        out.push(CommandInfo {
            name: format!("skill:{}", k.name),
            description: Some(k.description.clone()),
            source: "skill".into(),
            source_info: source_info(rpc, &k.file_path, Some(&k.base_dir), &cwd),
        });
    }
    out
}

/// Where a resource came from: a package (its source and scope, origin `package`),
/// auto-discovered under the agent dir (user) or a project dir (`.rho/`, or `.pi/` for pi
/// users), else given on the command line (temporary).
/// `baseDir` is, as in pi, the root it was discovered under; for a command-line path, the
/// directory given (`base_dir`) or the file's own directory.
fn source_info(rpc: &Rpc, path: &Path, base_dir: Option<&Path>, cwd: &Path) -> SourceInfo {
    let agent_dir = &*rpc.agent_dir;
    if let Some(package) = (rpc.package_of)(path) {
        return package;
    }
    let projects = rho_core::resources::project_dirs::project_dirs(cwd);
    let (source, scope, root) = if path.starts_with(agent_dir) {
        ("auto", "user", agent_dir.to_path_buf())
    } else if let Some(project) = projects.iter().find(|p| path.starts_with(p)) {
        ("auto", "project", project.clone())
    } else {
        let own = path.parent().unwrap_or(path).to_path_buf();
        ("cli", "temporary", base_dir.map_or(own, Path::to_path_buf))
    };
    SourceInfo {
        path: path.to_string_lossy().into_owned(),
        source: source.into(),
        scope: scope.into(),
        origin: "top-level".into(),
        base_dir: Some(root.to_string_lossy().into_owned()),
    }
}
