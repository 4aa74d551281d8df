//! Tests of models.json loading, validation, merging and secret resolution, on real files.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fs;

use super::*;
use crate::catalog::builtin_models;
use crate::config_value::run_shell;
use crate::model::Model;
use crate::model::{InputKind, ModelCost};
use crate::registry::{Base, ModelRegistry};

fn write(dir: &tempfile::TempDir, text: &str) -> PathBuf {
    let path = dir.path().join("models.json");
    fs::write(&path, text).expect("write models.json");
    path
}

fn find<'a>(models: &'a [Model], provider: &str, id: &str) -> &'a Model {
    models
        .iter()
        .find(|m| m.provider == provider && m.id == id)
        .unwrap_or_else(|| panic!("{provider}/{id} missing"))
}

const OLLAMA: &str = r#"{
  // local models through the OpenAI-compatible endpoint
  "providers": {
    "ollama": {
      "baseUrl": "http://localhost:11434/v1",
      "api": "openai-completions",
      "apiKey": "ollama",
      "compat": { "supportsDeveloperRole": false, "maxTokensField": "max_tokens" },
      "models": [
        { "id": "qwen3:8b" },
        { "id": "llava", "name": "LLaVA", "input": ["text", "image"], "contextWindow": 8192,
          "compat": { "maxTokensField": "max_completion_tokens" }, },
      ],
    },
  },
}"#;

#[test]
fn custom_provider_models_get_spec_defaults() {
    let dir = tempfile::tempdir().expect("tempdir");
    let loaded = ModelRegistry::load(&write(&dir, OLLAMA), Base::Catalog(None));
    assert!(loaded.error().is_none(), "{:?}", loaded.error());
    let all = loaded.all();
    assert_eq!(all.len(), builtin_models().len() + 2);
    let qwen = find(&all, "ollama", "qwen3:8b");
    assert_eq!(qwen.name, "qwen3:8b");
    assert_eq!(qwen.api, "openai-completions");
    assert_eq!(qwen.base_url, "http://localhost:11434/v1");
    assert!(!qwen.reasoning);
    assert_eq!(qwen.input, vec![InputKind::Text]);
    assert_eq!(qwen.cost, ModelCost::default());
    assert_eq!((qwen.context_window, qwen.max_tokens), (128_000, 16_384));
    let compat = qwen.compat.as_ref().expect("provider compat");
    assert_eq!(compat.supports_developer_role, Some(false));
    let llava = find(&all, "ollama", "llava");
    assert_eq!(llava.name, "LLaVA");
    assert!(llava.supports_images());
    assert_eq!(llava.context_window, 8192);
    let compat = llava.compat.as_ref().expect("merged compat");
    assert_eq!(
        compat.max_tokens_field.as_deref(),
        Some("max_completion_tokens")
    );
    assert_eq!(compat.supports_developer_role, Some(false));
    assert_eq!(
        loaded.provider("ollama").and_then(|p| p.api_key),
        Some("ollama".to_string())
    );
}

#[test]
fn builtin_provider_settings_and_overrides() {
    let text = r#"{"providers": {"anthropic": {
        "baseUrl": "https://proxy.example/anthropic",
        "headers": {"X-Team": "TEAM_HEADER_ENV"},
        "compat": {"supportsLongCacheRetention": false},
        "modelOverrides": {
            "claude-sonnet-4-5": {"name": "Sonnet (proxy)", "contextWindow": 1000000,
                "cost": {"input": 2.5}, "thinkingLevelMap": {"minimal": null},
                "compat": {"supportsEagerToolInputStreaming": false}},
            "no-such-model": {"maxTokens": 5}
        },
        "models": [{"id": "claude-opus-4-7", "contextWindow": 50000}]
    }}}"#;
    let config = parse_models_json(text, "models.json").expect("valid");
    let models = merge_models(builtin_models(), &config);
    assert_eq!(models.len(), builtin_models().len(), "upsert, not append");
    let sonnet = find(&models, "anthropic", "claude-sonnet-4-5");
    assert_eq!(sonnet.base_url, "https://proxy.example/anthropic");
    assert_eq!(sonnet.name, "Sonnet (proxy)");
    assert_eq!(sonnet.context_window, 1_000_000);
    assert_eq!(sonnet.cost.input, 2.5);
    assert_eq!(
        sonnet.cost.output, 15.0,
        "partial cost merge keeps the rest"
    );
    assert_eq!(sonnet.thinking_level_map.as_ref().map(|m| m.len()), Some(1));
    let compat = sonnet.compat.as_ref().expect("compat");
    assert_eq!(compat.supports_long_cache_retention, Some(false));
    assert_eq!(compat.supports_eager_tool_input_streaming, Some(false));
    let headers = sonnet.headers.as_ref().expect("headers");
    assert_eq!(
        headers["X-Team"], "TEAM_HEADER_ENV",
        "kept raw until request time"
    );
    // The same-id custom model replaced the built-in one, with custom defaults.
    let opus = find(&models, "anthropic", "claude-opus-4-7");
    assert_eq!(opus.context_window, 50_000);
    assert_eq!(opus.api, "anthropic-messages");
    assert_eq!(opus.base_url, "https://proxy.example/anthropic");
    assert!(!opus.reasoning);
    // Other providers are untouched.
    let gpt = find(&models, "openai", "gpt-5");
    assert_eq!(gpt, find(builtin_models(), "openai", "gpt-5"));
}

#[test]
fn validation_errors_name_the_field() {
    let custom = |model: &str| {
        format!(
            r#"{{"providers": {{"ollama": {{"baseUrl": "http://x", "api": "openai-completions",
            "apiKey": "k", "models": [{{"id": "ok"}}, {model}]}}}}}}"#
        )
    };
    let cases = vec![
        (custom(r#"{"id": "m", "contextWindow": "big"}"#), "providers.ollama.models[1].contextWindow: expected a number"),
        (custom(r#"{"id": "m", "maxTokens": 0}"#), "providers.ollama.models[1].maxTokens: must be greater than 0"),
        (custom(r#"{"id": ""}"#), "providers.ollama.models[1].id: is required (a non-empty string)"),
        (custom(r#"{"name": "x"}"#), "providers.ollama.models[1].id: is required (a non-empty string)"),
        (custom(r#"{"id": "m", "cost": {"input": 1, "output": 2, "cacheRead": 0}}"#), "providers.ollama.models[1].cost.cacheWrite: is required when cost is given"),
        (custom(r#"{"id": "m", "input": ["text", "audio"]}"#), "providers.ollama.models[1].input[1]: expected \"text\" or \"image\""),
        (custom(r#"{"id": "m", "thinkingLevelMap": {"maximum": "x"}}"#), "providers.ollama.models[1].thinkingLevelMap.maximum: unknown thinking level (use off, minimal, low, medium, high, xhigh or max)"),
        (custom(r#"{"id": "m", "compat": {"supportsStore": "no"}}"#), "providers.ollama.models[1].compat.supportsStore: invalid type: string \"no\", expected a boolean"),
        (custom(r#"{"id": "m", "reasoning": 1}"#), "providers.ollama.models[1].reasoning: expected true or false"),
        (custom(r#""m""#), "providers.ollama.models[1]: expected an object"),
        (r#"{"providers": {"x": {"baseUrl": "http://x", "apiKey": "k", "models": [{"id": "m"}]}}}"#.into(), "providers.x.models[0].api: is required (set \"api\" on the provider or on the model)"),
        (r#"{"providers": {"x": {"api": "openai-completions", "apiKey": "k", "models": [{"id": "m"}]}}}"#.into(), "providers.x.baseUrl: is required for a custom provider with models"),
        (r#"{"providers": {"x": {"api": "openai-completions", "baseUrl": "http://x", "models": [{"id": "m"}]}}}"#.into(), "providers.x.apiKey: is required for a custom provider with models (a key, an env var name, or !command)"),
        (r#"{"providers": {"groq": {"name": "Groq"}}}"#.into(), "providers.groq: set \"models\", or at least one of \"baseUrl\", \"headers\", \"compat\", \"modelOverrides\""),
        (r#"{"providers": {"groq": {"headers": {"X": 1}}}}"#.into(), "providers.groq.headers.X: expected a string"),
        (r#"{"providers": {"openai": {"modelOverrides": {"gpt-5": {"contextWindow": -1}}}}}"#.into(), "providers.openai.modelOverrides.gpt-5.contextWindow: must be greater than 0"),
        (r#"{"providers": []}"#.into(), "providers: expected an object"),
        (r#"{}"#.into(), "providers: is required (an object keyed by provider id)"),
        (r#"[]"#.into(), "(root): expected an object"),
    ];
    for (text, expected) in cases {
        let err = parse_models_json(&text, "models.json").expect_err(&text);
        assert_eq!(err.to_string(), format!("models.json: {expected}"));
    }
}

#[test]
fn builtin_providers_may_add_models_without_base_url_or_key() {
    let text = r#"{"providers": {"groq": {"models": [{"id": "new-model"}]}}}"#;
    let config = parse_models_json(text, "models.json").expect("valid");
    let models = merge_models(builtin_models(), &config);
    let m = find(&models, "groq", "new-model");
    assert_eq!(m.api, "openai-completions");
    assert_eq!(m.base_url, "https://api.groq.com/openai/v1");
}

#[test]
fn bad_files_are_ignored_whole_and_reported_with_their_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(&dir, "{\n  \"providers\": {\n    \"a\": {\"baseUrl\": \"x\"},\n    \"b\": {\"name\": \"nothing\"}\n  }\n}");
    let loaded = ModelRegistry::load(&path, Base::Catalog(None));
    assert_eq!(loaded.all().as_slice(), builtin_models());
    assert!(
        loaded.providers().is_empty(),
        "the good provider is ignored too (spec: whole file)"
    );
    let message = loaded.error().expect("error").to_string();
    assert!(
        message.starts_with(&format!("{}: providers.b:", path.display())),
        "{message}"
    );

    let path = write(&dir, "{\n  \"providers\": {\n    \"a\": \n  }\n}");
    let message = read_models_json(&path).1.expect("error").to_string();
    assert_eq!(
        message,
        format!(
            "{}: invalid JSON at line 4, column 3: expected value",
            path.display()
        )
    );

    let missing = read_models_json(&dir.path().join("absent.json"));
    assert!(missing.1.is_none());
    assert!(missing.0.providers.is_empty());

    let unreadable = read_models_json(dir.path());
    assert!(matches!(unreadable.1, Some(ModelsJsonError::Read { .. })));
}

fn provider(api_key: &str) -> ProviderConfig {
    ProviderConfig {
        api_key: Some(api_key.into()),
        ..ProviderConfig::default()
    }
}

fn env(name: &str) -> Option<String> {
    (name == "OLLAMA_KEY").then(|| "from-env".to_string())
}

#[test]
fn api_key_forms_resolve_per_request_uncached() {
    let calls = Cell::new(0);
    let run = |cmd: &str| {
        calls.set(calls.get() + 1);
        run_shell(cmd)
    };
    let resolve = |raw: &str| resolve_provider_api_key("ollama", Some(&provider(raw)), &env, &run);
    assert_eq!(resolve("$OLLAMA_KEY"), Ok(Some("from-env".into())));
    assert_eq!(resolve("${OLLAMA_KEY}"), Ok(Some("from-env".into())));
    // pi 1.x: a bare name is a literal key.
    assert_eq!(resolve("OLLAMA_KEY"), Ok(Some("OLLAMA_KEY".into())));
    assert_eq!(resolve("sk-literal"), Ok(Some("sk-literal".into())));
    assert_eq!(
        resolve("${NOT_SET}").expect_err("unset").to_string(),
        "Failed to resolve API key for provider \"ollama\" from environment variable: NOT_SET"
    );
    assert_eq!(calls.get(), 0);
    if cfg!(unix) {
        assert_eq!(resolve("!printf 'key-%s' 42"), Ok(Some("key-42".into())));
        assert_eq!(resolve("!printf 'key-%s' 42"), Ok(Some("key-42".into())));
        assert_eq!(calls.get(), 2, "no caching for models.json keys");
        assert_eq!(
            resolve("!exit 1").expect_err("fails").to_string(),
            "Failed to resolve API key for provider \"ollama\" from shell command: exit 1"
        );
    }
    assert_eq!(
        resolve_provider_api_key("ollama", None, &env, &run),
        Ok(None)
    );
    assert!(has_configured_api_key(Some(&provider("!never-run"))));
    assert!(!has_configured_api_key(Some(&ProviderConfig::default())));
}

#[test]
fn request_headers_resolve_values_and_add_bearer() {
    let mut model = builtin_models()[0].clone();
    model.provider = "ollama".into();
    model.headers = Some(BTreeMap::from([
        ("X-Env".to_string(), "tenant-$OLLAMA_KEY".to_string()),
        ("X-Cmd".to_string(), "!tenant".to_string()),
        ("X-Lit".to_string(), "plain".to_string()),
    ]));
    let run = |cmd: &str| match cmd {
        "tenant" => Ok("t-1\n".to_string()),
        _ => Err(crate::config_value::ShellError::Exited {
            status: "exit status: 1".to_string(),
            stderr: String::new(),
        }),
    };
    let mut config = provider("k");
    config.auth_header = true;
    let headers =
        resolve_request_headers(&model, Some(&config), Some("sk-1"), &env, &run).expect("resolved");
    let expected: BTreeMap<String, String> = [
        ("Authorization", "Bearer sk-1"),
        ("X-Cmd", "t-1"),
        ("X-Env", "tenant-from-env"),
        ("X-Lit", "plain"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    assert_eq!(headers, expected);
    let err = resolve_request_headers(&model, Some(&config), None, &env, &run).expect_err("no key");
    assert!(matches!(err, ResolveError::MissingKeyForAuthHeader { .. }));
    model.headers = Some(BTreeMap::from([("X-Bad".to_string(), "!oops".to_string())]));
    let err = resolve_request_headers(&model, None, None, &env, &run).expect_err("bad command");
    assert_eq!(
        err.to_string(),
        "Failed to resolve header \"X-Bad\" for provider \"ollama\" from shell command: oops"
    );
}

/// pi 1.6's model fields: read on a custom model as written; on an override merged over the
/// built-in values key by key (the resize profile and prompt-cache times field by field,
/// sampling parameters per key and per level, price tiers replaced), as pi's
/// `applyModelOverride` merges them; a wrong shape names the field.
#[test]
fn input_limits_prompt_cache_sampling_params_and_price_tiers() {
    let text = r#"{"providers": {
      "local": {"baseUrl": "http://127.0.0.1:1/v1", "api": "openai-completions", "apiKey": "k",
        "models": [{"id": "m", "reasoning": true,
          "inputLimits": {"maxRequestBytes": 1000, "images": {"maxPerMessage": 2}},
          "promptCache": {"short": 300},
          "samplingParams": {"top_k": 20},
          "samplingParamsByThinkingLevel": {"high": {"temperature": 0.6}},
          "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0,
                   "tiers": [{"inputTokensAbove": 200000, "input": 2, "output": 4, "cacheRead": 0, "cacheWrite": 0}]}}]},
      "anthropic": {"modelOverrides": {"claude-opus-4-5": {
          "inputLimits": {"images": {"resize": {"maxWidth": 800}}},
          "promptCache": {"long": 7200},
          "samplingParams": {"top_k": 5},
          "cost": {"tiers": []}}}}
    }}"#;
    let config = parse_models_json(text, "models.json").expect("valid");
    let models = ModelRegistry::with_config(Base::Catalog(None), config, None).all();
    let m = find(&models, "local", "m");
    let limits = m.input_limits.expect("input limits");
    assert_eq!(limits.max_request_bytes, Some(1000));
    assert_eq!(limits.images.and_then(|i| i.max_per_message), Some(2));
    assert_eq!(m.prompt_cache.and_then(|p| p.short), Some(300));
    assert_eq!(m.cost.tiers.len(), 1);
    let high = m.sampling_params_for(crate::model::ThinkingLevel::High);
    assert_eq!(
        serde_json::Value::Object(high.expect("params")),
        serde_json::json!({"top_k": 20, "temperature": 0.6})
    );

    let builtin = crate::catalog::find_builtin("anthropic", "claude-opus-4-5").expect("built in");
    let o = find(&models, "anthropic", "claude-opus-4-5");
    let resize = o.input_limits.and_then(|l| l.images).and_then(|i| i.resize);
    let base_resize = builtin
        .input_limits
        .and_then(|l| l.images)
        .and_then(|i| i.resize);
    assert_eq!(resize.and_then(|r| r.max_width), Some(800));
    assert_eq!(
        resize.and_then(|r| r.max_height),
        base_resize.and_then(|r| r.max_height),
        "the other resize fields are the built-in model's"
    );
    assert_eq!(o.prompt_cache.and_then(|p| p.long), Some(7200));
    assert_eq!(
        o.prompt_cache.and_then(|p| p.short),
        builtin.prompt_cache.and_then(|p| p.short)
    );
    assert!(o.cost.tiers.is_empty());
    assert_eq!(o.cost.input, builtin.cost.input);
    assert_eq!(
        o.sampling_params.as_ref().map(|p| p["top_k"].clone()),
        Some(5.into())
    );

    let bad = r#"{"providers": {"anthropic": {"modelOverrides": {"x": {
        "samplingParamsByThinkingLevel": {"huge": {}}}}}}}"#;
    let err = parse_models_json(bad, "models.json").expect_err("unknown level");
    assert!(
        err.to_string()
            .contains("providers.anthropic.modelOverrides.x.samplingParamsByThinkingLevel.huge"),
        "{err}"
    );
    let bad = r#"{"providers": {"anthropic": {"modelOverrides": {"x": {
        "promptCache": {"short": "long"}}}}}}"#;
    let err = parse_models_json(bad, "models.json").expect_err("a number");
    assert!(err.to_string().contains("x.promptCache"), "{err}");
}
