//! What the `/resume` picker asks to have done while it stays open: deleting a session file
//! (to the trash with the `trash` command where it is installed, as pi does, else removed) and
//! naming a session (a `session_info` entry appended to its file; the session in use is named
//! through the session, so its own store sees the entry).

use std::path::Path;
use std::process::{Command, Stdio};

use rho_session::{SessionManager, StoreError};
use rho_tui::dialogs::{DeleteError, Deleted, SessionPicker};

use crate::shared::Shared;

/// Moves `path` to the trash with the `trash` command, or removes it when that fails; the
/// error names why neither worked.
pub fn delete_session_file(path: &Path) -> Result<Deleted, DeleteError> {
    let arg = path.as_os_str();
    let mut trash = Command::new("trash");
    if arg.to_string_lossy().starts_with('-') {
        trash.arg("--");
    }
    let trashed = trash
        .arg(arg)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output();
    if trashed.as_ref().is_ok_and(|o| o.status.success()) || !path.exists() {
        rho_session::remove_index(path);
        return Ok(Deleted::Trash);
    }
    std::fs::remove_file(path)
        .map(|()| {
            rho_session::remove_index(path);
            Deleted::Unlink
        })
        .map_err(|source| {
            let hint = match &trashed {
                Ok(o) => String::from_utf8_lossy(&o.stderr)
                    .lines()
                    .next()
                    .map(str::to_string)
                    .filter(|l| !l.is_empty()),
                Err(e) => Some(e.to_string()),
            };
            DeleteError {
                source,
                trash: hint.map(|h| h.chars().take(200).collect()),
            }
        })
}

/// Why a session could not be named.
#[derive(Debug, thiserror::Error)]
pub enum RenameError {
    /// The session in use refused the name.
    #[error(transparent)]
    Session(#[from] rho_core::agent_session::SessionError),
    /// Another session's file could not be opened or appended to.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Names the session in `path`: through the session when it is the one in use.
pub fn rename_session(path: &Path, name: &str, shared: &Shared) -> Result<(), RenameError> {
    let session = &shared.session;
    let active = session.with_session(|s| s.path().is_some_and(|p| p == path));
    if active {
        return Ok(session.set_session_name(name)?);
    }
    let mut manager = SessionManager::open(path)?;
    manager.append_session_info(name)?;
    Ok(())
}

/// Carries out the picker's rename, keeping it open with the new name (or saying why not).
pub fn apply_rename(picker: &mut SessionPicker, path: &Path, name: &str, shared: &Shared) {
    match rename_session(path, name, shared) {
        Ok(()) => picker.renamed(path, name),
        Err(e) => picker.failed(&format!("Failed to rename: {e}")),
    }
}
