//! The current branch as a session file (pi's `exportToJsonl`): a fresh header with the
//! session's id and cwd, then the branch's entries root first, each re-linked to the one
//! before it, so the file opens (and `/import`s) as a linear session.

use rho_session::time::now_iso;
use rho_session::{SessionEntry, SessionHeader, SessionManager, CURRENT_VERSION};

/// The JSONL text: one JSON object per line, a newline after the last.
pub fn branch_jsonl(manager: &SessionManager) -> String {
    let header = SessionHeader {
        version: CURRENT_VERSION,
        id: manager.session_id().to_string(),
        timestamp: now_iso(),
        cwd: manager.cwd().to_string(),
        parent_session: None,
    };
    let mut out = line(&header);
    let mut parent: Option<String> = None;
    for entry in manager.tree().branch() {
        let linked = SessionEntry {
            parent_id: parent.clone(),
            ..entry.clone()
        };
        out.push_str(&line(&linked));
        parent = Some(entry.id.clone());
    }
    out
}

fn line<T: serde::Serialize>(value: &T) -> String {
    // Serializing these types cannot fail: they hold only strings, numbers and JSON values.
    let mut text = serde_json::to_string(value).unwrap_or_default();
    text.push('\n');
    text
}
