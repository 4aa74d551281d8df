//! What a caller can ask of one provider call (providers spec §1.5).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::Value;

use tokio_util::sync::CancellationToken;

use crate::model::ThinkingLevel;

/// How long the provider should keep the prompt cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CacheRetention {
    /// No cache markers.
    None,
    /// The provider's default (about five minutes).
    #[default]
    Short,
    /// One hour / 24 hours where supported.
    Long,
}

impl CacheRetention {
    /// The default: `long` when `PI_CACHE_RETENTION=long`, else `short`.
    pub fn from_env() -> Self {
        match std::env::var("PI_CACHE_RETENTION").as_deref() {
            Ok("long") => CacheRetention::Long,
            _ => CacheRetention::Short,
        }
    }
}

/// Token budgets per thinking level for budget-based APIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ThinkingBudgets {
    /// Override for `minimal`.
    pub minimal: Option<u64>,
    /// Override for `low`.
    pub low: Option<u64>,
    /// Override for `medium`.
    pub medium: Option<u64>,
    /// Override for `high`.
    pub high: Option<u64>,
}

impl ThinkingBudgets {
    /// Tokens always left for the answer when a budget shares the output cap (pi 1.6).
    pub const MIN_ANSWER_TOKENS: u64 = 1024;

    /// The budget of `level`: the override, else pi's default (1024, 2048, 8192, 16384);
    /// `xhigh` and `max` take `high`'s.
    pub fn for_level(&self, level: ThinkingLevel) -> u64 {
        match level {
            ThinkingLevel::Off | ThinkingLevel::Minimal => self.minimal.unwrap_or(1024),
            ThinkingLevel::Low => self.low.unwrap_or(2048),
            ThinkingLevel::Medium => self.medium.unwrap_or(8192),
            _ => self.high.unwrap_or(16_384),
        }
    }

    /// The budget of `level` with room left for the answer under `ceiling` output tokens.
    pub fn within(&self, level: ThinkingLevel, ceiling: u64) -> u64 {
        self.for_level(level)
            .min(ceiling.saturating_sub(Self::MIN_ANSWER_TOKENS))
    }
}

/// Options of one call. `cancel` aborts it: the stream then ends with `aborted`.
#[derive(Debug, Clone, Default)]
pub struct StreamOptions {
    /// The key; when `None` the provider's environment variables are tried.
    pub api_key: Option<String>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Output token cap; defaults to the model's `maxTokens`. Either is fitted into the
    /// context window before the request is built ([`crate::output_cap`]).
    pub max_tokens: Option<u64>,
    /// Thinking level; `None` or `Off` sends no reasoning option.
    pub reasoning: Option<ThinkingLevel>,
    /// Budget overrides for budget-based thinking.
    pub thinking_budgets: ThinkingBudgets,
    /// Prompt-cache retention.
    pub cache_retention: CacheRetention,
    /// Session id for cache keys and affinity headers.
    pub session_id: Option<String>,
    /// Extra headers, applied last (they override everything).
    pub headers: BTreeMap<String, String>,
    /// Abort signal.
    pub cancel: CancellationToken,
    /// Whole-request timeout, streaming included (default 10 minutes; pi's
    /// `retry.provider.timeoutMs`).
    pub timeout: Option<Duration>,
    /// Longest wait for the response headers or for the next SSE event; keep-alive comments
    /// do not count as progress (default [`DEFAULT_IDLE_TIMEOUT`]; pi's `httpIdleTimeoutMs`).
    pub idle_timeout: Option<Duration>,
    /// Hooks around the HTTP exchange (extensions' `before_provider_request` and
    /// `after_provider_response`).
    pub hooks: RequestHooks,
    /// pi's `retry.provider.maxRetries` (default 0): a request that fails before its stream
    /// starts (408, 409, 429, 5xx, a connection error) is sent again this many times at most.
    pub max_retries: u32,
    /// pi's `retry.provider.maxRetryDelayMs`: the longest server-requested wait honoured
    /// (`None`: 60 s; 0: no limit).
    pub max_retry_delay_ms: Option<u64>,
}

/// The idle timeout when none is set: pi's `httpIdleTimeoutMs` default (5 minutes).
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// Rewrites the request body just before it is sent.
pub type PayloadHook = Arc<dyn Fn(Value) -> BoxFuture<'static, Value> + Send + Sync>;

/// Rewrites the request's headers (name, value) just before it is sent.
pub type HeadersHook =
    Arc<dyn Fn(Vec<(String, String)>) -> BoxFuture<'static, Vec<(String, String)>> + Send + Sync>;

/// Sees the response status and headers before the body is read.
pub type ResponseHook =
    Arc<dyn Fn(u16, Vec<(String, String)>) -> BoxFuture<'static, ()> + Send + Sync>;

/// Sees each parsed event of the reply's stream (its JSON), awaited before the event is
/// folded into the reply.
pub type StreamEventHook = Arc<dyn Fn(Value) -> BoxFuture<'static, ()> + Send + Sync>;

/// Asked once when the provider answers 401 to a request that carried `key`: a fresh key to
/// retry with (a refreshed OAuth token), `Ok(None)` when there is none (an API key), or the
/// text to fail with (the refresh failed).
pub type UnauthorizedHook =
    Arc<dyn Fn(String) -> BoxFuture<'static, Result<Option<String>, String>> + Send + Sync>;

/// Optional hooks around one HTTP exchange.
#[derive(Clone, Default)]
pub struct RequestHooks {
    /// Runs once the headers are assembled, before the payload hook.
    pub before_headers: Option<HeadersHook>,
    /// Runs after the payload is built, before it is sent.
    pub before_request: Option<PayloadHook>,
    /// Runs after the response headers arrived, before the body is consumed.
    pub after_response: Option<ResponseHook>,
    /// Runs when the provider rejects the key (HTTP 401), before any event of the reply.
    pub on_unauthorized: Option<UnauthorizedHook>,
    /// Runs for every stream event that carries JSON, in stream order (extensions'
    /// `provider_stream_event`).
    pub on_stream_event: Option<StreamEventHook>,
}

impl std::fmt::Debug for RequestHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestHooks")
            .field("before_headers", &self.before_headers.is_some())
            .field("before_request", &self.before_request.is_some())
            .field("after_response", &self.after_response.is_some())
            .field("on_unauthorized", &self.on_unauthorized.is_some())
            .field("on_stream_event", &self.on_stream_event.is_some())
            .finish()
    }
}

impl StreamOptions {
    /// The reasoning level actually requested (`None` when off).
    pub fn thinking(&self) -> Option<ThinkingLevel> {
        self.reasoning.filter(|l| *l != ThinkingLevel::Off)
    }
}
