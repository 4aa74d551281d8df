//! The Gemini API's wire format: `streamGenerateContent?alt=sse` chunks (`data:` lines only,
//! CRLF framed, one `GenerateContentResponse` each) and its real, pretty-printed error bodies.

use serde_json::{json, Value};

/// 400 body for a prompt over the context window (matches pi's Gemini overflow regex).
pub const OVERFLOW_BODY: &str = r#"{
  "error": {
    "code": 400,
    "message": "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).",
    "status": "INVALID_ARGUMENT"
  }
}
"#;

/// 429 body for an exhausted quota, with its retry details.
pub const RATE_LIMIT_BODY: &str = r#"{
  "error": {
    "code": 429,
    "message": "You exceeded your current quota, please check your plan and billing details.",
    "status": "RESOURCE_EXHAUSTED",
    "details": [
      {
        "@type": "type.googleapis.com/google.rpc.RetryInfo",
        "retryDelay": "37s"
      }
    ]
  }
}
"#;

/// 500 body.
pub const INTERNAL_BODY: &str = r#"{
  "error": {
    "code": 500,
    "message": "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
    "status": "INTERNAL"
  }
}
"#;

/// 503 body.
pub const OVERLOADED_BODY: &str = r#"{
  "error": {
    "code": 503,
    "message": "The model is overloaded. Please try again later.",
    "status": "UNAVAILABLE"
  }
}
"#;

/// A `usageMetadata` object.
pub fn usage(prompt: u64, candidates: u64, thoughts: u64, cached: u64) -> Value {
    let mut u = json!({
        "promptTokenCount": prompt,
        "candidatesTokenCount": candidates,
        "totalTokenCount": prompt + candidates + thoughts,
    });
    if thoughts > 0 {
        u["thoughtsTokenCount"] = json!(thoughts);
    }
    if cached > 0 {
        u["cachedContentTokenCount"] = json!(cached);
    }
    u
}

/// A text part.
pub fn text(text: &str) -> Value {
    json!({ "text": text })
}

/// A thought-summary part.
pub fn thought(text: &str) -> Value {
    json!({ "text": text, "thought": true })
}

/// A whole `functionCall` part (Gemini never splits one), optionally signed.
pub fn function_call(name: &str, args: Value, signature: Option<&str>) -> Value {
    let mut part = json!({ "functionCall": { "name": name, "args": args } });
    if let Some(s) = signature {
        part["thoughtSignature"] = json!(s);
    }
    part
}

/// One SSE chunk as Google frames it: `data: <json>` and a blank line, CRLF endings.
pub fn frame(data: &str) -> String {
    format!("data: {data}\r\n\r\n")
}

/// Builds a streamed reply chunk by chunk.
#[derive(Debug, Clone)]
pub struct GeminiStream {
    response_id: String,
    model_version: String,
    chunks: Vec<String>,
}

impl GeminiStream {
    /// A stream whose chunks carry `response_id` and `model_version`.
    pub fn new(response_id: &str, model_version: &str) -> Self {
        Self {
            response_id: response_id.into(),
            model_version: model_version.into(),
            chunks: Vec::new(),
        }
    }

    /// A chunk holding `parts` (no finish reason).
    pub fn parts(mut self, parts: Vec<Value>) -> Self {
        let chunk = self.chunk(parts, None, None);
        self.chunks.push(frame(&chunk.to_string()));
        self
    }

    /// Appends a raw, already framed string (malformed data, error objects).
    pub fn raw(mut self, framed: impl Into<String>) -> Self {
        self.chunks.push(framed.into());
        self
    }

    /// The final chunk: `parts`, `finishReason` and `usageMetadata`; returns every chunk.
    pub fn finish(mut self, parts: Vec<Value>, reason: &str, usage: Value) -> Vec<String> {
        let chunk = self.chunk(parts, Some(reason), Some(usage));
        self.chunks.push(frame(&chunk.to_string()));
        self.chunks
    }

    /// The chunks so far, unfinished (for drops and hangs).
    pub fn chunks(self) -> Vec<String> {
        self.chunks
    }

    fn chunk(&self, parts: Vec<Value>, reason: Option<&str>, usage: Option<Value>) -> Value {
        let mut candidate = json!({
            "content": { "parts": parts, "role": "model" },
            "index": 0,
        });
        if let Some(r) = reason {
            candidate["finishReason"] = json!(r);
        }
        let mut chunk = json!({
            "candidates": [candidate],
            "modelVersion": self.model_version,
            "responseId": self.response_id,
        });
        if let Some(u) = usage {
            chunk["usageMetadata"] = u;
        }
        chunk
    }
}
