//! Round-trips of the message model against JSON written by hand from providers spec §1 and
//! interfaces spec §5: what pi writes must load, and what rho writes must be byte-identical.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_ai::{ContentBlock, Message, Model, StopReason, ThinkingLevel, UserContent};
use serde_json::{json, Value};

fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(v: Value) -> T {
    let parsed: T = serde_json::from_value(v.clone()).expect("spec JSON parses");
    assert_eq!(serde_json::to_value(&parsed).expect("serializes"), v);
    parsed
}

#[test]
fn user_message_with_blocks_and_with_string() {
    let m: Message = round_trip(json!({
        "role": "user",
        "content": [
            {"type": "text", "text": "look"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
        ],
        "timestamp": 1733000000000i64
    }));
    let Message::User(u) = m else { panic!("user") };
    assert_eq!(u.content.text(), "look");
    let legacy: Message = round_trip(json!({"role": "user", "content": "hi", "timestamp": 1}));
    let Message::User(u) = legacy else {
        panic!("user")
    };
    assert_eq!(u.content, UserContent::Text("hi".into()));
}

#[test]
fn assistant_message_with_every_block_kind() {
    let v = json!({
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "plan", "thinkingSignature": "sig"},
            {"type": "thinking", "thinking": "[redacted]", "thinkingSignature": "opaque", "redacted": true},
            {"type": "text", "text": "ok", "textSignature": "{\"v\":1,\"id\":\"msg_1\"}"},
            {"type": "toolCall", "id": "toolu_1", "name": "read", "arguments": {"path": "a.rs"}, "thoughtSignature": "ts"}
        ],
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "responseId": "msg_1",
        "usage": {
            "input": 412, "output": 9, "cacheRead": 1800, "cacheWrite": 0, "totalTokens": 2221,
            "cost": {"input": 0.001236, "output": 0.000135, "cacheRead": 0.00054, "cacheWrite": 0.0, "total": 0.001911}
        },
        "stopReason": "toolUse",
        "timestamp": 1733000000001i64
    });
    let m: Message = round_trip(v);
    let Message::Assistant(a) = m else {
        panic!("assistant")
    };
    assert_eq!(a.stop_reason, StopReason::ToolUse);
    assert_eq!(a.tool_calls().count(), 1);
    assert!(matches!(&a.content[1], ContentBlock::Thinking(t) if t.redacted == Some(true)));
}

#[test]
fn error_assistant_and_tool_result() {
    let _: Message = round_trip(json!({
        "role": "assistant", "content": [], "api": "openai-completions", "provider": "groq",
        "model": "llama", "responseModel": "llama-3.3",
        "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                  "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0}},
        "stopReason": "error", "errorMessage": "429 rate limited", "timestamp": 2
    }));
    let m: Message = round_trip(json!({
        "role": "toolResult", "toolCallId": "toolu_1", "toolName": "read",
        "content": [{"type": "text", "text": "fn main() {}"}],
        "details": {"lines": 1}, "isError": false, "timestamp": 3
    }));
    assert!(matches!(m, Message::ToolResult(t) if !t.is_error));
}

#[test]
fn usage_cost_matches_spec_example() {
    let model: Model = serde_json::from_value(json!({
        "id": "claude-sonnet-4-5", "name": "Claude Sonnet 4.5", "api": "anthropic-messages",
        "provider": "anthropic", "baseUrl": "https://api.anthropic.com",
        "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}
    }))
    .expect("model parses");
    let mut usage = rho_ai::Usage {
        input: 412,
        output: 9,
        cache_read: 1800,
        ..Default::default()
    };
    usage.compute_cost(&model.cost);
    assert!((usage.cost.total - 0.001911).abs() < 1e-12);
    assert_eq!(usage.total_tokens, 2221);
}

#[test]
fn model_with_compat_and_defaults() {
    let model: Model = round_trip(json!({
        "id": "qwen3", "name": "Qwen 3", "api": "openai-completions", "provider": "ollama",
        "baseUrl": "http://localhost:11434/v1", "reasoning": true,
        "thinkingLevelMap": {"minimal": null, "xhigh": "max"},
        "input": ["text", "image"],
        "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0},
        "contextWindow": 32768, "maxTokens": 8192,
        "headers": {"x-a": "b"},
        "compat": {"supportsDeveloperRole": false, "maxTokensField": "max_tokens", "thinkingFormat": "qwen"}
    }));
    assert!(model.supports_images());
    assert_eq!(
        model.supported_thinking_levels(),
        [
            ThinkingLevel::Off,
            ThinkingLevel::Low,
            ThinkingLevel::Medium,
            ThinkingLevel::High,
            ThinkingLevel::Xhigh
        ]
    );
    assert_eq!(
        model.clamp_thinking_level(ThinkingLevel::Minimal),
        ThinkingLevel::Low
    );
    assert_eq!(model.thinking_wire_value(ThinkingLevel::Xhigh), "max");
    let custom: Model = serde_json::from_value(json!({
        "id": "m", "name": "m", "api": "openai-completions", "provider": "p", "baseUrl": "http://x"
    }))
    .expect("minimal custom model parses");
    assert_eq!(
        (custom.context_window, custom.max_tokens),
        (128_000, 16_384)
    );
    assert!(!custom.reasoning && !custom.supports_images());
    assert_eq!(custom.supported_thinking_levels(), [ThinkingLevel::Off]);
}

#[test]
fn thinking_level_names() {
    for level in ThinkingLevel::ALL {
        let v = serde_json::to_value(level).expect("serializes");
        assert_eq!(v, json!(level.as_str()));
        assert_eq!(ThinkingLevel::parse(level.as_str()), Some(level));
    }
    let no_map: Model = serde_json::from_value(json!({
        "id": "r", "name": "r", "api": "anthropic-messages", "provider": "anthropic",
        "baseUrl": "http://x", "reasoning": true
    }))
    .expect("parses");
    assert!(!no_map
        .supported_thinking_levels()
        .contains(&ThinkingLevel::Xhigh));
    assert_eq!(
        no_map.clamp_thinking_level(ThinkingLevel::Xhigh),
        ThinkingLevel::High
    );
}

/// pi 1.x's `max` level: offered only where the model's map names it, else clamped down.
#[test]
fn max_thinking_level_only_where_the_model_maps_it() {
    assert_eq!(ThinkingLevel::parse("max"), Some(ThinkingLevel::Max));
    let mapped: Model = serde_json::from_value(json!({
        "id": "r", "name": "r", "api": "openai-completions", "provider": "p",
        "baseUrl": "http://x", "reasoning": true,
        "thinkingLevelMap": {"xhigh": "xhigh", "max": "max"}
    }))
    .expect("parses");
    assert_eq!(
        mapped.supported_thinking_levels().last(),
        Some(&ThinkingLevel::Max)
    );
    assert_eq!(mapped.thinking_wire_value(ThinkingLevel::Max), "max");
    let unmapped: Model = serde_json::from_value(json!({
        "id": "r", "name": "r", "api": "openai-completions", "provider": "p",
        "baseUrl": "http://x", "reasoning": true
    }))
    .expect("parses");
    assert_eq!(
        unmapped.clamp_thinking_level(ThinkingLevel::Max),
        ThinkingLevel::High
    );
}
