//! Google Vertex AI (`google-vertex`): Gemini's request and stream (see [`super::google`])
//! at Vertex's endpoint, with a Google Cloud API key (`GOOGLE_CLOUD_API_KEY`, sent as
//! `x-goog-api-key`) or Application Default Credentials.
//!
//! The endpoint follows the `@google/genai` client pi 1.6 uses: with a key, Vertex express
//! (`https://aiplatform.googleapis.com/v1/publishers/google/models/{m}`); with ADC, the
//! project and location (`GOOGLE_CLOUD_PROJECT`, `GOOGLE_CLOUD_LOCATION`) pick
//! `https://{location}-aiplatform.googleapis.com/v1/projects/{p}/locations/{l}/publishers/google/models/{m}`;
//! a models.json `baseUrl` replaces everything before `publishers/`.
//!
//! ADC come from the `gcp_auth` crate, started on the first Vertex request and kept for the
//! process (it caches and refreshes the access token): a service-account key named by
//! `GOOGLE_APPLICATION_CREDENTIALS` (its JWT exchanged at the key's `token_uri`), else
//! gcloud's user credentials, the metadata server, or the `gcloud` command.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;

use crate::message::Context;
use crate::model::Model;
use crate::options::StreamOptions;
use crate::provider::{Authorize, AuthorizeError, HttpRequest};

/// Why a Vertex AI call could not be prepared or authorized, with what to set or run.
#[derive(Debug, thiserror::Error)]
pub enum VertexError {
    /// ADC without a project.
    #[error("Vertex AI requires a project ID. Set GOOGLE_CLOUD_PROJECT/GCLOUD_PROJECT.")]
    NoProject,
    /// ADC without a location.
    #[error("Vertex AI requires a location. Set GOOGLE_CLOUD_LOCATION.")]
    NoLocation,
    /// `GOOGLE_APPLICATION_CREDENTIALS` names a file that is not a service-account key.
    #[error(
        "Could not load the Google credentials file {} (GOOGLE_APPLICATION_CREDENTIALS): {}",
        .path.display(),
        super::error_chain(.source)
    )]
    CredentialsFile {
        /// The file.
        path: PathBuf,
        /// Why it did not load.
        #[source]
        source: gcp_auth::Error,
    },
    /// No default credentials were found.
    #[error(
        "Could not load the default credentials for Vertex AI ({}). Run `gcloud \
         auth application-default login`, set GOOGLE_APPLICATION_CREDENTIALS to a \
         service-account key file, or set GOOGLE_CLOUD_API_KEY.",
        super::error_chain(.0)
    )]
    DefaultCredentials(#[source] gcp_auth::Error),
    /// The credentials gave no access token.
    #[error(
        "Could not get a Google Cloud access token for Vertex AI: {}",
        super::error_chain(.0)
    )]
    Token(#[source] gcp_auth::Error),
}

/// The OAuth scope Vertex AI accepts.
const CLOUD_PLATFORM: &str = "https://www.googleapis.com/auth/cloud-platform";

/// Keys that stand for "use ADC" rather than a real key: rho's and pi's markers, and any
/// `<placeholder>`.
fn is_real_key(key: &str) -> bool {
    let key = key.trim();
    !key.is_empty()
        && key != crate::auth::AUTHENTICATED_MARKER
        && key != "gcp-vertex-credentials"
        && !(key.starts_with('<') && key.ends_with('>'))
}

/// The request, and for ADC the step that adds the access token. `Err`: no project or
/// location for ADC.
pub fn prepare(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
) -> Result<(HttpRequest, Option<Arc<dyn Authorize>>), VertexError> {
    prepare_with(model, context, options, &|name| std::env::var(name).ok())
}

/// [`prepare`] over an explicit environment.
pub fn prepare_with(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(HttpRequest, Option<Arc<dyn Authorize>>), VertexError> {
    let set = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    let key = options.api_key.clone().filter(|k| is_real_key(k));
    let mut request = super::google::build_request(model, context, options);
    request.headers.retain(|(name, _)| name != "x-goog-api-key");
    let custom = custom_base_url(&model.base_url);
    let model_path = model_path(&model.id);
    let authorize: Option<Arc<dyn Authorize>> = match &key {
        Some(key) => {
            let base = custom.unwrap_or("https://aiplatform.googleapis.com");
            request.url = endpoint(base, custom.is_some(), &model_path);
            request
                .headers
                .insert(0, ("x-goog-api-key".to_string(), key.clone()));
            None
        }
        None => {
            let project = set("GOOGLE_CLOUD_PROJECT")
                .or_else(|| set("GCLOUD_PROJECT"))
                .ok_or(VertexError::NoProject)?;
            let location = set("GOOGLE_CLOUD_LOCATION").ok_or(VertexError::NoLocation)?;
            request.url = match custom {
                Some(base) => endpoint(base, true, &model_path),
                None => {
                    let path = format!("projects/{project}/locations/{location}/{model_path}");
                    endpoint(&regional_host(&location), false, &path)
                }
            };
            let credentials = set("GOOGLE_APPLICATION_CREDENTIALS").map(PathBuf::from);
            Some(Arc::new(AdcToken { credentials }))
        }
    };
    Ok((request, authorize))
}

/// A models.json `baseUrl` that replaces the default host; the catalog's
/// `https://{location}-aiplatform.googleapis.com` template does not.
fn custom_base_url(base_url: &str) -> Option<&str> {
    let trimmed = base_url.trim();
    (!trimmed.is_empty() && !trimmed.contains("{location}")).then_some(trimmed)
}

/// Vertex's host for `location`: the global endpoint, the multi-region ones, or the region's.
fn regional_host(location: &str) -> String {
    match location {
        "global" => "https://aiplatform.googleapis.com".to_string(),
        "us" | "eu" => format!("https://aiplatform.{location}.rep.googleapis.com"),
        region => format!("https://{region}-aiplatform.googleapis.com"),
    }
}

/// `publishers/google/models/{id}`, as the client names a model (`publisher/model` ids and
/// full resource names kept).
fn model_path(id: &str) -> String {
    if ["publishers/", "projects/", "models/"]
        .iter()
        .any(|p| id.starts_with(p))
    {
        return id.to_string();
    }
    match id.split_once('/') {
        Some((publisher, model)) => format!("publishers/{publisher}/models/{model}"),
        None => format!("publishers/google/models/{id}"),
    }
}

/// `{base}/v1/{path}:streamGenerateContent?alt=sse`; a custom base that names an API version
/// (`/v1`, `/v1beta1`) gets none added.
fn endpoint(base: &str, custom: bool, path: &str) -> String {
    let base = base.trim_end_matches('/');
    let versioned = custom && base.split('/').skip(3).any(is_api_version);
    let version = if versioned { "" } else { "/v1" };
    format!("{base}{version}/{path}:streamGenerateContent?alt=sse")
}

/// `v1`, `v2`, `v1beta`, `v1beta1`, ...
fn is_api_version(segment: &str) -> bool {
    let Some(rest) = segment.strip_prefix('v') else {
        return false;
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let tail = &rest[digits..];
    digits > 0
        && (tail.is_empty()
            || tail
                .strip_prefix("beta")
                .is_some_and(|d| d.chars().all(|c| c.is_ascii_digit())))
}

/// Adds an ADC access token: `Authorization: Bearer …`.
#[derive(Debug)]
struct AdcToken {
    /// `GOOGLE_APPLICATION_CREDENTIALS`, when set.
    credentials: Option<PathBuf>,
}

/// The token providers started so far, one per credentials file (and one for the default
/// chain), kept for the process so their tokens are cached and refreshed.
type Providers = Mutex<HashMap<Option<PathBuf>, Arc<dyn gcp_auth::TokenProvider>>>;

fn providers() -> &'static Providers {
    static PROVIDERS: std::sync::OnceLock<Providers> = std::sync::OnceLock::new();
    PROVIDERS.get_or_init(Default::default)
}

impl AdcToken {
    async fn provider(&self) -> Result<Arc<dyn gcp_auth::TokenProvider>, VertexError> {
        let cached = providers()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&self.credentials)
            .cloned();
        if let Some(provider) = cached {
            return Ok(provider);
        }
        let provider: Arc<dyn gcp_auth::TokenProvider> = match &self.credentials {
            Some(path) => Arc::new(gcp_auth::CustomServiceAccount::from_file(path).map_err(
                |source| VertexError::CredentialsFile {
                    path: path.clone(),
                    source,
                },
            )?),
            None => gcp_auth::provider()
                .await
                .map_err(VertexError::DefaultCredentials)?,
        };
        providers()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(self.credentials.clone(), provider.clone());
        Ok(provider)
    }
}

impl Authorize for AdcToken {
    fn authorize<'a>(
        &'a self,
        request: &'a mut HttpRequest,
    ) -> BoxFuture<'a, Result<(), AuthorizeError>> {
        Box::pin(async move {
            let provider = self.provider().await?;
            let token = provider
                .token(&[CLOUD_PLATFORM])
                .await
                .map_err(VertexError::Token)?;
            request.headers.retain(|(name, _)| name != "authorization");
            request.headers.insert(
                0,
                (
                    "authorization".to_string(),
                    format!("Bearer {}", token.as_str()),
                ),
            );
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(id: &str, base_url: &str) -> Model {
        serde_json::from_value(serde_json::json!({
            "id": id, "name": id, "api": "google-vertex", "provider": "google-vertex",
            "baseUrl": base_url
        }))
        .expect("model")
    }

    fn url(model: &Model, key: Option<&str>, vars: &[(&str, &str)]) -> Result<String, String> {
        let options = StreamOptions {
            api_key: key.map(String::from),
            ..Default::default()
        };
        let env = |name: &str| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        };
        prepare_with(model, &Context::default(), &options, &env)
            .map(|(r, _)| r.url)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn endpoints_follow_the_google_client() {
        let catalog = model(
            "gemini-2.5-pro",
            "https://{location}-aiplatform.googleapis.com",
        );
        let adc = [
            ("GOOGLE_CLOUD_PROJECT", "p1"),
            ("GOOGLE_CLOUD_LOCATION", "europe-west4"),
        ];
        assert_eq!(
            url(&catalog, None, &adc).as_deref(),
            Ok(
                "https://europe-west4-aiplatform.googleapis.com/v1/projects/p1/locations/\
                europe-west4/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
            )
        );
        let global = [
            ("GCLOUD_PROJECT", "p1"),
            ("GOOGLE_CLOUD_LOCATION", "global"),
        ];
        assert!(url(&catalog, Some("<authenticated>"), &global)
            .is_ok_and(|u| u.starts_with("https://aiplatform.googleapis.com/v1/projects/p1/")));
        let us = [("GCLOUD_PROJECT", "p1"), ("GOOGLE_CLOUD_LOCATION", "us")];
        assert!(url(&catalog, None, &us)
            .is_ok_and(|u| u.starts_with("https://aiplatform.us.rep.googleapis.com/v1/")));
        assert_eq!(
            url(&catalog, Some("AIza-key"), &[]).as_deref(),
            Ok("https://aiplatform.googleapis.com/v1/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse")
        );
        let proxy = model("gemini-2.5-pro", "http://127.0.0.1:9/vertex/v1beta1/");
        assert_eq!(
            url(&proxy, None, &adc).as_deref(),
            Ok("http://127.0.0.1:9/vertex/v1beta1/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse")
        );
        let partner = model("anthropic/claude-x", "http://127.0.0.1:9");
        assert!(url(&partner, Some("k"), &[])
            .is_ok_and(|u| u.contains("/v1/publishers/anthropic/models/claude-x:")));
    }

    #[test]
    fn adc_needs_a_project_and_a_location() {
        let m = model("gemini-2.5-pro", "");
        assert_eq!(
            url(&m, None, &[]),
            Err("Vertex AI requires a project ID. Set GOOGLE_CLOUD_PROJECT/GCLOUD_PROJECT.".into())
        );
        assert_eq!(
            url(&m, None, &[("GOOGLE_CLOUD_PROJECT", "p")]),
            Err("Vertex AI requires a location. Set GOOGLE_CLOUD_LOCATION.".into())
        );
    }

    #[test]
    fn api_versions() {
        for v in ["v1", "v1beta", "v1beta1", "v22"] {
            assert!(is_api_version(v), "{v}");
        }
        for v in ["v", "vertex", "v1alpha", "1"] {
            assert!(!is_api_version(v), "{v}");
        }
    }
}
