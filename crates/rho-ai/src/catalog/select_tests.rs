//! Unit tests of [`super`] (model selection patterns, interfaces §6.5), on a fixed list so
//! they hold whatever the catalog holds; the catalog's own defaults are used where the rule
//! reads them.

use super::*;
use crate::catalog::builtin_models;
use crate::model::InputKind;

/// `(provider, id, name, reasoning, context, max tokens)` of the models the rules are shown on.
const FIXTURE: &[(&str, &str, &str, bool, u64, u64)] = &[
    (
        "anthropic",
        "claude-opus-4-7",
        "Claude Opus 4.7",
        true,
        1_000_000,
        128_000,
    ),
    (
        "anthropic",
        "claude-opus-4-6",
        "Claude Opus 4.6",
        true,
        1_000_000,
        128_000,
    ),
    (
        "anthropic",
        "claude-sonnet-4-5",
        "Claude Sonnet 4.5",
        true,
        200_000,
        64_000,
    ),
    (
        "anthropic",
        "claude-opus-4-5",
        "Claude Opus 4.5",
        true,
        200_000,
        64_000,
    ),
    (
        "anthropic",
        "claude-haiku-4-5",
        "Claude Haiku 4.5",
        true,
        200_000,
        64_000,
    ),
    (
        "anthropic",
        "claude-3-5-haiku-latest",
        "Claude Haiku 3.5 (latest)",
        false,
        200_000,
        8192,
    ),
    ("openai", "gpt-5", "GPT-5", true, 400_000, 128_000),
    ("openai", "gpt-5-mini", "GPT-5 mini", true, 400_000, 128_000),
    (
        "google",
        "gemini-2.5-flash-lite",
        "Gemini 2.5 Flash-Lite",
        true,
        1_048_576,
        65_536,
    ),
    (
        "groq",
        "openai/gpt-oss-120b",
        "GPT OSS 120B",
        true,
        131_072,
        65_536,
    ),
    (
        "cerebras",
        "gpt-oss-120b",
        "GPT OSS 120B",
        true,
        131_072,
        32_768,
    ),
    (
        "cerebras",
        "zai-glm-4.7",
        "Z.ai GLM-4.7",
        false,
        131_072,
        40_000,
    ),
    (
        "openrouter",
        "anthropic/claude-sonnet-4.5",
        "Anthropic: Claude Sonnet 4.5",
        true,
        1_000_000,
        64_000,
    ),
    (
        "openrouter",
        "openai/gpt-5",
        "OpenAI: GPT-5",
        true,
        400_000,
        128_000,
    ),
];

fn fixture() -> Vec<Model> {
    FIXTURE
        .iter()
        .map(
            |&(provider, id, name, reasoning, context_window, max_tokens)| Model {
                id: id.into(),
                name: name.into(),
                api: "openai-completions".into(),
                provider: provider.into(),
                base_url: format!("https://{provider}.example"),
                reasoning,
                input: vec![InputKind::Text],
                context_window,
                max_tokens,
                ..Model::default()
            },
        )
        .collect()
}

fn with_dated() -> Vec<Model> {
    let mut models = fixture();
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
    let choice = resolve_model(&fixture(), None, "opus-4-6:off").expect("found");
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
    // cloned from the provider default (pi 1.6: claude-opus-5-5)
    let default = crate::catalog::find_builtin("anthropic", "claude-opus-5-5").expect("default");
    assert_eq!(choice.model.cost, default.cost);
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
        &fixture(),
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
    let models = fixture();
    let listed = list_models(&models, Some("cerebras"));
    let ids: Vec<&str> = listed.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, vec!["gpt-oss-120b", "zai-glm-4.7"]);
    assert_eq!(list_models(&models, None).len(), models.len());
    // pi pads every column, the last one too.
    let table = list_models_table(&listed);
    let expected = "\
provider  model         context  max-out  thinking  images
cerebras  gpt-oss-120b  131.1K   32.8K    yes       no    
cerebras  zai-glm-4.7   131.1K   40K      no        no    
";
    assert_eq!(table, expected);
}

#[test]
fn lists_sort_as_javascripts_locale_compare() {
    // Node 24: ["a_b", "a-b", "a-B", "A-b", "a.b", "a/b", "a1", "a10", "a2", "ab"].
    let mut ids = [
        "ab", "a2", "a10", "a1", "a/b", "a.b", "A-b", "a-B", "a-b", "a_b",
    ];
    ids.sort_by(|a, b| locale_cmp(a, b));
    assert_eq!(
        ids,
        ["a_b", "a-b", "a-B", "A-b", "a.b", "a/b", "a1", "a10", "a2", "ab"]
    );
    let mut names = [
        "Qwen/Qwen3",
        "moonshotai/Kimi",
        "MiniMaxAI/M3",
        "deepseek-ai/V4",
    ];
    names.sort_by(|a, b| locale_cmp(a, b));
    assert_eq!(
        names,
        [
            "deepseek-ai/V4",
            "MiniMaxAI/M3",
            "moonshotai/Kimi",
            "Qwen/Qwen3"
        ]
    );
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
