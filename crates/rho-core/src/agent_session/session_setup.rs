//! The session an extension's `newSession({ setup })` fills before it starts: appends go to
//! its store directly (rho-session's own appends, so the store's persistence rules apply and
//! nothing is written before an assistant message), while it is not yet the active session.

use std::path::Path;
use std::sync::{Arc, Mutex};

use rho_extension_host::{HostError, SessionSetup, SetupTarget};
use rho_protocol::agent::AgentMessage;
use rho_protocol::extension::calls::{SetupEntry, SESSION_SETUP_APPEND};
use rho_session::{
    CompactionData, EntryData, ForkScope, SessionEntry, SessionManager, StoreError, UsageData,
};
use serde_json::Value;

use super::lock;

/// A session being prepared; `None` once the setup is over (a late append is refused).
struct Preparing(Mutex<Option<SessionManager>>);

/// Runs `setup` with `next` and hands the session back with what it appended. A setup that
/// fails keeps what it appended before failing (as pi's), and the failure is the caller's to
/// report.
pub(crate) async fn prepare(
    next: SessionManager,
    setup: &SessionSetup,
) -> (SessionManager, Result<(), HostError>) {
    let preparing = Arc::new(Preparing(Mutex::new(Some(next))));
    let outcome = setup.run(preparing.clone()).await;
    let next = lock(&preparing.0).take();
    // Only this function takes the session out, once.
    match next {
        Some(next) => (next, outcome),
        None => unreachable!("the prepared session is taken once"),
    }
}

/// What `get_entries` shows of `store` from entry `from` on: the session id, file, header,
/// leaf and the entries.
pub(crate) fn entries_view(store: &SessionManager, from: usize) -> Value {
    let entries = store.entries();
    serde_json::json!({
        "sessionId": store.session_id(),
        "sessionFile": store.path(),
        "header": store.header(),
        "leafId": store.leaf_id(),
        "total": entries.len(),
        "entries": entries.get(from..).unwrap_or_default(),
    })
}

impl SetupTarget for Preparing {
    fn view(&self) -> Result<Value, HostError> {
        lock(&self.0)
            .as_ref()
            .map(|store| entries_view(store, 0))
            .ok_or(HostError::Stale)
    }

    fn append(&self, entry: SetupEntry) -> Result<Value, HostError> {
        let mut guard = lock(&self.0);
        let store = guard.as_mut().ok_or(HostError::Stale)?;
        if let Some(replaced) = replacement(store, &entry) {
            *store = replaced?;
            return Ok(entries_view(store, 0));
        }
        match apply(store, entry)? {
            Some(appended) => serde_json::to_value(appended).map_err(HostError::Encode),
            None => Ok(Value::Null),
        }
    }
}

/// pi's error for a chosen session id it does not take.
const INVALID_ID: &str = "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', and start and end with an alphanumeric character";

/// The session a setup's `newSession`, `setSessionFile` or `createBranchedSession` goes on
/// in instead of `store`; `None` for the other calls.
fn replacement(
    store: &SessionManager,
    entry: &SetupEntry,
) -> Option<Result<SessionManager, HostError>> {
    let dir = store.path().and_then(Path::parent).map(Path::to_path_buf);
    let cwd = store.cwd().to_string();
    let replaced = match entry {
        SetupEntry::NewSession { id, parent_session } => {
            if id
                .as_deref()
                .is_some_and(|id| !rho_session::ids::valid_session_id(id))
            {
                return Some(Err(HostError::Refused(INVALID_ID.into())));
            }
            let fresh = match (&dir, id) {
                (Some(dir), Some(id)) => SessionManager::create_with_id(dir, &cwd, id),
                (Some(dir), None) => SessionManager::create(dir, &cwd),
                (None, _) => SessionManager::in_memory(&cwd),
            };
            Ok(match parent_session {
                Some(parent) => fresh.with_parent_session(parent),
                None => fresh,
            })
        }
        SetupEntry::SetSessionFile { path } => {
            let path = Path::new(path);
            match path.exists() {
                true => SessionManager::open(path).map_err(HostError::session),
                false => Ok(SessionManager::create_at(path, &cwd)),
            }
        }
        SetupEntry::CreateBranchedSession { leaf_id } => match &dir {
            Some(dir) => store
                .fork(dir, &cwd, ForkScope::Branch(leaf_id))
                .map_err(HostError::session),
            None => Err(HostError::Refused(
                "createBranchedSession needs a session that is saved (not --no-session)".into(),
            )),
        },
        _ => return None,
    };
    Some(replaced)
}

/// Appends `entry` to `store` (the entry written), or moves its leaf (`None`).
fn apply(
    store: &mut SessionManager,
    entry: SetupEntry,
) -> Result<Option<&SessionEntry>, HostError> {
    let stored: Result<&SessionEntry, StoreError> = match entry {
        SetupEntry::Message { message } => {
            let message: AgentMessage =
                serde_json::from_value(message).map_err(|source| HostError::InvalidParams {
                    method: SESSION_SETUP_APPEND.into(),
                    source,
                })?;
            store.append_message(message)
        }
        SetupEntry::Custom { custom_type, data } => store.append_custom(&custom_type, data),
        SetupEntry::CustomMessage {
            custom_type,
            content,
            display,
            details,
        } => store.append_custom_message(&custom_type, content, display, details),
        SetupEntry::Label { target_id, label } => store.append_label(&target_id, label.as_deref()),
        SetupEntry::SessionInfo { name } => store.append_session_info(&name),
        SetupEntry::ModelChange { provider, model_id } => {
            store.append_model_change(&provider, &model_id)
        }
        SetupEntry::ThinkingLevelChange { thinking_level } => {
            store.append_thinking_level_change(&thinking_level)
        }
        SetupEntry::ContextEdit {
            target_id,
            replacement,
        } => store.append_context_edit(&target_id, replacement),
        SetupEntry::Usage {
            kind,
            provider,
            model,
            usage,
            note,
        } => store.append(EntryData::Usage(Box::new(UsageData {
            kind,
            provider,
            model,
            usage,
            note,
        }))),
        SetupEntry::Compaction {
            summary,
            first_kept_entry_id,
            tokens_before,
            details,
            from_hook,
            usage,
        } => {
            // Without one it keeps nothing: the store names the compaction itself.
            store.append_compaction(CompactionData {
                summary,
                first_kept_entry_id: first_kept_entry_id.unwrap_or_default(),
                tokens_before,
                details,
                usage,
                from_hook,
                system_message: None,
            })
        }
        SetupEntry::BranchSummary {
            branch_from_id,
            summary,
            details,
            from_hook,
        } => store.branch_with_summary(branch_from_id.as_deref(), &summary, details, from_hook),
        SetupEntry::Branch { id: Some(id) } => {
            store.branch(&id).map_err(HostError::session)?;
            return Ok(None);
        }
        SetupEntry::Branch { id: None } => {
            store.reset_leaf();
            return Ok(None);
        }
        SetupEntry::NewSession { .. }
        | SetupEntry::SetSessionFile { .. }
        | SetupEntry::CreateBranchedSession { .. } => {
            return Err(HostError::Refused(
                "a setup's session replacement goes through `replacement`".into(),
            ))
        }
    };
    stored.map(Some).map_err(HostError::session)
}
