//! auth.json on disk: read it, and change it under the lock pi takes (proper-lockfile's
//! `auth.json.lock` directory), so a rho and a pi sharing an agent dir never lose each other's
//! logins or refreshed tokens. Writes go through a temporary file and a rename, owner-only.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use rho_ai::auth::{AuthFile, AuthFileError};

/// A lock older than this is left over by a process that died; pi uses the same age.
const STALE: Duration = Duration::from_secs(30);
/// How long to wait for another holder before giving up.
const WAIT: Duration = Duration::from_secs(30);
/// Between attempts.
const RETRY: Duration = Duration::from_millis(25);

/// Why auth.json could not be read or changed; the text is what the user sees.
#[derive(Debug, thiserror::Error)]
pub enum AuthStoreError {
    /// Not valid.
    #[error("{path}: {source}")]
    Parse {
        /// The file.
        path: String,
        /// What is wrong.
        source: AuthFileError,
    },
    /// Exists but cannot be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// Could not be written.
    #[error(transparent)]
    Write(#[from] rho_core::session::SessionError),
    /// Another process held the lock for the whole wait, or it cannot be created.
    #[error("cannot lock {path} ({reason}); if no other rho or pi is running, delete {path}.lock")]
    Lock {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
}

/// `<agent dir>/auth.json`.
#[derive(Debug, Clone)]
pub struct AuthStore {
    path: PathBuf,
}

/// Held while auth.json is being changed; dropping it releases the lock.
pub struct AuthLock {
    dir: PathBuf,
}

impl Drop for AuthLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

impl AuthStore {
    /// The store of `agent_dir`.
    pub fn new(agent_dir: &Path) -> Self {
        Self {
            path: agent_dir.join("auth.json"),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file as stored (empty when absent).
    pub fn read(&self) -> Result<AuthFile, AuthStoreError> {
        let shown = || self.path.display().to_string();
        match std::fs::read_to_string(&self.path) {
            Ok(text) => AuthFile::parse(text.trim_start_matches('\u{feff}')).map_err(|source| {
                AuthStoreError::Parse {
                    path: shown(),
                    source,
                }
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(AuthFile::default()),
            Err(source) => Err(AuthStoreError::Read {
                path: shown(),
                source,
            }),
        }
    }

    /// Writes `file` (under a lock the caller holds).
    pub fn write(&self, file: &AuthFile, _lock: &AuthLock) -> Result<(), AuthStoreError> {
        use rho_core::session::{writer::write_atomic, Durability};
        write_atomic(
            &self.path,
            file.to_json_string().as_bytes(),
            Durability::Sync,
        )?;
        Ok(())
    }

    /// Reads, lets `change` edit, and writes back when it returns `Ok(true)`, all under the
    /// lock (blocking while another process holds it).
    pub fn update<T>(
        &self,
        change: impl FnOnce(&mut AuthFile) -> (bool, T),
    ) -> Result<T, AuthStoreError> {
        let lock = self.lock_blocking()?;
        let mut file = self.read()?;
        let (changed, out) = change(&mut file);
        if changed {
            self.write(&file, &lock)?;
        }
        Ok(out)
    }

    /// Takes the lock, waiting (without blocking a thread) while another process holds it.
    pub async fn lock(&self) -> Result<AuthLock, AuthStoreError> {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            if let Some(lock) = self.try_lock()? {
                return Ok(lock);
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(self.busy());
            }
            tokio::time::sleep(RETRY).await;
        }
    }

    fn lock_blocking(&self) -> Result<AuthLock, AuthStoreError> {
        let deadline = std::time::Instant::now() + WAIT;
        loop {
            if let Some(lock) = self.try_lock()? {
                return Ok(lock);
            }
            if std::time::Instant::now() >= deadline {
                return Err(self.busy());
            }
            std::thread::sleep(RETRY);
        }
    }

    fn busy(&self) -> AuthStoreError {
        AuthStoreError::Lock {
            path: self.path.display().to_string(),
            reason: "another process holds the lock".into(),
        }
    }

    /// One attempt: the lock, or `None` while a live holder has it. A stale lock is removed.
    fn try_lock(&self) -> Result<Option<AuthLock>, AuthStoreError> {
        let mut name = self.path.file_name().unwrap_or_default().to_os_string();
        name.push(".lock");
        let dir = self.path.with_file_name(name);
        if let Some(parent) = dir.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        match std::fs::create_dir(&dir) {
            Ok(()) => Ok(Some(AuthLock { dir })),
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
            Err(e) => Err(AuthStoreError::Lock {
                path: self.path.display().to_string(),
                reason: e.to_string(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rho_ai::auth::Credential;

    #[test]
    fn updates_keep_other_entries_and_release_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("auth.json"),
            r#"{"openai": {"type": "api_key", "key": "sk-1"}, "custom": {"x": 1}}"#,
        )
        .unwrap();
        let store = AuthStore::new(dir.path());
        store
            .update(|f| {
                f.set("anthropic", &Credential::ApiKey { key: "k".into() });
                (true, ())
            })
            .unwrap();
        let file = store.read().unwrap();
        assert!(
            file.has_entry("openai") && file.has_entry("custom") && file.has_entry("anthropic")
        );
        assert!(!dir.path().join("auth.json.lock").exists());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(store.path())
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[tokio::test]
    async fn a_held_lock_makes_others_wait_and_a_stale_one_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let store = AuthStore::new(dir.path());
        let held = store.lock().await.unwrap();
        assert!(store.try_lock().unwrap().is_none());
        drop(held);
        assert!(store.try_lock().unwrap().is_some());
        // A lock directory left by a killed process, older than the stale age.
        let lock_dir = dir.path().join("auth.json.lock");
        std::fs::create_dir(&lock_dir).unwrap();
        let old = SystemTime::now() - Duration::from_secs(60);
        std::fs::File::open(&lock_dir)
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert!(
            store.try_lock().unwrap().is_none(),
            "the stale lock is removed first"
        );
        assert!(store.try_lock().unwrap().is_some());
    }
}
