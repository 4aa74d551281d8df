//! Folds the Chat Completions stream (`data: <chunk>` … `data: [DONE]`) into the reply
//! (providers spec §3.2, "Response stream").
//!
//! Unlike the other APIs, blocks are not closed as they end: the text and thinking blocks
//! are single blocks that later deltas may extend, so every block closes at stream end.

use serde::Deserialize;
use serde_json::Value;

use super::messages::REASONING_FIELDS;
use crate::model::Model;
use crate::provider::{Flow, WireParser};
use crate::reply::ReplyBuilder;
use crate::sse::SseEvent;
use crate::stream_error::StreamError;
use crate::usage::StopReason;

/// One `chat.completion.chunk`. Unknown fields are ignored; text fields that are not strings
/// (some servers send `null` or objects) count as absent.
#[derive(Debug, Default, Deserialize)]
struct Chunk {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    choices: Option<Vec<Choice>>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
struct Choice {
    #[serde(default)]
    delta: Option<Delta>,
    #[serde(default, deserialize_with = "lenient_string")]
    finish_reason: Option<String>,
    /// Moonshot reports usage here instead of at the top level.
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Debug, Default, Deserialize)]
struct Delta {
    #[serde(default, deserialize_with = "lenient_string")]
    content: Option<String>,
    #[serde(default, deserialize_with = "lenient_string")]
    reasoning_content: Option<String>,
    #[serde(default, deserialize_with = "lenient_string")]
    reasoning: Option<String>,
    #[serde(default, deserialize_with = "lenient_string")]
    reasoning_text: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<ToolCallDelta>>,
    #[serde(default)]
    reasoning_details: Option<Vec<Value>>,
}

#[derive(Debug, Default, Deserialize)]
struct ToolCallDelta {
    #[serde(default)]
    index: Option<u64>,
    #[serde(default, deserialize_with = "lenient_string")]
    id: Option<String>,
    #[serde(default)]
    function: Option<FunctionDelta>,
}

#[derive(Debug, Default, Deserialize)]
struct FunctionDelta {
    #[serde(default, deserialize_with = "lenient_string")]
    name: Option<String>,
    #[serde(default, deserialize_with = "lenient_string")]
    arguments: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct WireUsage {
    #[serde(default, deserialize_with = "lenient_count")]
    prompt_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient_count")]
    completion_tokens: Option<u64>,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
    /// DeepSeek's name for cache hits.
    #[serde(default, deserialize_with = "lenient_count")]
    prompt_cache_hit_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens_details: Option<CompletionDetails>,
    /// Where some compatible servers put the reasoning count.
    #[serde(default, deserialize_with = "lenient_count")]
    reasoning_tokens: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
struct CompletionDetails {
    #[serde(default, deserialize_with = "lenient_count")]
    reasoning_tokens: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
struct PromptDetails {
    #[serde(default, deserialize_with = "lenient_count")]
    cached_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient_count")]
    cache_write_tokens: Option<u64>,
}

fn lenient_string<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => Some(s),
        _ => None,
    })
}

fn lenient_count<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
        _ => None,
    })
}

/// A tool call being streamed: the server's `index`, its id, and where it sits in `content`.
#[derive(Debug)]
struct ToolSlot {
    index: Option<u64>,
    id: String,
    content_index: usize,
}

/// The stream parser for one reply.
#[derive(Debug)]
pub struct Parser {
    model_id: String,
    text: Option<usize>,
    thinking: Option<usize>,
    tools: Vec<ToolSlot>,
    finish_reason: Option<String>,
    seen_id: bool,
    /// pi 1.6's `compat.supportsFinishReason`: when false the server never says why it
    /// stopped, so the end of the stream is the end of the reply.
    supports_finish_reason: bool,
}

impl Parser {
    /// A parser for a reply from `model`.
    pub fn new(model: &Model) -> Self {
        Self {
            model_id: model.id.clone(),
            text: None,
            thinking: None,
            tools: Vec::new(),
            finish_reason: None,
            seen_id: false,
            supports_finish_reason: super::compat::resolve(model).supports_finish_reason,
        }
    }

    fn on_chunk(&mut self, chunk: Chunk, reply: &mut ReplyBuilder) {
        if !self.seen_id {
            if let Some(id) = chunk.id.filter(|id| !id.is_empty()) {
                self.seen_id = true;
                reply.message_mut().response_id = Some(id);
            }
        }
        if let Some(model) = chunk.model {
            if model != self.model_id && !model.is_empty() {
                reply.message_mut().response_model = Some(model);
            }
        }
        let mut choices = chunk.choices.unwrap_or_default();
        let mut choice = (!choices.is_empty()).then(|| choices.swap_remove(0));
        let usage = chunk
            .usage
            .or_else(|| choice.as_mut().and_then(|c| c.usage.take()));
        if let Some(u) = usage {
            apply_usage(&u, reply);
        }
        let Some(choice) = choice else { return };
        // An empty reason is no reason (pi tests it for truth).
        if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
            reply.message_mut().raw_stop_reason = Some(reason.clone());
            self.finish_reason = Some(reason);
        }
        if let Some(delta) = choice.delta {
            self.on_delta(delta, reply);
        }
    }

    fn on_delta(&mut self, delta: Delta, reply: &mut ReplyBuilder) {
        if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
            let i = *self.text.get_or_insert_with(|| reply.open_text());
            reply.push_text(i, &text);
        }
        let reasoning = [
            delta.reasoning_content,
            delta.reasoning,
            delta.reasoning_text,
        ]
        .into_iter()
        .zip(REASONING_FIELDS)
        .find_map(|(value, field)| value.filter(|v| !v.is_empty()).map(|v| (v, field)));
        if let Some((text, field)) = reasoning {
            let i = match self.thinking {
                Some(i) => i,
                None => {
                    let i = reply.open_thinking();
                    if let Some(t) = reply.thinking_mut(i) {
                        t.thinking_signature = Some(field.to_string());
                    }
                    self.thinking = Some(i);
                    i
                }
            };
            reply.push_thinking(i, &text);
        }
        for call in delta.tool_calls.into_iter().flatten() {
            self.on_tool_call(call, reply);
        }
        for detail in delta.reasoning_details.iter().flatten() {
            attach_encrypted_reasoning(detail, reply);
        }
    }

    fn on_tool_call(&mut self, call: ToolCallDelta, reply: &mut ReplyBuilder) {
        let id = call.id.filter(|id| !id.is_empty());
        let (name, arguments) = match call.function {
            Some(f) => (f.name.filter(|n| !n.is_empty()), f.arguments),
            None => (None, None),
        };
        let slot = match self.find_slot(call.index, id.as_deref()) {
            Some(k) => k,
            None => {
                let content_index = reply.open_tool_call(
                    id.as_deref().unwrap_or_default(),
                    name.as_deref().unwrap_or_default(),
                );
                self.tools.push(ToolSlot {
                    index: call.index,
                    id: id.clone().unwrap_or_default(),
                    content_index,
                });
                self.tools.len() - 1
            }
        };
        let slot = &mut self.tools[slot];
        let i = slot.content_index;
        if let Some(tc) = reply.tool_call_mut(i) {
            if let Some(id) = id.filter(|_| tc.id.is_empty()) {
                slot.id.clone_from(&id);
                tc.id = id;
            }
            if let Some(name) = name.filter(|_| tc.name.is_empty()) {
                tc.name = name;
            }
        }
        reply.push_tool_json(i, arguments.as_deref().unwrap_or_default());
    }

    /// The slot a delta belongs to: same `index` (a different id under the same index starts
    /// a new call), else same id, else — with neither given — the latest call.
    fn find_slot(&self, index: Option<u64>, id: Option<&str>) -> Option<usize> {
        let same_call = |s: &ToolSlot| match id {
            Some(id) => s.id.is_empty() || s.id == id,
            None => true,
        };
        if index.is_some() {
            return self
                .tools
                .iter()
                .rposition(|s| s.index == index && same_call(s));
        }
        if let Some(id) = id {
            return self.tools.iter().rposition(|s| s.id == id);
        }
        self.tools.len().checked_sub(1)
    }
}

/// Usage per spec: cache reads and writes come out of `prompt_tokens`.
fn apply_usage(u: &WireUsage, reply: &mut ReplyBuilder) {
    let prompt = u.prompt_tokens.unwrap_or(0);
    let details = u.prompt_tokens_details.as_ref();
    let reported = details
        .and_then(|d| d.cached_tokens)
        .or(u.prompt_cache_hit_tokens)
        .unwrap_or(0);
    let cache_write = details.and_then(|d| d.cache_write_tokens).unwrap_or(0);
    let cache_read = if cache_write > 0 {
        reported.saturating_sub(cache_write)
    } else {
        reported
    };
    let input = prompt.saturating_sub(cache_read + cache_write);
    let output = u.completion_tokens.unwrap_or(0);
    reply.set_usage(input, output, cache_read, cache_write);
    // pi 1.x records the reasoning part of `output` whenever usage arrives (0 when unsaid).
    let reasoning = u
        .completion_tokens_details
        .as_ref()
        .and_then(|d| d.reasoning_tokens);
    reply.message_mut().usage.reasoning = Some(reasoning.or(u.reasoning_tokens).unwrap_or(0));
}

/// OpenRouter's encrypted reasoning for a tool call, kept as JSON in `thoughtSignature`.
fn attach_encrypted_reasoning(detail: &Value, reply: &mut ReplyBuilder) {
    if detail.get("type").and_then(Value::as_str) != Some("reasoning.encrypted") {
        return;
    }
    let (Some(id), Some(_)) = (
        detail.get("id").and_then(Value::as_str),
        detail.get("data").filter(|d| !d.is_null()),
    ) else {
        return;
    };
    let index = reply
        .message()
        .content
        .iter()
        .position(|b| matches!(b, crate::content::ContentBlock::ToolCall(tc) if tc.id == id));
    if let Some(tc) = index.and_then(|i| reply.tool_call_mut(i)) {
        tc.thought_signature = Some(detail.to_string());
    }
}

/// Maps `finish_reason`; unknown reasons are errors naming the reason.
pub fn map_finish_reason(reason: Option<&str>) -> Result<StopReason, StreamError> {
    match reason {
        None | Some("stop") | Some("end") => Ok(StopReason::Stop),
        Some("length") => Ok(StopReason::Length),
        Some("tool_calls") | Some("function_call") => Ok(StopReason::ToolUse),
        Some(other) => Err(StreamError::FinishReason(other.to_string())),
    }
}

/// The message of an in-stream error object: its `message`, else the object as JSON.
fn stream_error_message(error: &Value) -> String {
    match error.get("message").and_then(Value::as_str) {
        Some(m) if !m.is_empty() => m.to_string(),
        _ => error.to_string(),
    }
}

/// The first characters of a bad chunk, for the error message.
fn excerpt(data: &str) -> String {
    const MAX: usize = 200;
    match data.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &data[..cut]),
        None => data.to_string(),
    }
}

impl WireParser for Parser {
    fn on_event(&mut self, event: SseEvent, reply: &mut ReplyBuilder) -> Result<Flow, StreamError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(Flow::Continue);
        }
        if data == "[DONE]" {
            // Whether the reply is whole is `finish`'s call, once the open blocks are closed.
            return Ok(Flow::Stop);
        }
        let chunk: Chunk =
            serde_json::from_str(data).map_err(|source| StreamError::CompletionsJson {
                data: excerpt(data),
                source,
            })?;
        if let Some(error) = chunk.error.as_ref().filter(|e| !e.is_null()) {
            return Err(StreamError::Provider(stream_error_message(error)));
        }
        self.on_chunk(chunk, reply);
        // Usage may still follow the finish_reason, so reading goes on to `[DONE]` or the end.
        // A server without finish reasons has said all it will once its body ends.
        Ok(match self.finish_reason {
            Some(_) => Flow::Terminal,
            None if !self.supports_finish_reason => Flow::Terminal,
            None => Flow::Continue,
        })
    }

    fn finish(&mut self, reply: &mut ReplyBuilder) -> Result<StopReason, StreamError> {
        reply.close_all();
        match (&self.finish_reason, self.supports_finish_reason) {
            // pi 1.6: a stream that ends, even with `[DONE]`, without saying why it stopped
            // was cut short...
            (None, true) => Err(StreamError::EndedEarly {
                text: self.ended_early(),
                no_events: None,
            }),
            // ...unless the model's compat says the server never says: then pi infers the
            // reason (tool calls mean the model wants them run).
            (None, false) => {
                let calls = reply.message_mut().tool_calls().next().is_some();
                Ok(if calls {
                    StopReason::ToolUse
                } else {
                    StopReason::Stop
                })
            }
            (Some(reason), _) => map_finish_reason(Some(reason)),
        }
    }

    /// pi's text, for a body that ends, or says `[DONE]`, without a `finish_reason`.
    fn ended_early(&self) -> &'static str {
        "Stream ended without finish_reason"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finish_reasons_map_per_spec() {
        let ok = |r: Option<&str>| map_finish_reason(r).expect("known reason");
        assert_eq!(ok(None), StopReason::Stop);
        assert_eq!(ok(Some("stop")), StopReason::Stop);
        assert_eq!(ok(Some("end")), StopReason::Stop);
        assert_eq!(ok(Some("length")), StopReason::Length);
        assert_eq!(ok(Some("tool_calls")), StopReason::ToolUse);
        assert_eq!(ok(Some("function_call")), StopReason::ToolUse);
        for bad in [
            "content_filter",
            "network_error",
            "model_context_window_exceeded",
        ] {
            assert_eq!(
                map_finish_reason(Some(bad)).map_err(|e| e.to_string()),
                Err(format!("Provider finish_reason: {bad}"))
            );
        }
    }

    #[test]
    fn non_string_text_fields_count_as_absent() {
        let chunk: Chunk = serde_json::from_str(
            r#"{"choices":[{"delta":{"content":null,"reasoning":{"x":1}},"finish_reason":null}],
                "usage":{"prompt_tokens":12.0,"completion_tokens":null}}"#,
        )
        .expect("lenient chunk");
        let choices = chunk.choices.expect("choices");
        let delta = choices[0].delta.as_ref().expect("delta");
        assert!(delta.content.is_none() && delta.reasoning.is_none());
        let usage = chunk.usage.expect("usage");
        assert_eq!(
            (usage.prompt_tokens, usage.completion_tokens),
            (Some(12), None)
        );
    }

    #[test]
    fn excerpt_cuts_long_data_on_a_char_boundary() {
        let long = "é".repeat(300);
        let e = excerpt(&long);
        assert_eq!(e.chars().count(), 201);
        assert!(e.ends_with('…'));
    }
}
