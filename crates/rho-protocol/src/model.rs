//! The model record, its prices, compat flags, and thinking levels.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Prices in USD per 1,000,000 tokens.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ModelCost {
    /// Uncached input.
    #[serde(default)]
    pub input: f64,
    /// Output.
    #[serde(default)]
    pub output: f64,
    /// Cache hits.
    #[serde(default)]
    pub cache_read: f64,
    /// Cache writes.
    #[serde(default)]
    pub cache_write: f64,
}

/// What a model accepts as input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum InputKind {
    /// Text.
    Text,
    /// Images.
    Image,
}

/// Per-API compatibility flags. One struct holds the union of the Chat Completions,
/// Responses and Anthropic flag sets (providers spec §3.1-§3.3); every field is optional so
/// that an absent flag falls back to auto-detection.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ModelCompat {
    /// Chat Completions: send `"store": false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_store: Option<bool>,
    /// Chat Completions: use the `developer` role for reasoning models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_developer_role: Option<bool>,
    /// Chat Completions: allow `reasoning_effort`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_reasoning_effort: Option<bool>,
    /// Chat Completions: send `stream_options.include_usage`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_usage_in_streaming: Option<bool>,
    /// Chat Completions: `max_completion_tokens` or `max_tokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens_field: Option<String>,
    /// Chat Completions: add `name` to `tool` messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_tool_result_name: Option<bool>,
    /// Chat Completions: bridge assistant message between tool results and a user message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_assistant_after_tool_result: Option<bool>,
    /// Chat Completions: replay thinking as plain text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_thinking_as_text: Option<bool>,
    /// Chat Completions: every replayed assistant message carries `reasoning_content`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_reasoning_content_on_assistant_messages: Option<bool>,
    /// Chat Completions: `openai`, `openrouter`, `deepseek`, `zai`, `qwen`, `qwen-chat-template`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_format: Option<String>,
    /// Chat Completions: send `"tool_stream": true` when tools exist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zai_tool_stream: Option<bool>,
    /// Chat Completions: add `"strict": false` to each function.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_strict_mode: Option<bool>,
    /// Chat Completions: `anthropic` for Anthropic-style `cache_control` markers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control_format: Option<String>,
    /// Chat Completions: send session-affinity headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_session_affinity_headers: Option<bool>,
    /// Chat Completions / Responses / Anthropic: allow 24h / 1h cache retention.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_long_cache_retention: Option<bool>,
    /// Chat Completions: OpenRouter `provider` routing object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_router_routing: Option<Value>,
    /// Chat Completions: Vercel gateway routing `{only?, order?}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vercel_gateway_routing: Option<Value>,
    /// Responses: send the `session_id` header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_session_id_header: Option<bool>,
    /// Anthropic: per-tool `eager_input_streaming`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_eager_tool_input_streaming: Option<bool>,
    /// Chat Completions: the top-level field capping reasoning tokens with the
    /// `thinkingBudgets` value of the level (`thinking_token_budget` for vLLM,
    /// `thinking_budget` for Qwen/SGLang, `thinking_budget_tokens` for llama.cpp).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_token_budget_field: Option<String>,
    /// Chat Completions: pi's alias for `thinkingTokenBudgetField: "thinking_token_budget"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_thinking_token_budget: Option<bool>,
}

/// A model the user can talk to: which API and endpoint, what it can do, what it costs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Model {
    /// Provider-side model id (sent on the wire).
    pub id: String,
    /// Human-readable name.
    pub name: String,
    /// Wire dialect, e.g. `anthropic-messages`.
    pub api: String,
    /// Provider entry, e.g. `anthropic`.
    pub provider: String,
    /// Endpoint base URL.
    pub base_url: String,
    /// Whether the model supports thinking/reasoning.
    #[serde(default)]
    pub reasoning: bool,
    /// Per-level wire values; `null` marks a level unsupported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_level_map: Option<BTreeMap<String, Option<String>>>,
    /// Accepted input kinds.
    #[serde(default = "default_input")]
    pub input: Vec<InputKind>,
    /// Prices per million tokens.
    #[serde(default)]
    pub cost: ModelCost,
    /// Context window in tokens.
    #[serde(default = "default_context_window")]
    pub context_window: u64,
    /// Maximum output tokens.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u64,
    /// Extra request headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<BTreeMap<String, String>>,
    /// Compatibility flags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compat: Option<ModelCompat>,
}

fn default_input() -> Vec<InputKind> {
    vec![InputKind::Text]
}
fn default_context_window() -> u64 {
    128_000
}
fn default_max_tokens() -> u64 {
    16_384
}

impl Model {
    /// Whether the model accepts images.
    pub fn supports_images(&self) -> bool {
        self.input.contains(&InputKind::Image)
    }

    /// The compat flags, or all-default ones.
    pub fn compat(&self) -> ModelCompat {
        self.compat.clone().unwrap_or_default()
    }

    /// Levels this model accepts, in order (providers spec §1.6).
    pub fn supported_thinking_levels(&self) -> Vec<ThinkingLevel> {
        if !self.reasoning {
            return vec![ThinkingLevel::Off];
        }
        ThinkingLevel::ALL
            .iter()
            .copied()
            .filter(|level| {
                let mapped = self
                    .thinking_level_map
                    .as_ref()
                    .and_then(|m| m.get(level.as_str()));
                match level {
                    ThinkingLevel::Xhigh | ThinkingLevel::Max => matches!(mapped, Some(Some(_))),
                    _ => !matches!(mapped, Some(None)),
                }
            })
            .collect()
    }

    /// The nearest supported level: the requested one, else the nearest above, else below.
    pub fn clamp_thinking_level(&self, level: ThinkingLevel) -> ThinkingLevel {
        let supported = self.supported_thinking_levels();
        if supported.contains(&level) {
            return level;
        }
        let rank = level as usize;
        supported
            .iter()
            .copied()
            .find(|l| *l as usize > rank)
            .or_else(|| {
                supported
                    .iter()
                    .rev()
                    .copied()
                    .find(|l| (*l as usize) < rank)
            })
            .unwrap_or(ThinkingLevel::Off)
    }

    /// The wire value of a level: the map's string if any, else the level's own name.
    pub fn thinking_wire_value(&self, level: ThinkingLevel) -> String {
        self.thinking_level_map
            .as_ref()
            .and_then(|m| m.get(level.as_str()).cloned().flatten())
            .unwrap_or_else(|| level.as_str().to_string())
    }
}

/// How hard a reasoning model thinks. `Off` means no reasoning option is sent.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum ThinkingLevel {
    /// No reasoning.
    #[default]
    Off,
    /// Minimal.
    Minimal,
    /// Low.
    Low,
    /// Medium.
    Medium,
    /// High.
    High,
    /// Extra high (only where the model's map names it).
    Xhigh,
    /// pi 1.x: the provider's maximum effort (only where the model's map names it).
    Max,
}

impl ThinkingLevel {
    /// Every level, lowest first.
    pub const ALL: [ThinkingLevel; 7] = [
        ThinkingLevel::Off,
        ThinkingLevel::Minimal,
        ThinkingLevel::Low,
        ThinkingLevel::Medium,
        ThinkingLevel::High,
        ThinkingLevel::Xhigh,
        ThinkingLevel::Max,
    ];

    /// The wire/CLI name.
    pub fn as_str(self) -> &'static str {
        match self {
            ThinkingLevel::Off => "off",
            ThinkingLevel::Minimal => "minimal",
            ThinkingLevel::Low => "low",
            ThinkingLevel::Medium => "medium",
            ThinkingLevel::High => "high",
            ThinkingLevel::Xhigh => "xhigh",
            ThinkingLevel::Max => "max",
        }
    }

    /// Parses a level name; `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|l| l.as_str() == s)
    }
}
