//! API-key resolution across every source (interfaces §6.3, providers §6, decisions D7).
//!
//! Order, first hit wins: the explicit key (`--api-key`), the auth.json entry (`api_key`,
//! else `oauth`), the provider's environment variables, the models.json `apiKey`. Parsing
//! auth.json and resolving are pure here; reading and writing the file (mode 0600, lock)
//! belongs to the session crate, which also refreshes expired OAuth tokens: an expired token
//! is reported as [`ResolvedAuth::OAuthExpired`] rather than used.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::{Map, Value};

use crate::api_key::{env_vars_for, primary_env_var};
use crate::config_value::{resolve_value, ShellRunner};
use crate::models_json::{resolve_provider_api_key, ProviderConfig, ResolveError};

/// The OAuth providers pi ships, with their login display names.
pub const OAUTH_PROVIDERS: &[(&str, &str)] = &[
    ("anthropic", "Anthropic (Claude Pro/Max)"),
    ("github-copilot", "GitHub Copilot"),
    ("openai-codex", "ChatGPT Plus/Pro (Codex Subscription)"),
];

/// What `--api-key` without a model prints.
pub const API_KEY_NEEDS_MODEL: &str =
    "--api-key requires a model to be specified via --model, --provider/--model, or --models";

/// The key reported for Vertex/Bedrock when ambient cloud credentials sign the request.
pub const AUTHENTICATED_MARKER: &str = "<authenticated>";

/// A stored OAuth credential: `access` is the API key until `expires` (Unix ms).
#[derive(Debug, Clone, PartialEq)]
pub struct OAuthCredential {
    /// Access token (the API key).
    pub access: String,
    /// Refresh token.
    pub refresh: String,
    /// Expiry, Unix ms.
    pub expires: i64,
    /// Provider extras (`enterpriseUrl`, `accountId`, ...), preserved on write.
    pub extra: Map<String, Value>,
}

impl OAuthCredential {
    /// Refresh is due when `now >= expires`.
    pub fn is_expired(&self, now_ms: i64) -> bool {
        now_ms >= self.expires
    }

    /// pi's auth.json shape: `{"type":"oauth","access","refresh","expires",...extras}` (what
    /// an extension's `refreshToken` and `getApiKey` get, too).
    pub fn to_json(&self) -> Value {
        let mut obj = self.extra.clone();
        obj.insert("type".into(), "oauth".into());
        obj.insert("access".into(), self.access.clone().into());
        obj.insert("refresh".into(), self.refresh.clone().into());
        obj.insert("expires".into(), self.expires.into());
        Value::Object(obj)
    }

    /// Reads pi's shape (`type` may be absent: an extension's `login` returns the fields
    /// only); `provider` names the entry in the error.
    pub fn from_json(provider: &str, value: &Value) -> Result<Self, AuthEntryError> {
        let fail = |message: &str| AuthEntryError::new(provider, message);
        let obj = value
            .as_object()
            .ok_or_else(|| fail("expected an object"))?;
        let text = |key: &str| obj.get(key).and_then(Value::as_str).map(String::from);
        let expires = obj
            .get("expires")
            .and_then(Value::as_f64)
            .ok_or_else(|| fail("\"expires\" must be a number (Unix ms)"))?;
        let extra = obj
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "type" | "access" | "refresh" | "expires"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Ok(Self {
            access: text("access").ok_or_else(|| fail("\"access\" must be a string"))?,
            refresh: text("refresh").ok_or_else(|| fail("\"refresh\" must be a string"))?,
            expires: expires as i64,
            extra,
        })
    }
}

/// One auth.json entry.
#[derive(Debug, Clone, PartialEq)]
pub enum Credential {
    /// `{"type":"api_key","key":...}`; `key` is a template with `$NAME` references or
    /// `!command` (see [`crate::config_value`]).
    ApiKey {
        /// The key as written.
        key: String,
    },
    /// `{"type":"oauth","access","refresh","expires",...}`.
    OAuth(OAuthCredential),
}

impl Credential {
    /// The entry as auth.json holds it (what pi hands an extension as a credential).
    pub fn to_json(&self) -> Value {
        match self {
            Credential::ApiKey { key } => serde_json::json!({"type": "api_key", "key": key}),
            Credential::OAuth(c) => c.to_json(),
        }
    }
}

/// A malformed auth.json entry (other providers' entries still work).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("auth.json: {provider}: {message}")]
pub struct AuthEntryError {
    /// The entry's provider id.
    pub provider: String,
    /// What is wrong, e.g. `"key" must be a string`.
    pub message: String,
}

impl AuthEntryError {
    fn new(provider: &str, message: &str) -> Self {
        Self {
            provider: provider.to_string(),
            message: message.to_string(),
        }
    }
}

/// The contents of auth.json. Entries are parsed on access, so one bad entry does not hide
/// the others, and unknown keys survive a rewrite.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AuthFile {
    entries: Map<String, Value>,
}

/// auth.json is not a JSON object.
#[derive(Debug, thiserror::Error)]
pub enum AuthFileError {
    /// Not JSON at all.
    #[error("auth.json is not valid JSON ({0}); fix or delete it, then log in again")]
    Syntax(#[from] serde_json::Error),
    /// JSON, but not an object keyed by provider.
    #[error("auth.json must be a JSON object keyed by provider id")]
    NotAnObject,
}

impl AuthFile {
    /// Parses auth.json text (empty text counts as `{}`).
    pub fn parse(text: &str) -> Result<Self, AuthFileError> {
        if text.trim().is_empty() {
            return Ok(Self::default());
        }
        Self::from_value(serde_json::from_str(text)?)
    }

    /// Wraps an already parsed value.
    pub fn from_value(value: Value) -> Result<Self, AuthFileError> {
        match value {
            Value::Object(entries) => Ok(Self { entries }),
            _ => Err(AuthFileError::NotAnObject),
        }
    }

    /// Whether any entry exists for `provider` (valid or not).
    pub fn has_entry(&self, provider: &str) -> bool {
        self.entries.contains_key(provider)
    }

    /// The provider ids with entries.
    pub fn providers(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// The entry of `provider` as written.
    pub fn raw_entry(&self, provider: &str) -> Option<&Value> {
        self.entries.get(provider)
    }

    /// The entry of `provider`, parsed.
    pub fn credential(&self, provider: &str) -> Result<Option<Credential>, AuthEntryError> {
        let Some(entry) = self.entries.get(provider) else {
            return Ok(None);
        };
        let fail = |message: &str| AuthEntryError::new(provider, message);
        match entry.get("type").and_then(Value::as_str) {
            Some("api_key") => Ok(Some(Credential::ApiKey {
                key: entry
                    .get("key")
                    .and_then(Value::as_str)
                    .map(String::from)
                    .ok_or_else(|| fail("\"key\" must be a string"))?,
            })),
            Some("oauth") => {
                OAuthCredential::from_json(provider, entry).map(|c| Some(Credential::OAuth(c)))
            }
            _ if !entry.is_object() => Err(fail("expected an object")),
            _ => Err(fail("\"type\" must be \"api_key\" or \"oauth\"")),
        }
    }

    /// Stores `credential` for `provider`, keeping the other entries as they are.
    pub fn set(&mut self, provider: &str, credential: &Credential) {
        self.entries
            .insert(provider.to_string(), credential.to_json());
    }

    /// Removes `provider`'s entry (logout); true if there was one.
    pub fn remove(&mut self, provider: &str) -> bool {
        self.entries.remove(provider).is_some()
    }

    /// The file contents to write (pretty, as pi writes it).
    #[allow(
        clippy::expect_used,
        reason = "a map of strings to plain data always serializes"
    )]
    pub fn to_json_string(&self) -> String {
        serde_json::to_string_pretty(&self.entries).expect("a JSON map always serializes")
    }
}

/// Caches auth.json `!command` results for the process lifetime (interfaces §6.3), so a
/// password-manager prompt runs once. Failures are cached too.
#[derive(Debug, Default)]
pub struct CommandCache {
    results: Mutex<HashMap<String, Option<String>>>,
}

impl CommandCache {
    /// Resolves `raw` with caching of command results; `None` when a command failed.
    pub fn resolve(
        &self,
        raw: &str,
        env: &dyn Fn(&str) -> Option<String>,
        run: &ShellRunner,
    ) -> Option<String> {
        if !raw.starts_with('!') {
            return resolve_value(raw, env, run).ok();
        }
        let mut results = self.results.lock().unwrap_or_else(|p| p.into_inner());
        results
            .entry(raw.to_string())
            .or_insert_with(|| resolve_value(raw, env, run).ok())
            .clone()
    }
}

/// Where a key came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// `--api-key`.
    Explicit,
    /// auth.json `api_key` entry.
    AuthFile,
    /// auth.json `oauth` entry (the access token).
    OAuth,
    /// This environment variable (or ambient cloud credentials for Vertex/Bedrock).
    Env(String),
    /// models.json `apiKey`.
    ModelsJson,
}

/// The outcome of resolution.
#[derive(Debug, Clone, PartialEq)]
pub enum ResolvedAuth {
    /// Use this key.
    Key {
        /// The key.
        key: String,
        /// Its source.
        source: KeySource,
    },
    /// The stored OAuth token has expired: refresh it (then store and retry), or on failure
    /// show [`oauth_failed_message`].
    OAuthExpired(OAuthCredential),
    /// No source has a key: show [`no_api_key_message`].
    Missing,
}

/// Everything resolution looks at; all fields are optional so each caller supplies what it
/// has. `env` and `run` are injectable for tests and sandboxes.
pub struct AuthSources<'a> {
    /// `--api-key`, already restricted by the caller to the CLI-selected provider.
    pub explicit: Option<&'a str>,
    /// Parsed auth.json.
    pub auth_file: Option<&'a AuthFile>,
    /// Process-lifetime cache for auth.json commands.
    pub command_cache: Option<&'a CommandCache>,
    /// The provider's models.json config.
    pub models_json: Option<&'a ProviderConfig>,
    /// Environment lookup.
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// Shell runner for `!command` values.
    pub run: &'a ShellRunner<'a>,
    /// Whether a file exists (for Google ADC).
    pub file_exists: &'a dyn Fn(&str) -> bool,
    /// Now, Unix ms (for OAuth expiry).
    pub now_ms: i64,
}

/// A failure that stops resolution: a failing models.json command (auth.json commands fail
/// soft, as "no key"; a malformed auth.json entry is skipped).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// models.json key command failed.
    #[error(transparent)]
    ModelsJson(#[from] ResolveError),
}

/// Resolves `provider`'s key in the spec's order. A valid auth.json `api_key` entry decides alone
/// (its failing command means no key, as in pi); an expired OAuth token is reported, not used.
pub fn resolve_api_key(provider: &str, s: &AuthSources) -> Result<ResolvedAuth, AuthError> {
    let key = |key: String, source: KeySource| ResolvedAuth::Key { key, source };
    if let Some(explicit) = s.explicit.filter(|k| !k.is_empty()) {
        return Ok(key(explicit.to_string(), KeySource::Explicit));
    }
    // A malformed entry is skipped, not fatal (issue 17 #6: it hid models.json's key and
    // ended in "No API key"); the CLI warns about it when it reads the file.
    match s.auth_file.and_then(|f| stored_credential(f, provider)) {
        Some(Credential::ApiKey { key: raw }) => {
            let resolved = match s.command_cache {
                Some(cache) => cache.resolve(&raw, s.env, s.run),
                None => resolve_value(&raw, s.env, s.run).ok(),
            };
            return Ok(resolved
                .filter(|k| !k.is_empty())
                .map_or(ResolvedAuth::Missing, |k| key(k, KeySource::AuthFile)));
        }
        Some(Credential::OAuth(c)) if c.is_expired(s.now_ms) => {
            return Ok(ResolvedAuth::OAuthExpired(c));
        }
        Some(Credential::OAuth(c)) => return Ok(key(c.access, KeySource::OAuth)),
        None => {}
    }
    if let Some((var, value)) = env_credential(provider, s.env, s.file_exists) {
        return Ok(key(value, KeySource::Env(var)));
    }
    let from_models = resolve_provider_api_key(provider, s.models_json, s.env, s.run)?;
    Ok(from_models.map_or(ResolvedAuth::Missing, |k| key(k, KeySource::ModelsJson)))
}

/// `provider`'s valid auth.json entry; Azure's under pi 0.73's id `azure-openai-responses`
/// counts for pi 1.6's `azure` too.
fn stored_credential(file: &AuthFile, provider: &str) -> Option<Credential> {
    let own = file.credential(provider).ok().flatten();
    own.or_else(|| {
        let legacy = crate::providers::azure::LEGACY_PROVIDER;
        (provider == crate::providers::azure::PROVIDER)
            .then(|| file.credential(legacy).ok().flatten())
            .flatten()
    })
}

/// The environment's key for `provider` with the variable that held it; for Vertex and
/// Bedrock, ambient cloud credentials give [`AUTHENTICATED_MARKER`].
pub fn env_credential(
    provider: &str,
    env: &dyn Fn(&str) -> Option<String>,
    file_exists: &dyn Fn(&str) -> bool,
) -> Option<(String, String)> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty());
    // Cloudflare's endpoints name the account (and the gateway): a key alone reaches none.
    let needs: &[&str] = match provider {
        "cloudflare-workers-ai" => &["CLOUDFLARE_ACCOUNT_ID"],
        "cloudflare-ai-gateway" => &["CLOUDFLARE_ACCOUNT_ID", "CLOUDFLARE_GATEWAY_ID"],
        // A llama.cpp router is configured by its URL; its key is optional.
        crate::llama::PROVIDER => &[crate::llama::BASE_URL_ENV],
        _ => &[],
    };
    if needs.iter().any(|name| set(name).is_none()) {
        return None;
    }
    if let Some(found) = env_vars_for(provider)
        .iter()
        .find_map(|name| set(name).map(|value| (name.to_string(), value)))
    {
        return Some(found);
    }
    let marker = |var: &str| Some((var.to_string(), AUTHENTICATED_MARKER.to_string()));
    match provider {
        crate::llama::PROVIDER => Some((
            crate::llama::BASE_URL_ENV.to_string(),
            crate::llama::NO_KEY.to_string(),
        )),
        "google-vertex" => {
            let adc = set("GOOGLE_APPLICATION_CREDENTIALS")
                .filter(|path| file_exists(path))
                .or_else(|| {
                    let home = set("HOME")?;
                    let path =
                        format!("{home}/.config/gcloud/application_default_credentials.json");
                    file_exists(&path).then_some(path)
                });
            let project = set("GOOGLE_CLOUD_PROJECT").or_else(|| set("GCLOUD_PROJECT"));
            if adc.is_some() && project.is_some() && set("GOOGLE_CLOUD_LOCATION").is_some() {
                return marker("GOOGLE_APPLICATION_CREDENTIALS");
            }
            None
        }
        "amazon-bedrock" => {
            let keys = set("AWS_ACCESS_KEY_ID").is_some() && set("AWS_SECRET_ACCESS_KEY").is_some();
            let other = [
                "AWS_PROFILE",
                "AWS_BEARER_TOKEN_BEDROCK",
                "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                "AWS_CONTAINER_CREDENTIALS_FULL_URI",
                "AWS_WEB_IDENTITY_TOKEN_FILE",
            ]
            .into_iter()
            .find(|v| set(v).is_some());
            match (keys, other) {
                (true, _) => marker("AWS_ACCESS_KEY_ID"),
                (false, Some(var)) => marker(var),
                _ => None,
            }
        }
        _ => None,
    }
}

/// "Has configured auth" (AUTH-3): a runtime key, any auth.json entry, an environment key,
/// or a models.json `apiKey` — without running commands or refreshing tokens.
pub fn has_configured_auth(provider: &str, s: &AuthSources) -> bool {
    s.explicit.is_some_and(|k| !k.is_empty())
        || s.auth_file.is_some_and(|f| {
            f.has_entry(provider)
                || (provider == crate::providers::azure::PROVIDER
                    && f.has_entry(crate::providers::azure::LEGACY_PROVIDER))
        })
        || env_credential(provider, s.env, s.file_exists).is_some()
        || crate::models_json::has_configured_api_key(s.models_json)
}

/// D7's missing-key text, naming the provider's primary environment variable if it has one.
pub fn no_api_key_message(provider: &str) -> String {
    let base = format!(
        "No API key found for {provider}. Run '/set api-key {provider} <key>' to configure"
    );
    match primary_env_var(provider) {
        Some(var) => format!("{base}, or set the {var} environment variable."),
        None => format!("{base}."),
    }
}

/// D7's text for an OAuth credential that could not be used or refreshed.
pub fn oauth_failed_message(provider: &str) -> String {
    format!(
        "Authentication failed for \"{provider}\". Credentials may have expired or network is \
         unavailable. Run '/login {provider}' to re-authenticate."
    )
}

/// Whether `provider` logs in with OAuth.
pub fn is_oauth_provider(provider: &str) -> bool {
    OAUTH_PROVIDERS.iter().any(|(id, _)| *id == provider)
}

#[cfg(test)]
#[path = "auth_tests.rs"]
mod tests;
