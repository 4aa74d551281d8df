//! Models, contexts and event helpers shared by the Chat Completions tests.

use std::time::Duration;

use rho_ai::{
    AssistantMessageEvent, AssistantStream, ContentBlock, Context, ImageContent, Message, Model,
    StreamOptions, Tool, ToolCall, ToolResultMessage, UserContent, UserMessage,
};
use serde_json::{json, Value};

/// A model from its JSON record (as models.json would hold it).
pub fn model(record: Value) -> Model {
    serde_json::from_value(record).expect("model json")
}

/// Groq's `llama-3.3-70b-versatile` (seed catalog prices) at `base_url`.
pub fn groq(base_url: &str) -> Model {
    model(json!({
        "id": "llama-3.3-70b-versatile", "name": "Llama 3.3 70B", "api": "openai-completions",
        "provider": "groq", "baseUrl": base_url, "reasoning": false, "input": ["text"],
        "cost": {"input": 0.59, "output": 0.79, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 131072, "maxTokens": 32768
    }))
}

/// DeepSeek's `deepseek-v4-flash` with its seed compat and thinking map at `base_url`.
pub fn deepseek(base_url: &str) -> Model {
    model(json!({
        "id": "deepseek-v4-flash", "name": "DeepSeek V4 Flash", "api": "openai-completions",
        "provider": "deepseek", "baseUrl": base_url, "reasoning": true, "input": ["text"],
        "thinkingLevelMap": {"minimal": null, "low": null, "medium": null, "high": "high", "xhigh": "max"},
        "cost": {"input": 0.14, "output": 0.28, "cacheRead": 0.0028, "cacheWrite": 0},
        "contextWindow": 1000000, "maxTokens": 384000,
        "compat": {"requiresReasoningContentOnAssistantMessages": true, "thinkingFormat": "deepseek"}
    }))
}

/// The `read` tool of the appendix transcripts.
pub fn read_tool() -> Tool {
    Tool {
        name: "read".into(),
        description: "Read a file".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
    }
}

/// System prompt, one plain-string user message, the `read` tool.
pub fn show_main_context() -> Context {
    Context {
        system_prompt: Some("You are a coding agent.".into()),
        messages: vec![Message::User(UserMessage {
            content: UserContent::Text("Show me src/main.rs".into()),
            timestamp: 1,
        })],
        tools: vec![read_tool()],
    }
}

/// Options with a key, a fixed max-token cap and nothing else.
pub fn options(key: &str) -> StreamOptions {
    StreamOptions {
        api_key: Some(key.into()),
        max_tokens: Some(32000),
        ..Default::default()
    }
}

/// An assistant message from `model` holding `content`, ended with `toolUse`.
pub fn assistant(model: &Model, content: Vec<ContentBlock>) -> Message {
    let mut m = rho_ai::AssistantMessage::empty(&model.api, &model.provider, &model.id);
    m.content = content;
    m.stop_reason = rho_ai::StopReason::ToolUse;
    m.timestamp = 2;
    Message::Assistant(m)
}

/// A tool call block.
pub fn call(id: &str, name: &str, arguments: Value) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall {
        namespace: None,
        id: id.into(),
        name: name.into(),
        arguments,
        thought_signature: None,
    })
}

/// A successful tool result.
pub fn result(id: &str, name: &str, content: Vec<ContentBlock>) -> Message {
    Message::ToolResult(ToolResultMessage {
        duration_ms: None,
        usage: None,
        nested_calls: None,
        tool_call_id: id.into(),
        tool_name: name.into(),
        content,
        details: None,
        is_error: false,
        timestamp: 3,
    })
}

/// A small PNG-ish image block.
pub fn image() -> ContentBlock {
    ContentBlock::Image(ImageContent {
        data: "iVBORw0KGgo=".into(),
        mime_type: "image/png".into(),
    })
}

/// A user message with one text block.
pub fn user(text: &str) -> Message {
    Message::User(UserMessage {
        content: UserContent::Blocks(vec![ContentBlock::text(text)]),
        timestamp: 4,
    })
}

/// Every event of `stream`, bounded so a hung stream fails the test instead of the suite.
pub async fn collect(mut stream: AssistantStream) -> Vec<AssistantMessageEvent> {
    let mut events = Vec::new();
    let all = async {
        while let Some(e) = stream.next().await {
            events.push(e);
        }
    };
    tokio::time::timeout(Duration::from_secs(10), all)
        .await
        .expect("stream ended within 10s");
    events
}

/// The events as short strings: `text_delta(0,Hello)`, `toolcall_end(1,read,{...})`, ...
pub fn trace(events: &[AssistantMessageEvent]) -> Vec<String> {
    use AssistantMessageEvent as E;
    events
        .iter()
        .map(|e| match e {
            E::Start { .. } => "start".to_string(),
            E::TextStart { content_index: i } => format!("text_start({i})"),
            E::TextDelta {
                content_index: i,
                delta,
            } => format!("text_delta({i},{delta})"),
            E::TextEnd {
                content_index: i,
                text,
            } => format!("text_end({i},{})", text.text),
            E::ThinkingStart { content_index: i } => format!("thinking_start({i})"),
            E::ThinkingDelta {
                content_index: i,
                delta,
            } => {
                format!("thinking_delta({i},{delta})")
            }
            E::ThinkingEnd {
                content_index: i,
                thinking,
            } => {
                format!("thinking_end({i},{})", thinking.thinking)
            }
            E::ToolCallStart {
                content_index: i,
                id,
                name,
            } => {
                format!("toolcall_start({i},{id},{name})")
            }
            E::ToolCallDelta {
                content_index: i,
                delta,
            } => format!("toolcall_delta({i},{delta})"),
            E::ToolCallEnd {
                content_index: i,
                tool_call,
            } => format!(
                "toolcall_end({i},{},{},{})",
                tool_call.id, tool_call.name, tool_call.arguments
            ),
            E::Done { reason, .. } => format!("done({})", reason.as_str()),
            E::Error { reason, .. } => format!("error({})", reason.as_str()),
        })
        .collect()
}

/// The final message of a finished event list.
pub fn final_message(events: &[AssistantMessageEvent]) -> &rho_ai::AssistantMessage {
    match events.last() {
        Some(AssistantMessageEvent::Done { message, .. }) => message,
        Some(AssistantMessageEvent::Error { error, .. }) => error,
        other => panic!("no terminal event, last was {other:?}"),
    }
}

/// Runs one call of `model` on [`show_main_context`] and returns every event.
pub async fn run(model: &Model) -> Vec<AssistantMessageEvent> {
    let stream =
        rho_ai::stream(model, &show_main_context(), options("sk-test")).expect("stream starts");
    collect(stream).await
}
