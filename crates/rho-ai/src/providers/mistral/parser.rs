//! Folds Mistral's streamed chunks (`data: <chunk>` … `data: [DONE]`) into the reply.
//!
//! A chunk's `delta.content` is a string or a list of text and thinking chunks; tool calls
//! arrive whole or in argument pieces keyed by `index`. Text and thinking blocks close when
//! the other kind (or a tool call) starts; tool calls close when the stream ends, as pi 1.6
//! does. The reply is complete once a chunk carried a `finish_reason`.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use super::derive_id;
use crate::model::Model;
use crate::provider::{Flow, WireParser};
use crate::reply::ReplyBuilder;
use crate::sse::SseEvent;
use crate::stream_error::StreamError;
use crate::usage::StopReason;

/// pi 1.6's text for a Mistral stream that ended before a chunk with a `finish_reason`.
const ENDED_EARLY: &str = "Mistral stream ended without a finish reason";

#[derive(Debug, Deserialize)]
struct Chunk {
    #[serde(default)]
    id: Option<String>,
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
struct Choice {
    #[serde(default)]
    delta: Delta,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct Delta {
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    tool_calls: Option<Vec<ToolCallDelta>>,
}

#[derive(Debug, Deserialize)]
struct ToolCallDelta {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    index: Option<u64>,
    #[serde(default)]
    function: FunctionDelta,
}

#[derive(Debug, Default, Deserialize)]
struct FunctionDelta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<Value>,
}

/// The open text or thinking block.
#[derive(Debug, Clone, Copy)]
struct Open {
    index: usize,
    thinking: bool,
}

/// A tool call's key in the stream: its `index`, else its id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum CallKey {
    Index(u64),
    Id(String),
}

/// The Mistral stream parser.
#[derive(Debug, Default)]
pub struct Parser {
    open: Option<Open>,
    calls: HashMap<CallKey, usize>,
    /// The raw `finish_reason`, once one arrived.
    finish: Option<String>,
}

impl Parser {
    /// A parser for `model`.
    pub fn new(_model: &Model) -> Self {
        Self::default()
    }

    fn close_open(&mut self, reply: &mut ReplyBuilder) {
        if let Some(open) = self.open.take() {
            reply.close(open.index);
        }
    }

    /// Appends text or thinking, opening a block of that kind when the open one differs.
    /// Empty deltas open nothing (GLM on Mistral sends them around thinking and tool calls).
    fn push(&mut self, text: &str, thinking: bool, reply: &mut ReplyBuilder) {
        if text.is_empty() {
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
        if thinking {
            reply.push_thinking(index, text);
        } else {
            reply.push_text(index, text);
        }
    }

    fn content(&mut self, content: &Value, reply: &mut ReplyBuilder) {
        let items = match content {
            Value::Array(items) => items.as_slice(),
            other => std::slice::from_ref(other),
        };
        for item in items {
            match item {
                Value::String(text) => self.push(text, false, reply),
                Value::Object(chunk) => match chunk.get("type").and_then(Value::as_str) {
                    Some("thinking") => {
                        let parts = chunk.get("thinking").and_then(Value::as_array);
                        let text: String = parts
                            .into_iter()
                            .flatten()
                            .filter_map(|p| p.get("text").and_then(Value::as_str))
                            .collect();
                        self.push(&text, true, reply);
                    }
                    Some("text") => {
                        let text = chunk.get("text").and_then(Value::as_str).unwrap_or("");
                        self.push(text, false, reply);
                    }
                    _ => {}
                },
                _ => {}
            }
        }
    }

    fn tool_call(&mut self, call: &ToolCallDelta, reply: &mut ReplyBuilder) {
        self.close_open(reply);
        let id = match call.id.as_deref() {
            Some(id) if id != "null" => id.to_string(),
            _ => derive_id(&format!("toolcall:{}", call.index.unwrap_or(0)), 0),
        };
        let key = call
            .index
            .map_or_else(|| CallKey::Id(id.clone()), CallKey::Index);
        let index = match self.calls.get(&key) {
            Some(&index) => index,
            None => {
                let name = call.function.name.as_deref().unwrap_or("");
                let index = reply.open_tool_call(&id, name);
                self.calls.insert(key, index);
                index
            }
        };
        let delta = match &call.function.arguments {
            Some(Value::String(s)) => s.clone(),
            Some(v @ Value::Object(_)) => v.to_string(),
            _ => "{}".to_string(),
        };
        reply.push_tool_json(index, &delta);
    }

    fn usage(usage: &Value, reply: &mut ReplyBuilder) {
        let n = |v: &Value| v.as_u64().unwrap_or(0);
        let prompt = n(&usage["prompt_tokens"]);
        let cached = [
            &usage["promptTokensDetails"]["cachedTokens"],
            &usage["prompt_tokens_details"]["cached_tokens"],
            &usage["promptTokenDetails"]["cachedTokens"],
            &usage["prompt_token_details"]["cached_tokens"],
            &usage["numCachedTokens"],
            &usage["num_cached_tokens"],
        ]
        .into_iter()
        .find(|v| !v.is_null())
        .map_or(0, n)
        .min(prompt);
        reply.set_usage(prompt - cached, n(&usage["completion_tokens"]), cached, 0);
        if let Some(total) = usage["total_tokens"].as_u64().filter(|t| *t > 0) {
            reply.message_mut().usage.total_tokens = total;
        }
    }
}

impl WireParser for Parser {
    fn on_event(&mut self, event: SseEvent, reply: &mut ReplyBuilder) -> Result<Flow, StreamError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(Flow::Continue);
        }
        if data == "[DONE]" {
            return match self.finish {
                Some(_) => Ok(Flow::Stop),
                None => Err(StreamError::EndedEarly {
                    text: ENDED_EARLY,
                    no_events: None,
                }),
            };
        }
        let value: Value =
            serde_json::from_str(data).map_err(|source| StreamError::MistralJson {
                data: data.chars().take(200).collect(),
                source,
            })?;
        let chunk: Chunk = serde_json::from_value(value)
            .map_err(|_| StreamError::Provider("Invalid Mistral streaming event".into()))?;
        if reply.message().response_id.is_none() {
            reply.message_mut().response_id = chunk.id.filter(|id| !id.is_empty());
        }
        if let Some(usage) = chunk.usage.as_ref().filter(|u| u.is_object()) {
            Self::usage(usage, reply);
        }
        let Some(choice) = chunk.choices.into_iter().next() else {
            return Ok(self.flow());
        };
        if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
            reply.message_mut().raw_stop_reason = Some(reason.clone());
            self.finish = Some(reason);
        }
        if let Some(content) = choice.delta.content.as_ref().filter(|c| !c.is_null()) {
            self.content(content, reply);
        }
        for call in choice.delta.tool_calls.iter().flatten() {
            self.tool_call(call, reply);
        }
        Ok(self.flow())
    }

    fn finish(&mut self, reply: &mut ReplyBuilder) -> Result<StopReason, StreamError> {
        self.close_open(reply);
        reply.close_all();
        match self.finish.as_deref() {
            None => Err(StreamError::EndedEarly {
                text: ENDED_EARLY,
                no_events: None,
            }),
            Some("stop") => Ok(StopReason::Stop),
            Some("length" | "model_length") => Ok(StopReason::Length),
            Some("tool_calls") => Ok(StopReason::ToolUse),
            // Mistral reports transient server failures so; "server error" makes it retryable.
            Some("error") => Err(StreamError::Provider(
                "Provider stopped with: error (server error)".into(),
            )),
            Some(other) => Err(StreamError::Provider(format!(
                "Provider stopped with: {other}"
            ))),
        }
    }

    fn ended_early(&self) -> &'static str {
        ENDED_EARLY
    }
}

impl Parser {
    /// Reading goes on after the `finish_reason` (usage may follow) until `[DONE]`.
    fn flow(&self) -> Flow {
        match self.finish {
            Some(_) => Flow::Terminal,
            None => Flow::Continue,
        }
    }
}
