//! The OpenAI Chat Completions side of the test server: chunk streams as OpenAI-compatible
//! servers send them (`data: {chat.completion.chunk}` lines ending with `data: [DONE]`) and
//! their real error bodies.
//!
//! Streams are sent with `transfer-encoding: chunked`, as real servers do, so a connection
//! closed mid-body is a transport error the client can see, not a clean end of stream.

use serde_json::{json, Value};

use crate::server::{Chunk, MockResponse};

/// Builds one streamed completion chunk by chunk.
#[derive(Debug, Clone)]
pub struct ChatStream {
    id: String,
    model: String,
    created: u64,
    events: Vec<String>,
}

impl ChatStream {
    /// A stream for completion `id` reported as coming from `model`.
    pub fn new(id: &str, model: &str) -> Self {
        Self {
            id: id.to_string(),
            model: model.to_string(),
            created: 1_735_689_600,
            events: Vec::new(),
        }
    }

    /// A chunk with `choices[0]` = `{index:0, delta, finish_reason}`.
    pub fn delta(self, delta: Value, finish_reason: Option<&str>) -> Self {
        let chunk = json!({
            "id": self.id, "object": "chat.completion.chunk", "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        });
        self.data(&chunk.to_string())
    }

    /// The opening chunk most servers send: role and an empty content.
    pub fn role(self) -> Self {
        self.delta(json!({"role": "assistant", "content": ""}), None)
    }

    /// A text delta.
    pub fn text(self, text: &str) -> Self {
        self.delta(json!({"content": text}), None)
    }

    /// A reasoning delta in `field` (`reasoning_content`, `reasoning`, `reasoning_text`).
    pub fn reasoning(self, field: &str, text: &str) -> Self {
        let mut delta = serde_json::Map::new();
        delta.insert(field.to_string(), Value::String(text.to_string()));
        self.delta(Value::Object(delta), None)
    }

    /// The first chunk of tool call `index`: id, name and an empty arguments string.
    pub fn tool_call_start(self, index: u64, id: &str, name: &str) -> Self {
        self.delta(
            json!({"tool_calls": [{"index": index, "id": id, "type": "function",
                "function": {"name": name, "arguments": ""}}]}),
            None,
        )
    }

    /// A fragment of tool call `index`'s argument JSON.
    pub fn tool_args(self, index: u64, fragment: &str) -> Self {
        self.delta(
            json!({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]}),
            None,
        )
    }

    /// The chunk carrying `finish_reason` with an empty delta.
    pub fn finish(self, reason: &str) -> Self {
        self.delta(json!({}), Some(reason))
    }

    /// The usage chunk `stream_options.include_usage` asks for (empty `choices`).
    pub fn usage(self, prompt: u64, completion: u64, cached: Option<u64>) -> Self {
        let mut usage = json!({
            "prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion,
        });
        if let Some(cached) = cached {
            usage["prompt_tokens_details"] = json!({"cached_tokens": cached});
        }
        let chunk = json!({
            "id": self.id, "object": "chat.completion.chunk", "created": self.created,
            "model": self.model, "choices": [], "usage": usage,
        });
        self.data(&chunk.to_string())
    }

    /// An arbitrary `data:` payload (broken JSON, error objects...).
    pub fn data(mut self, data: &str) -> Self {
        self.events.push(crate::sse_event(None, data));
        self
    }

    /// An SSE comment line, as OpenRouter sends while the upstream is busy
    /// (`: OPENROUTER PROCESSING`).
    pub fn comment(mut self, text: &str) -> Self {
        self.events.push(format!(": {text}\n\n"));
        self
    }

    /// The end marker `data: [DONE]`.
    pub fn done(self) -> Self {
        self.data("[DONE]")
    }

    /// The SSE text of every event so far (what the body carries, unframed).
    pub fn sse_text(&self) -> String {
        self.events.concat()
    }

    /// A complete `200 text/event-stream` response.
    pub fn response(self) -> MockResponse {
        self.framed().then(Chunk::Bytes(b"0\r\n\r\n".to_vec()))
    }

    /// The events, then the connection closes without ending the chunked body.
    pub fn response_then_drop(self) -> MockResponse {
        self.framed().then(Chunk::Drop)
    }

    /// The events, then the server goes quiet and keeps the connection open.
    pub fn response_then_hang(self) -> MockResponse {
        self.framed().then(Chunk::Hang)
    }

    fn framed(self) -> MockResponse {
        MockResponse {
            status: 200,
            headers: vec![
                ("content-type".into(), "text/event-stream".into()),
                ("transfer-encoding".into(), "chunked".into()),
            ],
            chunks: self
                .events
                .iter()
                .map(|e| Chunk::Bytes(http_chunk(e.as_bytes())))
                .collect(),
        }
    }
}

/// One HTTP/1.1 chunk: hex length, CRLF, bytes, CRLF.
fn http_chunk(bytes: &[u8]) -> Vec<u8> {
    let mut out = format!("{:x}\r\n", bytes.len()).into_bytes();
    out.extend_from_slice(bytes);
    out.extend_from_slice(b"\r\n");
    out
}

/// Appendix A.3: groq `llama-3.3-70b-versatile` says "Hello there!".
pub fn text_reply() -> ChatStream {
    ChatStream::new("chatcmpl-T1", "llama-3.3-70b-versatile")
        .role()
        .text("Hello")
        .text(" there!")
        .finish("stop")
        .usage(57, 3, None)
        .done()
}

/// Appendix A.4: DeepSeek reasons in `reasoning_content`, then calls `read` with its
/// arguments split across two chunks; 1024 of 1200 prompt tokens were cached.
pub fn reasoning_tool_call() -> ChatStream {
    ChatStream::new("chatcmpl-T2", "deepseek-v4-flash")
        .delta(
            json!({"role": "assistant", "content": null, "reasoning_content": "Need the file."}),
            None,
        )
        .reasoning("reasoning_content", " Calling read.")
        .tool_call_start(0, "call_0_a1b2", "read")
        .tool_args(0, "{\"path\":")
        .tool_args(0, "\"src/main.rs\"}")
        .finish("tool_calls")
        .usage(1200, 40, Some(1024))
        .done()
}

/// 400 from OpenAI when the prompt does not fit (`context_length_exceeded`).
pub const ERROR_CONTEXT_LENGTH: &str = r#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 140563 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;

/// 401 for a wrong key.
pub const ERROR_INVALID_KEY: &str = r#"{"error":{"message":"Incorrect API key provided: sk-bad. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#;

/// 429 when the tokens-per-minute limit is hit.
pub const ERROR_RATE_LIMIT: &str = r#"{"error":{"message":"Rate limit reached for gpt-4o in organization org-test on tokens per min (TPM): Limit 30000, Used 29500, Requested 1200. Please try again in 1.4s. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}"#;

/// 500 from OpenAI's servers.
pub const ERROR_SERVER: &str = r#"{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}"#;

/// A proxy's HTML page in front of a Chat Completions server (not JSON).
pub const ERROR_HTML_BAD_GATEWAY: &str =
    "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>";

/// An error object sent inside a 200 stream (OpenRouter does this when the upstream fails).
pub const STREAM_ERROR_CHUNK: &str = r#"{"id":"gen-1","object":"chat.completion.chunk","created":1735689600,"model":"anthropic/claude-sonnet-4.5","provider":"Anthropic","error":{"code":502,"message":"Upstream provider returned an error: overloaded"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}"#;

/// A non-streaming `chat.completion` object: what a server that ignores `"stream": true`
/// sends back (200, `application/json`).
pub fn non_streaming_completion() -> MockResponse {
    let body = json!({
        "id": "chatcmpl-NS", "object": "chat.completion", "created": 1_735_689_600,
        "model": "llama-3.3-70b-versatile",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi"},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
    });
    MockResponse {
        status: 200,
        headers: vec![("content-type".into(), "application/json".into())],
        chunks: vec![Chunk::Bytes(body.to_string().into_bytes())],
    }
}

/// An error response with `body` as a provider sends it.
pub fn error(status: u16, body: &str) -> MockResponse {
    MockResponse::error(status, body)
}

/// A non-JSON error response (`text/html`).
pub fn html_error(status: u16, body: &str) -> MockResponse {
    MockResponse {
        status,
        headers: vec![("content-type".into(), "text/html".into())],
        chunks: vec![Chunk::Bytes(body.as_bytes().to_vec())],
    }
}

/// An error status with an empty body.
pub fn empty_error(status: u16) -> MockResponse {
    MockResponse {
        status,
        headers: vec![("content-length".into(), "0".into())],
        chunks: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data_lines(text: &str) -> Vec<String> {
        text.lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn text_reply_is_the_appendix_a3_transcript() {
        let expected = [
            r#"{"id":"chatcmpl-T1","object":"chat.completion.chunk","created":1735689600,"model":"llama-3.3-70b-versatile","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#,
            r#"{"id":"chatcmpl-T1","object":"chat.completion.chunk","created":1735689600,"model":"llama-3.3-70b-versatile","choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}"#,
            r#"{"id":"chatcmpl-T1","object":"chat.completion.chunk","created":1735689600,"model":"llama-3.3-70b-versatile","choices":[{"index":0,"delta":{"content":" there!"},"finish_reason":null}]}"#,
            r#"{"id":"chatcmpl-T1","object":"chat.completion.chunk","created":1735689600,"model":"llama-3.3-70b-versatile","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
            r#"{"id":"chatcmpl-T1","object":"chat.completion.chunk","created":1735689600,"model":"llama-3.3-70b-versatile","choices":[],"usage":{"prompt_tokens":57,"completion_tokens":3,"total_tokens":60}}"#,
        ];
        let got = data_lines(&text_reply().sse_text());
        assert_eq!(got.len(), expected.len() + 1);
        for (g, e) in got.iter().zip(expected) {
            let g: Value = serde_json::from_str(g).expect("chunk json");
            let e: Value = serde_json::from_str(e).expect("spec json");
            assert_eq!(g, e);
        }
        assert_eq!(got.last().map(String::as_str), Some("[DONE]"));
    }

    #[test]
    fn streams_are_chunk_framed_and_terminated() {
        let r = ChatStream::new("c", "m").text("x").response();
        assert!(r
            .headers
            .contains(&("transfer-encoding".into(), "chunked".into())));
        let bytes: Vec<u8> = r
            .chunks
            .iter()
            .flat_map(|c| match c {
                Chunk::Bytes(b) => b.clone(),
                _ => Vec::new(),
            })
            .collect();
        let text = String::from_utf8(bytes).expect("utf8");
        assert!(text.ends_with("\r\n0\r\n\r\n"), "{text:?}");
        let first = text.split("\r\n").next().expect("size line");
        let size = usize::from_str_radix(first, 16).expect("hex size");
        assert_eq!(
            &text[first.len() + 2 + size..first.len() + 4 + size],
            "\r\n"
        );
        assert!(matches!(
            ChatStream::new("c", "m").response_then_drop().chunks.last(),
            Some(Chunk::Drop)
        ));
    }
}
