//! Unit tests of [`super`] (model selection patterns, interfaces §6.5).

use super::*;
use crate::catalog::builtin_models;

fn with_dated() -> Vec<Model> {
    let mut models = builtin_models().to_vec();
    let base = models[0].clone();
    for id in ["claude-sonnet-4-5-20250929", "claude-3-5-haiku-20241022"] {
        let mut m = base.clone();
        m.id = id.into();
        m.name = id.into();
        models.push(m);
    }
    models
}

fn key(m: Option<&Model>) -> Option<String> {
    m.map(|m| format!("{}/{}", m.provider, m.id))
}

#[test]
fn find_model_table() {
    let models = with_dated();
    let cases: &[(Option<&str>, &str, Option<&str>)] = &[
        // exact provider/id, case-insensitive
        (
            None,
            "Anthropic/Claude-Opus-4-7",
            Some("anthropic/claude-opus-4-7"),
        ),
        // provider/id beats the OpenRouter model whose id is literally "openai/gpt-5"
        (None, "openai/gpt-5", Some("openai/gpt-5")),
        // exact id containing a slash when the prefix does not name it as provider/id
        (
            None,
            "anthropic/claude-sonnet-4.5",
            Some("openrouter/anthropic/claude-sonnet-4.5"),
        ),
        // exact id
        (None, "gpt-5-mini", Some("openai/gpt-5-mini")),
        // substring: alias beats the dated id, then greatest id
        (None, "sonnet-4-5", Some("anthropic/claude-sonnet-4-5")),
        (None, "haiku", Some("anthropic/claude-haiku-4-5")),
        (None, "3-5-haiku", Some("anthropic/claude-3-5-haiku-latest")),
        // substring on the display name
        (
            None,
            "Gemini 2.5 Flash-Lite",
            Some("google/gemini-2.5-flash-lite"),
        ),
        // known provider prefix narrows the substring search
        (None, "groq/gpt-oss", Some("groq/openai/gpt-oss-120b")),
        (None, "cerebras/gpt-oss", Some("cerebras/gpt-oss-120b")),
        // --provider restricts
        (
            Some("Cerebras"),
            "gpt-oss-120b",
            Some("cerebras/gpt-oss-120b"),
        ),
        (Some("anthropic"), "gpt-5", None),
        (None, "no-such-model", None),
    ];
    for (provider, pattern, expected) in cases {
        assert_eq!(
            key(find_model(&models, *provider, pattern)),
            expected.map(String::from),
            "{provider:?} {pattern}"
        );
    }
}

#[test]
fn thinking_suffix() {
    assert_eq!(
        split_thinking_suffix("sonnet:high"),
        ("sonnet", Some(ThinkingLevel::High))
    );
    assert_eq!(split_thinking_suffix("a/b:free"), ("a/b:free", None));
    assert_eq!(
        split_thinking_suffix("a:b:XHIGH"),
        ("a:b", Some(ThinkingLevel::Xhigh))
    );
    let choice = resolve_model(builtin_models(), None, "opus-4-6:off").expect("found");
    assert_eq!(choice.model.id, "claude-opus-4-6");
    assert_eq!(choice.thinking, Some(ThinkingLevel::Off));
    assert_eq!(choice.warning, None);
}

#[test]
fn unknown_id_of_known_provider_is_fabricated_from_the_default() {
    let choice =
        resolve_model(builtin_models(), None, "anthropic/claude-opus-9:high").expect("fabricated");
    assert_eq!(choice.model.id, "claude-opus-9");
    assert_eq!(choice.model.provider, "anthropic");
    // cloned from the provider default, claude-opus-4-7
    assert_eq!(choice.model.context_window, 1_000_000);
    assert_eq!(choice.thinking, Some(ThinkingLevel::High));
    assert!(choice
        .warning
        .as_deref()
        .is_some_and(|w| w.contains("claude-opus-9")));
    // no default in the list: first model of the provider
    let choice = resolve_model(builtin_models(), Some("xai"), "grok-9").expect("fabricated");
    assert_eq!(choice.model.base_url, "https://api.x.ai/v1");
    assert!(resolve_model(builtin_models(), None, "nobody/foo").is_none());
    assert!(resolve_model(builtin_models(), None, "no-such-model").is_none());
}

#[test]
fn glob_table() {
    let cases = [
        ("anthropic/*", "anthropic/claude-opus-4-7", true),
        ("*SONNET*", "claude-sonnet-4-5", true),
        ("gpt-5.?", "gpt-5.4", true),
        ("gpt-5.?", "gpt-5", false),
        ("gpt-[45]*", "gpt-4.1", true),
        ("gpt-[!4]*", "gpt-4.1", false),
        ("claude-[a-m]*", "claude-haiku-4-5", true),
        ("claude-[a-m]*", "claude-sonnet-4-5", false),
        ("[unclosed", "[unclosed", true),
        ("*", "", true),
    ];
    for (pattern, text, expected) in cases {
        assert_eq!(glob_match(pattern, text), expected, "{pattern} vs {text}");
    }
}

#[test]
fn scoping_patterns() {
    let (chosen, warnings) = scope_models(
        builtin_models(),
        &[
            "anthropic/claude-opus-*:high",
            "gpt-5-mini",
            "claude-opus-4-7",
            "zzz*",
        ],
    );
    let ids: Vec<(&str, Option<ThinkingLevel>)> = chosen
        .iter()
        .map(|c| (c.model.id.as_str(), c.thinking))
        .collect();
    assert_eq!(
        ids,
        vec![
            ("claude-opus-4-7", Some(ThinkingLevel::High)),
            ("claude-opus-4-6", Some(ThinkingLevel::High)),
            ("claude-opus-4-5", Some(ThinkingLevel::High)),
            ("gpt-5-mini", None),
        ]
    );
    assert_eq!(
        warnings,
        vec!["No models match pattern \"zzz*\"".to_string()]
    );
}

#[test]
fn list_filter_sort_and_table() {
    assert!(fuzzy_matches("anth snt45", "anthropic claude-sonnet-4-5"));
    assert!(!fuzzy_matches("openai", "anthropic claude-sonnet-4-5"));
    let listed = list_models(builtin_models(), Some("cerebras"));
    let ids: Vec<&str> = listed.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, vec!["gpt-oss-120b", "zai-glm-4.7"]);
    assert_eq!(
        list_models(builtin_models(), None).len(),
        builtin_models().len()
    );
    let table = list_models_table(&listed);
    let expected = "\
provider  model         context  max-out  thinking  images
cerebras  gpt-oss-120b  131.1K   32.8K    yes       no
cerebras  zai-glm-4.7   131.1K   40K      no        no
";
    assert_eq!(table, expected);
}

#[test]
fn token_counts() {
    let cases = [
        (200_000, "200K"),
        (1_000_000, "1M"),
        (1_500_000, "1.5M"),
        (131_072, "131.1K"),
        (512, "512"),
        (1_048_576, "1.0M"),
    ];
    for (n, s) in cases {
        assert_eq!(format_token_count(n), s, "{n}");
    }
}
