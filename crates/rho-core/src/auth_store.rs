//! auth.json on disk: read it, and change it under the lock pi takes (proper-lockfile's
//! `auth.json.lock` directory), so a rho and a pi sharing an agent dir never lose each other's
//! logins or refreshed tokens. Writes go through a temporary file and a rename, owner-only.

use std::path::{Path, PathBuf};

use rho_ai::auth::{AuthFile, AuthFileError};
use rho_ai::file_lock::{FileLock, LockError, WAIT};

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
    Write(#[from] rho_session::StoreError),
    /// Another process held the lock for the whole wait, or it cannot be created.
    #[error(transparent)]
    Lock(#[from] LockError),
}

/// `<agent dir>/auth.json`.
#[derive(Debug, Clone)]
pub struct AuthStore {
    path: PathBuf,
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
    pub fn write(&self, file: &AuthFile, _lock: &FileLock) -> Result<(), AuthStoreError> {
        use rho_session::{writer::write_atomic, Durability};
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
        let lock = FileLock::acquire_blocking(&self.path, WAIT)?;
        let mut file = self.read()?;
        let (changed, out) = change(&mut file);
        if changed {
            self.write(&file, &lock)?;
        }
        Ok(out)
    }

    /// Takes the lock, waiting (without blocking a thread) while another process holds it.
    pub async fn lock(&self) -> Result<FileLock, AuthStoreError> {
        Ok(FileLock::acquire(&self.path, WAIT).await?)
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
}
