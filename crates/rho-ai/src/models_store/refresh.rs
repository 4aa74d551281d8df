//! Refreshing provider catalogs from the network into the store, as pi 1.6's model runtime
//! does (`rho update --models`, and in the background at start-up of the interactive and RPC
//! modes unless offline):
//!
//! - every built-in provider with configured credentials but Radius and OpenRouter asks pi's
//!   catalog service (`GET <catalog>/api/models/providers/<id>?types=chat,image,classifier`),
//!   at most every four hours unless forced, revalidating with the stored `etag`;
//! - OpenRouter, with a key, gets the catalog (built-in plus a newer pi.dev one) narrowed to
//!   the models the key may use, with the key's limits and prices, from its OpenAI-style
//!   `GET <baseUrl>/models/user` list ([`super::openrouter`]).
//!
//! - a llama.cpp router (`LLAMA_BASE_URL`) is asked for its loaded models on every refresh,
//!   as pi's llama.cpp provider does ([`crate::llama`]).
//!
//! Each provider's outcome is written to the store as pi writes it; one provider failing does
//! not stop the others.

use std::time::Duration;

use futures_util::future::join_all;
use serde_json::Value;

use super::openrouter::{personalize, PersonalError};
use super::{overlay, ModelsStore, StoreEntry, StoreError};
use crate::catalog;
use crate::llama::LlamaError;

/// pi's catalog service.
pub const DEFAULT_CATALOG_URL: &str = "https://pi.dev";
/// Points the catalog requests elsewhere (a mirror; tests' loopback servers). rho's own.
pub const CATALOG_URL_ENV: &str = "RHO_MODEL_CATALOG_URL";
/// A catalog checked more recently than this is not asked again unless forced (pi's).
pub const REFRESH_INTERVAL_MS: i64 = 4 * 60 * 60 * 1000;
/// One catalog request's limit; pi retries twice.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(4);
const RETRIES: usize = 2;
const RETRY_STATUSES: [u16; 7] = [408, 425, 429, 500, 502, 503, 504];

/// A provider to refresh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The provider id.
    pub provider: String,
    /// Its key, for OpenRouter's personal list and a llama.cpp router (`None`: the plain
    /// catalog).
    pub key: Option<String>,
    /// Its base URL (models.json's when set), for OpenRouter's personal list; a llama.cpp
    /// router's URL.
    pub base_url: String,
}

/// How to refresh.
#[derive(Debug, Clone)]
pub struct Options {
    /// The catalog service's base URL.
    pub catalog_url: String,
    /// Ask even when the stored catalog is recent (`rho update --models`).
    pub force: bool,
    /// The `User-Agent` of the catalog requests.
    pub user_agent: String,
}

impl Options {
    /// pi's catalog service (or [`CATALOG_URL_ENV`]'s), with the user agent of a pi 1.6 client
    /// (the catalog version rho reads) naming rho.
    pub fn from_env(force: bool) -> Self {
        let source = catalog::source();
        Self {
            catalog_url: std::env::var(CATALOG_URL_ENV)
                .ok()
                .filter(|u| !u.is_empty())
                .unwrap_or_else(|| DEFAULT_CATALOG_URL.into()),
            force,
            user_agent: format!(
                "pi/{} ({}; rho {}; {})",
                source.version,
                std::env::consts::OS,
                env!("CARGO_PKG_VERSION"),
                std::env::consts::ARCH
            ),
        }
    }
}

/// What a refresh did: the providers written, and each failure's text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Providers whose entry was written.
    pub written: Vec<String>,
    /// `(provider, what failed)`.
    pub errors: Vec<(String, String)>,
}

/// Why one provider's catalog was not refreshed, in pi's words.
#[derive(Debug, thiserror::Error)]
pub enum RefreshError {
    /// The catalog service answered with a failure status.
    #[error("Model catalog request failed for {provider}: {status}")]
    Status {
        /// The provider asked for.
        provider: String,
        /// The HTTP status.
        status: u16,
    },
    /// The catalog request did not complete (after its retries).
    #[error("Model catalog request failed for {provider}: {source}")]
    Request {
        /// The provider asked for.
        provider: String,
        /// What the network said.
        #[source]
        source: reqwest::Error,
    },
    /// The catalog's body could not be read as JSON.
    #[error("Model catalog request failed for {provider}: {source}")]
    Body {
        /// The provider asked for.
        provider: String,
        /// Why the body was unreadable.
        #[source]
        source: BodyError,
    },
    /// The body is JSON but not a catalog.
    #[error("Invalid model catalog for provider \"{provider}\"")]
    Invalid {
        /// The provider asked for.
        provider: String,
    },
    /// OpenRouter's personal model list failed.
    #[error(transparent)]
    Personal(#[from] PersonalError),
    /// The llama.cpp router failed.
    #[error(transparent)]
    Llama(#[from] LlamaError),
    /// The store could not be written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// No llama.cpp router is configured (`LLAMA_BASE_URL`).
    #[error("llama.cpp is not configured")]
    LlamaNotConfigured,
    /// The session reads no models-store.json, so there is nowhere to write.
    #[error("the model store is not in use")]
    NoStore,
}

/// Why a response body is not JSON.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    /// The body did not arrive whole.
    #[error(transparent)]
    Read(#[from] reqwest::Error),
    /// The body is not JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// Refreshes every target, all at once.
pub async fn refresh(store: &ModelsStore, targets: &[Target], options: &Options) -> Outcome {
    let runs = targets.iter().map(|t| async move {
        let result = if t.provider == overlay::PERSONALIZED {
            refresh_personal(store, t, options).await.map(|()| true)
        } else if t.provider == crate::llama::PROVIDER {
            refresh_llama(store, t).await.map(|()| true)
        } else {
            refresh_catalog(store, &t.provider, options).await
        };
        (t.provider.clone(), result)
    });
    let mut outcome = Outcome::default();
    for (provider, result) in join_all(runs).await {
        match result {
            Ok(true) => outcome.written.push(provider),
            Ok(false) => {}
            Err(e) => outcome.errors.push((provider, e.to_string())),
        }
    }
    outcome
}

/// pi's `withRemoteCatalog`; `Ok(false)` when the stored catalog is recent enough.
async fn refresh_catalog(
    store: &ModelsStore,
    provider: &str,
    options: &Options,
) -> Result<bool, RefreshError> {
    let stored = store.entry(provider);
    let now = crate::now_ms();
    if let Some(s) = stored.as_ref().filter(|_| !options.force) {
        if let (Some(checked), Some(_)) = (s.checked_at, s.last_modified) {
            if now - checked < REFRESH_INTERVAL_MS {
                return Ok(false);
            }
        }
    }
    let validator = stored
        .as_ref()
        .filter(|s| !s.models.is_empty())
        .and_then(|s| s.etag.clone());
    let response = request_catalog(provider, options, validator.as_deref()).await?;
    let status = response.status().as_u16();
    let keep = |stored: Option<StoreEntry>| stored.unwrap_or_default();
    let entry = match status {
        304 if stored.is_some() => StoreEntry {
            checked_at: Some(now),
            ..keep(stored)
        },
        404 | 501 => StoreEntry {
            checked_at: Some(now),
            last_modified: Some(0),
            etag: None,
            ..keep(stored)
        },
        s if !(200..300).contains(&s) => {
            let entry = StoreEntry {
                checked_at: Some(now),
                ..keep(stored)
            };
            write(store, provider, &entry).await?;
            return Err(RefreshError::Status {
                provider: provider.into(),
                status: s,
            });
        }
        _ => {
            let (last_modified, etag) = validators(&response);
            let body = read_json(response)
                .await
                .map_err(|source| RefreshError::Body {
                    provider: provider.into(),
                    source,
                })?;
            StoreEntry {
                models: parse_catalog(provider, body)?,
                checked_at: Some(now),
                last_modified: Some(last_modified),
                etag,
                ..StoreEntry::default()
            }
        }
    };
    write(store, provider, &entry).await.map(|()| true)
}

/// pi's `withPersonalizedCatalog` for OpenRouter: written on every network refresh.
async fn refresh_personal(
    store: &ModelsStore,
    target: &Target,
    options: &Options,
) -> Result<(), RefreshError> {
    let provider = target.provider.as_str();
    let response = request_catalog(provider, options, None).await?;
    let remote = match response.status().as_u16() {
        404 | 501 => Vec::new(),
        s if !(200..300).contains(&s) => {
            return Err(RefreshError::Status {
                provider: provider.into(),
                status: s,
            })
        }
        _ => {
            let (last_modified, _) = validators(&response);
            let body = read_json(response)
                .await
                .map_err(|source| RefreshError::Body {
                    provider: provider.into(),
                    source,
                })?;
            let models = parse_catalog(provider, body)?;
            if last_modified > crate::registry::generated_at_ms() {
                models
            } else {
                Vec::new()
            }
        }
    };
    let builtin = catalog::provider_models(provider)
        .unwrap_or_default()
        .iter()
        .map(model_json)
        .collect();
    let catalog = merge_by_id(builtin, remote);
    let models = personalize(catalog, target).await?;
    let entry = StoreEntry {
        models,
        checked_at: Some(crate::now_ms()),
        ..StoreEntry::default()
    };
    write(store, provider, &entry).await
}

/// A llama.cpp router's loaded models (`target.base_url` is the router's URL), written on
/// every refresh.
pub async fn refresh_llama(store: &ModelsStore, target: &Target) -> Result<(), RefreshError> {
    let client = crate::llama::LlamaClient::new(&target.base_url, target.key.clone())?;
    let models = client.chat_models().await?;
    let entry = StoreEntry {
        models: models.iter().map(model_json).collect(),
        checked_at: Some(crate::now_ms()),
        ..StoreEntry::default()
    };
    write(store, crate::llama::PROVIDER, &entry).await
}

async fn write(
    store: &ModelsStore,
    provider: &str,
    entry: &StoreEntry,
) -> Result<(), RefreshError> {
    Ok(store.write(provider, Some(entry)).await?)
}

/// A built-in model as pi stores models (its JSON with `type`).
fn model_json(model: &crate::model::Model) -> Value {
    let mut value = serde_json::to_value(model).unwrap_or(Value::Null);
    if let Some(obj) = value.as_object_mut() {
        obj.insert("type".into(), "chat".into());
    }
    value
}

/// `base` with each of `top` replacing the model of the same type and id, or added after.
fn merge_by_id(mut base: Vec<Value>, top: Vec<Value>) -> Vec<Value> {
    let key = |m: &Value| {
        let kind = m.get("type").and_then(Value::as_str).unwrap_or("chat");
        format!(
            "{kind}\0{}",
            m.get("id").and_then(Value::as_str).unwrap_or("")
        )
    };
    for model in top {
        match base.iter_mut().find(|m| key(m) == key(&model)) {
            Some(slot) => *slot = model,
            None => base.push(model),
        }
    }
    base
}

/// The catalog's models with `provider` set: the body is an array, `{models: [...]}` or an
/// object of models; entries without an id or of a type pi 1.6 does not know are dropped.
fn parse_catalog(provider: &str, body: Value) -> Result<Vec<Value>, RefreshError> {
    let entries = match body {
        Value::Array(items) => items,
        Value::Object(mut obj) => match obj.get("models") {
            Some(Value::Array(_)) => match obj.remove("models") {
                Some(Value::Array(items)) => items,
                _ => Vec::new(),
            },
            _ => obj.into_iter().map(|(_, v)| v).collect(),
        },
        _ => {
            return Err(RefreshError::Invalid {
                provider: provider.into(),
            })
        }
    };
    let known = |m: &Value| match m.get("type") {
        None => true,
        Some(Value::String(t)) => matches!(t.as_str(), "chat" | "image" | "classifier"),
        Some(_) => false,
    };
    Ok(entries
        .into_iter()
        .filter(|m| m.get("id").is_some() && known(m))
        .filter_map(|mut m| {
            m.as_object_mut()?
                .insert("provider".into(), provider.into());
            Some(m)
        })
        .collect())
}

/// A response body as JSON.
pub(super) async fn read_json(response: reqwest::Response) -> Result<Value, BodyError> {
    let bytes = response.bytes().await?;
    Ok(serde_json::from_slice(&bytes)?)
}

/// `Last-Modified` as Unix ms (0 when missing or unreadable) and the `ETag`.
fn validators(response: &reqwest::Response) -> (i64, Option<String>) {
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let last_modified = header("last-modified")
        .and_then(|d| crate::time::parse_http_date(&d))
        .unwrap_or(0);
    (last_modified, header("etag"))
}

/// One provider's catalog from the service, retried like pi's `fetchWithRetry`.
async fn request_catalog(
    provider: &str,
    options: &Options,
    validator: Option<&str>,
) -> Result<reqwest::Response, RefreshError> {
    let url = format!(
        "{}/api/models/providers/{provider}?types=chat,image,classifier",
        options.catalog_url.trim_end_matches('/')
    );
    let mut attempt = 0;
    loop {
        let mut request = crate::http::client()
            .get(&url)
            .header("accept", "application/json")
            .header("user-agent", &options.user_agent)
            .timeout(ATTEMPT_TIMEOUT);
        if let Some(etag) = validator {
            request = request.header("if-none-match", etag);
        }
        match request.send().await {
            Ok(r) if RETRY_STATUSES.contains(&r.status().as_u16()) && attempt < RETRIES => {}
            Ok(r) => return Ok(r),
            Err(_) if attempt < RETRIES => {}
            Err(source) => {
                return Err(RefreshError::Request {
                    provider: provider.into(),
                    source,
                })
            }
        }
        attempt += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn catalogs_in_every_shape_pi_reads() {
        let model = json!({"id": "m", "name": "M"});
        let image = json!({"id": "i", "type": "image"});
        let future = json!({"id": "f", "type": "video"});
        let array = parse_catalog("xai", json!([model, image, future, {"name": "no id"}]));
        let ids: Vec<&str> = array
            .as_ref()
            .expect("array")
            .iter()
            .filter_map(|m| m["id"].as_str())
            .collect();
        assert_eq!(ids, ["m", "i"]);
        assert!(array.expect("array").iter().all(|m| m["provider"] == "xai"));
        let wrapped = parse_catalog("xai", json!({"models": [model]})).expect("wrapped");
        assert_eq!(wrapped.len(), 1);
        let keyed = parse_catalog("xai", json!({"chat:m": model})).expect("keyed");
        assert_eq!(keyed[0]["id"], "m");
        assert!(parse_catalog("xai", json!("nope")).is_err());
    }

    #[test]
    fn a_merged_catalog_replaces_by_type_and_id() {
        let base = vec![json!({"id": "a", "v": 1}), json!({"id": "b", "v": 1})];
        let top = vec![
            json!({"id": "b", "v": 2}),
            json!({"id": "a", "type": "image"}),
        ];
        let merged = merge_by_id(base, top);
        let values: Vec<Value> = merged.iter().map(|m| m["v"].clone()).collect();
        assert_eq!(values, [json!(1), json!(2), Value::Null]);
    }
}
