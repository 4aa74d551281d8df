//! Which failures are worth retrying, and how long to wait (session-behavior §11 RETRY-1..5,
//! interfaces §6.10, providers §3.0 "Retries/timeouts").
//!
//! Two layers retry. The session's auto-retry looks at a finished assistant message's
//! `errorMessage` ([`is_retryable`], [`auto_retry_delay_ms`]); the HTTP client retries a
//! request before any stream starts, by status and `retry-after` ([`is_retryable_status`],
//! [`client_retry_delay`]). Both are pure so the policy is tested without a clock.

use std::sync::LazyLock;
use std::time::Duration;

use regex_lite::Regex;
use serde_json::Value;

use crate::message::AssistantMessage;
use crate::overflow::{any_of, is_context_overflow};
use crate::usage::StopReason;

/// The transient failures pi 1.6 retries (pi-ai's `isRetryableAssistantError`), matched
/// case-insensitively anywhere in the error text. Status codes and socket error codes count
/// only as whole words (`5000` or a request id holding `500` is not a server error), written
/// with explicit boundaries as `regex-lite` has no look-around.
pub const RETRYABLE_PATTERNS: &[&str] = &[
    r"overloaded",
    r"server_busy",
    r"servers are currently busy",
    r"currently experiencing high demand",
    r"model is at capacity",
    r"rate.?limit",
    r"too many requests",
    r"(?:^|[^a-z0-9])(?:429|500|502|503|504|520|524)(?:[^a-z0-9]|$)",
    r"service.?(?:is.?)?(?:temporarily.?)?unavailable",
    r"server.?error",
    r"internal.?error",
    r"provider.?returned.?(?:an.?)?error",
    r"exceeded request buffer limit while retrying upstream",
    r"unable to forward upstream",
    r"upstream.?request.?failed",
    r"upstream_stream_read_error",
    r"stream was interrupted",
    r"http/?2 stream failed",
    r"network.?error",
    r"connection.?error",
    r"connection.?refused",
    r"connection.?lost",
    r"connection.?closed",
    r"other side closed",
    r"fetch failed",
    r"request to \S+ failed, reason:",
    r"getaddrinfo",
    r"(?:^|[^a-z0-9_])(?:ECONNRESET|ECONNABORTED|ECONNREFUSED|ETIMEDOUT|EPIPE)(?:[^a-z0-9_]|$)",
    r"connection reset by peer",
    r"ENOTFOUND",
    r"EAI_AGAIN",
    r"upstream.?connect",
    r"reset before headers",
    r"socket hang up",
    r"socket connection was closed",
    r"timed? out",
    r"timeout",
    r"terminated",
    r"websocket.?closed",
    r"websocket.?error",
    r"websocket.?connection.?limit.?reached",
    r"ended without",
    r"stream ended before message_stop",
    r"stream ended before a terminal response event",
    r"http2 request did not get a response",
    r"stream disconnected before completion",
    r"cut short after the reply had begun",
    r"pending stream has been canceled",
    r"retry delay",
    r"you can retry your request",
    r"try your request again",
    r"please retry your request",
    r"ResourceExhausted",
    r"subscription_sharing_usage_unavailable",
    r"subscription_sharing_user_unavailable",
];

/// Quota, budget and plan limits: never retried, whatever else the text says (pi 1.6): they
/// reset after hours, not seconds.
pub const NON_RETRYABLE_PATTERNS: &[&str] = &[
    r"GoUsageLimitError",
    r"FreeUsageLimitError",
    r"Monthly usage limit reached",
    r"available balance",
    r"insufficient_quota",
    r"out of budget",
    r"quota exceeded",
    r"billing",
    r"subscription_sharing_usage_limit_exceeded",
    r"subscription_sharing_workplace_individual_usage_limit_exceeded",
    r#""code"\s*:\s*"?1308(?:[^0-9]|$)"#,
];

static RETRYABLE: LazyLock<Regex> = LazyLock::new(|| any_of(RETRYABLE_PATTERNS.iter().copied()));
static NON_RETRYABLE: LazyLock<Regex> =
    LazyLock::new(|| any_of(NON_RETRYABLE_PATTERNS.iter().copied()));

/// Whether an error text names a transient failure (and no quota or plan limit).
pub fn is_retryable_error_text(error: &str) -> bool {
    !NON_RETRYABLE.is_match(error) && RETRYABLE.is_match(error)
}

/// RETRY-2: an `error` reply with a non-empty message that is not a context overflow (judged
/// with the current model's `context_window`) and names a transient failure.
pub fn is_retryable(message: &AssistantMessage, context_window: u64) -> bool {
    if message.stop_reason != StopReason::Error {
        return false;
    }
    let Some(error) = message.error_message.as_deref().filter(|e| !e.is_empty()) else {
        return false;
    };
    !is_context_overflow(message, context_window) && is_retryable_error_text(error)
}

/// The session's auto-retry settings (`retry.*` in settings.json).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetrySettings {
    /// `retry.enabled` (default true).
    pub enabled: bool,
    /// `retry.maxRetries` (default 3).
    pub max_retries: u32,
    /// `retry.baseDelayMs` (default 2000).
    pub base_delay_ms: u64,
    /// `retry.maxAgentDelayMs` (default 60000): the longest wait between two auto-retries.
    pub max_agent_delay_ms: u64,
    /// `retry.provider.maxRetries` (default 0): retries of one HTTP request that failed before
    /// its stream started.
    pub provider_max_retries: u32,
    /// `retry.provider.maxRetryDelayMs` (default 60000, 0 = no cap); the legacy
    /// `retry.maxDelayMs` is read when the new key is absent.
    pub max_retry_delay_ms: u64,
}

impl Default for RetrySettings {
    fn default() -> Self {
        Self {
            enabled: true,
            max_retries: 3,
            base_delay_ms: 2000,
            max_agent_delay_ms: 60_000,
            provider_max_retries: 0,
            max_retry_delay_ms: 60_000,
        }
    }
}

impl RetrySettings {
    /// Reads the `retry` object of effective settings; missing or mistyped keys keep their
    /// defaults (settings files are user-edited, and a typo must not stop the agent).
    pub fn from_settings(settings: &Value) -> Self {
        let defaults = Self::default();
        let retry = &settings["retry"];
        let u = |v: &Value| v.as_u64();
        Self {
            enabled: retry["enabled"].as_bool().unwrap_or(defaults.enabled),
            max_retries: u(&retry["maxRetries"])
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(defaults.max_retries),
            base_delay_ms: u(&retry["baseDelayMs"]).unwrap_or(defaults.base_delay_ms),
            max_agent_delay_ms: u(&retry["maxAgentDelayMs"]).unwrap_or(defaults.max_agent_delay_ms),
            provider_max_retries: u(&retry["provider"]["maxRetries"])
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(defaults.provider_max_retries),
            max_retry_delay_ms: u(&retry["provider"]["maxRetryDelayMs"])
                .or_else(|| u(&retry["maxDelayMs"]))
                .unwrap_or(defaults.max_retry_delay_ms),
        }
    }
}

/// RETRY-5: the back-off before auto-retry `attempt` (1-based): `base × 2^(attempt−1)`,
/// saturating instead of overflowing, at most `max_delay_ms` (pi 1.6's
/// `retry.maxAgentDelayMs`).
pub fn auto_retry_delay_ms(base_delay_ms: u64, attempt: u32, max_delay_ms: u64) -> u64 {
    let exponent = attempt.saturating_sub(1).min(63);
    base_delay_ms
        .saturating_mul(1u64 << exponent)
        .min(max_delay_ms)
}

/// HTTP statuses the provider clients retry: 408, 409, 429 and every 5xx.
pub fn is_retryable_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || status >= 500
}

/// The server's requested wait, from `retry-after-ms` (milliseconds) or `retry-after`
/// (seconds, or an HTTP date compared with `now_unix_ms`). Unparseable values are ignored.
pub fn parse_retry_after(
    retry_after_ms: Option<&str>,
    retry_after: Option<&str>,
    now_unix_ms: i64,
) -> Option<Duration> {
    if let Some(ms) = retry_after_ms.and_then(|v| v.trim().parse::<f64>().ok()) {
        if ms.is_finite() && ms >= 0.0 {
            return Some(Duration::from_secs_f64(ms / 1000.0));
        }
    }
    let value = retry_after?.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let at = crate::time::parse_http_date(value)?;
    Some(Duration::from_millis(
        at.saturating_sub(now_unix_ms).max(0) as u64
    ))
}

/// What the HTTP client does after a retryable failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientRetry {
    /// Wait this long, then retry.
    After(Duration),
    /// The server asked for a longer wait than `maxRetryDelayMs` allows: fail now with this
    /// message (it contains `retry delay`, so the session's auto-retry takes over visibly).
    TooLong(String),
}

/// The wait before provider retry `retry` (0-based), as pi 1.6's `retryProviderRequest`
/// computes it: a server hint (`retry-after-ms`, `retry-after`) as given, unless it is above
/// `max_retry_delay_ms` (when non-zero), which fails with pi's text followed by `error`;
/// otherwise `min(0.5 s × 2^retry, 8 s)` reduced by up to 25 % (`jitter` in `[0, 1)`).
pub fn client_retry_delay(
    retry: u32,
    hint: Option<Duration>,
    max_retry_delay_ms: u64,
    jitter: f64,
    error: &str,
) -> ClientRetry {
    if let Some(hint) = hint {
        let hint_ms = hint.as_millis();
        if max_retry_delay_ms > 0 && hint_ms > u128::from(max_retry_delay_ms) {
            return ClientRetry::TooLong(format!(
                "Server requested {}s retry delay (max: {}s). {error}",
                hint.as_secs_f64().ceil(),
                max_retry_delay_ms.div_ceil(1000)
            ));
        }
        return ClientRetry::After(hint);
    }
    let backoff = (0.5 * 2f64.powi(retry.min(16) as i32)).min(8.0);
    let factor = 1.0 - jitter.clamp(0.0, 1.0) * 0.25;
    ClientRetry::After(Duration::from_secs_f64(backoff * factor))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// One error text per pattern, in table order.
    const RETRYABLE_TEXTS: &[&str] = &[
        r#"529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        r#"{"error":{"code":"server_busy"}}"#,
        "Our servers are currently busy, try later",
        "The model is currently experiencing high demand",
        "The model is at capacity",
        "429 Rate limit reached for gpt-5 in organization org-x",
        "Too Many Requests",
        "503 upstream unavailable",
        "The service is temporarily unavailable",
        "The server had an error while processing your request (server_error)",
        "Internal error encountered.",
        "The upstream provider returned an error",
        "exceeded request buffer limit while retrying upstream",
        "unable to forward upstream response",
        "upstream request failed",
        "upstream_stream_read_error",
        "The stream was interrupted",
        "HTTP/2 stream failed",
        "Network error: ECONNRESET",
        "Connection error.",
        "connect ECONNREFUSED 127.0.0.1:443 (connection refused)",
        "Connection lost while streaming",
        "Connection closed.",
        "other side closed",
        "TypeError: fetch failed",
        "request to https://oauth2.googleapis.com/token failed, reason: ",
        "getaddrinfo EAI_AGAIN api.example.com",
        "read ECONNRESET",
        "Error: connection reset by peer",
        "ENOTFOUND",
        "EAI_AGAIN",
        "upstream connect error or disconnect/reset before headers. reset reason: overflow",
        "reset before headers",
        "socket hang up",
        "The socket connection was closed unexpectedly",
        "Request timed out.",
        "ETIMEDOUT: timeout",
        "terminated",
        "WebSocket closed before response.completed",
        "websocket error: 1006",
        "Responses websocket connection limit reached",
        "stream ended without a finish_reason",
        "Anthropic stream ended before message_stop",
        "OpenAI Responses stream ended before a terminal response event",
        "http2 request did not get a response",
        "stream disconnected before completion: stream closed before response.completed",
        "Claude Code's stream from Anthropic was cut short after the reply had begun",
        "The pending stream has been canceled",
        "Server requested 120s retry delay (max: 60s). 429 slow down",
        "An error occurred. You can retry your request.",
        "Please try your request again.",
        "Something failed; please retry your request",
        "ResourceExhausted: quota",
        "subscription_sharing_usage_unavailable",
        "subscription_sharing_user_unavailable",
    ];

    #[test]
    fn status_codes_count_only_as_whole_words_and_limits_are_never_retried() {
        for text in ["500 Internal", "status 502", "(524)", "HTTP 520: origin"] {
            assert!(is_retryable_error_text(text), "{text}");
        }
        for text in [
            "bad value 5000",
            "request id req_5003xyz",
            "1429 bytes",
            "E_ECONNRESETX",
        ] {
            assert!(!is_retryable_error_text(text), "{text}");
        }
        for text in [
            "429 insufficient_quota: You exceeded your current quota",
            "429 Rate limit: quota exceeded for this month",
            r#"429 {"error":{"code":"1308","message":"usage limit"}}"#,
            "503 service unavailable: check your billing details",
        ] {
            assert!(!is_retryable_error_text(text), "{text}");
        }
        assert!(is_retryable_error_text(r#"429 {"code": 13080}"#));
    }

    #[test]
    fn every_pattern_matches_its_real_text() {
        assert_eq!(RETRYABLE_TEXTS.len(), RETRYABLE_PATTERNS.len());
        for (pattern, text) in RETRYABLE_PATTERNS.iter().zip(RETRYABLE_TEXTS) {
            assert!(any_of([*pattern]).is_match(text), "/{pattern}/ vs {text}");
            assert!(is_retryable_error_text(text), "{text}");
        }
    }

    fn error(text: Option<&str>) -> AssistantMessage {
        let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", "claude");
        m.stop_reason = StopReason::Error;
        m.error_message = text.map(String::from);
        m
    }

    #[test]
    fn message_classification_table() {
        let cases = [
            (error(Some("503 Service Unavailable")), true),
            (error(Some("bad value 5000")), false), // pi 1.6: whole status codes only
            (
                error(Some("prompt is too long: 213462 tokens > 200000 maximum")),
                false,
            ),
            (error(Some("400 bad request")), false),
            (error(Some("401 invalid x-api-key")), false),
            (error(Some("")), false),
            (error(None), false),
        ];
        for (m, expected) in &cases {
            assert_eq!(is_retryable(m, 200_000), *expected, "{:?}", m.error_message);
        }
        let mut stopped = error(Some("503 overloaded"));
        stopped.stop_reason = StopReason::Aborted;
        assert!(!is_retryable(&stopped, 200_000));
        // Overflow wins over a retryable-looking text.
        let both = error(Some("500 context_length_exceeded"));
        assert!(is_retryable_error_text("500 context_length_exceeded"));
        assert!(!is_retryable(&both, 200_000));
    }

    #[test]
    fn auto_retry_delays_double() {
        let delays: Vec<u64> = (1..=3)
            .map(|n| auto_retry_delay_ms(2000, n, 60_000))
            .collect();
        assert_eq!(delays, vec![2000, 4000, 8000]);
        let small: Vec<u64> = (1..=3)
            .map(|n| auto_retry_delay_ms(50, n, 60_000))
            .collect();
        assert_eq!(small, vec![50, 100, 200]);
        assert_eq!(auto_retry_delay_ms(2000, 0, 60_000), 2000);
        assert_eq!(auto_retry_delay_ms(2000, 200, u64::MAX), u64::MAX);
        assert_eq!(
            auto_retry_delay_ms(2000, 7, 60_000),
            60_000,
            "retry.maxAgentDelayMs caps it"
        );
    }

    #[test]
    fn settings_parse_with_defaults_and_legacy_key() {
        assert_eq!(
            RetrySettings::from_settings(&json!({})),
            RetrySettings::default()
        );
        let s = RetrySettings::from_settings(&json!({"retry": {
            "enabled": false, "maxRetries": 1, "baseDelayMs": 50, "maxDelayMs": 5000
        }}));
        assert_eq!(
            s,
            RetrySettings {
                enabled: false,
                max_retries: 1,
                base_delay_ms: 50,
                max_retry_delay_ms: 5000,
                ..RetrySettings::default()
            }
        );
        let s = RetrySettings::from_settings(&json!({"retry": {
            "maxRetries": "three", "maxDelayMs": 5000, "provider": {"maxRetryDelayMs": 0}
        }}));
        assert_eq!(s.max_retries, 3);
        assert_eq!(s.max_retry_delay_ms, 0);
        let s = RetrySettings::from_settings(&json!({"retry": {
            "maxAgentDelayMs": 5, "provider": {"maxRetries": 2}
        }}));
        assert_eq!((s.max_agent_delay_ms, s.provider_max_retries), (5, 2));
    }

    #[test]
    fn retryable_statuses() {
        let retried: Vec<u16> = [400, 401, 404, 408, 409, 413, 429, 500, 503, 529]
            .into_iter()
            .filter(|s| is_retryable_status(*s))
            .collect();
        assert_eq!(retried, vec![408, 409, 429, 500, 503, 529]);
    }

    #[test]
    fn retry_after_forms() {
        let now = 784_111_777_000; // Sun, 06 Nov 1994 08:49:37 GMT
        assert_eq!(
            parse_retry_after(Some("1500"), Some("9"), now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            parse_retry_after(None, Some("2.5"), now),
            Some(Duration::from_millis(2500))
        );
        assert_eq!(
            parse_retry_after(None, Some("Sun, 06 Nov 1994 08:50:07 GMT"), now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            parse_retry_after(None, Some("Sun, 06 Nov 1994 08:49:00 GMT"), now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after(Some("soon"), Some("later"), now), None);
        assert_eq!(parse_retry_after(None, Some("-3"), now), None);
        assert_eq!(parse_retry_after(None, None, now), None);
    }

    #[test]
    fn client_delays() {
        let after = |ms| ClientRetry::After(Duration::from_millis(ms));
        let delay = |retry, hint, max, jitter| client_retry_delay(retry, hint, max, jitter, "e");
        assert_eq!(delay(0, None, 60_000, 0.0), after(500));
        assert_eq!(delay(1, None, 60_000, 0.0), after(1000));
        assert_eq!(delay(5, None, 60_000, 0.0), after(8000));
        assert_eq!(delay(0, None, 60_000, 1.0), after(375));
        assert_eq!(
            delay(0, Some(Duration::from_secs(3)), 60_000, 0.5),
            after(3000)
        );
        // pi 1.6 honours any allowed hint as given (no limit with 0).
        assert_eq!(
            delay(0, Some(Duration::from_secs(90)), 0, 0.0),
            after(90_000)
        );
        match client_retry_delay(0, Some(Duration::from_secs(120)), 60_000, 0.0, "429 slow") {
            ClientRetry::TooLong(msg) => {
                assert_eq!(
                    msg,
                    "Server requested 120s retry delay (max: 60s). 429 slow"
                );
                assert!(is_retryable_error_text(&msg));
            }
            other => panic!("expected TooLong, got {other:?}"),
        }
    }
}
