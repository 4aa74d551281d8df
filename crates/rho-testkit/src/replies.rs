//! Helpers for provider tests: a model for any API, a call's events collected (or aborted at
//! the first text delta), its final message, and the history of a tool round trip.

use std::time::Duration;

use rho_ai::{
    AssistantMessage, AssistantMessageEvent as E, AssistantStream, ContentBlock, Context, Message,
    Model, Tool, ToolResultMessage, UserMessage,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// How long a test waits for a stream to end.
pub const LIMIT: Duration = Duration::from_secs(20);

/// A text-and-image model of `api` at `base_url`.
pub fn model(api: &str, provider: &str, id: &str, base_url: &str) -> Model {
    serde_json::from_value(json!({
        "id": id, "name": id, "api": api, "provider": provider, "baseUrl": base_url,
        "reasoning": true, "input": ["text", "image"],
        "cost": {"input": 3.0, "output": 15.0, "cacheRead": 0.3, "cacheWrite": 3.75},
        "contextWindow": 200000, "maxTokens": 32000
    }))
    .expect("model")
}

/// Every event of `stream`; with `abort`, that token is cancelled at the first text delta.
pub async fn collect(mut stream: AssistantStream, abort: Option<CancellationToken>) -> Vec<E> {
    let mut events = Vec::new();
    let ended = tokio::time::timeout(LIMIT, async {
        while let Some(e) = stream.next().await {
            if let (Some(cancel), E::TextDelta { .. }) = (&abort, &e) {
                cancel.cancel();
            }
            events.push(e);
        }
    })
    .await;
    assert!(ended.is_ok(), "the stream did not end: {events:?}");
    events
}

/// The message of the one terminal event, which must come last.
pub fn final_message(events: &[E]) -> &AssistantMessage {
    assert_eq!(
        events.iter().filter(|e| e.is_terminal()).count(),
        1,
        "{events:?}"
    );
    match events.last() {
        Some(E::Done { message, .. } | E::Error { error: message, .. }) => message,
        other => panic!("no terminal event last: {other:?}"),
    }
}

/// A `read` tool taking a `path`.
pub fn read_tool() -> Tool {
    Tool {
        name: "read".into(),
        description: "Read a file".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}},
            "required": ["path"]}),
    }
}

/// A context asking `text`, with the `read` tool.
pub fn ask(text: &str) -> Context {
    Context {
        system_prompt: Some("You are terse.".into()),
        messages: vec![Message::User(UserMessage::text(text))],
        tools: vec![read_tool()],
    }
}

/// `context` followed by `reply` (which called tools) and one result per call, saying
/// `result`.
pub fn with_results(mut context: Context, reply: &AssistantMessage, result: &str) -> Context {
    context.messages.push(Message::Assistant(reply.clone()));
    for call in reply.tool_calls() {
        context
            .messages
            .push(Message::ToolResult(ToolResultMessage {
                tool_call_id: call.id.clone(),
                tool_name: call.name.clone(),
                content: vec![ContentBlock::text(result)],
                details: None,
                usage: None,
                nested_calls: None,
                is_error: false,
                timestamp: rho_ai::now_ms(),
                duration_ms: None,
            }));
    }
    context
}
