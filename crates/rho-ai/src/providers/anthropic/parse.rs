//! Folds Anthropic's SSE events into the reply (spec §3.1 "Response events").
//!
//! Events are dispatched by their SSE `event:` name and decoded into small borrowed structs:
//! `content_block_delta` is the per-token hot path, so its text is borrowed from the data
//! line whenever it has no escapes.

use std::borrow::Cow;

use serde::Deserialize;

use super::fast_delta;
use crate::json_stream::repair_json;
use crate::message::Context;
use crate::model::Model;
use crate::options::StreamOptions;
use crate::provider::{Flow, WireParser};
use crate::reply::ReplyBuilder;
use crate::sse::SseEvent;
use crate::stream_error::StreamError;
use crate::usage::StopReason;

/// Text of the thinking block that stands in for a `redacted_thinking` block.
const REDACTED_THINKING: &str = "[Reasoning redacted]";

/// An open Anthropic block: its wire `index` and its position in `content`.
#[derive(Debug, Clone, Copy)]
struct OpenBlock {
    wire: u64,
    content: usize,
}

/// The `anthropic-messages` stream parser; one per call.
#[derive(Debug, Default)]
pub struct Parser {
    open: Vec<OpenBlock>,
    /// `[input, output, cacheRead, cacheWrite]` as last reported.
    usage: [u64; 4],
    stop_reason: Option<StopReason>,
    /// Whether `message_start` arrived: pi names a stream that ends after it "ended before
    /// message_stop", one that never began "ended without a stop reason".
    saw_message_start: bool,
    /// The context's tool names; set only for OAuth calls, whose tool names come back in
    /// Claude Code casing and are mapped back to ours.
    oauth_tools: Option<Vec<String>>,
}

impl Parser {
    /// A parser for a reply from `model`.
    pub fn new(_model: &Model) -> Self {
        Self::default()
    }

    /// Remembers the context's tool names when the call uses an OAuth token, so returned
    /// Claude Code names (`Read`) map back to the tool the agent knows (`read`).
    pub fn for_context(mut self, context: &Context, options: &StreamOptions) -> Self {
        let key = options.api_key.as_deref().unwrap_or_default();
        if super::is_oauth_token(key) {
            self.oauth_tools = Some(context.tools.iter().map(|t| t.name.clone()).collect());
        }
        self
    }

    fn content_index(&self, wire: u64) -> Option<usize> {
        self.open
            .iter()
            .rev()
            .find(|b| b.wire == wire)
            .map(|b| b.content)
    }

    fn tool_name<'a>(&'a self, name: &'a str) -> &'a str {
        self.oauth_tools
            .as_ref()
            .and_then(|tools| tools.iter().find(|t| t.eq_ignore_ascii_case(name)))
            .map_or(name, String::as_str)
    }

    fn message_start(&mut self, data: &str, reply: &mut ReplyBuilder) -> Result<(), StreamError> {
        let mut scratch = None;
        let ev: MessageStart = decode("message_start", data, &mut scratch)?;
        self.saw_message_start = true;
        if let Some(id) = ev.message.id {
            reply.message_mut().response_id = Some(id);
        }
        let u = ev.message.usage.unwrap_or_default();
        self.usage = [
            u.input_tokens.unwrap_or(0),
            u.output_tokens.unwrap_or(0),
            u.cache_read_input_tokens.unwrap_or(0),
            u.cache_creation_input_tokens.unwrap_or(0),
        ];
        self.apply_usage(reply);
        Ok(())
    }

    fn block_start(&mut self, data: &str, reply: &mut ReplyBuilder) -> Result<(), StreamError> {
        let mut scratch = None;
        let ev: BlockStart = decode("content_block_start", data, &mut scratch)?;
        let block = ev.content_block;
        let content = match block.kind.as_ref() {
            "text" => reply.open_text(),
            "thinking" => {
                let i = reply.open_thinking();
                if let Some(t) = reply.thinking_mut(i) {
                    t.thinking_signature = Some(String::new());
                }
                i
            }
            "redacted_thinking" => {
                let i = reply.open_thinking();
                if let Some(t) = reply.thinking_mut(i) {
                    t.thinking = REDACTED_THINKING.to_string();
                    t.thinking_signature = Some(block.data.unwrap_or_default().into_owned());
                    t.redacted = Some(true);
                }
                i
            }
            "tool_use" => {
                let id = block.id.unwrap_or_default();
                let name = block.name.unwrap_or_default();
                let i = reply.open_tool_call(&id, self.tool_name(&name));
                if let (Some(input), Some(tc)) = (block.input, reply.tool_call_mut(i)) {
                    if input.is_object() {
                        tc.arguments = input;
                    }
                }
                i
            }
            _ => return Ok(()),
        };
        self.open.push(OpenBlock {
            wire: ev.index,
            content,
        });
        Ok(())
    }

    fn block_delta(&mut self, data: &str, reply: &mut ReplyBuilder) -> Result<(), StreamError> {
        if let Some(d) = fast_delta::parse(data) {
            self.apply_delta(d.index, d.kind, &d.value, reply);
            return Ok(());
        }
        let mut scratch = None;
        let ev: BlockDelta = decode("content_block_delta", data, &mut scratch)?;
        let d = ev.delta;
        let value = match d.kind.as_ref() {
            "text_delta" => d.text,
            "thinking_delta" => d.thinking,
            "input_json_delta" => d.partial_json,
            "signature_delta" => d.signature,
            _ => None,
        };
        self.apply_delta(
            ev.index,
            &d.kind,
            value.as_deref().unwrap_or_default(),
            reply,
        );
        Ok(())
    }

    fn apply_delta(&mut self, wire: u64, kind: &str, value: &str, reply: &mut ReplyBuilder) {
        let Some(i) = self.content_index(wire) else {
            return;
        };
        match kind {
            "text_delta" => reply.push_text(i, value),
            "thinking_delta" => reply.push_thinking(i, value),
            "input_json_delta" => reply.push_tool_json(i, value),
            "signature_delta" => {
                if let Some(t) = reply.thinking_mut(i) {
                    let sig = t.thinking_signature.get_or_insert_with(String::new);
                    sig.push_str(value);
                }
            }
            _ => {}
        }
    }

    fn block_stop(&mut self, data: &str, reply: &mut ReplyBuilder) -> Result<(), StreamError> {
        let mut scratch = None;
        let ev: BlockStop = decode("content_block_stop", data, &mut scratch)?;
        if let Some(pos) = self.open.iter().rposition(|b| b.wire == ev.index) {
            let block = self.open.remove(pos);
            reply.close(block.content);
        }
        Ok(())
    }

    fn message_delta(&mut self, data: &str, reply: &mut ReplyBuilder) -> Result<(), StreamError> {
        let mut scratch = None;
        let ev: MessageDelta = decode("message_delta", data, &mut scratch)?;
        if let Some(reason) = ev.delta.and_then(|d| d.stop_reason) {
            reply.message_mut().raw_stop_reason = Some(reason.clone());
            self.stop_reason = Some(map_stop_reason(&reason)?);
        }
        if let Some(u) = ev.usage {
            // Reasoning tokens, a part of `output_tokens`, when Anthropic reports them.
            if let Some(thinking) = u.output_tokens_details.and_then(|d| d.thinking_tokens) {
                reply.message_mut().usage.reasoning = Some(thinking);
            }
            let fields = [
                u.input_tokens,
                u.output_tokens,
                u.cache_read_input_tokens,
                u.cache_creation_input_tokens,
            ];
            for (slot, value) in self.usage.iter_mut().zip(fields) {
                if let Some(v) = value {
                    *slot = v;
                }
            }
        }
        self.apply_usage(reply);
        Ok(())
    }

    fn apply_usage(&self, reply: &mut ReplyBuilder) {
        let [input, output, cache_read, cache_write] = self.usage;
        reply.set_usage(input, output, cache_read, cache_write);
    }
}

impl WireParser for Parser {
    fn on_event(&mut self, event: SseEvent, reply: &mut ReplyBuilder) -> Result<Flow, StreamError> {
        let data = event.data.as_str();
        // `start` goes out once `message_start` set the input tokens (or with whatever
        // comes first when a stream has none), so every update reports them.
        if event.event.as_deref() == Some("message_start") {
            let read = self.message_start(data, reply);
            reply.start();
            read?;
            return Ok(Flow::Continue);
        }
        reply.start();
        match event.event.as_deref() {
            Some("content_block_delta") => self.block_delta(data, reply)?,
            Some("content_block_start") => self.block_start(data, reply)?,
            Some("content_block_stop") => self.block_stop(data, reply)?,
            Some("message_delta") => self.message_delta(data, reply)?,
            Some("message_stop") => return Ok(Flow::Stop),
            Some("error") => return Err(StreamError::Provider(event.data)),
            _ => {}
        }
        Ok(Flow::Continue)
    }

    fn starts_reply(&self) -> bool {
        true
    }

    fn finish(&mut self, reply: &mut ReplyBuilder) -> Result<StopReason, StreamError> {
        reply.start();
        match self.stop_reason {
            // `message_stop` without a `message_delta` that said why.
            None => Err(StreamError::EndedEarly {
                text: NO_STOP_REASON,
                no_events: None,
            }),
            Some(StopReason::Error | StopReason::Aborted) => Err(StreamError::Unknown),
            Some(reason) => Ok(reason),
        }
    }

    fn ended_early(&self) -> &'static str {
        if self.saw_message_start {
            "Anthropic stream ended before message_stop"
        } else {
            NO_STOP_REASON
        }
    }
}

/// pi's text for a stream that never said why it stopped.
const NO_STOP_REASON: &str = "Anthropic stream ended without a stop reason";

/// Anthropic `stop_reason` → unified stop reason; unknown values are an error.
fn map_stop_reason(reason: &str) -> Result<StopReason, StreamError> {
    match reason {
        "end_turn" | "pause_turn" | "stop_sequence" => Ok(StopReason::Stop),
        "max_tokens" => Ok(StopReason::Length),
        "tool_use" => Ok(StopReason::ToolUse),
        "refusal" | "sensitive" => Ok(StopReason::Error),
        other => Err(StreamError::UnhandledStopReason(other.to_string())),
    }
}

/// Decodes one event's data; on failure retries once on the repaired text (raw control
/// characters, stray backslashes), then reports which event was broken and how.
fn decode<'a, T: Deserialize<'a>>(
    event: &str,
    data: &'a str,
    scratch: &'a mut Option<String>,
) -> Result<T, StreamError> {
    match serde_json::from_str(data) {
        Ok(v) => Ok(v),
        Err(first) => {
            let repaired: &'a str = scratch.insert(repair_json(data));
            serde_json::from_str(repaired).map_err(|_| StreamError::AnthropicJson {
                event: event.to_string(),
                data: data.chars().take(200).collect(),
                source: first,
            })
        }
    }
}

#[derive(Deserialize, Default)]
struct WireUsage {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens_details: Option<OutputDetails>,
}

#[derive(Deserialize)]
struct OutputDetails {
    thinking_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct MessageStart {
    message: StartedMessage,
}

#[derive(Deserialize)]
struct StartedMessage {
    id: Option<String>,
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct BlockStart<'a> {
    index: u64,
    #[serde(borrow)]
    content_block: StartedBlock<'a>,
}

#[derive(Deserialize)]
struct StartedBlock<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    id: Option<String>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    input: Option<serde_json::Value>,
    #[serde(borrow)]
    data: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct BlockDelta<'a> {
    index: u64,
    #[serde(borrow)]
    delta: Delta<'a>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow)]
    partial_json: Option<Cow<'a, str>>,
    #[serde(borrow)]
    signature: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct BlockStop {
    index: u64,
}

#[derive(Deserialize)]
struct MessageDelta {
    delta: Option<StopDelta>,
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct StopDelta {
    stop_reason: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_reasons_map_per_spec() {
        let map_stop_reason = |r| map_stop_reason(r).map_err(|e| e.to_string());
        assert_eq!(map_stop_reason("end_turn"), Ok(StopReason::Stop));
        assert_eq!(map_stop_reason("pause_turn"), Ok(StopReason::Stop));
        assert_eq!(map_stop_reason("stop_sequence"), Ok(StopReason::Stop));
        assert_eq!(map_stop_reason("max_tokens"), Ok(StopReason::Length));
        assert_eq!(map_stop_reason("tool_use"), Ok(StopReason::ToolUse));
        assert_eq!(map_stop_reason("refusal"), Ok(StopReason::Error));
        assert_eq!(map_stop_reason("sensitive"), Ok(StopReason::Error));
        assert_eq!(
            map_stop_reason("model_context_window_exceeded"),
            Err("Unhandled stop reason: model_context_window_exceeded".into())
        );
    }

    #[test]
    fn decode_repairs_raw_control_characters() {
        let mut scratch = None;
        let data = "{\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\tb\"}}";
        let ev: BlockDelta = decode("content_block_delta", data, &mut scratch).expect("repaired");
        assert_eq!(ev.delta.text.as_deref(), Some("a\tb"));
    }

    #[test]
    fn decode_reports_the_event_and_data() {
        let mut scratch = None;
        let err = decode::<BlockStop>("content_block_stop", "{\"index\":", &mut scratch)
            .err()
            .expect("invalid")
            .to_string();
        assert!(err.starts_with("Invalid JSON in Anthropic stream event content_block_stop: "));
        assert!(err.ends_with("Data: {\"index\":"));
    }
}
