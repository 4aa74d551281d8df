//! The binary's credential store: `--api-key` (for the CLI-selected provider), auth.json,
//! the environment and models.json, in the spec's order (interfaces spec §6.3). OAuth tokens
//! (subscription logins) are refreshed before a request when less than five minutes are left
//! (pi 1.6's window) and once when the provider rejects one (401), under auth.json's lock,
//! and the new token is written back in pi's shape.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use futures_util::future::BoxFuture;
use rho_ai::auth::{
    has_configured_auth, resolve_api_key, AuthFile, AuthSources, CommandCache, Credential,
    OAuthCredential, ResolvedAuth,
};
use rho_ai::config_value::{run_shell, ShellError, ShellRunner};
use rho_ai::models_json::ProviderConfig;
use rho_ai::oauth::{OAuthProvider, OAuthProviders};
use rho_ai::registry::ModelRegistry;
use rho_core::agent_session::{AuthStatus, CredentialError, CredentialStore};

use rho_core::auth_store::AuthStore;

/// A token with less time than this left is refreshed before a request (pi 1.6).
const REFRESH_WINDOW_MS: i64 = 5 * 60 * 1000;

/// Keys from every source the CLI knows.
pub struct CliCredentials {
    /// `(provider, key)` from `--api-key`.
    pub explicit: Option<(String, String)>,
    /// auth.json, read again when the file changes (so /login works at once).
    auth: Mutex<AuthCache>,
    /// Every model and the models.json providers.
    pub models: ModelRegistry,
    cache: CommandCache,
    /// auth.json for refreshed tokens.
    store: AuthStore,
    /// The sign-ins tokens are refreshed and turned into keys through: rho's own and those
    /// extensions registered.
    oauth: Mutex<OAuthProviders>,
}

/// The parsed auth.json and the modification time it was read at.
struct AuthCache {
    path: PathBuf,
    stamp: Option<SystemTime>,
    file: Option<Arc<AuthFile>>,
}

impl AuthCache {
    /// Reads the file (a broken file counts as empty, with a warning).
    fn read(path: PathBuf, warnings: &mut Vec<String>) -> Self {
        let stamp = modified(&path);
        let file = match std::fs::read_to_string(&path) {
            Ok(text) => match AuthFile::parse(&text) {
                Ok(f) => {
                    warn_malformed_entries(&path, &f, warnings);
                    Some(Arc::new(f))
                }
                Err(e) => {
                    warnings.push(format!("{}: {e}", path.display()));
                    None
                }
            },
            Err(_) => None,
        };
        Self { path, stamp, file }
    }

    /// The file as it is now: one `stat` when unchanged.
    fn current(&mut self) -> Option<Arc<AuthFile>> {
        if modified(&self.path) != self.stamp {
            let mut ignored = Vec::new();
            *self = Self::read(std::mem::take(&mut self.path), &mut ignored);
        }
        self.file.clone()
    }
}

/// One warning per entry that cannot be used, naming the file and the entry: resolution
/// skips such an entry, so a key from the environment or models.json still works.
fn warn_malformed_entries(path: &Path, file: &AuthFile, warnings: &mut Vec<String>) {
    for provider in file.providers() {
        if let Err(e) = file.credential(provider) {
            warnings.push(format!(
                "{}: entry \"{provider}\" is ignored: {}; fix or remove it (or /login again)",
                path.display(),
                e.message
            ));
        }
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

impl CliCredentials {
    /// Reads `<agent_dir>/auth.json` (a broken file counts as empty, with a warning).
    pub fn load(
        agent_dir: &Path,
        explicit: Option<(String, String)>,
        models: ModelRegistry,
        warnings: &mut Vec<String>,
    ) -> Self {
        let store = AuthStore::new(agent_dir);
        let auth = AuthCache::read(store.path().to_path_buf(), warnings);
        Self {
            explicit,
            auth: Mutex::new(auth),
            models,
            cache: CommandCache::default(),
            store,
            oauth: Mutex::new(OAuthProviders::builtin()),
        }
    }

    /// Adds an extension's sign-in (pi's `registerProvider(name, { oauth })`).
    pub fn add_oauth(&self, provider: Arc<dyn OAuthProvider>) {
        self.sign_ins().add(provider);
    }

    /// Removes the sign-in an extension's provider `name` added (pi's `unregisterProvider`):
    /// a built-in sign-in it had replaced is /login's again.
    pub fn remove_oauth(&self, name: &str) {
        let mut sign_ins = self.sign_ins();
        let mut kept = OAuthProviders::builtin();
        for provider in sign_ins.iter().filter(|p| p.id() != name) {
            kept.add(provider.clone());
        }
        *sign_ins = kept;
    }

    fn sign_ins(&self) -> MutexGuard<'_, OAuthProviders> {
        self.oauth.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The sign-in of `provider`, if it has one.
    fn sign_in(&self, provider: &str) -> Option<Arc<dyn OAuthProvider>> {
        self.sign_ins().get(provider).cloned()
    }

    /// The stored OAuth credential of a provider with a sign-in, unless `--api-key` wins.
    fn refreshable(&self, provider: &str) -> Option<OAuthCredential> {
        if self.explicit.as_ref().is_some_and(|(p, _)| p == provider)
            || self.sign_in(provider).is_none()
        {
            return None;
        }
        match self.auth().current()?.credential(provider).ok()?? {
            Credential::OAuth(c) => Some(c),
            Credential::ApiKey { .. } => None,
        }
    }

    /// Refreshes `provider`'s token under the lock when `due` still says so once the file is
    /// read again (another rho or pi may have refreshed it meanwhile), and stores the result.
    /// The credential to use; `None` when it was removed meanwhile.
    async fn refresh(
        &self,
        provider: &str,
        due: impl Fn(&OAuthCredential) -> bool,
    ) -> Result<Option<OAuthCredential>, CredentialError> {
        let store_error =
            |e: rho_core::auth_store::AuthStoreError| CredentialError::Other(e.to_string());
        let Some(sign_in) = self.sign_in(provider) else {
            return Ok(None);
        };
        let lock = self.store.lock().await.map_err(store_error)?;
        let mut file = self.store.read().map_err(store_error)?;
        let Ok(Some(Credential::OAuth(current))) = file.credential(provider) else {
            return Ok(None);
        };
        if !due(&current) {
            return Ok(Some(current));
        }
        let fresh = sign_in
            .refresh(&current)
            .await
            .map_err(|e| oauth_failure(provider, e))?;
        file.set(provider, &Credential::OAuth(fresh.clone()));
        self.store.write(&file, &lock).map_err(store_error)?;
        Ok(Some(fresh))
    }

    /// The key a request sends with `credential` (an extension's `getApiKey`; the access
    /// token for rho's own sign-ins).
    async fn key_of(
        &self,
        provider: &str,
        credential: &OAuthCredential,
    ) -> Result<String, CredentialError> {
        match self.sign_in(provider) {
            Some(sign_in) => sign_in
                .api_key(credential)
                .await
                .map_err(|e| oauth_failure(provider, e)),
            None => Ok(credential.access.clone()),
        }
    }

    /// [`CliCredentials::key_of`] a credential that may be absent.
    async fn key_of_some(
        &self,
        provider: &str,
        credential: Option<OAuthCredential>,
    ) -> Result<Option<String>, CredentialError> {
        match credential {
            Some(c) => self.key_of(provider, &c).await.map(Some),
            None => Ok(None),
        }
    }

    /// The auth.json entry of `provider`, if a usable one is stored.
    pub fn stored(&self, provider: &str) -> Option<Credential> {
        self.auth().current()?.credential(provider).ok()?
    }

    /// `provider`'s OAuth access token with at least `min_validity_ms` left, refreshed (and
    /// stored) first when it has less; `Ok(None)` when no OAuth login is stored.
    pub async fn oauth_token(
        &self,
        provider: &str,
        min_validity_ms: i64,
    ) -> Result<Option<String>, CredentialError> {
        let due = |c: &OAuthCredential| rho_ai::now_ms() + min_validity_ms >= c.expires;
        match self.refreshable(provider) {
            Some(c) if due(&c) => Ok(self.refresh(provider, due).await?.map(|c| c.access)),
            Some(c) => Ok(Some(c.access)),
            None => Ok(None),
        }
    }

    fn auth(&self) -> MutexGuard<'_, AuthCache> {
        self.auth.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `f` of where `provider`'s key may come from, commands run by `run`.
    fn with_sources<T>(
        &self,
        provider: &str,
        run: &ShellRunner<'_>,
        f: impl FnOnce(&AuthSources<'_>) -> T,
    ) -> T {
        let file = self.auth().current();
        let config = self.models.provider(provider);
        let s = self.sources(file.as_deref(), config.as_ref(), provider, run);
        f(&s)
    }

    fn sources<'a>(
        &'a self,
        auth_file: Option<&'a AuthFile>,
        models_json: Option<&'a ProviderConfig>,
        provider: &str,
        run: &'a ShellRunner<'a>,
    ) -> AuthSources<'a> {
        AuthSources {
            explicit: self
                .explicit
                .as_ref()
                .filter(|(p, _)| p == provider)
                .map(|(_, k)| k.as_str()),
            auth_file,
            command_cache: Some(&self.cache),
            models_json,
            env: &env,
            run,
            file_exists: &exists,
            now_ms: rho_ai::now_ms(),
        }
    }
}

/// A failed refresh or key: pi's text, then what the sign-in said.
fn oauth_failure(provider: &str, e: rho_ai::oauth::OAuthError) -> CredentialError {
    CredentialError::OAuthRefresh {
        provider: provider.to_string(),
        cause: e.to_string(),
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

fn exists(path: &str) -> bool {
    Path::new(path).exists()
}

impl CredentialStore for CliCredentials {
    fn status(&self, provider: &str) -> AuthStatus {
        // A provider of only virtual models needs no credentials (pi marks it configured).
        if self.models.is_virtual_only(provider) {
            return AuthStatus::Configured;
        }
        let no_run = |_: &str| Err(ShellError::NotRun("not run during the auth check"));
        self.with_sources(provider, &no_run, |s| {
            if has_configured_auth(provider, s) {
                return AuthStatus::Configured;
            }
            let oauth = s
                .auth_file
                .and_then(|f| f.credential(provider).ok().flatten())
                .is_some_and(|c| matches!(c, Credential::OAuth(_)));
            match oauth {
                true => AuthStatus::OAuthUnavailable,
                false => AuthStatus::Missing,
            }
        })
    }

    fn api_key(&self, provider: &str) -> Result<Option<String>, CredentialError> {
        match self.with_sources(provider, &run_shell, |s| resolve_api_key(provider, s))? {
            ResolvedAuth::Key { key, .. } => Ok(Some(key)),
            ResolvedAuth::OAuthExpired(_) => {
                Err(CredentialError::OAuthFailed(provider.to_string()))
            }
            ResolvedAuth::Missing => Ok(None),
        }
    }

    fn request_key<'a>(
        &'a self,
        provider: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, CredentialError>> {
        Box::pin(async move {
            let due = |c: &OAuthCredential| rho_ai::now_ms() + REFRESH_WINDOW_MS >= c.expires;
            match self.refreshable(provider) {
                Some(c) if due(&c) => {
                    let fresh = self.refresh(provider, due).await?;
                    self.key_of_some(provider, fresh).await
                }
                Some(c) => self.key_of(provider, &c).await.map(Some),
                None => self.api_key(provider),
            }
        })
    }

    fn rejected<'a>(
        &'a self,
        provider: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, CredentialError>> {
        Box::pin(async move {
            let Some(current) = self.refreshable(provider) else {
                return Ok(None);
            };
            // The key may be derived from the token (an extension's getApiKey): the token
            // behind the rejected key is the one to replace.
            let stale = match self.key_of(provider, &current).await {
                Ok(k) if k == key => current.access,
                _ => key.to_string(),
            };
            // A token another process already replaced is simply used; the rejected one is
            // refreshed once.
            let fresh = self.refresh(provider, |c| c.access == stale).await?;
            self.key_of_some(provider, fresh).await
        })
    }

    fn oauth(&self) -> OAuthProviders {
        self.sign_ins().clone()
    }

    fn save_oauth(
        &self,
        provider: &str,
        credential: OAuthCredential,
    ) -> Result<(), CredentialError> {
        self.store
            .update(|file| {
                file.set(provider, &Credential::OAuth(credential));
                (true, ())
            })
            .map_err(|e| CredentialError::Other(e.to_string()))
    }

    fn key_env_names(&self) -> Vec<String> {
        let file = self.auth().current();
        rho_ai::env_refs::referenced_env_names(&self.models.providers(), file.as_deref())
    }
}

/// Creates `<agent_dir>/auth.json` as `{}` when missing (interfaces spec §6.3): the directory
/// with mode 0700, the file with 0600, so keys written later are never world-readable.
/// An existing file is left as it is.
pub fn ensure_auth_file(agent_dir: &Path) -> std::io::Result<()> {
    let path = agent_dir.join("auth.json");
    if path.exists() {
        return Ok(());
    }
    let mut dirs = std::fs::DirBuilder::new();
    dirs.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut dirs, 0o700);
    dirs.create(agent_dir)?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(&path) {
        Ok(mut file) => std::io::Write::write_all(&mut file, b"{}"),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}
