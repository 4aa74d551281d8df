//! The lock pi puts on files several processes change (auth.json, mcp-auth.json and the MCP
//! refresh locks): proper-lockfile's `<file>.lock` directory, created atomically and removed on
//! release. A lock older than [`STALE`] was left by a process that died and is taken over.
//! Holding the same lock as pi means a rho and a pi sharing an agent dir never lose each
//! other's writes or refresh one token twice.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// A lock this old belongs to a dead process (pi uses the same age).
pub const STALE: Duration = Duration::from_secs(30);
/// How long to wait for another holder by default.
pub const WAIT: Duration = Duration::from_secs(30);
/// Between attempts.
const RETRY: Duration = Duration::from_millis(25);

/// Why a lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process held it for the whole wait.
    #[error(
        "{path} is locked by another process; if no other rho or pi is running, delete {path}.lock"
    )]
    Busy {
        /// The locked file.
        path: String,
    },
    /// The lock directory cannot be created.
    #[error("cannot lock {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

/// A held lock; dropping it releases it.
#[derive(Debug)]
pub struct FileLock {
    dir: PathBuf,
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

impl FileLock {
    /// One attempt: the lock, or `None` while a live holder has it (a stale lock is removed,
    /// so the next attempt can take it).
    pub fn try_acquire(path: &Path) -> Result<Option<FileLock>, LockError> {
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(".lock");
        let dir = path.with_file_name(name);
        if let Some(parent) = dir.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        match std::fs::create_dir(&dir) {
            Ok(()) => Ok(Some(FileLock { dir })),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let age = std::fs::metadata(&dir)
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| SystemTime::now().duration_since(t).ok());
                if age.is_some_and(|a| a > STALE) {
                    let _ = std::fs::remove_dir(&dir);
                }
                Ok(None)
            }
            Err(source) => Err(LockError::Io {
                path: path.display().to_string(),
                source,
            }),
        }
    }

    /// Takes the lock, waiting up to `wait` (without blocking a thread) for another holder.
    pub async fn acquire(path: &Path, wait: Duration) -> Result<FileLock, LockError> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(lock) = Self::try_acquire(path)? {
                return Ok(lock);
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(busy(path));
            }
            tokio::time::sleep(RETRY).await;
        }
    }

    /// Takes the lock, blocking the thread up to `wait` for another holder (short changes
    /// made outside async code).
    pub fn acquire_blocking(path: &Path, wait: Duration) -> Result<FileLock, LockError> {
        let deadline = std::time::Instant::now() + wait;
        loop {
            if let Some(lock) = Self::try_acquire(path)? {
                return Ok(lock);
            }
            if std::time::Instant::now() >= deadline {
                return Err(busy(path));
            }
            std::thread::sleep(RETRY);
        }
    }
}

fn busy(path: &Path) -> LockError {
    LockError::Busy {
        path: path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_held_lock_makes_others_wait_and_a_stale_one_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("auth.json");
        let held = FileLock::acquire(&file, WAIT).await.unwrap();
        assert!(FileLock::try_acquire(&file).unwrap().is_none());
        let err = FileLock::acquire(&file, Duration::from_millis(60))
            .await
            .unwrap_err();
        assert!(err.to_string().contains("auth.json.lock"), "{err}");
        drop(held);
        assert!(!dir.path().join("auth.json.lock").exists());
        assert!(FileLock::try_acquire(&file).unwrap().is_some());
        // A lock directory left by a killed process, older than the stale age.
        let lock_dir = dir.path().join("auth.json.lock");
        std::fs::create_dir(&lock_dir).unwrap();
        let old = SystemTime::now() - Duration::from_secs(60);
        std::fs::File::open(&lock_dir)
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert!(
            FileLock::try_acquire(&file).unwrap().is_none(),
            "removed first"
        );
        assert!(FileLock::try_acquire(&file).unwrap().is_some());
    }
}
