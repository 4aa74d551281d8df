//! What a caller can ask of one provider call (providers spec §1.5).

use std::collections::BTreeMap;
use std::time::Duration;

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

/// Options of one call. `cancel` aborts it: the stream then ends with `aborted`.
#[derive(Debug, Clone, Default)]
pub struct StreamOptions {
    /// The key; when `None` the provider's environment variables are tried.
    pub api_key: Option<String>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Output token cap; defaults to `min(model.maxTokens, 32000)`.
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
    /// Whole-request timeout (default 10 minutes).
    pub timeout: Option<Duration>,
}

impl StreamOptions {
    /// The reasoning level actually requested (`None` when off).
    pub fn thinking(&self) -> Option<ThinkingLevel> {
        self.reasoning.filter(|l| *l != ThinkingLevel::Off)
    }
}
