//! Azure OpenAI's Responses API (`azure-openai-responses`, pi 1.6's provider `azure`; the
//! old provider id `azure-openai-responses` still works).
//!
//! The body is OpenAI Responses' (see [`super::openai_responses`]) with the deployment as
//! its `model`; the endpoint and key are Azure's: `{base}/responses?api-version=…` with an
//! `api-key` header, the base from `AZURE_OPENAI_BASE_URL`, else the resource named by
//! `AZURE_OPENAI_RESOURCE_NAME`, else the model's `baseUrl`. The reply is parsed by the
//! Responses parser unchanged.

use serde_json::json;

use crate::http::StatusFailure;
use crate::message::Context;
use crate::model::Model;
use crate::options::StreamOptions;
use crate::provider::HttpRequest;

/// The provider id pi 1.6 uses for Azure OpenAI.
pub const PROVIDER: &str = "azure";

/// The provider id pi 0.73 used, kept as an alias of [`PROVIDER`].
pub const LEGACY_PROVIDER: &str = "azure-openai-responses";

/// Whether `provider` names Azure OpenAI (by its id or the old one).
pub fn is_azure(provider: &str) -> bool {
    provider == PROVIDER || provider == LEGACY_PROVIDER
}

/// The `api-version` when `AZURE_OPENAI_API_VERSION` does not name one.
const DEFAULT_API_VERSION: &str = "v1";

/// OpenAI Responses rejects `max_output_tokens` below 16.
const MIN_OUTPUT_TOKENS: u64 = 16;

/// pi 1.6 cuts the prompt cache key at 64 characters.
const PROMPT_CACHE_KEY_MAX: usize = 64;

/// Why Azure OpenAI's endpoint could not be resolved, with what to set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AzureConfigError {
    /// Neither the environment nor the model names an endpoint.
    #[error(
        "Azure OpenAI base URL is required. Set AZURE_OPENAI_BASE_URL or \
         AZURE_OPENAI_RESOURCE_NAME, or the model's baseUrl in models.json."
    )]
    NoBaseUrl,
    /// The base URL does not parse.
    #[error("Invalid Azure OpenAI base URL: {0}")]
    BadBaseUrl(String),
}

/// Where and how to reach the deployment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AzureConfig {
    /// The API base, ending in `/openai/v1` for Azure hosts.
    pub base_url: String,
    /// The `api-version` query value.
    pub api_version: String,
    /// The deployment sent as the body's `model`.
    pub deployment: String,
}

/// Resolves the endpoint, API version and deployment of `model` from `env`.
pub fn resolve_config(
    model: &Model,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<AzureConfig, AzureConfigError> {
    let set = |name: &str| {
        env(name)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let base = set("AZURE_OPENAI_BASE_URL")
        .or_else(|| {
            set("AZURE_OPENAI_RESOURCE_NAME")
                .map(|name| format!("https://{name}.openai.azure.com/openai/v1"))
        })
        // The catalog's `{AZURE_OPENAI_RESOURCE_NAME}` template is not a URL of its own.
        .or_else(|| {
            Some(model.base_url.trim().to_string()).filter(|b| !b.is_empty() && !b.contains('{'))
        })
        .ok_or(AzureConfigError::NoBaseUrl)?;
    Ok(AzureConfig {
        base_url: normalize_base_url(&base)?,
        api_version: set("AZURE_OPENAI_API_VERSION")
            .unwrap_or_else(|| DEFAULT_API_VERSION.to_string()),
        deployment: deployment(
            &model.id,
            set("AZURE_OPENAI_DEPLOYMENT_NAME_MAP").as_deref(),
        ),
    })
}

/// The deployment of `model_id` in a `model=deployment,model=deployment` map, else the id.
fn deployment(model_id: &str, map: Option<&str>) -> String {
    map.into_iter()
        .flat_map(|m| m.split(','))
        .filter_map(|entry| entry.trim().split_once('='))
        .find(|(id, dep)| id.trim() == model_id && !dep.trim().is_empty())
        .map_or_else(|| model_id.to_string(), |(_, dep)| dep.trim().to_string())
}

/// An Azure host's base with no path (or `/openai`, or the whole `/openai/v1/responses`)
/// becomes `…/openai/v1`; other URLs are kept. No trailing slash.
fn normalize_base_url(base: &str) -> Result<String, AzureConfigError> {
    let trimmed = base.trim().trim_end_matches('/');
    let mut url =
        reqwest::Url::parse(trimmed).map_err(|_| AzureConfigError::BadBaseUrl(base.into()))?;
    let host = url.host_str().unwrap_or_default().to_string();
    let azure_host = [
        ".openai.azure.com",
        ".cognitiveservices.azure.com",
        ".ai.azure.com",
    ]
    .iter()
    .any(|suffix| host.ends_with(suffix));
    let path = url.path().trim_end_matches('/').to_string();
    if azure_host && matches!(path.as_str(), "" | "/openai" | "/openai/v1/responses") {
        url.set_path("/openai/v1");
        url.set_query(None);
    }
    Ok(url.as_str().trim_end_matches('/').to_string())
}

/// Builds the request from the process environment.
pub fn build_request(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
) -> Result<HttpRequest, AzureConfigError> {
    let config = resolve_config(model, &|name| std::env::var(name).ok())?;
    Ok(build_request_with(model, context, options, &config))
}

/// Builds the request for a resolved [`AzureConfig`]. Pure.
pub fn build_request_with(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
    config: &AzureConfig,
) -> HttpRequest {
    let responses = super::openai_responses::build_request(model, context, options);
    let mut body = responses.body;
    body["model"] = json!(config.deployment);
    if let Some(obj) = body.as_object_mut() {
        obj.remove("prompt_cache_retention");
        obj.remove("prompt_cache_key");
        if let Some(session) = options.session_id.as_deref() {
            let key: String = session.chars().take(PROMPT_CACHE_KEY_MAX).collect();
            obj.insert("prompt_cache_key".into(), json!(key));
        }
        if let Some(n) = options.max_tokens {
            obj.insert("max_output_tokens".into(), json!(n.max(MIN_OUTPUT_TOKENS)));
        }
    }
    // Sampling parameters come last, over Azure's own fields too.
    crate::providers::merge_sampling_params(model, options, &mut body);
    let mut headers = Vec::new();
    if let Some(key) = &options.api_key {
        headers.push(("api-key".to_string(), key.clone()));
    }
    let overrides = model.headers.iter().flatten().chain(&options.headers);
    headers.extend(overrides.map(|(k, v)| (k.clone(), v.clone())));
    HttpRequest {
        url: format!(
            "{}/responses?api-version={}",
            config.base_url, config.api_version
        ),
        headers,
        body,
    }
}

/// An `openai-completions` model of provider `azure`: the same endpoint and deployment as
/// the Responses models (pi 1.6 serves Azure's DeepSeek this way).
pub fn completions_model(model: &Model) -> Result<(Model, String), AzureConfigError> {
    let config = resolve_config(model, &|name| std::env::var(name).ok())?;
    let mut routed = model.clone();
    routed.base_url = config.base_url;
    Ok((routed, config.deployment))
}

/// How much of an error body pi 1.6 keeps.
const MAX_ERROR_BODY_CHARS: usize = 4000;

/// The error text for an HTTP failure, as pi 1.6 words it through the OpenAI SDK: `Azure
/// OpenAI API error (<status>): <the body's error object>`; a body without one gives the
/// SDK's message (`<status> <text>`, `<status> status code (no body)`).
pub fn error_message(failure: &StatusFailure) -> String {
    let status = failure.status;
    let body = failure.body.trim();
    let no_body = || format!("{status} status code (no body)");
    let detail = match serde_json::from_str::<serde_json::Value>(body) {
        _ if body.is_empty() => no_body(),
        Ok(v) => match v.get("error") {
            Some(e @ serde_json::Value::Object(o)) if !o.is_empty() => {
                crate::provider::truncate_error_text(&e.to_string(), MAX_ERROR_BODY_CHARS)
            }
            Some(e) if !e.is_null() => format!("{status} {e}"),
            _ => no_body(),
        },
        Err(_) => format!("{status} {body}"),
    };
    format!("Azure OpenAI API error ({status}): {detail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(base_url: &str) -> Model {
        serde_json::from_value(json!({
            "id": "gpt-5.4", "name": "g", "api": "azure-openai-responses",
            "provider": "azure", "baseUrl": base_url
        }))
        .expect("model")
    }

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn base_url_from_env_resource_or_model() {
        let m = model("");
        let by_resource = resolve_config(&m, &env(&[("AZURE_OPENAI_RESOURCE_NAME", "acme")]));
        assert_eq!(
            by_resource.map(|c| c.base_url),
            Ok("https://acme.openai.azure.com/openai/v1".to_string())
        );
        let explicit = resolve_config(
            &m,
            &env(&[
                (
                    "AZURE_OPENAI_BASE_URL",
                    "https://x.cognitiveservices.azure.com/",
                ),
                ("AZURE_OPENAI_RESOURCE_NAME", "acme"),
                ("AZURE_OPENAI_API_VERSION", "2025-04-01-preview"),
            ]),
        )
        .expect("config");
        assert_eq!(
            explicit.base_url,
            "https://x.cognitiveservices.azure.com/openai/v1"
        );
        assert_eq!(explicit.api_version, "2025-04-01-preview");
        let proxy = resolve_config(&model("http://127.0.0.1:9/azure/"), &env(&[]));
        assert_eq!(
            proxy.map(|c| c.base_url),
            Ok("http://127.0.0.1:9/azure".to_string())
        );
        let missing = resolve_config(&m, &env(&[]))
            .expect_err("no base")
            .to_string();
        assert!(
            missing.starts_with("Azure OpenAI base URL is required."),
            "{missing}"
        );
        let bad = resolve_config(&model("not a url"), &env(&[])).expect_err("bad");
        assert_eq!(bad.to_string(), "Invalid Azure OpenAI base URL: not a url");
    }

    #[test]
    fn deployment_map() {
        let map = Some(" gpt-5.4 = prod-gpt ,o3=reasoner,broken, =x");
        assert_eq!(deployment("gpt-5.4", map), "prod-gpt");
        assert_eq!(deployment("o3", map), "reasoner");
        assert_eq!(deployment("gpt-4.1", map), "gpt-4.1");
        assert_eq!(deployment("gpt-4.1", None), "gpt-4.1");
    }

    #[test]
    fn error_texts_follow_pi() {
        let f = |status, body: &str| {
            error_message(&StatusFailure {
                status,
                body: body.into(),
                headers: vec![],
            })
        };
        assert_eq!(
            f(
                400,
                r#"{"error":{"message":"Bad","type":"invalid_request_error","code":null}}"#
            ),
            r#"Azure OpenAI API error (400): {"message":"Bad","type":"invalid_request_error","code":null}"#
        );
        assert_eq!(
            f(500, ""),
            "Azure OpenAI API error (500): 500 status code (no body)"
        );
        assert_eq!(
            f(502, "<html>bad gateway</html>"),
            "Azure OpenAI API error (502): 502 <html>bad gateway</html>"
        );
        assert_eq!(
            f(404, "{}"),
            "Azure OpenAI API error (404): 404 status code (no body)"
        );
    }
}
