//! Bedrock's Converse stream as the service sends it: AWS event-stream messages (prelude,
//! `:message-type`/`:event-type`/`:content-type` headers, JSON payload, CRCs), encoded with
//! the AWS event-stream crate's own encoder.

use aws_smithy_types::event_stream::{Header, HeaderValue, Message};
use serde_json::{json, Value};

use crate::server::{Chunk, MockResponse};

/// The content type of Bedrock's streaming replies.
pub const CONTENT_TYPE: &str = "application/vnd.amazon.eventstream";

fn string_header(name: &str, value: &str) -> Header {
    Header::new(
        name.to_string(),
        HeaderValue::String(value.to_string().into()),
    )
}

/// One message with `headers` and the raw `payload` bytes.
pub fn frame_bytes(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut message = Message::new(payload.to_vec());
    for (name, value) in headers {
        message = message.add_header(string_header(name, value));
    }
    let mut out = Vec::new();
    aws_smithy_eventstream::frame::write_message_to(&message, &mut out)
        .expect("an event-stream message encodes");
    out
}

/// An `event` message of type `kind` with a JSON payload.
pub fn event(kind: &str, payload: &Value) -> Vec<u8> {
    event_raw(kind, payload.to_string().as_bytes())
}

/// An `event` message of type `kind` with raw payload bytes.
pub fn event_raw(kind: &str, payload: &[u8]) -> Vec<u8> {
    frame_bytes(
        &[
            (":message-type", "event"),
            (":event-type", kind),
            (":content-type", "application/json"),
        ],
        payload,
    )
}

/// An `exception` message (`throttlingException`, `validationException`, ...).
pub fn exception(kind: &str, message: &str) -> Vec<u8> {
    frame_bytes(
        &[
            (":message-type", "exception"),
            (":exception-type", kind),
            (":content-type", "application/json"),
        ],
        json!({ "message": message }).to_string().as_bytes(),
    )
}

/// `messageStart`.
pub fn message_start() -> Vec<u8> {
    event("messageStart", &json!({"role": "assistant"}))
}

/// A text delta of block `index`.
pub fn text(index: u64, text: &str) -> Vec<u8> {
    event(
        "contentBlockDelta",
        &json!({"contentBlockIndex": index, "delta": {"text": text}}),
    )
}

/// A reasoning text delta of block `index`.
pub fn reasoning(index: u64, text: &str) -> Vec<u8> {
    event(
        "contentBlockDelta",
        &json!({"contentBlockIndex": index, "delta": {"reasoningContent": {"text": text}}}),
    )
}

/// A reasoning signature delta of block `index`.
pub fn signature(index: u64, signature: &str) -> Vec<u8> {
    event(
        "contentBlockDelta",
        &json!({"contentBlockIndex": index, "delta": {"reasoningContent": {"signature": signature}}}),
    )
}

/// The start of tool call `id` in block `index`.
pub fn tool_start(index: u64, id: &str, name: &str) -> Vec<u8> {
    event(
        "contentBlockStart",
        &json!({"contentBlockIndex": index, "start": {"toolUse": {"toolUseId": id, "name": name}}}),
    )
}

/// A piece of tool input JSON for block `index`.
pub fn tool_input(index: u64, input: &str) -> Vec<u8> {
    event(
        "contentBlockDelta",
        &json!({"contentBlockIndex": index, "delta": {"toolUse": {"input": input}}}),
    )
}

/// `contentBlockStop` of block `index`.
pub fn block_stop(index: u64) -> Vec<u8> {
    event("contentBlockStop", &json!({ "contentBlockIndex": index }))
}

/// `messageStop` with `reason` (`end_turn`, `tool_use`, `max_tokens`, ...).
pub fn message_stop(reason: &str) -> Vec<u8> {
    event("messageStop", &json!({ "stopReason": reason }))
}

/// `metadata` with token usage.
pub fn metadata(input: u64, output: u64, cache_read: u64, cache_write: u64) -> Vec<u8> {
    event(
        "metadata",
        &json!({"usage": {
            "inputTokens": input, "outputTokens": output,
            "totalTokens": input + output + cache_read + cache_write,
            "cacheReadInputTokens": cache_read, "cacheWriteInputTokens": cache_write,
        }, "metrics": {"latencyMs": 120}}),
    )
}

/// A `200` reply of `frames`, one chunk per frame.
pub fn response(frames: Vec<Vec<u8>>) -> MockResponse {
    MockResponse {
        status: 200,
        headers: vec![("content-type".into(), CONTENT_TYPE.into())],
        chunks: frames.into_iter().map(Chunk::Bytes).collect(),
    }
}

/// A Bedrock HTTP error: the type in `x-amzn-errortype`, the message in the body.
pub fn error(status: u16, kind: &str, message: &str) -> MockResponse {
    MockResponse::error(status, json!({ "message": message }).to_string()).header(
        "x-amzn-errortype",
        &format!("{kind}:http://internal.amazon.com/coral/com.amazon.bedrock/"),
    )
}
