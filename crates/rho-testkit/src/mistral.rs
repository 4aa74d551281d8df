//! Mistral's chat completion stream as the service sends it: `data: <chunk>` lines, the
//! last chunk carrying `finish_reason` and usage, then `data: [DONE]`.

use serde_json::{json, Value};

use crate::sse_event;

/// One framed chunk with `delta`, an optional `finish_reason` and usage.
pub fn chunk(delta: Value, finish: Option<&str>, usage: Option<Value>) -> String {
    let mut data = json!({
        "id": "cmpl-36", "object": "chat.completion.chunk", "created": 1_735_689_600,
        "model": "devstral-2512",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    });
    if let Some(usage) = usage {
        data["usage"] = usage;
    }
    sse_event(None, &data.to_string())
}

/// A text delta.
pub fn text(text: &str) -> String {
    chunk(json!({"role": "assistant", "content": text}), None, None)
}

/// Usage as Mistral reports it.
pub fn usage(prompt: u64, completion: u64, cached: u64) -> Value {
    json!({
        "prompt_tokens": prompt, "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
    })
}

/// The last chunk: `finish_reason` and usage.
pub fn finish(reason: &str, usage: Value) -> String {
    chunk(json!({"content": ""}), Some(reason), Some(usage))
}

/// `data: [DONE]`.
pub fn done() -> String {
    sse_event(None, "[DONE]")
}
