//! Where the session gets API keys. The binary supplies a store over `--api-key`,
//! auth.json, the environment and models.json; the default reads the environment only.

use futures_util::future::BoxFuture;
use std::sync::Arc;

use rho_ai::api_key::env_api_key;
use rho_process::KeyScrub;

/// The state of a provider's credentials, checked before a prompt is sent (AUTH-3..5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthStatus {
    /// Something is configured (no command is run, no token refreshed).
    Configured,
    /// Only an OAuth credential exists and it cannot be used (expired, refresh failed).
    OAuthUnavailable,
    /// Nothing is configured.
    Missing,
}

/// Why a store has no key to give; the text is shown as the refusal or the turn's error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CredentialError {
    /// A configured key could not be resolved (a models.json `!command` failed).
    #[error(transparent)]
    Resolve(#[from] rho_ai::auth::AuthError),
    /// Only an expired OAuth credential exists for this provider (pi's text).
    #[error("{}", rho_ai::auth::oauth_failed_message(.0))]
    OAuthFailed(String),
    /// The provider's OAuth token could not be refreshed; pi's text, then why.
    #[error("{} ({cause})", rho_ai::auth::oauth_failed_message(.provider))]
    OAuthRefresh {
        /// The provider.
        provider: String,
        /// What the refresh answered.
        cause: String,
    },
    /// A sign-in's credential cannot be kept: the store has no file.
    #[error("this session keeps no credentials; sign in with `rho login <provider>` instead")]
    NoStore,
    /// Another store's reason, as it words it.
    #[error("{0}")]
    Other(String),
    /// No key at all for a request that needs one (pi's "no API key" text, naming the
    /// command and the environment variable that would supply it).
    #[error("{}", rho_ai::auth::no_api_key_message(.0))]
    NoKey(String),
}

/// Resolves credentials for the session.
pub trait CredentialStore: Send + Sync {
    /// Whether `provider` has usable credentials (cheap; no network).
    fn status(&self, provider: &str) -> AuthStatus;
    /// The key for one request (may run a command). `Ok(None)` = none.
    fn api_key(&self, provider: &str) -> Result<Option<String>, CredentialError>;
    /// The key for the request about to be sent: an OAuth token close to its expiry is
    /// refreshed first (network). By default the same as [`CredentialStore::api_key`].
    fn request_key<'a>(
        &'a self,
        provider: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, CredentialError>> {
        Box::pin(std::future::ready(self.api_key(provider)))
    }
    /// The provider answered 401 to `key`: a fresh key to send again with (an OAuth token
    /// refreshed now), or `Ok(None)` when there is none. By default `Ok(None)`.
    fn rejected<'a>(
        &'a self,
        provider: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, CredentialError>> {
        let _ = (provider, key);
        Box::pin(std::future::ready(Ok(None)))
    }
    /// The sign-ins this store refreshes through and /login lists: rho's own by default; the
    /// binary's store adds those extensions registered.
    fn oauth(&self) -> rho_ai::oauth::OAuthProviders {
        rho_ai::oauth::OAuthProviders::builtin()
    }
    /// Keeps the credential a sign-in to `provider` returned (auth.json). By default there is
    /// nowhere to keep it.
    fn save_oauth(
        &self,
        provider: &str,
        credential: rho_ai::auth::OAuthCredential,
    ) -> Result<(), CredentialError> {
        let _ = (provider, credential);
        Err(CredentialError::NoStore)
    }
    /// The environment variables this store's configuration names for keys (models.json,
    /// auth.json, extension providers), beyond the built-in providers' own: tool processes
    /// do not inherit them.
    fn key_env_names(&self) -> Vec<String> {
        Vec::new()
    }
}

/// The key scrubbing for tool processes: the built-in providers' variables and those
/// `credentials` names, unless `pass` (the `passProviderKeysToTools` setting).
pub fn key_scrub(credentials: &Arc<dyn CredentialStore>, pass: bool) -> KeyScrub {
    let credentials = credentials.clone();
    KeyScrub::new(pass, Some(Arc::new(move || credentials.key_env_names())))
}

/// Environment variables only (providers spec §6).
#[derive(Debug, Default, Clone, Copy)]
pub struct EnvCredentials;

impl CredentialStore for EnvCredentials {
    fn status(&self, provider: &str) -> AuthStatus {
        match env_api_key(provider) {
            Some(_) => AuthStatus::Configured,
            None => AuthStatus::Missing,
        }
    }

    fn api_key(&self, provider: &str) -> Result<Option<String>, CredentialError> {
        Ok(env_api_key(provider))
    }
}

/// A fixed key per provider (tests, SDK users with their own key handling).
#[derive(Debug, Default, Clone)]
pub struct StaticCredentials {
    keys: Vec<(String, String)>,
}

impl StaticCredentials {
    /// A store holding `key` for `provider`.
    pub fn new(provider: &str, key: &str) -> Self {
        Self {
            keys: vec![(provider.to_string(), key.to_string())],
        }
    }

    /// Adds another provider's key.
    pub fn with(mut self, provider: &str, key: &str) -> Self {
        self.keys.push((provider.to_string(), key.to_string()));
        self
    }
}

impl CredentialStore for StaticCredentials {
    fn status(&self, provider: &str) -> AuthStatus {
        if self.keys.iter().any(|(p, _)| p == provider) {
            AuthStatus::Configured
        } else {
            AuthStatus::Missing
        }
    }

    fn api_key(&self, provider: &str) -> Result<Option<String>, CredentialError> {
        Ok(self
            .keys
            .iter()
            .find(|(p, _)| p == provider)
            .map(|(_, k)| k.clone()))
    }
}
