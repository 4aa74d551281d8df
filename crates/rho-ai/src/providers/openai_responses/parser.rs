//! Folds the Responses SSE events (`response.*`) into the reply (providers spec §3.3).

use serde::Deserialize;
use serde_json::Value;

use crate::content::ContentBlock;
use crate::model::Model;
use crate::provider::{Flow, WireParser};
use crate::reply::ReplyBuilder;
use crate::sse::SseEvent;
use crate::stream_error::StreamError;
use crate::usage::StopReason;

/// One event's `data`. Only the fields rho reads are typed; items stay raw JSON because
/// reasoning items are replayed verbatim.
#[derive(Debug, Deserialize)]
struct Event {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    delta: Option<String>,
    #[serde(default)]
    item: Option<Value>,
    #[serde(default)]
    response: Option<Value>,
    #[serde(default)]
    arguments: Option<String>,
    #[serde(default)]
    code: Option<Value>,
    #[serde(default)]
    message: Option<String>,
}

/// The output item being streamed.
#[derive(Debug)]
enum Current {
    None,
    Reasoning { index: usize, parts: usize },
    Message { index: usize },
    FunctionCall { index: usize, args: String },
}

/// The Responses stream parser.
#[derive(Debug)]
pub struct Parser {
    current: Current,
    /// Set by `response.completed` (or `incomplete`/`done`): the mapped stop reason.
    outcome: Option<Result<StopReason, StreamError>>,
    /// Cost multiplier for gpt-5.5 priority tier.
    priority_factor: f64,
}

impl Parser {
    /// A parser for `model`.
    pub fn new(model: &Model) -> Self {
        let priority_factor = if model.id.contains("gpt-5.5") {
            2.5
        } else {
            2.0
        };
        Parser {
            current: Current::None,
            outcome: None,
            priority_factor,
        }
    }

    fn item_added(&mut self, item: &Value, reply: &mut ReplyBuilder) {
        self.close_current(reply);
        let s = |k: &str| item.get(k).and_then(Value::as_str).unwrap_or("");
        self.current = match s("type") {
            "reasoning" => Current::Reasoning {
                index: reply.open_thinking(),
                parts: 0,
            },
            "message" => Current::Message {
                index: reply.open_text(),
            },
            "function_call" => {
                let id = format!("{}|{}", s("call_id"), s("id"));
                let index = reply.open_tool_call(&id, s("name"));
                let args = s("arguments");
                if !args.is_empty() {
                    reply.push_tool_json(index, args);
                }
                Current::FunctionCall {
                    index,
                    args: args.to_string(),
                }
            }
            _ => Current::None,
        };
    }

    fn item_done(&mut self, item: &Value, reply: &mut ReplyBuilder) {
        let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
        let matches = matches!(
            (&self.current, kind),
            (Current::Reasoning { .. }, "reasoning")
                | (Current::Message { .. }, "message")
                | (Current::FunctionCall { .. }, "function_call")
        );
        if !matches {
            return self.close_current(reply);
        }
        match std::mem::replace(&mut self.current, Current::None) {
            Current::Reasoning { index, .. } => {
                let text = reasoning_text(item);
                if let Some(t) = reply.thinking_mut(index) {
                    if let Some(text) = text {
                        t.thinking = text;
                    }
                    t.thinking_signature = Some(item.to_string());
                }
                reply.close(index);
            }
            Current::Message { index } => {
                let text = message_text(item);
                let id = item.get("id").and_then(Value::as_str).unwrap_or("");
                let phase = item.get("phase").and_then(Value::as_str);
                if let Some(ContentBlock::Text(t)) = reply.message_mut().content.get_mut(index) {
                    if let Some(text) = text {
                        t.text = text;
                    }
                }
                reply.set_text_signature(index, text_signature(id, phase));
                reply.close(index);
            }
            Current::FunctionCall { index, args } => {
                let last = item.get("arguments").and_then(Value::as_str).unwrap_or("");
                if args.is_empty() && !last.is_empty() {
                    reply.push_tool_json(index, last);
                }
                reply.close(index);
            }
            Current::None => {}
        }
    }

    /// `response.function_call_arguments.done`: the full arguments; stream any unseen tail.
    fn arguments_done(&mut self, full: &str, reply: &mut ReplyBuilder) {
        if let Current::FunctionCall { index, args } = &mut self.current {
            if let Some(rest) = full.strip_prefix(args.as_str()) {
                if !rest.is_empty() {
                    reply.push_tool_json(*index, rest);
                    args.push_str(rest);
                }
            }
        }
    }

    fn completed(&mut self, response: Option<&Value>, reply: &mut ReplyBuilder) {
        self.close_current(reply);
        let response = response.unwrap_or(&Value::Null);
        if reply.message().response_id.is_none() {
            if let Some(id) = response.get("id").and_then(Value::as_str) {
                reply.message_mut().response_id = Some(id.to_string());
            }
        }
        if let Some(usage) = response.get("usage").filter(|u| u.is_object()) {
            self.apply_usage(usage, response.get("service_tier"), reply);
        }
        let status = response.get("status").and_then(Value::as_str);
        reply.message_mut().raw_stop_reason = raw_stop_reason(response);
        let reason = match status {
            Some("incomplete") => Ok(StopReason::Length),
            Some(s @ ("failed" | "cancelled")) => Err(StreamError::ResponseStatus(s.to_string())),
            _ => Ok(StopReason::Stop),
        };
        self.outcome = Some(reason.map(|r| {
            let has_tool = reply.message().tool_calls().next().is_some();
            if r == StopReason::Stop && has_tool {
                StopReason::ToolUse
            } else {
                r
            }
        }));
    }

    fn apply_usage(&self, usage: &Value, tier: Option<&Value>, reply: &mut ReplyBuilder) {
        let n = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
        let cached = n(usage.pointer("/input_tokens_details/cached_tokens"));
        let input = n(usage.get("input_tokens")).saturating_sub(cached);
        let output = n(usage.get("output_tokens"));
        reply.set_usage(input, output, cached, 0);
        let reasoning = n(usage.pointer("/output_tokens_details/reasoning_tokens"));
        reply.message_mut().usage.reasoning = Some(reasoning);
        let factor = match tier.and_then(Value::as_str) {
            Some("flex") => 0.5,
            Some("priority") => self.priority_factor,
            _ => 1.0,
        };
        let u = &mut reply.message_mut().usage;
        if let Some(total) = usage.get("total_tokens").and_then(Value::as_u64) {
            u.total_tokens = total;
        }
        if factor != 1.0 {
            let c = &mut u.cost;
            c.input *= factor;
            c.output *= factor;
            c.cache_read *= factor;
            c.cache_write *= factor;
            c.total = c.input + c.output + c.cache_read + c.cache_write;
        }
    }

    fn close_current(&mut self, reply: &mut ReplyBuilder) {
        match std::mem::replace(&mut self.current, Current::None) {
            Current::Reasoning { index, .. }
            | Current::Message { index }
            | Current::FunctionCall { index, .. } => reply.close(index),
            Current::None => {}
        }
    }

    fn delta(&mut self, kind: &str, delta: &str, reply: &mut ReplyBuilder) {
        match (&mut self.current, kind) {
            (Current::Reasoning { index, .. }, "response.reasoning_summary_text.delta")
            | (Current::Reasoning { index, .. }, "response.reasoning_text.delta") => {
                reply.push_thinking(*index, delta)
            }
            (Current::Message { index }, "response.output_text.delta")
            | (Current::Message { index }, "response.refusal.delta") => {
                reply.push_text(*index, delta)
            }
            (Current::FunctionCall { index, args }, "response.function_call_arguments.delta") => {
                args.push_str(delta);
                reply.push_tool_json(*index, delta);
            }
            _ => {}
        }
    }
}

/// The final reasoning text: summaries joined by blank lines, else content texts, else
/// `None` (keep what streamed).
fn reasoning_text(item: &Value) -> Option<String> {
    let texts = |key: &str| -> Option<String> {
        let list = item.get(key)?.as_array()?;
        let parts: Vec<&str> = list
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect();
        (!parts.is_empty()).then(|| parts.join("\n\n"))
    };
    texts("summary").or_else(|| texts("content"))
}

/// The final message text: every `output_text.text` and `refusal.refusal` concatenated.
fn message_text(item: &Value) -> Option<String> {
    let parts = item.get("content")?.as_array()?;
    let mut out = String::new();
    for p in parts {
        let piece = match p.get("type").and_then(Value::as_str) {
            Some("output_text") => p.get("text"),
            Some("refusal") => p.get("refusal"),
            _ => None,
        };
        if let Some(s) = piece.and_then(Value::as_str) {
            out.push_str(s);
        }
    }
    Some(out)
}

/// `{"v":1,"id":...,"phase"?:...}` with keys in that order.
fn text_signature(id: &str, phase: Option<&str>) -> String {
    let id = Value::from(id);
    match phase {
        Some(p) => format!("{{\"v\":1,\"id\":{id},\"phase\":{}}}", Value::from(p)),
        None => format!("{{\"v\":1,\"id\":{id}}}"),
    }
}

fn failed_message(response: Option<&Value>) -> String {
    let response = response.unwrap_or(&Value::Null);
    let error = response.get("error").filter(|e| e.is_object());
    if let Some(e) = error {
        let code = e.get("code").and_then(Value::as_str).unwrap_or("unknown");
        let msg = e
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("no message");
        return format!("{code}: {msg}");
    }
    match response
        .pointer("/incomplete_details/reason")
        .and_then(Value::as_str)
    {
        Some(reason) => format!("incomplete: {reason}"),
        None => "Unknown error (no error details in response)".to_string(),
    }
}

/// The response's `status`, with the incomplete reason after a dot when there is one
/// (`incomplete.max_output_tokens`), as pi 1.x records it.
fn raw_stop_reason(response: &Value) -> Option<String> {
    let status = response.get("status").and_then(Value::as_str)?;
    Some(
        match response
            .pointer("/incomplete_details/reason")
            .and_then(Value::as_str)
        {
            Some(reason) => format!("{status}.{reason}"),
            None => status.to_string(),
        },
    )
}

fn value_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => "unknown".to_string(),
        Some(other) => other.to_string(),
    }
}

impl WireParser for Parser {
    fn on_event(&mut self, event: SseEvent, reply: &mut ReplyBuilder) -> Result<Flow, StreamError> {
        if event.data.trim().is_empty() || event.data == "[DONE]" {
            return Ok(Flow::Continue);
        }
        let ev: Event =
            serde_json::from_str(&event.data).map_err(|source| StreamError::ResponsesJson {
                data: preview(&event.data),
                source,
            })?;
        let kind = if ev.kind.is_empty() {
            event.event.unwrap_or_default()
        } else {
            ev.kind
        };
        match kind.as_str() {
            "response.created" => {
                if let Some(id) = ev.response.as_ref().and_then(|r| r.get("id")) {
                    reply.message_mut().response_id = id.as_str().map(str::to_string);
                }
            }
            "response.output_item.added" => {
                if let Some(item) = &ev.item {
                    self.item_added(item, reply);
                }
            }
            "response.output_item.done" => {
                if let Some(item) = &ev.item {
                    self.item_done(item, reply);
                }
            }
            "response.reasoning_summary_part.added" => {
                if let Current::Reasoning { parts, .. } = &mut self.current {
                    *parts += 1;
                }
            }
            "response.reasoning_summary_part.done" => {
                if let Current::Reasoning { index, parts } = &self.current {
                    if *parts > 0 {
                        reply.push_thinking(*index, "\n\n");
                    }
                }
            }
            "response.reasoning_summary_text.delta"
            | "response.reasoning_text.delta"
            | "response.output_text.delta"
            | "response.refusal.delta"
            | "response.function_call_arguments.delta" => {
                if let Some(delta) = ev.delta.as_deref().filter(|d| !d.is_empty()) {
                    self.delta(&kind, delta, reply);
                }
            }
            "response.function_call_arguments.done" => {
                if let Some(args) = &ev.arguments {
                    self.arguments_done(args, reply);
                }
            }
            "response.completed" | "response.incomplete" | "response.done" => {
                self.completed(ev.response.as_ref(), reply);
                return Ok(Flow::Stop);
            }
            "response.failed" => {
                let response = ev.response.as_ref().unwrap_or(&Value::Null);
                reply.message_mut().raw_stop_reason = raw_stop_reason(response);
                return Err(StreamError::Provider(failed_message(ev.response.as_ref())));
            }
            "error" => {
                let msg = ev.message.unwrap_or_else(|| "unknown".into());
                return Err(StreamError::Provider(format!(
                    "Error Code {}: {msg}",
                    value_text(ev.code.as_ref())
                )));
            }
            _ => {}
        }
        Ok(Flow::Continue)
    }

    fn finish(&mut self, reply: &mut ReplyBuilder) -> Result<StopReason, StreamError> {
        self.close_current(reply);
        self.outcome.take().unwrap_or(Err(StreamError::EndedEarly {
            text: ENDED_EARLY,
            no_events: None,
        }))
    }

    fn ended_early(&self) -> &'static str {
        ENDED_EARLY
    }
}

/// pi's text for a Responses (or Codex) stream that ended before `response.completed`,
/// `response.incomplete` or `response.failed`.
const ENDED_EARLY: &str = "OpenAI Responses stream ended before a terminal response event";

/// The first 200 characters of a payload, for error messages.
pub(crate) fn preview(data: &str) -> String {
    match data.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &data[..i]),
        None => data.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{AssistantMessageEvent, AssistantStream};
    use futures_util::FutureExt;
    use serde_json::json;
    use tokio_util::sync::CancellationToken;

    fn model() -> Model {
        serde_json::from_value(json!({
            "id": "gpt-5", "name": "GPT-5", "api": "openai-responses", "provider": "openai",
            "baseUrl": "https://api.openai.com/v1", "reasoning": true
        }))
        .expect("model")
    }

    fn feed(parser: &mut Parser, reply: &mut ReplyBuilder, data: serde_json::Value) -> Flow {
        let event = SseEvent {
            event: None,
            data: data.to_string(),
        };
        parser.on_event(event, reply).expect("event accepted")
    }

    fn call_item(args: &str) -> serde_json::Value {
        json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "bash", "arguments": args})
    }

    #[test]
    fn arguments_done_streams_only_the_unseen_tail() {
        let m = model();
        let (sink, mut stream) = AssistantStream::channel();
        let mut reply = ReplyBuilder::new(&m, sink, CancellationToken::new());
        let mut p = Parser::new(&m);
        let added = json!({"type": "response.output_item.added", "item": call_item("")});
        feed(&mut p, &mut reply, added);
        let delta =
            json!({"type": "response.function_call_arguments.delta", "delta": "{\"command\":"});
        feed(&mut p, &mut reply, delta);
        let done = json!({"type": "response.function_call_arguments.done", "arguments": "{\"command\":\"ls\"}"});
        feed(&mut p, &mut reply, done);
        let item_done =
            json!({"type": "response.output_item.done", "item": call_item("{\"command\":\"ls\"}")});
        feed(&mut p, &mut reply, item_done);
        let completed = json!({"type": "response.completed", "response": {"status": "completed"}});
        assert_eq!(feed(&mut p, &mut reply, completed), Flow::Stop);
        assert_eq!(p.finish(&mut reply).ok(), Some(StopReason::ToolUse));
        let calls: Vec<_> = reply.message().tool_calls().cloned().collect();
        assert_eq!(calls[0].arguments, json!({"command": "ls"}));
        let mut deltas = Vec::new();
        while let Some(Some(e)) = stream.next().now_or_never() {
            if let AssistantMessageEvent::ToolCallDelta { delta, .. } = e {
                deltas.push(delta);
            }
        }
        assert_eq!(deltas, ["{\"command\":", "\"ls\"}"]);
    }

    #[test]
    fn arguments_only_in_the_final_item_are_used() {
        let m = model();
        let (sink, _stream) = AssistantStream::channel();
        let mut reply = ReplyBuilder::new(&m, sink, CancellationToken::new());
        let mut p = Parser::new(&m);
        let added = json!({"type": "response.output_item.added", "item": call_item("")});
        feed(&mut p, &mut reply, added);
        let item_done = json!({"type": "response.output_item.done", "item": call_item("{\"command\":\"pwd\"}")});
        feed(&mut p, &mut reply, item_done);
        let calls: Vec<_> = reply.message().tool_calls().cloned().collect();
        assert_eq!(calls[0].arguments, json!({"command": "pwd"}));
        assert_eq!(calls[0].id, "call_1|fc_1");
    }

    #[test]
    fn a_stream_without_completion_is_an_error() {
        let m = model();
        let (sink, _stream) = AssistantStream::channel();
        let mut reply = ReplyBuilder::new(&m, sink, CancellationToken::new());
        let mut p = Parser::new(&m);
        let err = p.finish(&mut reply).expect_err("no completion").to_string();
        assert_eq!(
            err,
            "OpenAI Responses stream ended before a terminal response event"
        );
        assert_eq!(p.ended_early(), err);
    }

    #[test]
    fn failed_and_cancelled_statuses_are_errors() {
        let m = model();
        let (sink, _stream) = AssistantStream::channel();
        let mut reply = ReplyBuilder::new(&m, sink, CancellationToken::new());
        let mut p = Parser::new(&m);
        let completed = json!({"type": "response.completed", "response": {"status": "cancelled"}});
        feed(&mut p, &mut reply, completed);
        assert!(p.finish(&mut reply).is_err());
    }
}
