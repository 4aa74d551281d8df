//! The model record, its prices, compat flags, and thinking levels.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Prices in USD per 1,000,000 tokens.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
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
    /// pi 1.x: prices for requests whose prompt (input, cache reads and writes together) is
    /// longer than a threshold; the highest threshold passed wins (see [`ModelCost::rates_for`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tiers: Vec<CostTier>,
}

/// The prices of one long-prompt tier of a [`ModelCost`].
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CostTier {
    /// The tier applies when the prompt has more tokens than this.
    pub input_tokens_above: u64,
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

impl ModelCost {
    /// The four prices (input, output, cache read, cache write) for a request whose prompt has
    /// `prompt_tokens` tokens: the tier with the highest threshold below it, else the base
    /// prices (pi 1.x's `calculateCost`).
    pub fn rates_for(&self, prompt_tokens: u64) -> [f64; 4] {
        let tier = self
            .tiers
            .iter()
            .filter(|t| prompt_tokens > t.input_tokens_above)
            .max_by_key(|t| t.input_tokens_above);
        match tier {
            Some(t) => [t.input, t.output, t.cache_read, t.cache_write],
            None => [self.input, self.output, self.cache_read, self.cache_write],
        }
    }
}

/// pi 1.x: the hard limits of a model's input (`inputLimits`), as its catalog or models.json
/// states them. Carried with the model; what rho does with them is the request's business.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct InputLimits {
    /// The largest request body the provider accepts, in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_request_bytes: Option<u64>,
    /// Limits on images.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub images: Option<ImageLimits>,
}

/// pi 1.x: `inputLimits.images`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ImageLimits {
    /// Most images in one provider message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_per_message: Option<u64>,
    /// Most images in one request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_per_request: Option<u64>,
    /// How images are shrunk before sending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resize: Option<ImageResize>,
}

/// pi 1.x: `inputLimits.images.resize`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ImageResize {
    /// Widest image, in pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_width: Option<u64>,
    /// Tallest image, in pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_height: Option<u64>,
    /// Largest base64-encoded payload, in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    /// JPEG quality when re-encoding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jpeg_quality: Option<u64>,
}

/// pi 1.x: how long the provider keeps a prompt cache (`promptCache`), in seconds, for its
/// short and long retention.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PromptCache {
    /// Short retention, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short: Option<u64>,
    /// Long retention, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub long: Option<u64>,
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
    /// pi 1.x. Chat Completions / Responses / Anthropic: the session-affinity header format (`openai`, `openai-nosession`, `openrouter`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_affinity_format: Option<String>,
    /// pi 1.x. Chat Completions: `chat_template_args` sent with the `baseten` thinking format (`$var` placeholders).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat_template_args: Option<Value>,
    /// pi 1.x. Chat Completions / Responses: OpenAI custom tools with Lark or regex grammars.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        rename = "supportsOpenAIGrammarTools"
    )]
    pub supports_openai_grammar_tools: Option<bool>,
    /// pi 1.x. System or developer messages after the conversation started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_mid_convo_system_messages: Option<bool>,
    /// pi 1.x. System messages may introduce tools mid-conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_mid_convo_tool_additions: Option<bool>,
    /// pi 1.x. Anthropic: the tool set may change mid-conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_mid_convo_tool_changes: Option<bool>,
    /// pi 1.x. Responses: thinking-level changes as `configuration_update` items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_mid_convo_effort: Option<bool>,
    /// pi 1.x. Responses: message-anchored `additional_tools` items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_additional_tools: Option<bool>,
    /// pi 1.x. Responses: client-executed tool search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_tool_search: Option<bool>,
    /// pi 1.x. Responses: the model accepts `prompt_cache_options`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_explicit_prompt_cache_mode: Option<bool>,
    /// pi 1.x. Anthropic: `cache_control` markers on tool definitions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_cache_control_on_tools: Option<bool>,
    /// pi 1.x. Anthropic: the model accepts `temperature`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_temperature: Option<bool>,
    /// pi 1.x. Anthropic: adaptive thinking plus `output_config.effort`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force_adaptive_thinking: Option<bool>,
    /// pi 1.x. Anthropic: replay empty thinking signatures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_empty_signature: Option<bool>,
    /// pi 1.x. Anthropic: strict tool schemas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_strict_tools: Option<bool>,
    /// pi 1.x. Chat Completions: streamed replies carry `finish_reason` (default true); when
    /// false a stream that ends without one is complete, its stop reason inferred.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_finish_reason: Option<bool>,
    /// pi 1.x. Chat Completions: a replayed assistant message without text sends `""`, not
    /// `null`, as its content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_non_null_assistant_content: Option<bool>,
    /// pi 1.x. Chat Completions: vLLM's scheduler `priority`, sent as a top-level field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vllm_priority: Option<f64>,
    /// pi 1.x. Chat Completions / Responses: `auto`, `enabled` or `disabled` for the
    /// `prompt_cache_key` field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_cache_key_mode: Option<String>,
    /// pi 1.x. Responses: the server accepts `max_output_tokens` (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_max_output_tokens: Option<bool>,
    /// pi 1.x. Anthropic: the models the provider may fall back to, with their prices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_fallback_models: Option<Value>,
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
    /// pi 1.x: hard limits of the input (request size, images).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_limits: Option<InputLimits>,
    /// pi 1.x: prompt-cache retention times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_cache: Option<PromptCache>,
    /// pi 1.x: fields merged into every request body of the OpenAI-compatible APIs (last, so
    /// they win over the fields the request builder set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling_params: Option<serde_json::Map<String, Value>>,
    /// pi 1.x: [`Model::sampling_params`] per thinking level, merged over them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling_params_by_thinking_level: Option<BTreeMap<String, serde_json::Map<String, Value>>>,
}

impl Default for Model {
    /// A model with no identity yet and the defaults models.json gives missing fields.
    fn default() -> Self {
        Self {
            id: String::new(),
            name: String::new(),
            api: String::new(),
            provider: String::new(),
            base_url: String::new(),
            reasoning: false,
            thinking_level_map: None,
            input: default_input(),
            cost: ModelCost::default(),
            context_window: default_context_window(),
            max_tokens: default_max_tokens(),
            headers: None,
            compat: None,
            input_limits: None,
            prompt_cache: None,
            sampling_params: None,
            sampling_params_by_thinking_level: None,
        }
    }
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

    /// The fields models.json's `samplingParams` and `samplingParamsByThinkingLevel` add to a
    /// request at `level` (clamped to what the model supports first, as pi does); `None` when
    /// the model sets neither.
    pub fn sampling_params_for(
        &self,
        level: ThinkingLevel,
    ) -> Option<serde_json::Map<String, Value>> {
        let by_level = self
            .sampling_params_by_thinking_level
            .as_ref()
            .and_then(|m| m.get(self.clamp_thinking_level(level).as_str()));
        if self.sampling_params.is_none() && by_level.is_none() {
            return None;
        }
        let mut merged = self.sampling_params.clone().unwrap_or_default();
        merged.extend(
            by_level
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        Some(merged)
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
