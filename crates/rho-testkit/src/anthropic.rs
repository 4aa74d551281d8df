//! The Anthropic Messages API as it really streams (providers spec §3.1, Appendix A.1/A.2):
//! SSE events byte for byte in the API's field order, whole replies built from them, and the
//! API's real error bodies. Each event function returns one complete SSE event (ending in a
//! blank line), so a `Vec` of them is one chunk per event for [`MockResponse::sse`].

use crate::server::MockResponse;
use crate::sse_event;

/// Token counts as Anthropic reports them in `message_start`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// `input_tokens` (uncached prompt tokens).
    pub input: u64,
    /// `output_tokens`.
    pub output: u64,
    /// `cache_read_input_tokens`.
    pub cache_read: u64,
    /// `cache_creation_input_tokens`.
    pub cache_write: u64,
}

/// A JSON string literal for `s` (quotes and escapes included).
fn js(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

fn event(name: &str, data: &str) -> String {
    sse_event(Some(name), data)
}

/// `message_start` with the message id, model and initial usage.
pub fn message_start(id: &str, model: &str, usage: Usage) -> String {
    event(
        "message_start",
        &format!(
            "{{\"type\":\"message_start\",\"message\":{{\"id\":{},\"type\":\"message\",\"role\":\"assistant\",\"model\":{},\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{{\"input_tokens\":{},\"cache_creation_input_tokens\":{},\"cache_read_input_tokens\":{},\"output_tokens\":{}}}}}}}",
            js(id),
            js(model),
            usage.input,
            usage.cache_write,
            usage.cache_read,
            usage.output
        ),
    )
}

/// `ping` (the API sends these between events; clients ignore them).
pub fn ping() -> String {
    event("ping", "{\"type\":\"ping\"}")
}

fn block_start(index: usize, block: &str) -> String {
    event(
        "content_block_start",
        &format!(
            "{{\"type\":\"content_block_start\",\"index\":{index},\"content_block\":{block}}}"
        ),
    )
}

fn block_delta(index: usize, delta: &str) -> String {
    event(
        "content_block_delta",
        &format!("{{\"type\":\"content_block_delta\",\"index\":{index},\"delta\":{delta}}}"),
    )
}

/// `content_block_start` of a text block.
pub fn text_start(index: usize) -> String {
    block_start(index, "{\"type\":\"text\",\"text\":\"\"}")
}

/// A `text_delta`.
pub fn text_delta(index: usize, text: &str) -> String {
    block_delta(
        index,
        &format!("{{\"type\":\"text_delta\",\"text\":{}}}", js(text)),
    )
}

/// `content_block_start` of a thinking block (empty thinking and signature).
pub fn thinking_start(index: usize) -> String {
    block_start(
        index,
        "{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}",
    )
}

/// A `thinking_delta`.
pub fn thinking_delta(index: usize, thinking: &str) -> String {
    block_delta(
        index,
        &format!(
            "{{\"type\":\"thinking_delta\",\"thinking\":{}}}",
            js(thinking)
        ),
    )
}

/// A `signature_delta` (sent once, just before the thinking block stops).
pub fn signature_delta(index: usize, signature: &str) -> String {
    block_delta(
        index,
        &format!(
            "{{\"type\":\"signature_delta\",\"signature\":{}}}",
            js(signature)
        ),
    )
}

/// `content_block_start` of a `redacted_thinking` block carrying encrypted `data`.
pub fn redacted_thinking_start(index: usize, data: &str) -> String {
    block_start(
        index,
        &format!("{{\"type\":\"redacted_thinking\",\"data\":{}}}", js(data)),
    )
}

/// `content_block_start` of a `tool_use` block (input `{}`; arguments follow as deltas).
pub fn tool_use_start(index: usize, id: &str, name: &str) -> String {
    block_start(
        index,
        &format!(
            "{{\"type\":\"tool_use\",\"id\":{},\"name\":{},\"input\":{{}}}}",
            js(id),
            js(name)
        ),
    )
}

/// An `input_json_delta` carrying a raw fragment of the arguments' JSON.
pub fn input_json_delta(index: usize, partial_json: &str) -> String {
    block_delta(
        index,
        &format!(
            "{{\"type\":\"input_json_delta\",\"partial_json\":{}}}",
            js(partial_json)
        ),
    )
}

/// `content_block_stop`.
pub fn block_stop(index: usize) -> String {
    event(
        "content_block_stop",
        &format!("{{\"type\":\"content_block_stop\",\"index\":{index}}}"),
    )
}

/// `message_delta` with the stop reason and the final `output_tokens`.
pub fn message_delta(stop_reason: &str, output_tokens: u64) -> String {
    event(
        "message_delta",
        &format!(
            "{{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":{},\"stop_sequence\":null}},\"usage\":{{\"output_tokens\":{output_tokens}}}}}",
            js(stop_reason)
        ),
    )
}

/// `message_stop`.
pub fn message_stop() -> String {
    event("message_stop", "{\"type\":\"message_stop\"}")
}

/// An `error` event as the API sends it mid-stream (e.g. `overloaded_error`, `Overloaded`).
pub fn error_event(error_type: &str, message: &str) -> String {
    event("error", &error_event_data(error_type, message))
}

/// The `data` of [`error_event`]: what a client must report verbatim.
pub fn error_event_data(error_type: &str, message: &str) -> String {
    format!(
        "{{\"type\":\"error\",\"error\":{{\"type\":{},\"message\":{}}}}}",
        js(error_type),
        js(message)
    )
}

/// A whole text reply: `message_start`, `ping`, one text block with `deltas`, `end_turn`.
pub fn text_reply(id: &str, model: &str, deltas: &[&str], usage: Usage) -> Vec<String> {
    let mut out = vec![message_start(id, model, usage), ping(), text_start(0)];
    out.extend(deltas.iter().map(|d| text_delta(0, d)));
    out.extend([
        block_stop(0),
        message_delta("end_turn", usage.output),
        message_stop(),
    ]);
    out
}

/// A reply that thinks first: a signed thinking block, a `redacted_thinking` block, then
/// text, ending with `end_turn`.
pub fn thinking_reply(
    id: &str,
    model: &str,
    thinking: &[&str],
    signature: &str,
    redacted_data: &str,
    text: &str,
    usage: Usage,
) -> Vec<String> {
    let mut out = vec![message_start(id, model, usage), thinking_start(0)];
    out.extend(thinking.iter().map(|t| thinking_delta(0, t)));
    out.extend([
        signature_delta(0, signature),
        block_stop(0),
        redacted_thinking_start(1, redacted_data),
        block_stop(1),
        text_start(2),
        text_delta(2, text),
        block_stop(2),
        message_delta("end_turn", usage.output),
        message_stop(),
    ]);
    out
}

/// One scripted tool call: id, name, and its argument JSON cut into fragments.
#[derive(Debug, Clone)]
pub struct ToolCallScript<'a> {
    /// `toolu_...` id.
    pub id: &'a str,
    /// Tool name.
    pub name: &'a str,
    /// The argument JSON as the API splits it (the first fragment is usually `""`).
    pub fragments: Vec<&'a str>,
}

/// A reply that calls tools: one `tool_use` block per call (indices from 0), arguments as
/// `input_json_delta` fragments, ending with `tool_use`.
pub fn tool_calls_reply(
    id: &str,
    model: &str,
    calls: &[ToolCallScript<'_>],
    usage: Usage,
) -> Vec<String> {
    let mut out = vec![message_start(id, model, usage)];
    for (i, call) in calls.iter().enumerate() {
        out.push(tool_use_start(i, call.id, call.name));
        out.extend(call.fragments.iter().map(|f| input_json_delta(i, f)));
        out.push(block_stop(i));
    }
    out.extend([message_delta("tool_use", usage.output), message_stop()]);
    out
}

/// Appendix A.1 verbatim: "Hello! How can I help?", usage 412/9, cache read 1800.
pub fn transcript_a1() -> Vec<String> {
    let usage = Usage {
        input: 412,
        output: 1,
        cache_read: 1800,
        cache_write: 0,
    };
    let mut out = text_reply(
        "msg_01TEXT",
        "claude-sonnet-4-5",
        &["Hello! ", "How can I help?"],
        usage,
    );
    let n = out.len();
    out[n - 2] = message_delta("end_turn", 9);
    out
}

/// Appendix A.2 verbatim: signed thinking, text, a `read` call split across fragments.
pub fn transcript_a2() -> Vec<String> {
    let usage = Usage {
        input: 980,
        output: 2,
        cache_read: 0,
        cache_write: 1500,
    };
    vec![
        message_start("msg_01TOOL", "claude-sonnet-4-5", usage),
        thinking_start(0),
        thinking_delta(0, "I should read the file first."),
        signature_delta(0, "c2lnLXRlc3QtMDE="),
        block_stop(0),
        text_start(1),
        text_delta(1, "Let me look at it."),
        block_stop(1),
        tool_use_start(2, "toolu_01ABC", "read"),
        input_json_delta(2, ""),
        input_json_delta(2, "{\"path\": \"src/ma"),
        input_json_delta(2, "in.rs\"}"),
        block_stop(2),
        message_delta("tool_use", 87),
        message_stop(),
    ]
}

/// The body of an HTTP error: `{"type":"error","error":{...},"request_id":...}`.
pub fn error_body(error_type: &str, message: &str, request_id: &str) -> String {
    format!(
        "{{\"type\":\"error\",\"error\":{{\"type\":{},\"message\":{}}},\"request_id\":{}}}",
        js(error_type),
        js(message),
        js(request_id)
    )
}

/// 400 `invalid_request_error` for a prompt over the context window (an overflow, spec §5).
pub fn prompt_too_long(tokens: u64, maximum: u64) -> MockResponse {
    let message = format!("prompt is too long: {tokens} tokens > {maximum} maximum");
    MockResponse::error(
        400,
        error_body("invalid_request_error", &message, "req_011PROMPT"),
    )
    .header("request-id", "req_011PROMPT")
}

/// 401 `authentication_error` for a bad key.
pub fn authentication_error() -> MockResponse {
    MockResponse::error(
        401,
        error_body("authentication_error", "invalid x-api-key", "req_011AUTH"),
    )
    .header("request-id", "req_011AUTH")
}

/// 429 `rate_limit_error` with `retry-after`.
pub fn rate_limit_error() -> MockResponse {
    let message = "This request would exceed the rate limit for your organization of 30,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase.";
    MockResponse::error(429, error_body("rate_limit_error", message, "req_011RATE"))
        .header("request-id", "req_011RATE")
        .header("retry-after", "12")
        .header("x-should-retry", "true")
}

/// 500 `api_error`.
pub fn api_error() -> MockResponse {
    MockResponse::error(
        500,
        error_body("api_error", "Internal server error", "req_011API"),
    )
    .header("request-id", "req_011API")
    .header("x-should-retry", "true")
}

/// 529 `overloaded_error`.
pub fn overloaded_error() -> MockResponse {
    MockResponse::error(
        529,
        error_body("overloaded_error", "Overloaded", "req_011OVER"),
    )
    .header("request-id", "req_011OVER")
    .header("x-should-retry", "true")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_valid_json_with_escaped_text() {
        let e = text_delta(3, "a \"quoted\"\nline");
        let data = e
            .strip_prefix("event: content_block_delta\ndata: ")
            .and_then(|s| s.strip_suffix("\n\n"))
            .expect("one data line");
        let v: serde_json::Value = serde_json::from_str(data).expect("json");
        assert_eq!(v["delta"]["text"], "a \"quoted\"\nline");
        assert_eq!(v["index"], 3);
    }

    #[test]
    fn a1_matches_the_appendix_bytes() {
        let a1 = transcript_a1().concat();
        assert!(a1.starts_with("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_01TEXT\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":412,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":1800,\"output_tokens\":1}}}\n\nevent: ping\n"));
        assert!(a1.ends_with("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":9}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"));
    }
}
