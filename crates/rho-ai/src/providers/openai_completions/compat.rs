//! Resolved compat flags for Chat Completions servers (providers spec §3.2).
//!
//! Each flag is auto-detected from the provider name and a substring test on `baseUrl`;
//! every field set in `model.compat` overrides its detected value on its own, so a proxied
//! URL can be fixed one flag at a time.

use serde_json::Value;

use crate::model::Model;

/// Which field carries the output token cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxTokensField {
    /// `max_completion_tokens` (OpenAI's current name).
    MaxCompletionTokens,
    /// `max_tokens` (older servers, Moonshot, Chutes, Cloudflare gateway, local servers).
    MaxTokens,
}

impl MaxTokensField {
    /// The JSON key.
    pub fn key(self) -> &'static str {
        match self {
            MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
            MaxTokensField::MaxTokens => "max_tokens",
        }
    }
}

/// How reasoning is switched on and off in the request body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThinkingFormat {
    /// `reasoning_effort`.
    OpenAi,
    /// `reasoning: {effort}`.
    OpenRouter,
    /// `thinking: {type}` plus `reasoning_effort`.
    DeepSeek,
    /// `enable_thinking` (z.ai).
    Zai,
    /// `enable_thinking` (Qwen/DashScope).
    Qwen,
    /// `chat_template_kwargs: {enable_thinking, preserve_thinking}` (vLLM/SGLang Qwen templates).
    QwenChatTemplate,
}

impl ThinkingFormat {
    /// Parses the `thinkingFormat` compat value; unknown names fall back to `openai`.
    pub fn parse(name: &str) -> Self {
        match name {
            "openrouter" => ThinkingFormat::OpenRouter,
            "deepseek" => ThinkingFormat::DeepSeek,
            "zai" => ThinkingFormat::Zai,
            "qwen" => ThinkingFormat::Qwen,
            "qwen-chat-template" => ThinkingFormat::QwenChatTemplate,
            _ => ThinkingFormat::OpenAi,
        }
    }
}

/// Every Chat Completions compat flag with a definite value.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedCompat {
    /// Send `"store": false`.
    pub supports_store: bool,
    /// Use the `developer` role for the system prompt of reasoning models.
    pub supports_developer_role: bool,
    /// Allow `reasoning_effort`.
    pub supports_reasoning_effort: bool,
    /// Send `stream_options.include_usage`.
    pub supports_usage_in_streaming: bool,
    /// The output-cap field.
    pub max_tokens_field: MaxTokensField,
    /// Add `name` to `tool` messages.
    pub requires_tool_result_name: bool,
    /// Bridge tool results and a following user message with an assistant message.
    pub requires_assistant_after_tool_result: bool,
    /// Replay thinking as a text part.
    pub requires_thinking_as_text: bool,
    /// Every replayed assistant message of a reasoning model carries `reasoning_content`.
    pub requires_reasoning_content_on_assistant_messages: bool,
    /// How reasoning is requested.
    pub thinking_format: ThinkingFormat,
    /// Send `"tool_stream": true` when tools exist.
    pub zai_tool_stream: bool,
    /// Add `"strict": false` to each function.
    pub supports_strict_mode: bool,
    /// Put Anthropic-style `cache_control` markers in the body.
    pub anthropic_cache_control: bool,
    /// Send session-affinity headers when caching is on.
    pub send_session_affinity_headers: bool,
    /// Allow 24h prompt-cache retention / 1h cache markers.
    pub supports_long_cache_retention: bool,
    /// OpenRouter `provider` routing object.
    pub open_router_routing: Option<Value>,
    /// Vercel AI Gateway routing `{only?, order?}`.
    pub vercel_gateway_routing: Option<Value>,
    /// The top-level field capping reasoning tokens (`thinkingTokenBudgetField`).
    pub thinking_token_budget_field: Option<String>,
    /// Streamed replies carry `finish_reason`; when false, a stream without one is complete.
    pub supports_finish_reason: bool,
    /// A replayed assistant message without text sends `""` rather than `null`.
    pub requires_non_null_assistant_content: bool,
    /// vLLM's scheduler `priority`.
    pub vllm_priority: Option<f64>,
    /// When `prompt_cache_key` is sent.
    pub prompt_cache_key_mode: PromptCacheKeyMode,
}

/// pi 1.6's `promptCacheKeyMode`: when the request carries `prompt_cache_key`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptCacheKeyMode {
    /// To api.openai.com, or with long retention the server supports.
    Auto,
    /// Whenever caching is on (compatible proxies).
    Enabled,
    /// Never.
    Disabled,
}

/// What the provider name and URL say about the server.
struct Detected<'a> {
    provider: &'a str,
    url: &'a str,
}

impl Detected<'_> {
    fn url_has(&self, needle: &str) -> bool {
        self.url.contains(needle)
    }
    fn xai(&self) -> bool {
        self.provider == "xai" || self.url_has("api.x.ai")
    }
    fn zai(&self) -> bool {
        self.provider == "zai" || self.url_has("api.z.ai")
    }
    fn moonshot(&self) -> bool {
        matches!(self.provider, "moonshotai" | "moonshotai-cn") || self.url_has("api.moonshot.")
    }
    fn deepseek(&self) -> bool {
        self.provider == "deepseek" || self.url_has("deepseek.com")
    }
    fn openrouter(&self) -> bool {
        self.provider == "openrouter" || self.url_has("openrouter.ai")
    }
    fn chutes(&self) -> bool {
        self.url_has("chutes.ai")
    }
    fn cf_workers(&self) -> bool {
        self.provider == "cloudflare-workers-ai" || self.url_has("api.cloudflare.com")
    }
    fn cf_gateway(&self) -> bool {
        self.provider == "cloudflare-ai-gateway" || self.url_has("gateway.ai.cloudflare.com")
    }
    /// Servers that reject OpenAI-only fields (`store`, the `developer` role).
    fn non_standard(&self) -> bool {
        self.provider == "cerebras"
            || self.url_has("cerebras.ai")
            || self.xai()
            || self.chutes()
            || self.url_has("deepseek.com")
            || self.zai()
            || self.moonshot()
            || self.provider == "opencode"
            || self.url_has("opencode.ai")
            || self.cf_workers()
            || self.cf_gateway()
    }
}

/// Whether the endpoint is Cloudflare AI Gateway (it authenticates with `cf-aig-authorization`).
pub fn is_cloudflare_gateway(model: &Model) -> bool {
    Detected {
        provider: &model.provider,
        url: &model.base_url,
    }
    .cf_gateway()
}

/// Detects every flag for `model`, then applies the explicit `model.compat` fields.
pub fn resolve(model: &Model) -> ResolvedCompat {
    let d = Detected {
        provider: &model.provider,
        url: &model.base_url,
    };
    let standard = !d.non_standard();
    let detected_format = if d.deepseek() {
        ThinkingFormat::DeepSeek
    } else if d.zai() {
        ThinkingFormat::Zai
    } else if d.openrouter() {
        ThinkingFormat::OpenRouter
    } else {
        ThinkingFormat::OpenAi
    };
    let detected_max_field = if d.chutes() || d.moonshot() || d.cf_gateway() {
        MaxTokensField::MaxTokens
    } else {
        MaxTokensField::MaxCompletionTokens
    };
    let c = model.compat.as_ref();
    let flag = |get: fn(&crate::model::ModelCompat) -> Option<bool>, default: bool| {
        c.and_then(get).unwrap_or(default)
    };
    ResolvedCompat {
        supports_store: flag(|c| c.supports_store, standard),
        supports_developer_role: flag(|c| c.supports_developer_role, standard),
        supports_reasoning_effort: flag(
            |c| c.supports_reasoning_effort,
            !(d.xai() || d.zai() || d.moonshot() || d.cf_gateway()),
        ),
        supports_usage_in_streaming: flag(|c| c.supports_usage_in_streaming, true),
        max_tokens_field: match c.and_then(|c| c.max_tokens_field.as_deref()) {
            Some("max_tokens") => MaxTokensField::MaxTokens,
            Some("max_completion_tokens") => MaxTokensField::MaxCompletionTokens,
            _ => detected_max_field,
        },
        requires_tool_result_name: flag(|c| c.requires_tool_result_name, false),
        requires_assistant_after_tool_result: flag(
            |c| c.requires_assistant_after_tool_result,
            false,
        ),
        requires_thinking_as_text: flag(|c| c.requires_thinking_as_text, false),
        requires_reasoning_content_on_assistant_messages: flag(
            |c| c.requires_reasoning_content_on_assistant_messages,
            d.deepseek(),
        ),
        thinking_format: c
            .and_then(|c| c.thinking_format.as_deref())
            .map(ThinkingFormat::parse)
            .unwrap_or(detected_format),
        zai_tool_stream: flag(|c| c.zai_tool_stream, false),
        supports_strict_mode: flag(
            |c| c.supports_strict_mode,
            !(d.moonshot() || d.cf_gateway()),
        ),
        anthropic_cache_control: match c.and_then(|c| c.cache_control_format.as_deref()) {
            Some(format) => format == "anthropic",
            None => model.provider == "openrouter" && model.id.starts_with("anthropic/"),
        },
        send_session_affinity_headers: flag(|c| c.send_session_affinity_headers, false),
        supports_long_cache_retention: flag(
            |c| c.supports_long_cache_retention,
            !(d.cf_workers() || d.cf_gateway()),
        ),
        open_router_routing: c.and_then(|c| c.open_router_routing.clone()),
        vercel_gateway_routing: c.and_then(|c| c.vercel_gateway_routing.clone()),
        thinking_token_budget_field: c.and_then(|c| {
            c.thinking_token_budget_field.clone().or_else(|| {
                (c.supports_thinking_token_budget == Some(true))
                    .then(|| "thinking_token_budget".to_string())
            })
        }),
        supports_finish_reason: flag(|c| c.supports_finish_reason, true),
        requires_non_null_assistant_content: flag(|c| c.requires_non_null_assistant_content, false),
        vllm_priority: c.and_then(|c| c.vllm_priority),
        prompt_cache_key_mode: match c.and_then(|c| c.prompt_cache_key_mode.as_deref()) {
            Some("enabled") => PromptCacheKeyMode::Enabled,
            Some("disabled") => PromptCacheKeyMode::Disabled,
            _ => PromptCacheKeyMode::Auto,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ModelCompat;

    fn model(provider: &str, url: &str, id: &str) -> Model {
        serde_json::from_value(serde_json::json!({
            "id": id, "name": id, "api": "openai-completions", "provider": provider, "baseUrl": url
        }))
        .expect("model json")
    }

    /// (provider, url, store, developer, effort, max field, format, strict, long retention)
    type Row = (
        &'static str,
        &'static str,
        bool,
        bool,
        bool,
        MaxTokensField,
        ThinkingFormat,
        bool,
        bool,
    );

    #[test]
    fn detection_table() {
        use MaxTokensField::*;
        use ThinkingFormat as F;
        #[rustfmt::skip]
        let rows: &[Row] = &[
            ("openai", "https://api.openai.com/v1", true, true, true, MaxCompletionTokens, F::OpenAi, true, true),
            ("groq", "https://api.groq.com/openai/v1", true, true, true, MaxCompletionTokens, F::OpenAi, true, true),
            ("ollama", "http://localhost:11434/v1", true, true, true, MaxCompletionTokens, F::OpenAi, true, true),
            ("cerebras", "https://api.cerebras.ai/v1", false, false, true, MaxCompletionTokens, F::OpenAi, true, true),
            ("custom", "https://proxy.cerebras.ai/v1", false, false, true, MaxCompletionTokens, F::OpenAi, true, true),
            ("xai", "https://api.x.ai/v1", false, false, false, MaxCompletionTokens, F::OpenAi, true, true),
            ("custom", "https://llm.chutes.ai/v1", false, false, true, MaxTokens, F::OpenAi, true, true),
            ("deepseek", "https://api.deepseek.com", false, false, true, MaxCompletionTokens, F::DeepSeek, true, true),
            ("deepseek", "http://127.0.0.1:9/v1", true, true, true, MaxCompletionTokens, F::DeepSeek, true, true),
            ("zai", "https://api.z.ai/api/coding/paas/v4", false, false, false, MaxCompletionTokens, F::Zai, true, true),
            ("moonshotai", "https://api.moonshot.ai/v1", false, false, false, MaxTokens, F::OpenAi, false, true),
            ("moonshotai-cn", "https://api.moonshot.cn/v1", false, false, false, MaxTokens, F::OpenAi, false, true),
            ("opencode", "https://opencode.ai/zen/v1", false, false, true, MaxCompletionTokens, F::OpenAi, true, true),
            ("openrouter", "https://openrouter.ai/api/v1", true, true, true, MaxCompletionTokens, F::OpenRouter, true, true),
            ("cloudflare-workers-ai", "https://api.cloudflare.com/client/v4/accounts/a/ai/v1", false, false, true, MaxCompletionTokens, F::OpenAi, true, false),
            ("cloudflare-ai-gateway", "https://gateway.ai.cloudflare.com/v1/a/g/compat", false, false, false, MaxTokens, F::OpenAi, false, false),
        ];
        for (provider, url, store, dev, effort, field, format, strict, long) in rows {
            let c = resolve(&model(provider, url, "m"));
            let got = (
                c.supports_store,
                c.supports_developer_role,
                c.supports_reasoning_effort,
                c.max_tokens_field,
                c.thinking_format,
                c.supports_strict_mode,
                c.supports_long_cache_retention,
            );
            assert_eq!(
                got,
                (*store, *dev, *effort, *field, *format, *strict, *long),
                "{provider} {url}"
            );
            assert!(c.supports_usage_in_streaming, "{provider}");
            assert_eq!(
                c.requires_reasoning_content_on_assistant_messages,
                *provider == "deepseek",
                "{provider}"
            );
        }
    }

    #[test]
    fn openrouter_anthropic_models_get_cache_control() {
        let url = "https://openrouter.ai/api/v1";
        assert!(
            resolve(&model("openrouter", url, "anthropic/claude-sonnet-4.5"))
                .anthropic_cache_control
        );
        assert!(!resolve(&model("openrouter", url, "openai/gpt-5")).anthropic_cache_control);
        assert!(
            !resolve(&model("custom", url, "anthropic/claude-sonnet-4.5")).anthropic_cache_control
        );
    }

    #[test]
    fn explicit_fields_win_one_by_one() {
        let mut m = model("zai", "https://api.z.ai/api/paas/v4", "glm-4.7");
        m.compat = Some(ModelCompat {
            supports_store: Some(true),
            max_tokens_field: Some("max_tokens".into()),
            thinking_format: Some("qwen-chat-template".into()),
            cache_control_format: Some("none".into()),
            ..Default::default()
        });
        let c = resolve(&m);
        assert!(c.supports_store);
        assert_eq!(c.max_tokens_field, MaxTokensField::MaxTokens);
        assert_eq!(c.thinking_format, ThinkingFormat::QwenChatTemplate);
        assert!(!c.anthropic_cache_control);
        // Flags not given keep their detected values.
        assert!(!c.supports_developer_role);
        assert!(!c.supports_reasoning_effort);
    }

    #[test]
    fn explicit_false_overrides_a_detected_true() {
        let mut m = model("ollama", "http://localhost:11434/v1", "qwen3");
        m.compat = Some(ModelCompat {
            supports_developer_role: Some(false),
            supports_usage_in_streaming: Some(false),
            supports_store: Some(false),
            ..Default::default()
        });
        let c = resolve(&m);
        assert!(!c.supports_developer_role && !c.supports_usage_in_streaming && !c.supports_store);
        assert!(c.supports_reasoning_effort);
    }
}
