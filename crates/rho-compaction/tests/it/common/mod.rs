//! Shared helpers: a scripted stream function that records every summarisation request,
//! and builders for session paths.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use rho_agent::AgentMessage;
use rho_agent::StreamFn;
use rho_ai::{
    AssistantMessage, AssistantMessageEvent, AssistantStream, ContentBlock, Context, Message,
    Model, StopReason, StreamOptions, TextContent, ToolCall, ToolResultMessage, Usage, UserContent,
    UserMessage,
};
use rho_compaction::{PathEntry, Summarizer};
use serde_json::{json, Value};

/// One recorded call.
#[derive(Clone)]
pub struct Call {
    pub context: Context,
    pub max_tokens: Option<u64>,
    pub reasoning: Option<rho_ai::ThinkingLevel>,
}

impl Call {
    /// The text of the single user message.
    pub fn user_text(&self) -> String {
        match self.context.messages.as_slice() {
            [Message::User(u)] => u.content.text(),
            other => panic!("expected one user message, got {other:?}"),
        }
    }
}

/// How the script answers a request.
pub enum Reply {
    Text(String),
    Error(String),
}

/// A stream function answering each request with `answer(user_text)`, recording calls.
pub struct Script {
    pub calls: Arc<Mutex<Vec<Call>>>,
    pub stream: StreamFn,
}

impl Script {
    pub fn new(answer: impl Fn(&str) -> Reply + Send + Sync + 'static) -> Self {
        let calls: Arc<Mutex<Vec<Call>>> = Arc::default();
        let recorded = calls.clone();
        let stream: StreamFn = Arc::new(
            move |model: &Model, context: &Context, options: StreamOptions| {
                let call = Call {
                    context: context.clone(),
                    max_tokens: options.max_tokens,
                    reasoning: options.reasoning,
                };
                let text = call.user_text();
                recorded.lock().expect("lock").push(call);
                let (sink, stream) = AssistantStream::channel();
                let mut message = AssistantMessage::empty(&model.api, &model.provider, &model.id);
                sink.push(AssistantMessageEvent::Start {
                    partial: message.clone(),
                });
                if options.cancel.is_cancelled() {
                    message.stop_reason = StopReason::Aborted;
                    message.error_message = Some("Request was aborted".into());
                    sink.push(AssistantMessageEvent::Error {
                        reason: StopReason::Aborted,
                        error: message,
                    });
                    return Ok(stream);
                }
                match answer(&text) {
                    Reply::Text(t) => {
                        sink.push(AssistantMessageEvent::TextStart { content_index: 0 });
                        sink.push(AssistantMessageEvent::TextDelta {
                            content_index: 0,
                            delta: t.clone(),
                        });
                        let block = TextContent {
                            text: t,
                            text_signature: None,
                        };
                        sink.push(AssistantMessageEvent::TextEnd {
                            content_index: 0,
                            text: block.clone(),
                        });
                        message.content.push(ContentBlock::Text(block));
                        sink.push(AssistantMessageEvent::Done {
                            reason: StopReason::Stop,
                            message,
                        });
                    }
                    Reply::Error(e) => {
                        message.stop_reason = StopReason::Error;
                        message.error_message = Some(e);
                        sink.push(AssistantMessageEvent::Error {
                            reason: StopReason::Error,
                            error: message,
                        });
                    }
                }
                Ok(stream)
            },
        );
        Self { calls, stream }
    }

    /// A script that always answers `text`.
    pub fn answering(text: &str) -> Self {
        let text = text.to_string();
        Self::new(move |_| Reply::Text(text.clone()))
    }

    pub fn calls(&self) -> Vec<Call> {
        self.calls.lock().expect("lock").clone()
    }

    pub fn summarizer(&self, model: Model) -> Summarizer {
        Summarizer {
            stream: self.stream.clone(),
            api_key: Some("test-key".into()),
            ..Summarizer::new(model)
        }
    }
}

/// An Anthropic model at `base_url` with the given window.
pub fn model(base_url: &str, context_window: u64) -> Model {
    serde_json::from_value(json!({
        "id": "claude-test", "name": "Claude Test", "api": "anthropic-messages",
        "provider": "anthropic", "baseUrl": base_url, "contextWindow": context_window,
        "maxTokens": 8192
    }))
    .expect("model literal parses")
}

pub fn user(text: &str, ts: i64) -> AgentMessage {
    AgentMessage::User(UserMessage {
        content: UserContent::Blocks(vec![ContentBlock::text(text)]),
        timestamp: ts,
    })
}

pub fn assistant(content: Vec<ContentBlock>, total_tokens: u64, ts: i64) -> AgentMessage {
    let mut a = AssistantMessage::empty("anthropic-messages", "anthropic", "claude-test");
    a.content = content;
    a.usage = Usage {
        total_tokens,
        ..Default::default()
    };
    a.stop_reason = if a.tool_calls().next().is_some() {
        StopReason::ToolUse
    } else {
        StopReason::Stop
    };
    a.timestamp = ts;
    AgentMessage::Assistant(a)
}

pub fn call(id: &str, name: &str, args: Value) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall {
        namespace: None,
        id: id.into(),
        name: name.into(),
        arguments: args,
        thought_signature: None,
    })
}

pub fn result(id: &str, name: &str, text: &str, ts: i64) -> AgentMessage {
    AgentMessage::ToolResult(ToolResultMessage {
        duration_ms: None,
        usage: None,
        nested_calls: None,
        tool_call_id: id.into(),
        tool_name: name.into(),
        content: vec![ContentBlock::text(text)],
        details: None,
        is_error: false,
        timestamp: ts,
    })
}

/// Appends one coding turn to `path`: a user request, an assistant that reads `file` (and
/// edits it when `edit`), the tool results, and a final answer whose usage is `usage`.
/// Each turn is about `size` characters of tool output.
pub fn push_turn(
    path: &mut Vec<PathEntry>,
    n: usize,
    file: &str,
    edit: bool,
    size: usize,
    usage: u64,
) {
    let ts = (n as i64) * 10;
    let id = |s: &str| format!("{s}{n}");
    path.push(PathEntry::message(
        id("u"),
        user(&format!("turn {n}: look at {file}"), ts),
    ));
    let mut calls = vec![call(&id("r"), "read", json!({"path": file}))];
    if edit {
        calls.push(call(
            &id("e"),
            "edit",
            json!({"path": file, "oldText": "a", "newText": "b"}),
        ));
    }
    path.push(PathEntry::message(id("a"), assistant(calls, 0, ts + 1)));
    path.push(PathEntry::message(
        id("t"),
        result(&id("r"), "read", &"x".repeat(size), ts + 2),
    ));
    if edit {
        path.push(PathEntry::message(
            id("s"),
            result(&id("e"), "edit", "ok", ts + 3),
        ));
    }
    path.push(PathEntry::message(
        id("f"),
        assistant(
            vec![ContentBlock::text(format!("done with turn {n}"))],
            usage,
            ts + 4,
        ),
    ));
}
