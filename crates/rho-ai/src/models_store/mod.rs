//! `<agentDir>/models-store.json`: provider catalogs refreshed from the network, in pi 1.6's
//! shape, so a refresh survives restarts and works offline.
//!
//! The file is an object keyed by provider id; each entry holds the provider's models as the
//! catalog served them (pi's model JSON, chat, image and classifier models alike), when they
//! were checked (`checkedAt`, Unix ms) and, for pi.dev catalogs, the response's
//! `Last-Modified` (`lastModified`, ms) and `etag`. Writes happen under pi's lock
//! (`models-store.json.lock`, as proper-lockfile makes it) and replace the file atomically;
//! reads need no lock. A file that is not valid JSON is reported, read as empty, and rebuilt by
//! the next write. How an entry changes a provider's models is [`overlay`]; filling the file
//! is [`refresh`].

pub mod openrouter;
pub mod overlay;
pub mod refresh;

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::file_lock::{FileLock, LockError, WAIT};

/// The file name in the agent dir.
pub const FILE_NAME: &str = "models-store.json";

/// Where store problems are reported (rho's diagnostics; a test's collector).
pub type Warn = Arc<dyn Fn(String) + Send + Sync>;

/// One provider's stored catalog.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreEntry {
    /// The models as the catalog served them (pi's model JSON).
    #[serde(default)]
    pub models: Vec<Value>,
    /// When the catalog was last checked, Unix ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked_at: Option<i64>,
    /// The catalog's `Last-Modified`, Unix ms (0: unknown, or no catalog for the provider).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<i64>,
    /// The catalog's `ETag`, to revalidate it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    /// Fields a newer pi writes, kept on rewrite.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Why the store could not be written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The lock was not taken.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// Reading or replacing the file failed.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

/// The file as read: its text and where each provider's entry stands in it. An entry is
/// parsed only when its provider is asked for, so start-up looking up one model does not parse
/// every stored catalog.
#[derive(Debug, Default)]
struct Snapshot {
    text: String,
    entries: BTreeMap<String, Range<usize>>,
}

impl Snapshot {
    fn entry(&self, provider: &str) -> Option<&str> {
        self.text.get(self.entries.get(provider)?.clone())
    }
}

/// models-store.json of one agent dir.
pub struct ModelsStore {
    path: PathBuf,
    warn: Warn,
    snapshot: Mutex<Option<Arc<Snapshot>>>,
}

impl std::fmt::Debug for ModelsStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelsStore")
            .field("path", &self.path)
            .finish()
    }
}

impl ModelsStore {
    /// The store in `agent_dir`; problems with the file go to `warn`.
    pub fn new(agent_dir: &Path, warn: Warn) -> Self {
        Self {
            path: agent_dir.join(FILE_NAME),
            warn,
            snapshot: Mutex::new(None),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `provider`'s entry, if the file has a readable one (the file is read on first use).
    pub fn entry(&self, provider: &str) -> Option<StoreEntry> {
        if !self.has_entry(provider) {
            return None;
        }
        serde_json::from_str(self.snapshot().entry(provider)?).ok()
    }

    /// `provider`'s stored chat models as the model list reads them (no JSON tree is built).
    pub fn catalog(&self, provider: &str) -> Option<overlay::StoredCatalog> {
        if !self.has_entry(provider) {
            return None;
        }
        overlay::StoredCatalog::parse(provider, self.snapshot().entry(provider)?)
    }

    /// Whether the file has an entry for `provider`. Before the file is parsed, a file that
    /// does not even name the provider answers without parsing.
    pub fn has_entry(&self, provider: &str) -> bool {
        let read = self.slot().clone();
        if let Some(snapshot) = read {
            return snapshot.entries.contains_key(provider);
        }
        match std::fs::read_to_string(&self.path) {
            Ok(text) if !names_key(&text, provider) => false,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            _ => self.snapshot().entries.contains_key(provider),
        }
    }

    /// Forgets what was read, so the next lookup reads the file again.
    pub fn invalidate(&self) {
        *self.slot() = None;
    }

    /// Replaces `provider`'s entry (`None` removes it) under the lock, keeping every other
    /// entry as it is. A file that is not valid JSON is reported and rebuilt.
    pub async fn write(
        &self,
        provider: &str,
        entry: Option<&StoreEntry>,
    ) -> Result<(), StoreError> {
        let _lock = FileLock::acquire(&self.path, WAIT).await?;
        let mut current = match std::fs::read_to_string(&self.path) {
            Ok(text) => match parse_object(&text) {
                Ok(map) => map,
                Err(e) => {
                    (self.warn)(self.corrupt_message(&e, "rebuilding it"));
                    Map::new()
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Map::new(),
            Err(source) => return Err(self.io(source)),
        };
        match entry {
            Some(entry) => {
                let value = serde_json::to_value(entry).unwrap_or(Value::Null);
                current.insert(provider.to_string(), value);
            }
            None => {
                current.shift_remove(provider);
            }
        }
        let text = serde_json::to_string_pretty(&current).unwrap_or_else(|_| "{}".into());
        let temp = self.path.with_extension("json.tmp");
        std::fs::write(&temp, text)
            .and_then(|()| std::fs::rename(&temp, &self.path))
            .map_err(|source| self.io(source))?;
        self.invalidate();
        Ok(())
    }

    fn io(&self, source: std::io::Error) -> StoreError {
        StoreError::Io {
            path: self.path.display().to_string(),
            source,
        }
    }

    fn corrupt_message(&self, error: &dyn std::fmt::Display, action: &str) -> String {
        format!(
            "{} is not a valid model store ({error}); {action}",
            self.path.display()
        )
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, Option<Arc<Snapshot>>> {
        self.snapshot.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn snapshot(&self) -> Arc<Snapshot> {
        let mut slot = self.slot();
        if let Some(snapshot) = &*slot {
            return snapshot.clone();
        }
        let snapshot = Arc::new(self.read());
        *slot = Some(snapshot.clone());
        snapshot
    }

    /// Reads the file without the lock; a file that does not parse is read again under the
    /// lock (a pi writing in place may have been caught half-way) before it counts as broken.
    fn read(&self) -> Snapshot {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Snapshot::default(),
            Err(e) => {
                (self.warn)(format!("cannot read {}: {e}", self.path.display()));
                return Snapshot::default();
            }
        };
        let first = match index(text) {
            Ok(snapshot) => return snapshot,
            Err(e) => e,
        };
        let settled = FileLock::acquire_blocking(&self.path, std::time::Duration::from_secs(2))
            .ok()
            .and_then(|_lock| std::fs::read_to_string(&self.path).ok());
        let error = match settled.map(index) {
            Some(Ok(snapshot)) => return snapshot,
            Some(Err(e)) => e,
            None => first,
        };
        let action = "reading it as empty (`rho update --models` rebuilds it)";
        (self.warn)(self.corrupt_message(&error, action));
        Snapshot::default()
    }
}

/// Whether `key` stands in `text` as an object key (`"key"` then `:`) anywhere: when it does
/// not, the file has no entry for it, whatever else it holds.
fn names_key(text: &str, key: &str) -> bool {
    let quoted = format!("\"{key}\"");
    text.match_indices(&quoted)
        .any(|(at, _)| text[at + quoted.len()..].trim_start().starts_with(':'))
}

/// The file's entries located (each one's JSON left unparsed).
fn index(text: String) -> Result<Snapshot, serde_json::Error> {
    if text.trim().is_empty() {
        return Ok(Snapshot::default());
    }
    let entries = {
        let raw: BTreeMap<String, &RawValue> = serde_json::from_str(&text)?;
        let start = text.as_ptr() as usize;
        raw.into_iter()
            .map(|(provider, value)| {
                let at = value.get().as_ptr() as usize - start;
                (provider, at..at + value.get().len())
            })
            .collect()
    };
    Ok(Snapshot { text, entries })
}

fn parse_object(text: &str) -> Result<Map<String, Value>, String> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err("not a JSON object".into()),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
