//! Builds the assistant message while a provider parses its stream, and emits the matching
//! events. Every provider drives one of these, so the event rules of providers spec §2 (one
//! terminal event, aborted vs error, usage and cost, scratch state removed) live in one place.

use tokio_util::sync::CancellationToken;

use crate::content::{ContentBlock, TextContent, ThinkingContent, ToolCall};
use crate::event::{AssistantMessageEvent, EventSink};
use crate::json_stream::parse_partial_json;
use crate::message::AssistantMessage;
use crate::model::Model;
use crate::usage::StopReason;

/// The message under construction plus the sink its events go to.
#[derive(Debug)]
pub struct ReplyBuilder {
    message: AssistantMessage,
    sink: EventSink,
    cancel: CancellationToken,
    prices: crate::model::ModelCost,
    /// Raw argument JSON per open tool call, by content index.
    tool_json: Vec<(usize, String)>,
    /// Content indices of blocks opened but not yet closed, in open order.
    open: Vec<usize>,
    started: bool,
}

impl ReplyBuilder {
    /// A builder for a reply from `model`.
    pub fn new(model: &Model, sink: EventSink, cancel: CancellationToken) -> Self {
        Self {
            message: AssistantMessage::empty(&model.api, &model.provider, &model.id),
            sink,
            cancel,
            prices: model.cost.clone(),
            tool_json: Vec::new(),
            open: Vec::new(),
            started: false,
        }
    }

    /// The message so far.
    pub fn message(&self) -> &AssistantMessage {
        &self.message
    }

    /// Mutable access for ids, response model and diagnostics.
    pub fn message_mut(&mut self) -> &mut AssistantMessage {
        &mut self.message
    }

    /// Whether `start` was emitted.
    pub fn started(&self) -> bool {
        self.started
    }

    /// Emits `start` (once).
    pub fn start(&mut self) {
        if !self.started {
            self.started = true;
            self.sink.push(AssistantMessageEvent::Start {
                partial: self.message.clone(),
            });
        }
    }

    /// Opens a text block and returns its content index.
    pub fn open_text(&mut self) -> usize {
        let i = self.push_block(ContentBlock::Text(TextContent::default()));
        self.sink
            .push(AssistantMessageEvent::TextStart { content_index: i });
        i
    }

    /// Appends text to block `i`.
    pub fn push_text(&mut self, i: usize, delta: &str) {
        if let Some(ContentBlock::Text(t)) = self.message.content.get_mut(i) {
            t.text.push_str(delta);
            self.sink.push(AssistantMessageEvent::TextDelta {
                content_index: i,
                delta: delta.to_string(),
            });
        }
    }

    /// Sets the text signature of block `i`.
    pub fn set_text_signature(&mut self, i: usize, signature: String) {
        if let Some(ContentBlock::Text(t)) = self.message.content.get_mut(i) {
            t.text_signature = Some(signature);
        }
    }

    /// Opens a thinking block and returns its content index.
    pub fn open_thinking(&mut self) -> usize {
        let i = self.push_block(ContentBlock::Thinking(ThinkingContent::default()));
        self.sink
            .push(AssistantMessageEvent::ThinkingStart { content_index: i });
        i
    }

    /// Appends thinking to block `i`.
    pub fn push_thinking(&mut self, i: usize, delta: &str) {
        if let Some(ContentBlock::Thinking(t)) = self.message.content.get_mut(i) {
            t.thinking.push_str(delta);
            self.sink.push(AssistantMessageEvent::ThinkingDelta {
                content_index: i,
                delta: delta.to_string(),
            });
        }
    }

    /// Mutable access to thinking block `i` (signature, redacted flag).
    pub fn thinking_mut(&mut self, i: usize) -> Option<&mut ThinkingContent> {
        match self.message.content.get_mut(i) {
            Some(ContentBlock::Thinking(t)) => Some(t),
            _ => None,
        }
    }

    /// Opens a tool call and returns its content index.
    pub fn open_tool_call(&mut self, id: &str, name: &str) -> usize {
        let i = self.push_block(ContentBlock::ToolCall(ToolCall {
            id: id.to_string(),
            name: name.to_string(),
            ..Default::default()
        }));
        self.tool_json.push((i, String::new()));
        self.sink.push(AssistantMessageEvent::ToolCallStart {
            content_index: i,
            id: id.to_string(),
            name: name.to_string(),
        });
        i
    }

    /// Appends a raw JSON fragment to tool call `i`'s arguments.
    pub fn push_tool_json(&mut self, i: usize, delta: &str) {
        if let Some((_, buf)) = self.tool_json.iter_mut().find(|(j, _)| *j == i) {
            buf.push_str(delta);
            self.sink.push(AssistantMessageEvent::ToolCallDelta {
                content_index: i,
                delta: delta.to_string(),
            });
        }
    }

    /// Mutable access to tool call `i` (id fix-ups, thought signatures).
    pub fn tool_call_mut(&mut self, i: usize) -> Option<&mut ToolCall> {
        match self.message.content.get_mut(i) {
            Some(ContentBlock::ToolCall(t)) => Some(t),
            _ => None,
        }
    }

    /// Closes block `i`, emitting its `*_end` event. Tool arguments are parsed here.
    pub fn close(&mut self, i: usize) {
        let Some(pos) = self.open.iter().position(|j| *j == i) else {
            return;
        };
        self.open.remove(pos);
        if let Some(k) = self.tool_json.iter().position(|(j, _)| *j == i) {
            let (_, json) = self.tool_json.remove(k);
            if let Some(ContentBlock::ToolCall(tc)) = self.message.content.get_mut(i) {
                if !json.is_empty() || !tc.arguments.is_object() {
                    tc.arguments = parse_partial_json(&json);
                }
            }
        }
        let event = match self.message.content.get(i) {
            Some(ContentBlock::Text(t)) => AssistantMessageEvent::TextEnd {
                content_index: i,
                text: t.clone(),
            },
            Some(ContentBlock::Thinking(t)) => AssistantMessageEvent::ThinkingEnd {
                content_index: i,
                thinking: t.clone(),
            },
            Some(ContentBlock::ToolCall(t)) => AssistantMessageEvent::ToolCallEnd {
                content_index: i,
                tool_call: t.clone(),
            },
            _ => return,
        };
        self.sink.push(event);
    }

    /// Closes every open block in the order they were opened.
    pub fn close_all(&mut self) {
        while let Some(&i) = self.open.first() {
            self.close(i);
        }
    }

    /// Content indices of blocks still open.
    pub fn open_blocks(&self) -> &[usize] {
        &self.open
    }

    /// Sets token counts; `total_tokens` and cost are derived from them.
    pub fn set_usage(&mut self, input: u64, output: u64, cache_read: u64, cache_write: u64) {
        let u = &mut self.message.usage;
        u.input = input;
        u.output = output;
        u.cache_read = cache_read;
        u.cache_write = cache_write;
        u.compute_cost(&self.prices);
    }

    /// Ends the stream normally with `reason`. Aborted or error reasons (or a fired abort
    /// signal) become an `error` event instead.
    pub fn finish(mut self, reason: StopReason, error_message: Option<String>) {
        self.close_all();
        if self.cancel.is_cancelled() {
            return self.fail_with(StopReason::Aborted, "Request was aborted".into());
        }
        match reason {
            StopReason::Error | StopReason::Aborted => {
                let msg = error_message.unwrap_or_else(|| "Provider returned an error".into());
                self.fail_with(reason, msg)
            }
            _ => {
                self.message.stop_reason = reason;
                let message = self.message;
                self.sink
                    .push(AssistantMessageEvent::Done { reason, message });
            }
        }
    }

    /// Ends the stream with an error (or `aborted` when the abort signal fired).
    pub fn fail(self, error_message: String) {
        let reason = if self.cancel.is_cancelled() {
            StopReason::Aborted
        } else {
            StopReason::Error
        };
        self.fail_with(reason, error_message)
    }

    /// An aborted stream first closes its open blocks (`text_end`, `thinking_end`,
    /// `toolcall_end`), as pi's openai-completions provider does, so clients see every block
    /// that started end; a failed one ends at once.
    fn fail_with(mut self, reason: StopReason, error_message: String) {
        if reason == StopReason::Aborted {
            self.close_all();
        }
        self.tool_json.clear();
        self.open.clear();
        self.message.stop_reason = reason;
        self.message.error_message = Some(error_message);
        let error = self.message;
        self.sink
            .push(AssistantMessageEvent::Error { reason, error });
    }

    fn push_block(&mut self, block: ContentBlock) -> usize {
        self.start();
        self.message.content.push(block);
        let i = self.message.content.len() - 1;
        self.open.push(i);
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::AssistantStream;

    #[tokio::test]
    async fn an_abort_ends_open_blocks_before_the_error_and_a_failure_does_not() {
        let model: Model = serde_json::from_value(serde_json::json!({
            "id": "m", "name": "m", "api": "openai-completions", "provider": "p",
            "baseUrl": "https://x.test"
        }))
        .expect("model");
        for (abort, expected) in [
            (
                true,
                vec!["start", "text_start", "text_delta", "text_end", "error"],
            ),
            (false, vec!["start", "text_start", "text_delta", "error"]),
        ] {
            let (sink, mut stream) = AssistantStream::channel();
            let cancel = CancellationToken::new();
            let mut reply = ReplyBuilder::new(&model, sink, cancel.clone());
            let i = reply.open_text();
            reply.push_text(i, "half");
            if abort {
                cancel.cancel();
            }
            reply.fail("stopped".into());
            let mut kinds = Vec::new();
            while let Some(event) = stream.next().await {
                kinds.push(event.type_name());
            }
            assert_eq!(kinds, expected, "abort: {abort}");
        }
    }
}
