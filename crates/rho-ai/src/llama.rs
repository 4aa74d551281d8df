//! llama.cpp's router server, as pi 1.6's built-in llama.cpp provider drives it
//! (`docs/llama-cpp.md`): the router at `LLAMA_BASE_URL` lists its models (`GET /models`),
//! loads and unloads them (`POST /models/load`, `POST /models/unload`) and serves the loaded
//! ones over its OpenAI-compatible `/v1`. Its loaded and sleeping chat models become models
//! of provider `llama.cpp`, kept in models-store.json by the catalog refresh; the `/llama`
//! command loads and unloads them. The texts are pi's.

use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::model::{InputKind, Model, ModelCompat, ModelCost};

/// The provider id of the router's models.
pub const PROVIDER: &str = "llama.cpp";
/// Where pi looks for a router when none is configured.
pub const DEFAULT_SERVER_URL: &str = "http://127.0.0.1:9931";
/// The router's URL.
pub const BASE_URL_ENV: &str = "LLAMA_BASE_URL";
/// The router's key, when it was started with `--api-key`.
pub const API_KEY_ENV: &str = "LLAMA_API_KEY";
/// The key sent when the router has none (pi's).
pub const NO_KEY: &str = "local";
/// One request's limit (pi's).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// How often a load is checked on.
const POLL: Duration = Duration::from_millis(250);

/// A failed exchange with the router, in pi's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlamaError {
    /// The URL is not an http(s) URL.
    #[error("Server URL must use http or https")]
    Scheme,
    /// The URL does not parse.
    #[error("Invalid llama.cpp server URL \"{0}\"")]
    Url(String),
    /// The connection failed.
    #[error("Could not reach llama.cpp server at {url}: {detail}")]
    Unreachable {
        /// The router's URL.
        url: String,
        /// What the network said.
        detail: String,
    },
    /// A non-2xx reply: its `error.message`, else `llama.cpp returned HTTP <status>`.
    #[error("{0}")]
    Server(String),
    /// `GET /models` did not return `{data: [...]}`.
    #[error("llama.cpp returned an invalid model catalog")]
    InvalidCatalog,
    /// The models have no router status: a single-model server.
    #[error("Server is not running in llama.cpp router mode")]
    NotRouter,
    /// The router gave up loading the model.
    #[error("Model failed to load")]
    LoadFailed,
    /// The model's process ended while loading.
    #[error("Model exited with code {0}")]
    Exited(i64),
}

/// One model of the router's list.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RouterModel {
    /// The id requests name.
    pub id: String,
    /// Loaded, sleeping, unloaded, loading, downloading...
    pub status: RouterStatus,
    /// `preset`, `cache`, a directory...
    #[serde(default)]
    pub source: Option<String>,
    /// What goes in and out (llama.cpp 0.6.0 and later).
    #[serde(default)]
    pub architecture: Option<Architecture>,
    /// Context sizes of a loaded model.
    #[serde(default)]
    pub meta: Option<RouterMeta>,
}

/// A router model's `status`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RouterStatus {
    /// `loaded`, `sleeping`, `unloaded`, `loading`, `downloading`.
    pub value: String,
    /// Set when a load failed.
    #[serde(default)]
    pub failed: Option<bool>,
    /// The exit code of a model process that ended.
    #[serde(default)]
    pub exit_code: Option<i64>,
    /// The model process's arguments (`-c <n>` gives its context).
    #[serde(default)]
    pub args: Option<Vec<String>>,
}

/// A router model's `architecture`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Architecture {
    /// `text`, `image`.
    #[serde(default)]
    pub input_modalities: Option<Vec<String>>,
    /// `text`, `decisions`.
    #[serde(default)]
    pub output_modalities: Option<Vec<String>>,
}

/// A router model's `meta`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
pub struct RouterMeta {
    /// The context the model runs with.
    #[serde(default)]
    pub n_ctx: Option<u64>,
    /// The context it was trained with.
    #[serde(default)]
    pub n_ctx_train: Option<u64>,
}

impl RouterModel {
    /// Loaded or sleeping (a request wakes it).
    pub fn is_loaded(&self) -> bool {
        matches!(self.status.value.as_str(), "loaded" | "sleeping")
    }

    /// Whether `/model` offers it: loaded or sleeping, or an unloaded preset the router loads
    /// on first use when it autoloads.
    fn is_selectable(&self, autoload: bool) -> bool {
        self.is_loaded()
            || (autoload
                && self.status.value == "unloaded"
                && self.status.failed != Some(true)
                && self.source.as_deref() == Some("preset"))
    }

    /// Decision-only models answer classifications, not chats.
    fn is_chat(&self) -> bool {
        let outputs = self
            .architecture
            .as_ref()
            .and_then(|a| a.output_modalities.as_deref())
            .unwrap_or_default();
        !outputs.iter().any(|o| o == "decisions") || outputs.iter().any(|o| o == "text")
    }

    /// The running context, else the `-c` it was started with, else its training context.
    fn context_window(&self) -> u64 {
        let meta = self.meta.unwrap_or_default();
        let configured = || {
            let args = self.status.args.as_deref().unwrap_or_default();
            args.windows(2)
                .find(|w| matches!(w[0].as_str(), "--ctx-size" | "-c" | "-ctx"))
                .and_then(|w| w[1].parse::<u64>().ok())
                .filter(|n| *n > 0)
        };
        meta.n_ctx
            .filter(|n| *n > 0)
            .or_else(configured)
            .or(meta.n_ctx_train.filter(|n| *n > 0))
            .unwrap_or(128_000)
    }

    /// The model as pi 1.6 describes it: Chat Completions at the router's `/v1`, free, its
    /// context as its output limit too, and thinking when its chat template switches it.
    pub fn to_model(&self, server_url: &str, chat_template: Option<&str>) -> Model {
        let window = self.context_window();
        let reasoning = chat_template.is_some_and(|t| t.contains("enable_thinking"));
        let image = self
            .architecture
            .as_ref()
            .and_then(|a| a.input_modalities.as_deref())
            .is_some_and(|m| m.iter().any(|i| i == "image"));
        Model {
            id: self.id.clone(),
            name: self.id.clone(),
            api: "openai-completions".into(),
            provider: PROVIDER.into(),
            base_url: format!("{server_url}/v1"),
            reasoning,
            thinking_level_map: reasoning.then(|| {
                [
                    ("off", Some("off")),
                    ("minimal", None),
                    ("low", None),
                    ("medium", Some("medium")),
                    ("high", None),
                    ("xhigh", None),
                ]
                .into_iter()
                .map(|(level, value)| (level.to_string(), value.map(String::from)))
                .collect()
            }),
            input: if image {
                vec![InputKind::Text, InputKind::Image]
            } else {
                vec![InputKind::Text]
            },
            cost: ModelCost::default(),
            context_window: window,
            max_tokens: window,
            compat: Some(ModelCompat {
                supports_store: Some(false),
                supports_reasoning_effort: Some(false),
                supports_usage_in_streaming: Some(true),
                supports_strict_mode: Some(false),
                max_tokens_field: Some("max_tokens".into()),
                thinking_format: reasoning.then(|| "qwen-chat-template".into()),
                ..ModelCompat::default()
            }),
            ..Model::default()
        }
    }
}

/// `value` as the router's URL: http(s) only, without query, fragment, trailing slashes or a
/// trailing `/v1` (pi's `normalizeLlamaServerUrl`).
pub fn normalize_server_url(value: &str) -> Result<String, LlamaError> {
    let mut url =
        reqwest::Url::parse(value.trim()).map_err(|_| LlamaError::Url(value.trim().into()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(LlamaError::Scheme);
    }
    url.set_fragment(None);
    url.set_query(None);
    let path = url.path().trim_end_matches('/');
    let path = path.strip_suffix("/v1").unwrap_or(path).to_string();
    url.set_path(if path.is_empty() { "/" } else { &path });
    Ok(url.as_str().trim_end_matches('/').to_string())
}

/// The configured router from `LLAMA_BASE_URL` (`None` when unset or not a URL).
pub fn server_from_env(env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    env(BASE_URL_ENV)
        .filter(|v| !v.trim().is_empty())
        .and_then(|v| normalize_server_url(&v).ok())
}

/// A client of one router.
#[derive(Debug, Clone)]
pub struct LlamaClient {
    server_url: String,
    api_key: Option<String>,
}

impl LlamaClient {
    /// A client of the router at `server_url` (normalized), sending `api_key` if any.
    pub fn new(server_url: &str, api_key: Option<String>) -> Result<Self, LlamaError> {
        Ok(Self {
            server_url: normalize_server_url(server_url)?,
            api_key: api_key.filter(|k| !k.is_empty() && k != NO_KEY),
        })
    }

    /// The router's URL, normalized.
    pub fn server_url(&self) -> &str {
        &self.server_url
    }

    async fn request(&self, path: &str, body: Option<Value>) -> Result<Value, LlamaError> {
        let url = format!("{}{path}", self.server_url);
        let client = crate::http::client();
        let mut request = match &body {
            Some(body) => client
                .post(&url)
                .header("content-type", "application/json")
                .body(body.to_string()),
            None => client.get(&url),
        }
        .timeout(REQUEST_TIMEOUT);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.map_err(|e| LlamaError::Unreachable {
            url: self.server_url.clone(),
            detail: crate::providers::error_chain(&e),
        })?;
        let status = response.status();
        let bytes = response.bytes().await.unwrap_or_default();
        let payload: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        if !status.is_success() {
            let message = payload
                .pointer("/error/message")
                .and_then(Value::as_str)
                .filter(|m| !m.is_empty())
                .map(str::to_string);
            return Err(LlamaError::Server(message.unwrap_or_else(|| {
                format!("llama.cpp returned HTTP {}", status.as_u16())
            })));
        }
        Ok(payload)
    }

    /// The router's models (`GET /models`).
    pub async fn list(&self) -> Result<Vec<RouterModel>, LlamaError> {
        let payload = self.request("/models", None).await?;
        let data = payload
            .get("data")
            .and_then(Value::as_array)
            .ok_or(LlamaError::InvalidCatalog)?;
        data.iter()
            .map(|m| serde_json::from_value(m.clone()).map_err(|_| LlamaError::NotRouter))
            .collect()
    }

    /// `GET /props`, for `model` without waking it; `(models_autoload, chat_template)`.
    async fn props(&self, model: Option<&str>) -> (Option<bool>, Option<String>) {
        let path = match model {
            Some(m) => {
                let query: String = reqwest::Url::parse_with_params(
                    "http://x/props",
                    &[("model", m), ("autoload", "false")],
                )
                .ok()
                .and_then(|u| u.query().map(str::to_string))
                .unwrap_or_default();
                format!("/props?{query}")
            }
            None => "/props".into(),
        };
        let Ok(props) = self.request(&path, None).await else {
            return (None, None);
        };
        (
            props.get("models_autoload").and_then(Value::as_bool),
            props
                .get("chat_template")
                .and_then(Value::as_str)
                .map(str::to_string),
        )
    }

    /// The models `/model` offers, as pi 1.6 builds them: the loaded and sleeping chat models
    /// (and unloaded presets when the router autoloads), the loaded ones with thinking when
    /// their chat template has it.
    pub async fn chat_models(&self) -> Result<Vec<Model>, LlamaError> {
        let catalog = self.list().await?;
        let has_presets = catalog
            .iter()
            .any(|m| m.status.value == "unloaded" && m.source.as_deref() == Some("preset"));
        let autoload = has_presets && self.props(None).await.0 == Some(true);
        let mut models = Vec::new();
        for m in catalog
            .iter()
            .filter(|m| m.is_selectable(autoload) && m.is_chat())
        {
            // Only a loaded model shows its template without being woken or loaded.
            let template = match m.status.value.as_str() {
                "loaded" => self.props(Some(&m.id)).await.1,
                _ => None,
            };
            models.push(m.to_model(&self.server_url, template.as_deref()));
        }
        Ok(models)
    }

    /// Asks the router to load `model` (`POST /models/load`).
    pub async fn load(&self, model: &str) -> Result<(), LlamaError> {
        let body = json!({ "model": model });
        self.request("/models/load", Some(body)).await.map(drop)
    }

    /// Asks the router to unload `model` (`POST /models/unload`).
    pub async fn unload(&self, model: &str) -> Result<(), LlamaError> {
        let body = json!({ "model": model });
        self.request("/models/unload", Some(body)).await.map(drop)
    }

    /// Loads `model` and waits until the router lists it loaded; a failed load or an exited
    /// model process is the error. Dropping the future stops waiting (the router goes on).
    pub async fn load_and_wait(&self, model: &str) -> Result<(), LlamaError> {
        self.load(model).await?;
        loop {
            let listed = self.list().await?;
            match listed.iter().find(|m| m.id == model) {
                Some(m) if m.status.value == "loaded" => return Ok(()),
                Some(m) if m.status.failed == Some(true) => {
                    return Err(m
                        .status
                        .exit_code
                        .map_or(LlamaError::LoadFailed, LlamaError::Exited))
                }
                _ => tokio::time::sleep(POLL).await,
            }
        }
    }

    /// Unloads `model` and waits until the router lists it unloaded (or no more).
    pub async fn unload_and_wait(&self, model: &str) -> Result<(), LlamaError> {
        self.unload(model).await?;
        loop {
            let listed = self.list().await?;
            match listed.iter().find(|m| m.id == model) {
                Some(m) if m.status.value != "unloaded" => tokio::time::sleep(POLL).await,
                _ => return Ok(()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_urls_are_normalized_as_pi_does() {
        let n = |u: &str| normalize_server_url(u);
        assert_eq!(
            n(" http://127.0.0.1:9931/ ").as_deref(),
            Ok("http://127.0.0.1:9931")
        );
        assert_eq!(n("http://h:1/v1/?x=1#y").as_deref(), Ok("http://h:1"));
        assert_eq!(n("https://h/base/v1").as_deref(), Ok("https://h/base"));
        assert_eq!(n("ftp://h"), Err(LlamaError::Scheme));
        assert!(matches!(n("not a url"), Err(LlamaError::Url(_))));
    }

    #[test]
    fn a_router_model_becomes_pis_model() {
        let m: RouterModel = serde_json::from_value(json!({
            "id": "qwen3-8b", "status": {"value": "loaded", "args": ["-c", "32768"]},
            "architecture": {"input_modalities": ["text", "image"]}
        }))
        .expect("router model");
        let model = m.to_model("http://h:1", Some("{% if enable_thinking %}"));
        assert_eq!(
            (
                model.provider.as_str(),
                model.base_url.as_str(),
                model.context_window
            ),
            ("llama.cpp", "http://h:1/v1", 32_768)
        );
        assert_eq!(model.max_tokens, 32_768);
        assert!(model.reasoning && model.supports_images());
        let compat = model.compat();
        assert_eq!(
            compat.thinking_format.as_deref(),
            Some("qwen-chat-template")
        );
        assert_eq!(compat.max_tokens_field.as_deref(), Some("max_tokens"));
        let plain = m.to_model("http://h:1", None);
        assert!(!plain.reasoning && plain.thinking_level_map.is_none());
    }

    #[test]
    fn only_loaded_sleeping_and_autoloaded_preset_chat_models_are_offered() {
        let m = |status: &str, source: &str, outputs: &[&str]| -> RouterModel {
            serde_json::from_value(json!({
                "id": "m", "status": {"value": status}, "source": source,
                "architecture": {"output_modalities": outputs}
            }))
            .expect("router model")
        };
        assert!(m("loaded", "cache", &["text"]).is_selectable(false));
        assert!(m("sleeping", "cache", &["text"]).is_selectable(false));
        assert!(!m("unloaded", "preset", &["text"]).is_selectable(false));
        assert!(m("unloaded", "preset", &["text"]).is_selectable(true));
        assert!(!m("unloaded", "cache", &["text"]).is_selectable(true));
        assert!(!m("loaded", "cache", &["decisions"]).is_chat());
        assert!(m("loaded", "cache", &["decisions", "text"]).is_chat());
    }
}
