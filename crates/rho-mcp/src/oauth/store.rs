//! `<agent dir>/mcp-auth.json`, where pi 1.6 keeps MCP servers' OAuth state, in pi's shape: one
//! object per server keyed `mcp__<name>|<url>` (a key by URL alone, from older pi versions, is
//! taken over), holding `serverUrl`, `clientInformation` (`client_id`, `redirect_uris`, ...),
//! `tokens` (the token response: `access_token`, `token_type`, `expires_in`, `refresh_token`,
//! `scope`) and `tokensExpireAt` (Unix ms). Keys rho does not use (`discovery`, `codeVerifier`,
//! ...) stay as written. Changes happen under pi's lock on the file; a refresh holds pi's
//! per-server refresh lock, so rho and pi never refresh one grant twice.
//!
//! [`ServerCredentials`] is one server's view of it as rmcp's credential store.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rho_ai::file_lock::{FileLock, WAIT};
use rmcp::transport::auth::{
    AuthError, CredentialRefreshGuard, CredentialStore, OAuthTokenResponse, StoredCredentials,
};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use crate::naming::namespace;

/// How long a refresh waits for another process's refresh (longer than a stale lock lives).
const REFRESH_WAIT: std::time::Duration = std::time::Duration::from_secs(35);

/// The file of every server's state.
#[derive(Debug, Clone)]
pub struct McpAuthStore {
    path: PathBuf,
    dir: PathBuf,
}

/// Why the file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Not JSON.
    #[error("{path} is not valid JSON ({source}); fix or delete it, then sign in again")]
    Parse {
        /// The file.
        path: String,
        /// Why.
        source: serde_json::Error,
    },
    /// An I/O failure.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The lock could not be taken.
    #[error(transparent)]
    Lock(#[from] rho_ai::file_lock::LockError),
}

/// The key of a server's state and the legacy key (its URL alone).
fn keys(name: &str, url: &str) -> (String, String) {
    let normalized = reqwest::Url::parse(url).map_or_else(|_| url.to_string(), String::from);
    (format!("{}|{normalized}", namespace(name)), normalized)
}

impl McpAuthStore {
    /// The store of `agent_dir`.
    pub fn new(agent_dir: &Path) -> Self {
        Self {
            path: agent_dir.join("mcp-auth.json"),
            dir: agent_dir.to_path_buf(),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn io(&self, source: std::io::Error) -> StoreError {
        StoreError::Io {
            path: self.path.display().to_string(),
            source,
        }
    }

    fn read_all(&self) -> Result<Map<String, Value>, StoreError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Map::new()),
            Err(e) => return Err(self.io(e)),
        };
        if text.trim().is_empty() {
            return Ok(Map::new());
        }
        match serde_json::from_str(text.trim_start_matches('\u{feff}')) {
            Ok(Value::Object(m)) => Ok(m),
            Ok(_) => Ok(Map::new()),
            Err(source) => Err(StoreError::Parse {
                path: self.path.display().to_string(),
                source,
            }),
        }
    }

    fn write_all(&self, states: &Map<String, Value>) -> Result<(), StoreError> {
        use std::io::Write;
        std::fs::create_dir_all(&self.dir).map_err(|e| self.io(e))?;
        let tmp = self
            .path
            .with_extension(format!("json.{}.tmp", std::process::id()));
        let text = format!(
            "{}\n",
            serde_json::to_string_pretty(states).unwrap_or_default()
        );
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let written = options
            .open(&tmp)
            .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|()| f.sync_all()))
            .and_then(|()| std::fs::rename(&tmp, &self.path));
        written.map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            self.io(e)
        })
    }

    /// Reads, changes and writes the states under the file's lock.
    fn update<T>(
        &self,
        change: impl FnOnce(&mut Map<String, Value>) -> (bool, T),
    ) -> Result<T, StoreError> {
        let _lock = FileLock::acquire_blocking(&self.path, WAIT)?;
        let mut states = self.read_all()?;
        let (changed, out) = change(&mut states);
        if changed {
            self.write_all(&states)?;
        }
        Ok(out)
    }

    /// A server's state (taking over one stored under its URL alone).
    pub fn load(&self, name: &str, url: &str) -> Result<Option<Map<String, Value>>, StoreError> {
        let (key, legacy) = keys(name, url);
        self.update(|states| {
            if let Some(Value::Object(state)) = states.get(&key) {
                return (false, Some(state.clone()));
            }
            match states.remove(&legacy) {
                Some(Value::Object(state)) => {
                    states.insert(key, Value::Object(state.clone()));
                    (true, Some(state))
                }
                Some(other) => {
                    states.insert(legacy, other);
                    (false, None)
                }
                None => (false, None),
            }
        })
    }

    /// Changes a server's state (creating it with its `serverUrl`).
    pub fn modify(
        &self,
        name: &str,
        url: &str,
        change: impl FnOnce(&mut Map<String, Value>),
    ) -> Result<(), StoreError> {
        let (key, legacy) = keys(name, url);
        self.update(|states| {
            let mut state = match states.remove(&key).or_else(|| states.remove(&legacy)) {
                Some(Value::Object(s)) => s,
                _ => Map::new(),
            };
            state.insert("serverUrl".into(), json!(legacy));
            change(&mut state);
            states.insert(key, Value::Object(state));
            (true, ())
        })
    }

    /// Deletes a server's state; true when there was one.
    pub fn remove(&self, name: &str, url: &str) -> Result<bool, StoreError> {
        let (key, legacy) = keys(name, url);
        self.update(|states| {
            let removed = states.remove(&key).is_some() || states.remove(&legacy).is_some();
            (removed, removed)
        })
    }

    /// Whether access tokens are stored for the server.
    pub fn has_tokens(&self, name: &str, url: &str) -> bool {
        self.load(name, url)
            .ok()
            .flatten()
            .is_some_and(|s| s.get("tokens").is_some_and(Value::is_object))
    }

    /// pi's refresh lock of one server: `mcp-auth-refresh-<hash>`.
    fn refresh_lock_path(&self, name: &str, url: &str) -> PathBuf {
        let (key, _) = keys(name, url);
        let hash = Sha256::digest(key.as_bytes());
        let hex: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
        self.dir.join(format!("mcp-auth-refresh-{hex}"))
    }
}

/// One server's credentials, as rmcp's authorization manager loads and saves them.
pub struct ServerCredentials {
    store: McpAuthStore,
    name: String,
    url: String,
    /// A client from mcp.json (`oauth.clientId`): never stored, as pi does.
    configured_client: Option<String>,
    /// The redirect URI of the sign-in under way, stored with a newly registered client.
    redirect_uri: Mutex<Option<String>>,
}

impl ServerCredentials {
    /// The credentials of server `name` at `url`.
    pub fn new(
        store: McpAuthStore,
        name: &str,
        url: &str,
        configured_client: Option<String>,
    ) -> Self {
        Self {
            store,
            name: name.to_string(),
            url: url.to_string(),
            configured_client,
            redirect_uri: Mutex::new(None),
        }
    }

    /// Remembers the redirect URI a sign-in registers its client with.
    pub fn set_redirect_uri(&self, uri: &str) {
        *self.redirect_uri.lock().unwrap_or_else(|p| p.into_inner()) = Some(uri.to_string());
    }

    fn failed(e: StoreError) -> AuthError {
        AuthError::CredentialStoreError(e.to_string())
    }
}

/// What a stored state holds for rmcp.
struct Parts {
    client: Option<String>,
    tokens: OAuthTokenResponse,
    scopes: Vec<String>,
    received: Option<u64>,
}

/// The client id, tokens, granted scopes and receipt time of a stored state.
fn stored_parts(state: &Map<String, Value>) -> Option<Parts> {
    let tokens = state.get("tokens")?;
    let response: OAuthTokenResponse = serde_json::from_value(tokens.clone()).ok()?;
    let client = state
        .get("clientInformation")
        .and_then(|c| c.get("client_id"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let received = match (
        state.get("tokensExpireAt").and_then(Value::as_i64),
        tokens.get("expires_in").and_then(Value::as_f64),
    ) {
        (Some(at), Some(lifetime)) => Some(((at / 1000) as f64 - lifetime).max(0.0) as u64),
        _ => None,
    };
    let scopes = tokens
        .get("scope")
        .and_then(Value::as_str)
        .map(|s| s.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    Some(Parts {
        client,
        tokens: response,
        scopes,
        received,
    })
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[async_trait::async_trait]
impl CredentialStore for ServerCredentials {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let Some(state) = self
            .store
            .load(&self.name, &self.url)
            .map_err(Self::failed)?
        else {
            return Ok(None);
        };
        let Some(parts) = stored_parts(&state) else {
            return Ok(None);
        };
        let Some(client_id) = self.configured_client.clone().or(parts.client) else {
            return Ok(None);
        };
        Ok(Some(StoredCredentials::new(
            client_id,
            Some(parts.tokens),
            parts.scopes,
            parts.received,
        )))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let redirect = self
            .redirect_uri
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let configured = self.configured_client.is_some();
        self.store
            .modify(&self.name, &self.url, |state| {
                let same_client = state
                    .get("clientInformation")
                    .and_then(|c| c.get("client_id"))
                    .and_then(Value::as_str)
                    == Some(credentials.client_id.as_str());
                if !configured && !same_client {
                    let uris: Vec<String> = redirect.into_iter().collect();
                    state.insert(
                        "clientInformation".into(),
                        json!({"client_id": credentials.client_id, "redirect_uris": uris}),
                    );
                }
                match &credentials.token_response {
                    Some(tokens) => {
                        let value = serde_json::to_value(tokens).unwrap_or(Value::Null);
                        let lifetime = value.get("expires_in").and_then(Value::as_u64);
                        let received = credentials.token_received_at.unwrap_or_else(now_secs);
                        match lifetime {
                            Some(l) => {
                                state.insert("tokensExpireAt".into(), json!((received + l) * 1000));
                            }
                            None => {
                                state.remove("tokensExpireAt");
                            }
                        }
                        state.insert("tokens".into(), value);
                    }
                    None => {
                        state.remove("tokens");
                        state.remove("tokensExpireAt");
                    }
                }
            })
            .map_err(Self::failed)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.store
            .remove(&self.name, &self.url)
            .map(|_| ())
            .map_err(Self::failed)
    }

    async fn acquire_refresh_guard(&self) -> Result<Option<CredentialRefreshGuard>, AuthError> {
        let path = self.store.refresh_lock_path(&self.name, &self.url);
        let lock = FileLock::acquire(&path, REFRESH_WAIT)
            .await
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))?;
        Ok(Some(CredentialRefreshGuard::new(lock)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn pi_s_state_round_trips_and_unknown_keys_stay() {
        let dir = tempfile::tempdir().unwrap();
        let url = "http://127.0.0.1:9/mcp";
        // What pi 1.6 writes, stored by an older pi under the URL alone.
        std::fs::write(
            dir.path().join("mcp-auth.json"),
            json!({url: {
                "serverUrl": url,
                "clientInformation": {"client_id": "client-7", "redirect_uris": ["http://127.0.0.1:5/callback"]},
                "tokens": {"access_token": "at-1", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt-1", "scope": "mcp:tools"},
                "tokensExpireAt": 2_000_000_000_000i64,
                "discovery": {"authorizationServerUrl": "http://127.0.0.1:9"}
            }})
            .to_string(),
        )
        .unwrap();
        let store = McpAuthStore::new(dir.path());
        let creds = ServerCredentials::new(store.clone(), "docs-server", url, None);
        let loaded = creds.load().await.unwrap().unwrap();
        assert_eq!(loaded.client_id, "client-7");
        assert_eq!(loaded.granted_scopes, vec!["mcp:tools"]);
        assert_eq!(loaded.token_received_at, Some(2_000_000_000 - 3600));
        let tokens = loaded.token_response.clone().unwrap();
        let mut saved = serde_json::to_value(&tokens).unwrap();
        saved["access_token"] = json!("at-2");
        let fresh: OAuthTokenResponse = serde_json::from_value(saved).unwrap();
        creds
            .save(StoredCredentials::new(
                "client-7".into(),
                Some(fresh),
                vec![],
                Some(1_000),
            ))
            .await
            .unwrap();
        let file: Value =
            serde_json::from_str(&std::fs::read_to_string(store.path()).unwrap()).unwrap();
        let state = &file["mcp__docs_server|http://127.0.0.1:9/mcp"];
        assert!(file.get(url).is_none(), "the legacy key was taken over");
        assert_eq!(state["tokens"]["access_token"], "at-2");
        assert_eq!(state["tokensExpireAt"], (1_000 + 3600) * 1000);
        assert_eq!(
            state["clientInformation"]["redirect_uris"][0],
            "http://127.0.0.1:5/callback"
        );
        assert_eq!(
            state["discovery"]["authorizationServerUrl"],
            "http://127.0.0.1:9"
        );
        assert!(store.has_tokens("docs-server", url));
        creds.clear().await.unwrap();
        assert!(!store.has_tokens("docs-server", url));
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
    async fn a_refresh_holds_pi_s_per_server_lock() {
        let dir = tempfile::tempdir().unwrap();
        let store = McpAuthStore::new(dir.path());
        let creds = ServerCredentials::new(store.clone(), "s", "http://h/mcp", None);
        let guard = creds.acquire_refresh_guard().await.unwrap();
        let lock = store.refresh_lock_path("s", "http://h/mcp");
        assert!(FileLock::try_acquire(&lock).unwrap().is_none());
        drop(guard);
        assert!(FileLock::try_acquire(&lock).unwrap().is_some());
    }
}
