//! Context-overflow detection (providers spec §5).
//!
//! Every provider says "your prompt is too long" differently, and some say nothing at all.
//! The session uses [`is_context_overflow`] to decide between compacting and retrying, so a
//! false positive compacts needlessly and a false negative retries a request that can never
//! succeed.

use std::sync::LazyLock;

use regex_lite::{Regex, RegexBuilder};

use crate::message::AssistantMessage;
use crate::usage::StopReason;

/// Error-text patterns meaning "the prompt does not fit", with the provider each comes from.
pub const OVERFLOW_PATTERNS: &[(&str, &str)] = &[
    (r"prompt is too long", "Anthropic (token overflow)"),
    (r"request_too_large", "Anthropic HTTP 413 (byte size)"),
    (r"input is too long for requested model", "Amazon Bedrock"),
    (
        r"exceeds the context window",
        "OpenAI Completions and Responses",
    ),
    (r"input token count.*exceeds the maximum", "Google Gemini"),
    (r"maximum prompt length is \d+", "xAI"),
    (r"reduce the length of the messages", "Groq"),
    (r"maximum context length is \d+ tokens", "OpenRouter"),
    (r"exceeds the limit of \d+", "GitHub Copilot"),
    (r"exceeds the available context size", "llama.cpp server"),
    (r"greater than the context length", "LM Studio"),
    (r"context window exceeds limit", "MiniMax"),
    (r"exceeded model token limit", "Kimi For Coding"),
    (
        r"too large for model with \d+ maximum context length",
        "Mistral",
    ),
    (r"model_context_window_exceeded", "z.ai"),
    (
        r"prompt too long; exceeded (?:max )?context length",
        "Ollama",
    ),
    (r"context[_ ]length[_ ]exceeded", "generic"),
    (r"too many tokens", "generic"),
    (r"token limit exceeded", "generic"),
    (
        r"^4(?:00|13)\s*(?:status code)?\s*\(no body\)",
        "Cerebras (empty 400/413)",
    ),
];

/// Error texts that are never an overflow even if an overflow pattern matches (rate limits
/// and throttling mention tokens too).
pub const EXCLUSION_PATTERNS: &[&str] = &[
    r"^(Throttling error|Service unavailable):",
    r"rate limit",
    r"too many requests",
];

/// Compiles `patterns` case-insensitively into one alternation.
#[allow(
    clippy::expect_used,
    reason = "the patterns are compiled-in literals, checked by the tests"
)]
pub(crate) fn any_of(patterns: impl IntoIterator<Item = &'static str>) -> Regex {
    let joined: Vec<String> = patterns.into_iter().map(|p| format!("(?:{p})")).collect();
    RegexBuilder::new(&joined.join("|"))
        .case_insensitive(true)
        .build()
        .expect("built-in patterns are valid regexes")
}

static OVERFLOW: LazyLock<Regex> = LazyLock::new(|| any_of(OVERFLOW_PATTERNS.iter().map(|p| p.0)));
static EXCLUDED: LazyLock<Regex> = LazyLock::new(|| any_of(EXCLUSION_PATTERNS.iter().copied()));

/// Rule A: whether an error text says the context overflowed.
pub fn is_overflow_error_text(error: &str) -> bool {
    !EXCLUDED.is_match(error) && OVERFLOW.is_match(error)
}

/// Whether `message` shows a context overflow. `context_window` (the model's window, `0`
/// when unknown) enables the usage rules for providers that fail silently:
/// B. `stop` with `input + cacheRead > contextWindow` (z.ai accepts and truncates);
/// C. `length` with no output and `input + cacheRead >= 99 %` of the window (Xiaomi MiMo).
pub fn is_context_overflow(message: &AssistantMessage, context_window: u64) -> bool {
    if message.stop_reason == StopReason::Error {
        if let Some(error) = &message.error_message {
            if is_overflow_error_text(error) {
                return true;
            }
        }
    }
    if context_window == 0 {
        return false;
    }
    let prompt = message.usage.input + message.usage.cache_read;
    match message.stop_reason {
        StopReason::Stop => prompt > context_window,
        StopReason::Length => {
            message.usage.output == 0 && prompt as f64 >= 0.99 * context_window as f64
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One real error text per pattern, in the pattern table's order.
    const OVERFLOWS: &[&str] = &[
        r#"400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 213462 tokens > 200000 maximum"},"request_id":"req_011"}"#,
        r#"413 {"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}"#,
        "Input is too long for requested model.",
        "400 Your input exceeds the context window of this model. Please adjust your input and try again.",
        r#"{"error":{"code":400,"message":"The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).","status":"INVALID_ARGUMENT"}}"#,
        "400 This model's maximum prompt length is 131072 but the request contains 150000 tokens.",
        "400 Please reduce the length of the messages or completion.",
        "400 This endpoint's maximum context length is 200000 tokens. However, you requested about 250000 tokens.",
        "400 prompt token count of 140000 exceeds the limit of 128000",
        "400 the request exceeds the available context size, try increasing it",
        "400 Trying to keep the first 9000 tokens when context the overflows. However, the model is loaded with context length of 4096. The number of tokens to keep is greater than the context length",
        "400 invalid params, context window exceeds limit (2013)",
        "400 Invalid request: Your request exceeded model token limit: 262144 (requested: 300000)",
        "400 Prompt contains 300000 tokens and 0 draft tokens, too large for model with 262144 maximum context length",
        "model_context_window_exceeded",
        "400 prompt too long; exceeded max context length by 1024 tokens",
        "400 context_length_exceeded",
        "400 Too many tokens in request",
        "Token limit exceeded for this request",
        "413 status code (no body)",
    ];

    /// Errors that must not count as overflow.
    const NOT_OVERFLOWS: &[&str] = &[
        "429 Rate limit reached: too many tokens per minute",
        "Throttling error: Too many tokens, please wait before trying again.",
        "Service unavailable: context length exceeded upstream capacity",
        "429 Too Many Requests: token limit exceeded",
        "503 Service Unavailable",
        "401 invalid x-api-key",
        "Request was aborted",
        "500 status code (no body)",
        "400 Invalid tool schema",
    ];

    #[test]
    fn every_pattern_has_a_real_text_that_matches_it_alone() {
        assert_eq!(OVERFLOWS.len(), OVERFLOW_PATTERNS.len());
        for ((pattern, origin), text) in OVERFLOW_PATTERNS.iter().zip(OVERFLOWS) {
            let single = any_of([*pattern]);
            assert!(single.is_match(text), "{origin}: /{pattern}/ vs {text}");
            assert!(is_overflow_error_text(text), "{origin}: {text}");
        }
    }

    #[test]
    fn comp_7_exclusions_and_unrelated_errors_are_not_overflow() {
        for text in NOT_OVERFLOWS {
            assert!(!is_overflow_error_text(text), "{text}");
        }
    }

    fn msg(
        stop: StopReason,
        error: Option<&str>,
        input: u64,
        cache_read: u64,
        output: u64,
    ) -> AssistantMessage {
        let mut m = AssistantMessage::empty("openai-completions", "zai", "glm-4.7");
        m.stop_reason = stop;
        m.error_message = error.map(String::from);
        m.usage.input = input;
        m.usage.cache_read = cache_read;
        m.usage.output = output;
        m
    }

    #[test]
    fn message_rules_table() {
        let too_long = Some("400 prompt is too long: 1 tokens > 0 maximum");
        // (message, context window, expected)
        let cases = [
            (msg(StopReason::Error, too_long, 0, 0, 0), 0, true),
            (
                msg(StopReason::Error, Some("503 overloaded"), 0, 0, 0),
                1000,
                false,
            ),
            (msg(StopReason::Error, None, 2000, 0, 0), 1000, false),
            // The pattern only counts on errors.
            (msg(StopReason::Stop, too_long, 10, 0, 5), 1000, false),
            // B: silent overflow.
            (msg(StopReason::Stop, None, 900, 101, 5), 1000, true),
            (msg(StopReason::Stop, None, 900, 100, 5), 1000, false),
            (msg(StopReason::Stop, None, 5000, 0, 5), 0, false),
            // C: truncate-then-length.
            (msg(StopReason::Length, None, 980, 10, 0), 1000, true),
            (msg(StopReason::Length, None, 980, 9, 0), 1000, false),
            (msg(StopReason::Length, None, 1000, 0, 1), 1000, false),
            (msg(StopReason::ToolUse, None, 5000, 0, 0), 1000, false),
        ];
        for (i, (m, window, expected)) in cases.iter().enumerate() {
            assert_eq!(is_context_overflow(m, *window), *expected, "case {i}");
        }
    }
}
