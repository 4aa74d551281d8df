//! Serializes writes and edits to the same file, so two tool calls running in parallel never
//! interleave a read-modify-write on one path.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

type Locks = Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>;

fn locks() -> &'static Locks {
    static LOCKS: OnceLock<Locks> = OnceLock::new();
    LOCKS.get_or_init(Default::default)
}

/// Waits for exclusive use of `path` (absolute); the guard releases it.
pub(crate) async fn lock_path(path: &Path) -> tokio::sync::OwnedMutexGuard<()> {
    let lock = {
        let mut map = locks()
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        map.retain(|_, l| Arc::strong_count(l) > 1 || l.try_lock().is_err());
        map.entry(path.to_path_buf()).or_default().clone()
    };
    lock.lock_owned().await
}
