//! The OpenAI Responses API's wire format: SSE event sequences shaped like the ones
//! `api.openai.com/v1/responses` streams (`event:` line plus a `data:` object carrying the same
//! `type`, a `sequence_number`, output/content indices), and its real HTTP error bodies.

use serde_json::{json, Value};

use crate::sse_event;

/// 400 body for a prompt over the context window (the text pi's overflow regex matches).
pub const OVERFLOW_BODY: &str = r#"{
  "error": {
    "message": "Your input exceeds the context window of this model. Please adjust your input and try again.",
    "type": "invalid_request_error",
    "param": "input",
    "code": "context_length_exceeded"
  }
}"#;

/// 429 body for a tokens-per-minute rate limit.
pub const RATE_LIMIT_BODY: &str = r#"{
  "error": {
    "message": "Rate limit reached for gpt-5 in organization org-test on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000. Please try again in 2s. Visit https://platform.openai.com/account/rate-limits to learn more.",
    "type": "tokens",
    "param": null,
    "code": "rate_limit_exceeded"
  }
}"#;

/// 500 body.
pub const SERVER_ERROR_BODY: &str = r#"{
  "error": {
    "message": "The server had an error while processing your request. Sorry about that!",
    "type": "server_error",
    "param": null,
    "code": null
  }
}"#;

/// 503 body.
pub const OVERLOADED_BODY: &str = r#"{
  "error": {
    "message": "The engine is currently overloaded, please try again later",
    "type": "server_error",
    "param": null,
    "code": null
  }
}"#;

/// The `usage` object of `response.completed`.
pub fn usage(input: u64, cached: u64, output: u64, reasoning: u64) -> Value {
    json!({
        "input_tokens": input,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": output,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": input + output,
    })
}

/// Builds one streamed response event by event, numbering events and output items as the
/// API does. Each `event` is one SSE event string (one chunk when served).
#[derive(Debug, Clone)]
pub struct ResponsesStream {
    id: String,
    model: String,
    seq: u64,
    output_index: u64,
    events: Vec<String>,
}

impl ResponsesStream {
    /// Starts a response: `response.created` and `response.in_progress`.
    pub fn new(id: &str, model: &str) -> Self {
        let mut s = Self {
            id: id.into(),
            model: model.into(),
            seq: 0,
            output_index: 0,
            events: Vec::new(),
        };
        let response = s.response("in_progress", Value::Null, None);
        s.push("response.created", json!({ "response": response }));
        let response = s.response("in_progress", Value::Null, None);
        s.push("response.in_progress", json!({ "response": response }));
        s
    }

    /// Appends an event of `kind` whose data is `fields` plus `type` and `sequence_number`.
    pub fn push(&mut self, kind: &str, mut fields: Value) {
        fields["type"] = json!(kind);
        fields["sequence_number"] = json!(self.seq);
        self.seq += 1;
        self.events.push(sse_event(Some(kind), &fields.to_string()));
    }

    /// Appends a raw, already framed SSE string (malformed data, foreign events).
    pub fn raw(mut self, event: impl Into<String>) -> Self {
        self.events.push(event.into());
        self
    }

    fn response(&self, status: &str, usage: Value, tier: Option<&str>) -> Value {
        json!({
            "id": self.id, "object": "response", "created_at": 1_767_000_000,
            "status": status, "model": self.model, "output": [],
            "service_tier": tier.unwrap_or("default"), "usage": usage,
        })
    }

    /// A reasoning item: one summary part per entry of `summary`, each streamed in two deltas,
    /// with `encrypted` as its `encrypted_content`.
    pub fn reasoning(mut self, item_id: &str, summary: &[&str], encrypted: &str) -> Self {
        let oi = self.next_output();
        let item = json!({"id": item_id, "type": "reasoning", "summary": []});
        self.push(
            "response.output_item.added",
            json!({"output_index": oi, "item": item}),
        );
        for (si, text) in summary.iter().enumerate() {
            let base = json!({"item_id": item_id, "output_index": oi, "summary_index": si});
            let part = json!({"type": "summary_text", "text": ""});
            self.push(
                "response.reasoning_summary_part.added",
                with(&base, "part", part),
            );
            for piece in halves(text) {
                self.push(
                    "response.reasoning_summary_text.delta",
                    with(&base, "delta", json!(piece)),
                );
            }
            self.push(
                "response.reasoning_summary_text.done",
                with(&base, "text", json!(text)),
            );
            let part = json!({"type": "summary_text", "text": text});
            self.push(
                "response.reasoning_summary_part.done",
                with(&base, "part", part),
            );
        }
        let summary: Vec<Value> = summary
            .iter()
            .map(|t| json!({"type": "summary_text", "text": t}))
            .collect();
        let item = json!({"id": item_id, "type": "reasoning", "encrypted_content": encrypted, "summary": summary});
        self.push(
            "response.output_item.done",
            json!({"output_index": oi, "item": item}),
        );
        self
    }

    /// An assistant message item whose text arrives as the given deltas.
    pub fn message(mut self, item_id: &str, deltas: &[&str]) -> Self {
        let oi = self.next_output();
        let item = json!({"id": item_id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"});
        self.push(
            "response.output_item.added",
            json!({"output_index": oi, "item": item}),
        );
        let base = json!({"item_id": item_id, "output_index": oi, "content_index": 0});
        let part = json!({"type": "output_text", "annotations": [], "text": ""});
        self.push("response.content_part.added", with(&base, "part", part));
        for d in deltas {
            self.push("response.output_text.delta", with(&base, "delta", json!(d)));
        }
        let text: String = deltas.concat();
        self.push(
            "response.output_text.done",
            with(&base, "text", json!(text)),
        );
        let part = json!({"type": "output_text", "annotations": [], "text": text});
        self.push(
            "response.content_part.done",
            with(&base, "part", part.clone()),
        );
        let item = json!({"id": item_id, "type": "message", "status": "completed", "content": [part], "role": "assistant"});
        self.push(
            "response.output_item.done",
            json!({"output_index": oi, "item": item}),
        );
        self
    }

    /// A function call item whose arguments arrive split into `chunks`.
    pub fn function_call(
        mut self,
        item_id: &str,
        call_id: &str,
        name: &str,
        chunks: &[&str],
    ) -> Self {
        let oi = self.next_output();
        let item = |args: &str, status: &str| {
            json!({"id": item_id, "type": "function_call", "status": status,
                   "arguments": args, "call_id": call_id, "name": name})
        };
        self.push(
            "response.output_item.added",
            json!({"output_index": oi, "item": item("", "in_progress")}),
        );
        let base = json!({"item_id": item_id, "output_index": oi});
        for c in chunks {
            self.push(
                "response.function_call_arguments.delta",
                with(&base, "delta", json!(c)),
            );
        }
        let args: String = chunks.concat();
        self.push(
            "response.function_call_arguments.done",
            with(&base, "arguments", json!(args)),
        );
        self.push(
            "response.output_item.done",
            json!({"output_index": oi, "item": item(&args, "completed")}),
        );
        self
    }

    /// Ends with `response.completed` (status `completed`) and returns the events.
    pub fn completed(self, usage: Value) -> Vec<String> {
        self.finished("response.completed", "completed", usage, None)
    }

    /// Ends with a terminal event of `kind` carrying `status`, `usage` and a service tier.
    pub fn finished(
        mut self,
        kind: &str,
        status: &str,
        usage: Value,
        tier: Option<&str>,
    ) -> Vec<String> {
        let response = self.response(status, usage, tier);
        self.push(kind, json!({ "response": response }));
        self.events
    }

    /// Ends with `response.failed` carrying `error` (`{"code","message"}` or null).
    pub fn failed(mut self, error: Value) -> Vec<String> {
        let mut response = self.response("failed", Value::Null, None);
        response["error"] = error;
        self.push("response.failed", json!({ "response": response }));
        self.events
    }

    /// The events so far, without a terminal event (for drops and hangs).
    pub fn events(self) -> Vec<String> {
        self.events
    }

    fn next_output(&mut self) -> u64 {
        self.output_index += 1;
        self.output_index - 1
    }
}

fn with(base: &Value, key: &str, value: Value) -> Value {
    let mut v = base.clone();
    v[key] = value;
    v
}

/// Splits `text` in two at a char boundary near the middle (both halves non-empty if possible).
fn halves(text: &str) -> Vec<&str> {
    let mid = text
        .char_indices()
        .nth(text.chars().count() / 2)
        .map_or(0, |(i, _)| i);
    if mid == 0 {
        return vec![text];
    }
    vec![&text[..mid], &text[mid..]]
}

/// The standalone `error` event the API sends mid-stream.
pub fn error_event(code: &str, message: &str) -> String {
    let data = json!({"type": "error", "sequence_number": 99, "code": code, "message": message, "param": null});
    sse_event(Some("error"), &data.to_string())
}
