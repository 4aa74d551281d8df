//! The built-in model catalog (providers spec §8) and lookups over it.
//!
//! The catalog holds the spec's seed rows; models.json ([`crate::models_json`]) adds and
//! overrides models on top. Selection by user patterns (`--model`, `--models`,
//! `--list-models`) lives in [`select`] and works on any model list, built-in or merged.

mod data;
pub mod select;

use std::sync::LazyLock;

pub(crate) use data::COPILOT_HEADERS;
pub use data::{provider_info, ProviderInfo, DEFAULT_MODELS, PROVIDERS};

use crate::model::Model;

static MODELS: LazyLock<Vec<Model>> = LazyLock::new(data::build_models);

/// Every built-in model, grouped by provider in catalog order.
pub fn builtin_models() -> &'static [Model] {
    &MODELS
}

/// The built-in model `id` of `provider` (exact, case-sensitive ids as the APIs expect).
pub fn builtin_model(provider: &str, id: &str) -> Option<&'static Model> {
    MODELS.iter().find(|m| m.provider == provider && m.id == id)
}

/// The built-in models of `provider`.
pub fn builtin_models_for(provider: &str) -> impl Iterator<Item = &'static Model> + '_ {
    MODELS.iter().filter(move |m| m.provider == provider)
}

/// Whether `id` names a built-in provider.
pub fn is_builtin_provider(id: &str) -> bool {
    provider_info(id).is_some()
}

/// The preferred model id of `provider` for fallback selection, if it has one.
pub fn default_model_id(provider: &str) -> Option<&'static str> {
    DEFAULT_MODELS
        .iter()
        .find(|(p, _)| *p == provider)
        .map(|(_, id)| *id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{InputKind, ThinkingLevel};
    use crate::usage::Usage;

    #[test]
    fn seed_rows_are_complete_and_unique() {
        let required = [
            "anthropic",
            "openai",
            "google",
            "openrouter",
            "groq",
            "xai",
            "mistral",
            "cerebras",
        ];
        for provider in required {
            assert!(builtin_models_for(provider).count() >= 2, "{provider}");
        }
        let mut keys: Vec<(String, String)> = builtin_models()
            .iter()
            .map(|m| (m.provider.clone(), m.id.clone()))
            .collect();
        let before = keys.len();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), before, "duplicate (provider, id)");
        for m in builtin_models() {
            assert!(m.context_window > 0 && m.max_tokens > 0, "{}", m.id);
            assert!(!m.name.is_empty() && !m.base_url.is_empty(), "{}", m.id);
        }
    }

    #[test]
    fn rows_carry_the_spec_values() {
        let m = builtin_model("anthropic", "claude-sonnet-4-5").expect("seeded");
        assert_eq!(m.api, "anthropic-messages");
        assert_eq!(m.base_url, "https://api.anthropic.com");
        assert_eq!((m.context_window, m.max_tokens), (200_000, 64_000));
        assert_eq!(m.input, vec![InputKind::Text, InputKind::Image]);
        // §7's worked example: 412 / 9 / 1800 tokens cost 0.001911 USD.
        let mut usage = Usage {
            input: 412,
            output: 9,
            cache_read: 1800,
            ..Usage::default()
        };
        usage.compute_cost(&m.cost);
        assert!(
            (usage.cost.total - 0.001911).abs() < 1e-12,
            "{}",
            usage.cost.total
        );

        let grok = builtin_model("xai", "grok-4").expect("seeded");
        assert_eq!(grok.base_url, "https://api.x.ai/v1");
        assert_eq!(grok.input, vec![InputKind::Text]);
        let ds = builtin_model("deepseek", "deepseek-v4-pro").expect("seeded");
        let compat = ds.compat.as_ref().expect("deepseek compat");
        assert_eq!(compat.thinking_format.as_deref(), Some("deepseek"));
        assert_eq!(
            compat.requires_reasoning_content_on_assistant_messages,
            Some(true)
        );
        let copilot = builtin_model("github-copilot", "gpt-4.1").expect("seeded");
        assert_eq!(copilot.api, "openai-completions");
        let headers = copilot.headers.as_ref().expect("copilot headers");
        assert_eq!(headers["Copilot-Integration-Id"], "vscode-chat");
        assert_eq!(
            builtin_model("mistral", "devstral-2512").map(|m| m.api.as_str()),
            Some("mistral-conversations")
        );
    }

    #[test]
    fn thinking_maps_give_the_spec_levels() {
        use ThinkingLevel::*;
        let levels = |p: &str, id: &str| {
            builtin_model(p, id)
                .expect("seeded")
                .supported_thinking_levels()
        };
        assert_eq!(levels("openai", "gpt-5"), vec![Minimal, Low, Medium, High]);
        assert_eq!(
            levels("openai", "gpt-5.4"),
            vec![Minimal, Low, Medium, High, Xhigh]
        );
        assert_eq!(levels("google", "gemini-3.1-pro-preview"), vec![Low, High]);
        assert_eq!(levels("groq", "qwen/qwen3-32b"), vec![Off, High]);
        assert_eq!(levels("anthropic", "claude-3-5-haiku-latest"), vec![Off]);
        let opus = builtin_model("anthropic", "claude-opus-4-6").expect("seeded");
        assert_eq!(opus.thinking_wire_value(Xhigh), "max");
    }

    #[test]
    fn lookups() {
        assert!(builtin_model("anthropic", "gpt-5").is_none());
        assert!(is_builtin_provider("cerebras"));
        assert!(!is_builtin_provider("ollama"));
        assert_eq!(default_model_id("anthropic"), Some("claude-opus-4-7"));
        assert_eq!(
            provider_info("openrouter").map(|p| p.base_url),
            Some("https://openrouter.ai/api/v1")
        );
    }
}
