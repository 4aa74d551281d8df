//! Folds Bedrock's Converse stream events into the reply: `messageStart`,
//! `contentBlockStart` (tool calls), `contentBlockDelta` (text, tool input, reasoning),
//! `contentBlockStop`, `messageStop` (the terminal event: the stop reason), then `metadata`
//! (usage); an exception event ends the reply with its error.

use std::collections::HashMap;

use base64::Engine;
use serde_json::Value;

use super::frames::{FrameDecoder, CORRUPT, ERROR};
use crate::model::Model;
use crate::provider::{Flow, WireParser};
use crate::reply::ReplyBuilder;
use crate::sse::{EventDecoder, SseEvent};
use crate::stream_error::StreamError;
use crate::usage::StopReason;

/// pi 1.6's text for a Bedrock stream that ended before `messageStop`.
const ENDED_EARLY: &str = "Bedrock stream ended without a stop reason";

/// The thinking text of encrypted (redacted) reasoning, as on the Anthropic API.
const REDACTED_THINKING: &str = "[Reasoning redacted]";

/// A content block the stream opened, by Bedrock's `contentBlockIndex`.
#[derive(Debug)]
struct Open {
    /// The reply's content index.
    index: usize,
    /// Encrypted reasoning received so far (kept off the block until it closes).
    redacted: Option<Vec<u8>>,
}

/// The Bedrock stream parser.
#[derive(Debug, Default)]
pub struct Parser {
    open: HashMap<u64, Open>,
    /// The stop reason `messageStop` named (`None` before it; `Some(None)` when it named none).
    stop: Option<Option<String>>,
}

impl Parser {
    /// A parser for `model`.
    pub fn new(_model: &Model) -> Self {
        Self::default()
    }

    fn block_start(&mut self, event: &Value, reply: &mut ReplyBuilder) {
        let Some(tool) = event.pointer("/start/toolUse") else {
            return;
        };
        let text = |k: &str| tool.get(k).and_then(Value::as_str).unwrap_or("");
        let index = reply.open_tool_call(text("toolUseId"), text("name"));
        let key = block_index(event);
        self.open.insert(
            key,
            Open {
                index,
                redacted: None,
            },
        );
    }

    fn block_delta(&mut self, event: &Value, reply: &mut ReplyBuilder) {
        let key = block_index(event);
        let Some(delta) = event.get("delta") else {
            return;
        };
        if let Some(text) = delta.get("text").and_then(Value::as_str) {
            let index = self.open_or(key, reply, ReplyBuilder::open_text);
            reply.push_text(index, text);
        } else if let Some(input) = delta.pointer("/toolUse/input") {
            if let Some(open) = self.open.get(&key) {
                reply.push_tool_json(open.index, input.as_str().unwrap_or(""));
            }
        } else if let Some(reasoning) = delta.get("reasoningContent") {
            let index = self.open_or(key, reply, ReplyBuilder::open_thinking);
            self.reasoning(key, index, reasoning, reply);
        }
    }

    /// The open block at `key`, or a new one opened with `open` (Bedrock sends no
    /// `contentBlockStart` for text and reasoning).
    fn open_or(
        &mut self,
        key: u64,
        reply: &mut ReplyBuilder,
        open: fn(&mut ReplyBuilder) -> usize,
    ) -> usize {
        self.open
            .entry(key)
            .or_insert_with(|| Open {
                index: open(reply),
                redacted: None,
            })
            .index
    }

    fn reasoning(&mut self, key: u64, index: usize, reasoning: &Value, reply: &mut ReplyBuilder) {
        if let Some(text) = reasoning
            .get("text")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
        {
            reply.push_thinking(index, text);
        }
        let redacted = self.open.get(&key).is_some_and(|o| o.redacted.is_some());
        if let Some(signature) = reasoning.get("signature").and_then(Value::as_str) {
            if let (Some(block), false) = (reply.thinking_mut(index), redacted) {
                block
                    .thinking_signature
                    .get_or_insert_with(String::new)
                    .push_str(signature);
            }
        }
        // Encrypted reasoning (e.g. OpenAI models on Bedrock): kept as the block's signature,
        // base64, and replayed as `redactedContent` on the next turn.
        let Some(chunk) = reasoning.get("redactedContent").and_then(Value::as_str) else {
            return;
        };
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(chunk)
            .unwrap_or_default();
        if bytes.is_empty() {
            return;
        }
        if !redacted {
            if let Some(block) = reply.thinking_mut(index) {
                block.redacted = Some(true);
                block.thinking_signature = None;
            }
            reply.push_thinking(index, REDACTED_THINKING);
        }
        if let Some(open) = self.open.get_mut(&key) {
            open.redacted.get_or_insert_with(Vec::new).extend(bytes);
        }
    }

    fn block_stop(&mut self, key: u64, reply: &mut ReplyBuilder) {
        if let Some(open) = self.open.remove(&key) {
            Self::flush(&open, reply);
            reply.close(open.index);
        }
    }

    fn flush(open: &Open, reply: &mut ReplyBuilder) {
        if let (Some(bytes), Some(block)) = (&open.redacted, reply.thinking_mut(open.index)) {
            block.thinking_signature =
                Some(base64::engine::general_purpose::STANDARD.encode(bytes));
        }
    }

    fn usage(usage: &Value, reply: &mut ReplyBuilder) {
        let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
        let (input, output) = (n("inputTokens"), n("outputTokens"));
        reply.set_usage(
            input,
            output,
            n("cacheReadInputTokens"),
            n("cacheWriteInputTokens"),
        );
        let total = usage.get("totalTokens").and_then(Value::as_u64);
        reply.message_mut().usage.total_tokens = total.filter(|t| *t > 0).unwrap_or(input + output);
    }
}

/// A block event's `contentBlockIndex`.
fn block_index(event: &Value) -> u64 {
    event
        .get("contentBlockIndex")
        .and_then(Value::as_u64)
        .unwrap_or(0)
}

/// The text of an exception event, with the prefix pi gives each modeled exception.
fn exception_text(kind: &str, payload: &str) -> String {
    let message = serde_json::from_str::<Value>(payload)
        .ok()
        .and_then(|v| {
            v.get("message")
                .or_else(|| v.get("Message"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_else(|| payload.to_string());
    let mut name = kind.to_string();
    if let Some(first) = name.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    super::with_prefix(&name, &message)
}

impl WireParser for Parser {
    fn on_event(&mut self, event: SseEvent, reply: &mut ReplyBuilder) -> Result<Flow, StreamError> {
        let name = event.event.unwrap_or_default();
        match name.as_str() {
            CORRUPT => {
                return Err(StreamError::Provider(format!(
                    "Invalid Bedrock event stream: {}",
                    event.data
                )))
            }
            ERROR => {
                let v: Value = serde_json::from_str(&event.data).unwrap_or_default();
                let message = v["message"].as_str().unwrap_or("UnknownError");
                return Err(StreamError::Provider(message.to_string()));
            }
            kind if kind.ends_with("Exception") => {
                return Err(StreamError::Provider(exception_text(kind, &event.data)));
            }
            _ => {}
        }
        let data: Value =
            serde_json::from_str(&event.data).map_err(|source| StreamError::BedrockJson {
                event: name.clone(),
                data: event.data.chars().take(200).collect(),
                source,
            })?;
        match name.as_str() {
            "messageStart" if data.get("role").and_then(Value::as_str) != Some("assistant") => {
                return Err(StreamError::Provider(
                    "Unexpected assistant message start but got user message start instead".into(),
                ));
            }
            "contentBlockStart" => self.block_start(&data, reply),
            "contentBlockDelta" => self.block_delta(&data, reply),
            "contentBlockStop" => self.block_stop(block_index(&data), reply),
            "messageStop" => {
                let reason = data.get("stopReason").and_then(Value::as_str);
                reply.message_mut().raw_stop_reason = reason.map(str::to_string);
                self.stop = Some(reason.map(str::to_string));
            }
            "metadata" => {
                if let Some(usage) = data.get("usage").filter(|u| u.is_object()) {
                    Self::usage(usage, reply);
                }
            }
            _ => {}
        }
        // `metadata` (usage) follows `messageStop`: reading goes on to the end.
        Ok(match self.stop {
            Some(_) => Flow::Terminal,
            None => Flow::Continue,
        })
    }

    fn finish(&mut self, reply: &mut ReplyBuilder) -> Result<StopReason, StreamError> {
        for open in self.open.values() {
            Self::flush(open, reply);
        }
        self.open.clear();
        let Some(reason) = &self.stop else {
            return Err(StreamError::EndedEarly {
                text: ENDED_EARLY,
                no_events: None,
            });
        };
        match reason.as_deref() {
            Some("end_turn" | "stop_sequence") => Ok(StopReason::Stop),
            Some("max_tokens" | "model_context_window_exceeded") => Ok(StopReason::Length),
            Some("tool_use") => Ok(StopReason::ToolUse),
            Some(other) => Err(StreamError::Provider(format!(
                "Provider stopped with: {other}"
            ))),
            None => Err(StreamError::Unknown),
        }
    }

    fn ended_early(&self) -> &'static str {
        ENDED_EARLY
    }

    fn decoder(&self) -> Box<dyn EventDecoder> {
        Box::new(FrameDecoder::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exceptions_get_pi_prefixes() {
        assert_eq!(
            exception_text("throttlingException", r#"{"message":"Too many tokens"}"#),
            "Throttling error: Too many tokens"
        );
        assert_eq!(
            exception_text("modelStreamErrorException", r#"{"message":"boom"}"#),
            "Model stream error: boom"
        );
        assert_eq!(
            exception_text("accessDeniedException", "not json"),
            "AccessDeniedException: not json"
        );
    }
}
