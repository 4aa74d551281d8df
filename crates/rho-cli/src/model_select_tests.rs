use rho_ai::models_json::parse_models_json;
use rho_ai::registry::{Base, ModelRegistry};
use rho_ai::ThinkingLevel::{self, *};

use super::*;

/// Built-ins plus a local provider, as a models.json adds it.
fn registry() -> ModelRegistry {
    let text = r#"{"providers": {"local": {"baseUrl": "http://localhost:8080/v1",
        "api": "openai-completions", "apiKey": "none",
        "models": [{"id": "qwen3-coder", "name": "Qwen3 Coder"}]}}}"#;
    let config = parse_models_json(text, "models.json").expect("valid");
    ModelRegistry::with_config(Base::Catalog(None), config, None)
}

fn auth_for(providers: &'static [&'static str]) -> impl Fn(&str) -> bool {
    move |p: &str| providers.contains(&p)
}

fn input<'a>(models: &'a ModelRegistry, has_auth: &'a dyn Fn(&str) -> bool) -> SelectionInput<'a> {
    SelectionInput {
        models,
        has_auth,
        cli_provider: None,
        cli_model: None,
        cli_thinking: None,
        scope: None,
        session_model: None,
        session_thinking: None,
        default_model: None,
        default_thinking: Medium,
    }
}

fn picked(s: &Selection) -> (String, String, ThinkingLevel, Source) {
    let m = s.model.as_ref().expect("a model");
    (m.provider.clone(), m.id.clone(), s.thinking, s.source)
}

#[test]
fn cli_model_with_provider_prefix_and_thinking_suffix() {
    let models = registry();
    let auth = auth_for(&[]);
    let mut i = input(&models, &auth);
    i.cli_model = Some("anthropic/claude-sonnet-4-5:high");
    let s = select(&i).expect("resolves");
    assert_eq!(
        picked(&s),
        (
            "anthropic".into(),
            "claude-sonnet-4-5".into(),
            High,
            Source::Cli
        )
    );
    // --thinking beats the suffix.
    i.cli_thinking = Some(Low);
    assert_eq!(select(&i).expect("resolves").thinking, Low);
}

#[test]
fn cli_provider_is_validated_and_its_prefix_tolerated() {
    let models = registry();
    let auth = auth_for(&[]);
    let mut i = input(&models, &auth);
    i.cli_provider = Some("nobody");
    i.cli_model = Some("x");
    assert_eq!(
        select(&i).unwrap_err().to_string(),
        "Unknown provider \"nobody\". Use --list-models to see available providers/models."
    );
    i.cli_provider = Some("LOCAL");
    i.cli_model = Some("local/qwen3-coder");
    assert_eq!(picked(&select(&i).expect("ok")).1, "qwen3-coder");
    i.cli_provider = None;
    i.cli_model = Some("zzz-nothing");
    assert_eq!(
        select(&i).unwrap_err().to_string(),
        "Model \"zzz-nothing\" not found. Use --list-models to see available models."
    );
}

#[test]
fn resumed_session_model_wins_over_defaults_when_authenticated() {
    let models = registry();
    let auth = auth_for(&["anthropic", "local"]);
    let mut i = input(&models, &auth);
    i.session_model = Some(("local", "qwen3-coder"));
    i.default_model = Some(("anthropic", "claude-sonnet-4-5"));
    i.session_thinking = Some(High);
    let s = select(&i).expect("ok");
    // Not a reasoning model: the session's `high` clamps to off.
    assert_eq!(
        picked(&s),
        ("local".into(), "qwen3-coder".into(), Off, Source::Session)
    );

    let no_local = auth_for(&["anthropic"]);
    let mut i = input(&models, &no_local);
    i.session_model = Some(("local", "qwen3-coder"));
    i.session_thinking = Some(High);
    let s = select(&i).expect("ok");
    assert_eq!(
        s.warnings,
        ["Could not restore model local/qwen3-coder (no API key available)."]
    );
    assert_eq!(
        picked(&s),
        (
            "anthropic".into(),
            "claude-opus-5-5".into(),
            High,
            Source::ProviderDefault
        )
    );
    i.session_model = Some(("local", "gone"));
    assert_eq!(
        select(&i).expect("ok").warnings,
        ["Could not restore model local/gone (model no longer exists)."]
    );
}

#[test]
fn scope_prefers_the_saved_default_then_the_first_and_carries_its_level() {
    let models = registry();
    let auth = auth_for(&["anthropic", "openai"]);
    let scope = vec!["gpt-5.4:low".to_string(), "claude-sonnet-4-5".into()];
    let mut i = input(&models, &auth);
    i.scope = Some(&scope);
    // Azure lists gpt-5.4 too, but only authenticated providers are in scope.
    assert_eq!(
        picked(&select(&i).expect("ok")),
        ("openai".into(), "gpt-5.4".into(), Low, Source::Scope)
    );
    i.default_model = Some(("anthropic", "claude-sonnet-4-5"));
    assert_eq!(
        picked(&select(&i).expect("ok")),
        (
            "anthropic".into(),
            "claude-sonnet-4-5".into(),
            Medium,
            Source::Scope
        )
    );
    // Only authenticated models are in scope; a pattern matching nothing warns.
    let only_anthropic = auth_for(&["anthropic"]);
    let scope = vec!["gpt-*".to_string()];
    let mut i = input(&models, &only_anthropic);
    i.scope = Some(&scope);
    let s = select(&i).expect("ok");
    assert_eq!(s.warnings, ["No models match pattern \"gpt-*\""]);
    assert_eq!(s.source, Source::ProviderDefault);
}

#[test]
fn settings_default_then_provider_defaults_then_first_available() {
    let models = registry();
    let auth = auth_for(&["openai", "local"]);
    let mut i = input(&models, &auth);
    i.default_model = Some(("anthropic", "claude-haiku-4-5"));
    i.default_thinking = High;
    // The settings default needs only to exist in the registry.
    assert_eq!(
        picked(&select(&i).expect("ok")),
        (
            "anthropic".into(),
            "claude-haiku-4-5".into(),
            High,
            Source::Settings
        )
    );
    i.default_model = None;
    assert_eq!(
        picked(&select(&i).expect("ok")).1,
        "gpt-6.2-sol",
        "openai's default from the per-provider list"
    );
    let only_local = auth_for(&["local"]);
    let i = input(&models, &only_local);
    assert_eq!(
        picked(&select(&i).expect("ok")),
        (
            "local".into(),
            "qwen3-coder".into(),
            Off,
            Source::FirstAvailable
        )
    );
}

#[test]
fn nothing_authenticated_means_no_model_and_thinking_off() {
    let models = registry();
    let auth = auth_for(&[]);
    let mut i = input(&models, &auth);
    i.cli_thinking = Some(High);
    let s = select(&i).expect("ok");
    assert_eq!((s.model, s.thinking, s.source), (None, Off, Source::None));
}

#[test]
fn thinking_is_clamped_to_the_model() {
    let models = registry();
    let auth = auth_for(&[]);
    let mut i = input(&models, &auth);
    // gpt-5 has no `off` (minimal..high) and no xhigh.
    i.cli_model = Some("openai/gpt-5");
    i.cli_thinking = Some(Off);
    assert_eq!(select(&i).expect("ok").thinking, Minimal);
    i.cli_thinking = Some(Xhigh);
    assert_eq!(select(&i).expect("ok").thinking, High);
}

#[test]
fn exact_references_do_not_build_the_whole_list() {
    let models = registry();
    let auth = auth_for(&["anthropic"]);
    let mut i = input(&models, &auth);
    i.cli_model = Some("anthropic/claude-sonnet-4-5:high");
    i.session_model = Some(("local", "qwen3-coder"));
    i.default_model = Some(("anthropic", "claude-haiku-4-5"));
    select(&i).expect("ok");
    i.cli_model = None;
    select(&i).expect("ok");
    i.default_model = None;
    assert_eq!(select(&i).expect("ok").source, Source::ProviderDefault);
    assert!(!models.list().is_built());
    // A pattern needs the list.
    i.cli_model = Some("sonnet-4-5");
    select(&i).expect("ok");
    assert!(models.list().is_built());
}

#[test]
fn an_id_several_providers_list_goes_to_the_one_with_credentials() {
    let models = registry();
    // Azure, OpenAI and others list `gpt-5-mini`; Azure comes first in pi's order.
    let openai = auth_for(&["openai"]);
    let mut i = input(&models, &openai);
    i.cli_model = Some("gpt-5-mini:low");
    let s = select(&i).expect("resolves");
    assert_eq!(
        (s.model.as_ref().map(|m| m.provider.as_str()), s.thinking),
        (Some("openai"), Low)
    );
    let nobody = auth_for(&[]);
    let mut i = input(&models, &nobody);
    i.cli_model = Some("gpt-5-mini");
    assert_eq!(picked(&select(&i).expect("resolves")).0, "azure");
}
