//! Shared fixtures: the catalog models the tests talk to, pointed at a `MockServer`, and the
//! Appendix A.1 context and request body.

use std::collections::BTreeMap;

use rho_ai::{
    AssistantMessage, AssistantMessageEvent, Context, InputKind, Message, Model, ModelCost,
    StreamOptions, Tool, UserMessage,
};
use rho_testkit::MockServer;
use serde_json::{json, Value};

/// A seed-catalog Anthropic model (§8) served by `server`.
pub fn model(server: &MockServer, id: &str) -> Model {
    catalog_model(&server.url(), id)
}

/// A seed-catalog Anthropic model at `base_url`: prices, limits and maps as in spec §8.
pub fn catalog_model(base_url: &str, id: &str) -> Model {
    let (max_tokens, cost, map) = match id {
        "claude-opus-4-6" => (128_000, (5.0, 25.0, 0.5, 6.25), Some("max")),
        "claude-opus-4-7" => (128_000, (5.0, 25.0, 0.5, 6.25), Some("xhigh")),
        "claude-3-5-haiku-latest" => (8_192, (0.8, 4.0, 0.08, 1.0), None),
        _ => (64_000, (3.0, 15.0, 0.3, 3.75), None),
    };
    Model {
        id: id.to_string(),
        name: id.to_string(),
        api: "anthropic-messages".into(),
        provider: "anthropic".into(),
        base_url: base_url.to_string(),
        reasoning: id != "claude-3-5-haiku-latest",
        thinking_level_map: map
            .map(|v| BTreeMap::from([("xhigh".to_string(), Some(v.to_string()))])),
        input: vec![InputKind::Text, InputKind::Image],
        cost: ModelCost {
            input: cost.0,
            output: cost.1,
            cache_read: cost.2,
            cache_write: cost.3,
            ..Default::default()
        },
        context_window: 200_000,
        max_tokens,
        headers: None,
        compat: None,
        ..Default::default()
    }
}

/// An API key, short cache retention, no thinking.
pub fn options() -> StreamOptions {
    StreamOptions {
        api_key: Some("sk-ant-api03-test".into()),
        ..Default::default()
    }
}

/// The `read` tool of Appendix A.
pub fn read_tool() -> Tool {
    Tool {
        name: "read".into(),
        description: "Read a file".into(),
        parameters: json!({
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
            "additionalProperties": false
        }),
    }
}

/// Appendix A.1's context: system prompt, one user message, the `read` tool.
pub fn a1_context() -> Context {
    Context {
        system_prompt: Some("You are a coding agent.".into()),
        messages: vec![Message::User(UserMessage::text("Show me src/main.rs"))],
        tools: vec![read_tool()],
    }
}

/// Appendix A.1's request body, but with pi 1.6's output cap (the model's whole 64,000; the
/// appendix, from pi 0.73, has 32,000).
pub fn a1_request_body() -> Value {
    json!({"model":"claude-sonnet-4-5","messages":[{"role":"user","content":[{"type":"text","text":"Show me src/main.rs","cache_control":{"type":"ephemeral"}}]}],
     "max_tokens":64000,"stream":true,"system":[{"type":"text","text":"You are a coding agent.","cache_control":{"type":"ephemeral"}}],
     "tools":[{"name":"read","description":"Read a file","eager_input_streaming":true,"input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]},"cache_control":{"type":"ephemeral"}}],
     "thinking":{"type":"disabled"}})
}

/// Runs one call and returns every event, terminal one included.
pub async fn collect(
    model: &Model,
    context: &Context,
    options: StreamOptions,
) -> Vec<AssistantMessageEvent> {
    let mut stream = rho_ai::stream(model, context, options).expect("stream starts");
    let mut events = Vec::new();
    while let Some(e) = stream.next().await {
        events.push(e);
    }
    events
}

/// The wire names of `events`.
pub fn names(events: &[AssistantMessageEvent]) -> Vec<&'static str> {
    events.iter().map(|e| e.type_name()).collect()
}

/// The message's text blocks joined.
pub fn text_of(message: &AssistantMessage) -> String {
    message.text()
}
