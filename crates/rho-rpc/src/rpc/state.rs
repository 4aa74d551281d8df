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
    let paths = s.extensions().command_paths();
    let mut out: Vec<CommandInfo> = s
        .extensions()
        .commands()
        .into_iter()
        .zip(paths)
        .filter(|(_, (_, path))| {
            rpc.dialect.lists_builtin_commands() || !path.starts_with("builtin:")
        })
        .map(|((name, def), (_, path))| CommandInfo {
            name,
            description: def.description,
            source: "extension".into(),
            source_info: extension_source_info(rpc, &path),
        })
        .collect();
    for t in s.templates() {
        out.push(CommandInfo {
            name: t.name.clone(),
            description: Some(t.description.clone()),
            source: "prompt".into(),
            source_info: source_info(rpc, &t.file_path, None),
        });
    }
    for k in s.skills() {
        out.push(CommandInfo {
            name: format!("skill:{}", k.name),
            description: Some(k.description.clone()),
            source: "skill".into(),
            source_info: source_info(rpc, &k.file_path, Some(&k.base_dir)),
        });
    }
    out
}

/// Where an extension came from: as any resource, but one given with `-e` is pi's `cli`, and
/// a built-in one (`builtin:mcp`) pi's `builtin`.
fn extension_source_info(rpc: &Rpc, path: &str) -> SourceInfo {
    let file = Path::new(path);
    if let Some(known) = (rpc.package_of)(file) {
        return known;
    }
    let source = if path.starts_with("builtin:") {
        "builtin"
    } else {
        "cli"
    };
    SourceInfo {
        path: path.to_string(),
        source: source.into(),
        scope: "temporary".into(),
        origin: "top-level".into(),
        base_dir: None,
    }
}

/// Where a resource came from, as pi 1.6's `sourceInfo` says it: what the binary's lookup
/// knows (a package, a settings list, a conventional folder), else the command line (`local`
/// with scope `temporary`, `baseDir` the directory given or the file's own).
fn source_info(rpc: &Rpc, path: &Path, base_dir: Option<&Path>) -> SourceInfo {
    if let Some(known) = (rpc.package_of)(path) {
        return known;
    }
    let text = |p: &Path| p.to_string_lossy().into_owned();
    let own = path.parent().unwrap_or(path);
    SourceInfo {
        path: text(path),
        source: "local".into(),
        scope: "temporary".into(),
        origin: "top-level".into(),
        base_dir: Some(text(base_dir.unwrap_or(own))),
    }
}
