//! Folds streamed `GenerateContentResponse` chunks into the reply (providers spec §3.4
//! "Response").

use std::sync::atomic::{AtomicU64, Ordering};

use serde::Deserialize;
use serde_json::Value;

use crate::model::Model;
use crate::provider::{Flow, WireParser};
use crate::reply::ReplyBuilder;
use crate::sse::SseEvent;
use crate::stream_error::StreamError;
use crate::usage::StopReason;

/// Process-wide counter behind generated tool-call ids, so two calls in the same
/// millisecond still differ.
static CALL_COUNTER: AtomicU64 = AtomicU64::new(0);

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Chunk {
    #[serde(default)]
    candidates: Vec<Candidate>,
    #[serde(default)]
    usage_metadata: Option<UsageMetadata>,
    #[serde(default)]
    response_id: Option<String>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate {
    #[serde(default)]
    content: Option<Content>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Content {
    #[serde(default)]
    parts: Vec<Part>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Part {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    thought: Option<bool>,
    #[serde(default)]
    thought_signature: Option<String>,
    #[serde(default)]
    function_call: Option<FunctionCall>,
}

#[derive(Debug, Deserialize)]
struct FunctionCall {
    #[serde(default)]
    name: String,
    #[serde(default)]
    args: Option<Value>,
    #[serde(default)]
    id: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct UsageMetadata {
    #[serde(default)]
    prompt_token_count: u64,
    #[serde(default)]
    candidates_token_count: u64,
    #[serde(default)]
    thoughts_token_count: u64,
    #[serde(default)]
    cached_content_token_count: u64,
    #[serde(default)]
    total_token_count: Option<u64>,
}

/// The open text-like block: its index and whether it is thinking.
#[derive(Debug, Clone, Copy)]
struct Open {
    index: usize,
    thinking: bool,
}

/// The Gemini stream parser (Google's Gemini API and Vertex AI alike).
#[derive(Debug)]
pub struct Parser {
    open: Option<Open>,
    /// The mapped `finishReason`, once one arrived.
    finish: Option<StopReason>,
    /// pi's text for a stream of this API without a `finishReason`.
    ended_early: &'static str,
}

impl Parser {
    /// A parser for `model` (its `api` names the service in the "ended early" text).
    pub fn new(model: &Model) -> Self {
        Self {
            open: None,
            finish: None,
            ended_early: match model.api.as_str() {
                "google-vertex" => VERTEX_ENDED_EARLY,
                _ => ENDED_EARLY,
            },
        }
    }

    fn close_open(&mut self, reply: &mut ReplyBuilder) {
        if let Some(open) = self.open.take() {
            reply.close(open.index);
        }
    }

    fn text_part(&mut self, text: &str, part: &Part, reply: &mut ReplyBuilder) {
        let thinking = part.thought == Some(true);
        let signature = part.thought_signature.as_deref().filter(|s| !s.is_empty());
        let same_kind = self.open.is_some_and(|o| o.thinking == thinking);
        if text.is_empty() && signature.is_none() && !same_kind {
            // An empty trailing part carries nothing; do not open an empty block for it.
            return;
        }
        let index = match self.open {
            Some(open) if open.thinking == thinking => open.index,
            _ => {
                self.close_open(reply);
                let index = if thinking {
                    reply.open_thinking()
                } else {
                    reply.open_text()
                };
                self.open = Some(Open { index, thinking });
                index
            }
        };
        if !text.is_empty() {
            if thinking {
                reply.push_thinking(index, text);
            } else {
                reply.push_text(index, text);
            }
        }
        if let Some(sig) = signature {
            if thinking {
                if let Some(t) = reply.thinking_mut(index) {
                    t.thinking_signature = Some(sig.to_string());
                }
            } else {
                reply.set_text_signature(index, sig.to_string());
            }
        }
    }

    fn function_call(
        &mut self,
        call: &FunctionCall,
        signature: Option<&str>,
        reply: &mut ReplyBuilder,
    ) {
        self.close_open(reply);
        let taken = |id: &str| reply.message().tool_calls().any(|tc| tc.id == id);
        let id = match call.id.as_deref() {
            Some(id) if !id.is_empty() && !taken(id) => id.to_string(),
            _ => generated_id(&call.name),
        };
        let index = reply.open_tool_call(&id, &call.name);
        let args = match &call.args {
            Some(v @ Value::Object(_)) => v.to_string(),
            _ => "{}".to_string(),
        };
        reply.push_tool_json(index, &args);
        if let Some(sig) = signature.filter(|s| !s.is_empty()) {
            if let Some(tc) = reply.tool_call_mut(index) {
                tc.thought_signature = Some(sig.to_string());
            }
        }
        reply.close(index);
    }

    fn usage(&self, u: &UsageMetadata, reply: &mut ReplyBuilder) {
        let cache_read = u.cached_content_token_count;
        let input = u.prompt_token_count.saturating_sub(cache_read);
        let output = u.candidates_token_count + u.thoughts_token_count;
        reply.set_usage(input, output, cache_read, 0);
        reply.message_mut().usage.reasoning = Some(u.thoughts_token_count);
        if let Some(total) = u.total_token_count {
            reply.message_mut().usage.total_tokens = total;
        }
    }
}

/// `<name>_<unixMillis>_<counter>`.
fn generated_id(name: &str) -> String {
    let n = CALL_COUNTER.fetch_add(1, Ordering::Relaxed) + 1;
    format!("{name}_{}_{n}", crate::message::now_ms())
}

fn map_finish_reason(reason: &str) -> StopReason {
    match reason {
        "STOP" => StopReason::Stop,
        "MAX_TOKENS" => StopReason::Length,
        _ => StopReason::Error,
    }
}

impl WireParser for Parser {
    fn on_event(&mut self, event: SseEvent, reply: &mut ReplyBuilder) -> Result<Flow, StreamError> {
        if event.data.trim().is_empty() {
            return Ok(Flow::Continue);
        }
        let chunk: Chunk =
            serde_json::from_str(&event.data).map_err(|source| StreamError::GeminiJson {
                data: event.data.chars().take(200).collect(),
                source,
            })?;
        if let Some(error) = &chunk.error {
            let status = match error.get("status").or_else(|| error.get("code")) {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => "unknown".to_string(),
            };
            let json = crate::provider::compact_json(&event.data).unwrap_or(event.data);
            return Err(StreamError::Provider(format!(
                "got status: {status}. {json}"
            )));
        }
        if reply.message().response_id.is_none() {
            reply.message_mut().response_id = chunk.response_id;
        }
        if let Some(candidate) = chunk.candidates.first() {
            let parts = candidate.content.as_ref().map_or(&[][..], |c| &c.parts[..]);
            for part in parts {
                if let Some(text) = &part.text {
                    self.text_part(text, part, reply);
                }
                if let Some(call) = &part.function_call {
                    self.function_call(call, part.thought_signature.as_deref(), reply);
                }
            }
            // An empty reason is no reason (pi tests it for truth).
            if let Some(reason) = candidate.finish_reason.as_ref().filter(|r| !r.is_empty()) {
                reply.message_mut().raw_stop_reason = Some(reason.clone());
                self.finish = Some(map_finish_reason(reason));
            }
        }
        if let Some(u) = &chunk.usage_metadata {
            self.usage(u, reply);
        }
        // Later chunks may still carry usage, so reading goes on to the end.
        Ok(match self.finish {
            Some(_) => Flow::Terminal,
            None => Flow::Continue,
        })
    }

    fn finish(&mut self, reply: &mut ReplyBuilder) -> Result<StopReason, StreamError> {
        self.close_open(reply);
        let Some(reason) = self.finish else {
            return Err(StreamError::EndedEarly {
                text: self.ended_early,
                no_events: None,
            });
        };
        if reply.message().tool_calls().next().is_some() {
            return Ok(StopReason::ToolUse);
        }
        match reason {
            StopReason::Error => Err(StreamError::Unknown),
            other => Ok(other),
        }
    }

    fn ended_early(&self) -> &'static str {
        self.ended_early
    }
}

/// pi's text for a Gemini stream whose chunks never carried a `finishReason`.
const ENDED_EARLY: &str = "Google stream ended without a finish reason";

/// The same for Vertex AI.
const VERTEX_ENDED_EARLY: &str = "Google Vertex stream ended without a finish reason";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finish_reasons_map_to_stop_reasons() {
        assert_eq!(map_finish_reason("STOP"), StopReason::Stop);
        assert_eq!(map_finish_reason("MAX_TOKENS"), StopReason::Length);
        for r in [
            "SAFETY",
            "RECITATION",
            "MALFORMED_FUNCTION_CALL",
            "OTHER",
            "NEW_ENUM",
        ] {
            assert_eq!(map_finish_reason(r), StopReason::Error);
        }
    }

    fn feed(parser: &mut Parser, reply: &mut ReplyBuilder, data: serde_json::Value) {
        let event = SseEvent {
            event: None,
            data: data.to_string(),
        };
        parser.on_event(event, reply).expect("chunk accepted");
    }

    fn chunk(parts: serde_json::Value) -> serde_json::Value {
        serde_json::json!({"candidates": [{"content": {"parts": parts, "role": "model"}}]})
    }

    #[test]
    fn empty_trailing_text_opens_no_block_but_a_signed_one_does() {
        let m: Model = serde_json::from_value(serde_json::json!({
            "id": "gemini-2.5-flash", "name": "g", "api": "google-generative-ai",
            "provider": "google", "baseUrl": "https://x.test"
        }))
        .expect("model");
        let (sink, _stream) = crate::event::AssistantStream::channel();
        let mut reply = ReplyBuilder::new(&m, sink, Default::default());
        let mut p = Parser::new(&m);
        let call = serde_json::json!([{"functionCall": {"name": "ls", "args": {}}}]);
        feed(&mut p, &mut reply, chunk(call));
        feed(&mut p, &mut reply, chunk(serde_json::json!([{"text": ""}])));
        assert_eq!(reply.message().content.len(), 1);
        let signed = serde_json::json!([{"text": "", "thoughtSignature": "c2ln"}]);
        feed(&mut p, &mut reply, chunk(signed));
        assert_eq!(reply.message().content.len(), 2);
        let mut fin = chunk(serde_json::json!([]));
        fin["candidates"][0]["finishReason"] = serde_json::json!("STOP");
        feed(&mut p, &mut reply, fin);
        assert_eq!(p.finish(&mut reply).ok(), Some(StopReason::ToolUse));
        match &reply.message().content[1] {
            crate::content::ContentBlock::Text(t) => {
                assert_eq!(t.text_signature.as_deref(), Some("c2ln"))
            }
            other => panic!("expected text, got {other:?}"),
        }
    }

    #[test]
    fn a_stream_without_finish_reason_is_an_error() {
        let m: Model = serde_json::from_value(serde_json::json!({
            "id": "g", "name": "g", "api": "google-generative-ai",
            "provider": "google", "baseUrl": "https://x.test"
        }))
        .expect("model");
        let (sink, _stream) = crate::event::AssistantStream::channel();
        let mut reply = ReplyBuilder::new(&m, sink, Default::default());
        let mut p = Parser::new(&m);
        let err = p.finish(&mut reply).expect_err("no finish").to_string();
        assert_eq!(err, "Google stream ended without a finish reason");
        assert_eq!(p.ended_early(), err);
    }

    #[test]
    fn generated_ids_are_unique_and_named() {
        let a = generated_id("read");
        let b = generated_id("read");
        assert_ne!(a, b);
        assert!(a.starts_with("read_"));
    }
}
