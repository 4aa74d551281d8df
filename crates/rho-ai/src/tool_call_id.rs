//! Tool-call id normalisation per target API (providers spec §3.1-§3.4, §4).
//!
//! Ids minted by one provider often break another's rules (Anthropic wants
//! `^[a-zA-Z0-9_-]{1,64}$`, OpenAI caps at 40 or 64 chars, Responses ids are `call|item`
//! pairs). [`crate::transform`] rewrites the ids of *foreign* assistant messages with the
//! target API's rule and fixes the matching tool results.

use crate::message::AssistantMessage;
use crate::model::Model;

/// Rewrites a foreign tool-call id for the target `model`; `source` is the message that holds
/// the call (needed by the Responses rule, which treats other providers' item ids specially).
pub type IdNormalizer = fn(id: &str, model: &Model, source: &AssistantMessage) -> String;

/// The normaliser of `model.api`, or `None` for APIs that accept any id.
pub fn normalizer_for(api: &str) -> Option<IdNormalizer> {
    match api {
        "anthropic-messages" | "bedrock-converse-stream" => Some(anthropic),
        "openai-completions" => Some(openai_completions),
        "openai-responses" | "openai-codex-responses" | "azure-openai-responses" => {
            Some(openai_responses)
        }
        "google-generative-ai" | "google-vertex" => Some(google),
        _ => None,
    }
}

/// Replaces every character outside `[a-zA-Z0-9_-]` with `_`.
pub fn sanitize(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The first `max` characters of `s`.
fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => s[..at].to_string(),
        None => s.to_string(),
    }
}

/// Anthropic (and Bedrock): sanitize, then cut to 64.
pub fn anthropic(id: &str, _model: &Model, _source: &AssistantMessage) -> String {
    cut(&sanitize(id), 64)
}

/// Chat Completions: a `call|item` id keeps its call part, sanitized and cut to 40; other ids
/// are cut to 40 for provider `openai` and left alone elsewhere.
pub fn openai_completions(id: &str, model: &Model, _source: &AssistantMessage) -> String {
    if let Some((call, _)) = id.split_once('|') {
        return cut(&sanitize(call), 40);
    }
    if model.provider == "openai" {
        return cut(id, 40);
    }
    id.to_string()
}

/// One half of a Responses id: sanitize, cut to 64, strip trailing `_`.
fn responses_part(part: &str) -> String {
    cut(&sanitize(part), 64).trim_end_matches('_').to_string()
}

/// Responses: `call|item` ids for `openai`/`openai-codex`/`opencode`/`azure` targets keep both halves;
/// the item id must start with `fc_`, and one from another provider or API is replaced by
/// `fc_<short_hash(item)>`. Every other id is normalised whole.
pub fn openai_responses(id: &str, model: &Model, source: &AssistantMessage) -> String {
    let keeps_pairs = matches!(
        model.provider.as_str(),
        "openai" | "openai-codex" | "opencode" | "azure" | "azure-openai-responses"
    );
    let Some((call, item)) = id.split_once('|').filter(|_| keeps_pairs) else {
        return responses_part(id);
    };
    let foreign = source.provider != model.provider || source.api != model.api;
    let mut item_id = if foreign {
        cut(&format!("fc_{}", short_hash(item)), 64)
    } else {
        responses_part(item)
    };
    if !item_id.starts_with("fc_") {
        item_id = responses_part(&format!("fc_{item_id}"));
    }
    format!("{}|{}", responses_part(call), item_id)
}

/// Google: ids are kept, except for models whose id starts `claude-` or `gpt-oss-` (served
/// through Google with the stricter rule): sanitize and cut to 64.
pub fn google(id: &str, model: &Model, _source: &AssistantMessage) -> String {
    if model.id.starts_with("claude-") || model.id.starts_with("gpt-oss-") {
        return cut(&sanitize(id), 64);
    }
    id.to_string()
}

/// A stable short hash (base 36) of `s` over its UTF-16 code units, as pi computes it so that
/// derived ids match pi's byte for byte.
pub fn short_hash(s: &str) -> String {
    let mut h1: u32 = 0xdead_beef;
    let mut h2: u32 = 0x41c6_ce57;
    for unit in s.encode_utf16() {
        let ch = u32::from(unit);
        h1 = (h1 ^ ch).wrapping_mul(2_654_435_761);
        h2 = (h2 ^ ch).wrapping_mul(1_597_334_677);
    }
    let m1 = 2_246_822_507_u32;
    let m2 = 3_266_489_909_u32;
    h1 = (h1 ^ (h1 >> 16)).wrapping_mul(m1) ^ (h2 ^ (h2 >> 13)).wrapping_mul(m2);
    h2 = (h2 ^ (h2 >> 16)).wrapping_mul(m1) ^ (h1 ^ (h1 >> 13)).wrapping_mul(m2);
    format!("{}{}", base36(h2), base36(h1))
}

fn base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    out.into_iter().map(char::from).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::{InputKind, ModelCost};

    /// A minimal model for normaliser and transform tests.
    pub(crate) fn model(provider: &str, api: &str, id: &str) -> Model {
        Model {
            id: id.into(),
            name: id.into(),
            api: api.into(),
            provider: provider.into(),
            base_url: String::new(),
            reasoning: true,
            thinking_level_map: None,
            input: vec![InputKind::Text, InputKind::Image],
            cost: ModelCost::default(),
            context_window: 200_000,
            max_tokens: 32_000,
            headers: None,
            compat: None,
            ..Default::default()
        }
    }

    fn src(provider: &str, api: &str) -> AssistantMessage {
        AssistantMessage::empty(api, provider, "m")
    }

    #[test]
    fn anthropic_sanitizes_and_cuts_to_64() {
        let m = model("anthropic", "anthropic-messages", "claude");
        let s = src("openai", "openai-responses");
        assert_eq!(anthropic("call_1|fc:2.x", &m, &s), "call_1_fc_2_x");
        assert_eq!(anthropic(&"a".repeat(80), &m, &s).len(), 64);
    }

    #[test]
    fn completions_rules() {
        let openai = model("openai", "openai-completions", "gpt");
        let groq = model("groq", "openai-completions", "llama");
        let s = src("openai", "openai-responses");
        let long = format!("call_{}", "x".repeat(60));
        assert_eq!(openai_completions("call.a|fc_b", &groq, &s), "call_a");
        assert_eq!(openai_completions(&long, &openai, &s).len(), 40);
        assert_eq!(openai_completions(&long, &groq, &s), long);
    }

    #[test]
    fn responses_rules() {
        let openai = model("openai", "openai-responses", "gpt-5");
        let copilot = model("github-copilot", "openai-responses", "gpt-5");
        // Other targets: the whole id is normalised and trailing underscores stripped.
        assert_eq!(
            openai_responses(
                "toolu.01|x.",
                &copilot,
                &src("anthropic", "anthropic-messages")
            ),
            "toolu_01_x"
        );
        // No pipe: whole id.
        assert_eq!(
            openai_responses("toolu:1", &openai, &src("anthropic", "anthropic-messages")),
            "toolu_1"
        );
        // Same provider+api (other model): halves kept, `fc_` enforced.
        let same = src("openai", "openai-responses");
        assert_eq!(
            openai_responses("call_1|fc_abc", &openai, &same),
            "call_1|fc_abc"
        );
        assert_eq!(
            openai_responses("call_1|item9", &openai, &same),
            "call_1|fc_item9"
        );
        // Foreign item id: hashed.
        let foreign = src("opencode", "openai-responses");
        let expected = format!("call_1|fc_{}", short_hash("item9"));
        assert_eq!(
            openai_responses("call_1|item9", &openai, &foreign),
            expected
        );
    }

    #[test]
    fn google_normalises_only_claude_and_gpt_oss() {
        let s = src("anthropic", "anthropic-messages");
        let gem = model("google", "google-generative-ai", "gemini-2.5-pro");
        let claude = model("google-vertex", "google-vertex", "claude-sonnet-4-5");
        assert_eq!(google("a|b", &gem, &s), "a|b");
        assert_eq!(google("a|b", &claude, &s), "a_b");
    }

    #[test]
    fn short_hash_matches_reference_values() {
        // Values computed with the spec's algorithm in JavaScript (Math.imul, UTF-16 units).
        assert_eq!(short_hash(""), "k4n83c7h0j2b");
        assert_eq!(short_hash("item9"), "1nqzhn8r2suja");
        assert_eq!(short_hash("fc_abc"), "1qaoofs1vxahbg");
        assert_eq!(short_hash("h\u{e9}llo\u{1f600}"), "1olj6nu1frhbfw");
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
    }
}
