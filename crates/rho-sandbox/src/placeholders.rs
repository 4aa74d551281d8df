//! Protected folders that do not exist yet. A read-only bind mount (Landlock's namespace or
//! bubblewrap) needs something to mount over, and neither Landlock nor a mount can forbid
//! creating one name inside a writable folder; so before a confined command runs, each
//! missing protected folder whose parent exists inside a writable root (`.rho`, `.pi`,
//! `.git/hooks` of a repository) is created empty, and then mounted read-only like the
//! others. A command can then neither create it nor put anything in it. The folders rho
//! created are removed again when rho exits, if still empty ([`remove_placeholders`]); an
//! empty folder is invisible to git either way.

use std::path::PathBuf;
use std::sync::Mutex;

static CREATED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn created() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    CREATED.lock().unwrap_or_else(|p| p.into_inner())
}

/// Creates the missing folders of `read_only` whose parent exists inside one of `writable`.
/// A folder that cannot be created stays unprotected only if it also cannot be created by
/// the command (its parent is not writable to us either), so failures are ignored.
pub(crate) fn ensure(read_only: &[PathBuf], writable: &[PathBuf]) {
    for path in read_only {
        let Some(parent) = path.parent() else {
            continue;
        };
        let inside = writable.iter().any(|w| parent.starts_with(w));
        if !inside || !parent.is_dir() || path.symlink_metadata().is_ok() {
            continue;
        }
        if std::fs::create_dir(path).is_ok() {
            created().push(path.clone());
        }
    }
}

/// Removes the placeholders this process created that are still empty (rho is exiting).
pub fn remove_placeholders() {
    for path in std::mem::take(&mut *created()) {
        let _ = std::fs::remove_dir(&path);
    }
}

/// The placeholders this process created and has not removed (for tests).
pub fn placeholders() -> Vec<PathBuf> {
    created().clone()
}
