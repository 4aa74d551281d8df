//! Session commands (interfaces spec §1.4): `new_session`, `switch_session`, `fork`,
//! `clone`, `get_fork_messages`, `export_html`, `set_session_name`. The AgentSession stays
//! the same object; its store is replaced, so the event subscription carries on.

use std::path::{Path, PathBuf};

use rho_protocol::rpc::{Cancelled, EntryList, ForkResult, MessageList};
use serde_json::Value;

use super::dispatch::data_of as data;
use super::error::CommandError;
use super::response::Reply;
use super::{export_html, Rpc};
use rho_protocol::rpc::Command;

/// Runs one session command.
pub async fn handle(rpc: &Rpc, command: Command) -> Reply {
    let result = match command {
        Command::NewSession { parent_session } => new_session(rpc, parent_session).await,
        Command::SwitchSession { session_path } => switch_session(rpc, &session_path).await,
        Command::Fork { entry_id } => fork(rpc, &entry_id).await,
        Command::Clone => clone(rpc).await,
        Command::GetForkMessages => return fork_messages(rpc),
        Command::GetEntries { since } => return entries(rpc, since.as_deref()),
        Command::GetTree => return tree(rpc),
        Command::ExportHtml { output_path } => export_html::export(rpc, output_path.as_deref()),
        Command::SetSessionName { name } => {
            if name.trim().is_empty() {
                return Reply::Error("Session name cannot be empty".into());
            }
            return super::dispatch::done(rpc.session.set_session_name(&name));
        }
        _ => Err(CommandError::NotASessionCommand),
    };
    result.into()
}

async fn new_session(rpc: &Rpc, parent: Option<String>) -> Result<Value, CommandError> {
    let cancelled = match rpc.dialect.records_new_session_state() {
        true => rpc.session.new_session(parent.as_deref()).await,
        false => {
            rpc.session
                .new_session_without_state(parent.as_deref())
                .await
        }
    };
    data(&Cancelled { cancelled })
}

async fn switch_session(rpc: &Rpc, path: &str) -> Result<Value, CommandError> {
    let path = absolute(Path::new(path));
    let opened = rpc.session.open_session(&path).await?;
    // Like the warnings of the session opened at startup: stderr, never the protocol stream.
    for w in &opened.warnings {
        eprintln!("Warning: {w}");
    }
    data(&Cancelled {
        cancelled: opened.cancelled,
    })
}

/// The dialect's refusal when the session has a file that is not written yet.
fn refuse_unsaved(rpc: &Rpc) -> Result<(), CommandError> {
    let unsaved = rpc
        .session
        .with_session(|store| store.path().is_some_and(|p| !p.exists()));
    match rpc.dialect.unsaved_fork_error() {
        Some(error) if unsaved => Err(CommandError::Refused(error)),
        _ => Ok(()),
    }
}

async fn fork(rpc: &Rpc, entry_id: &str) -> Result<Value, CommandError> {
    refuse_unsaved(rpc)?;
    let outcome = rpc.session.fork(entry_id).await?;
    data(&ForkResult {
        text: outcome.selected_text,
        cancelled: outcome.cancelled,
    })
}

async fn clone(rpc: &Rpc) -> Result<Value, CommandError> {
    refuse_unsaved(rpc)?;
    let outcome = rpc.session.clone_session().await?;
    data(&Cancelled {
        cancelled: outcome.cancelled,
    })
}

/// Every user message entry in file order (all branches) with non-empty text, encoded
/// without a `Value` tree.
fn fork_messages(rpc: &Rpc) -> Reply {
    let messages = rpc.session.fork_candidates();
    match serde_json::to_vec(&MessageList {
        messages: &messages,
    }) {
        Ok(data) => Reply::Encoded(data),
        Err(e) => Reply::Error(format!("cannot serialize the messages: {e}")),
    }
}

/// pi 1.x's `get_entries`: the entries after `since` (all without it), and the leaf.
fn entries(rpc: &Rpc, since: Option<&str>) -> Reply {
    rpc.session.with_session(|store| {
        let all = store.entries();
        let from = match since {
            None => 0,
            Some(id) => match all.iter().position(|e| e.id == id) {
                Some(i) => i + 1,
                None => return Reply::Error(format!("Entry not found: {id}")),
            },
        };
        let list = EntryList {
            entries: &all[from..],
            leaf_id: store.leaf_id(),
        };
        match serde_json::to_vec(&list) {
            Ok(data) => Reply::Encoded(data),
            Err(e) => Reply::Error(format!("cannot serialize the entries: {e}")),
        }
    })
}

/// pi 1.x's `get_tree`.
fn tree(rpc: &Rpc) -> Reply {
    rpc.session
        .with_session(|store| match store.tree().tree_view().to_json() {
            Ok(data) => Reply::Encoded(data),
            Err(e) => Reply::Error(format!("cannot serialize the tree: {e}")),
        })
}

/// `path` against the process's working directory.
pub fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    std::env::current_dir()
        .map(|d| d.join(path))
        .unwrap_or_else(|_| path.to_path_buf())
}
