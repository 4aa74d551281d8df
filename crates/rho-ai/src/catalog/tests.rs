use super::*;
use crate::model::{InputKind, ThinkingLevel};
use crate::usage::Usage;

#[test]
fn the_tables_hold_every_model_pi_lists_per_provider() {
    let mut total = 0;
    for (provider, expected) in source_counts() {
        let built = builtin_models_for(provider).count();
        assert_eq!(built, expected, "{provider}");
        assert_eq!(provider_models(provider).map(|m| m.len()), Some(expected));
        total += expected;
    }
    assert_eq!(builtin_models().len(), total);
    // pi 1.6.0: 1,698 chat models; 43 providers, TypeSafe's with classifiers only.
    assert_eq!((source_counts().count(), total), (43, 1698));
    assert_eq!(provider_models("typesafe").map(|m| m.len()), Some(0));
    let source = source();
    assert_eq!(
        (source.package, source.version),
        ("@earendil-works/pi-ai", "1.6.0")
    );
}

#[test]
fn ids_are_unique_and_rows_complete() {
    let mut keys: Vec<(&str, &str)> = builtin_models()
        .iter()
        .map(|m| (m.provider.as_str(), m.id.as_str()))
        .collect();
    let before = keys.len();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(keys.len(), before, "duplicate (provider, id)");
    for m in builtin_models() {
        assert!(m.context_window > 0 && m.max_tokens > 0, "{}", m.id);
        assert!(!m.name.is_empty() && !m.api.is_empty(), "{}", m.id);
        // Azure's endpoint comes from AZURE_OPENAI_BASE_URL or the resource name at request
        // time; every other model names its own.
        assert_eq!(m.base_url.is_empty(), m.provider == "azure", "{}", m.id);
        assert!(m.input.contains(&InputKind::Text), "{}", m.id);
    }
}

#[test]
fn one_model_built_alone_equals_its_row_in_the_list() {
    for m in builtin_models() {
        assert_eq!(find_builtin(&m.provider, &m.id).as_ref(), Some(m));
    }
    assert!(find_builtin("anthropic", "gpt-5").is_none());
    assert!(find_builtin("nowhere", "gpt-5").is_none());
}

#[test]
fn rows_carry_pis_values() {
    let m = builtin_model("anthropic", "claude-opus-4-6").expect("in pi's catalog");
    assert_eq!(m.api, "anthropic-messages");
    assert_eq!(m.base_url, "https://api.anthropic.com");
    assert_eq!((m.context_window, m.max_tokens), (1_000_000, 128_000));
    assert_eq!(m.input, vec![InputKind::Text, InputKind::Image]);
    assert_eq!(
        (
            m.cost.input,
            m.cost.output,
            m.cost.cache_read,
            m.cost.cache_write
        ),
        (5.0, 25.0, 0.5, 6.25)
    );
    assert_eq!(m.prompt_cache.and_then(|p| p.long), Some(3600));
    let limits = m.input_limits.expect("input limits");
    assert_eq!(limits.max_request_bytes, Some(33_554_432));
    assert_eq!(
        limits
            .images
            .and_then(|i| i.resize)
            .and_then(|r| r.max_width),
        Some(2000)
    );
    assert_eq!(
        m.compat.as_ref().and_then(|c| c.force_adaptive_thinking),
        Some(true)
    );

    let ds = builtin_model("deepseek", "deepseek-v4-pro").expect("in pi's catalog");
    let compat = ds.compat.as_ref().expect("deepseek compat");
    assert_eq!(compat.thinking_format.as_deref(), Some("deepseek"));
    assert_eq!(
        compat.requires_reasoning_content_on_assistant_messages,
        Some(true)
    );
    let copilot = builtin_models_for("github-copilot")
        .next()
        .expect("copilot");
    let headers = copilot.headers.as_ref().expect("copilot headers");
    assert_eq!(headers["Copilot-Integration-Id"], "vscode-chat");
    assert_eq!(
        builtin_model("mistral", "devstral-2512").map(|m| m.api.as_str()),
        Some("mistral-conversations")
    );
    let fable = builtin_model("anthropic", "claude-fable-5").expect("in pi's catalog");
    let fallbacks = fable
        .compat
        .as_ref()
        .and_then(|c| c.allowed_fallback_models.clone());
    assert_eq!(fallbacks.expect("json flag")[0]["model"], "claude-opus-4-8");
}

#[test]
fn a_long_prompt_costs_its_tiers_prices() {
    // gpt-5.4: 2.5 / 15 per million, 5 / 22.5 above 272K prompt tokens.
    let m = builtin_model("openai", "gpt-5.4").expect("in pi's catalog");
    assert_eq!(m.cost.tiers.len(), 1);
    let cost = |input: u64, cache_read: u64| {
        let mut usage = Usage {
            input,
            output: 1000,
            cache_read,
            ..Usage::default()
        };
        usage.compute_cost(&m.cost);
        usage.cost.total
    };
    assert!((cost(100_000, 0) - (0.25 + 0.015)).abs() < 1e-12);
    // Cache reads count toward the threshold: 200K + 100K tokens is past it.
    let tiered = 200_000.0 * 5.0 / 1e6 + 1000.0 * 22.5 / 1e6 + 100_000.0 * 0.5 / 1e6;
    assert!((cost(200_000, 100_000) - tiered).abs() < 1e-12);
}

#[test]
fn thinking_maps_give_pis_levels() {
    use ThinkingLevel::*;
    let levels = |p: &str, id: &str| {
        builtin_model(p, id)
            .expect("in pi's catalog")
            .supported_thinking_levels()
    };
    // {max: "max"}: xhigh is unmapped, so only max joins the usual levels.
    assert_eq!(
        levels("anthropic", "claude-opus-4-6"),
        vec![Off, Minimal, Low, Medium, High, Max]
    );
    // {off: "none", minimal: null, ..., xhigh: "xhigh", max: null}.
    assert_eq!(
        levels("openai", "gpt-5.4"),
        vec![Off, Low, Medium, High, Xhigh]
    );
    assert_eq!(levels("mistral", "devstral-2512"), vec![Off]);
    let gpt = builtin_model("openai", "gpt-5.4").expect("in pi's catalog");
    assert_eq!(gpt.thinking_wire_value(Off), "none");
}

#[test]
fn defaults_and_providers() {
    assert_eq!(default_model_id("anthropic"), Some("claude-opus-5-5"));
    assert_eq!(default_model_id("azure"), Some("gpt-6.2-sol"));
    for (provider, id) in DEFAULT_MODELS {
        assert!(find_builtin(provider, id).is_some(), "{provider}/{id}");
    }
    assert!(is_builtin_provider("together"));
    assert!(
        !is_builtin_provider("azure-openai-responses"),
        "pi 1.6 calls it azure"
    );
    assert!(!is_builtin_provider("ollama"));
    assert_eq!(
        provider_info("openrouter").map(|p| p.base_url),
        Some("https://openrouter.ai/api/v1")
    );
    assert_eq!(provider_info("nvidia").map(|p| p.name), Some("NVIDIA"));
}
