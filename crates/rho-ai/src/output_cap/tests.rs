//! The figures are what pi-ai 1.6's `estimateContextTokens` and `clampMaxTokensToContext`
//! compute for the same contexts (its system message carrying the same text and tools).

use serde_json::json;

use super::*;
use crate::{AssistantMessage, ImageContent, Tool, ToolCall, ToolResultMessage, UserMessage};

fn context(messages: Vec<Message>) -> Context {
    Context {
        system_prompt: Some("You are helpful. 😀 émoji".into()),
        messages,
        tools: vec![Tool {
            name: "read".into(),
            description: "Read a file ✓".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }],
    }
}

fn user(text: &str, timestamp: i64) -> Message {
    Message::User(UserMessage {
        content: UserContent::Text(text.into()),
        timestamp,
    })
}

fn reply(usage: (u64, u64, u64), timestamp: i64, stop_reason: StopReason) -> Message {
    let mut a = AssistantMessage::empty("openai-completions", "p", "m");
    a.content = vec![
        ContentBlock::text("a"),
        ContentBlock::ToolCall(ToolCall {
            id: "c".into(),
            name: "read".into(),
            arguments: json!({"path": "a.txt"}),
            thought_signature: None,
            namespace: None,
        }),
    ];
    (a.usage.input, a.usage.output, a.usage.total_tokens) = usage;
    a.timestamp = timestamp;
    a.stop_reason = stop_reason;
    Message::Assistant(a)
}

fn model(context_window: u64, max_tokens: u64) -> Model {
    Model {
        context_window,
        max_tokens,
        ..Model::default()
    }
}

#[test]
fn without_usage_everything_is_estimated_with_the_system_prompt_and_tools() {
    assert_eq!(
        estimate_context_tokens(&context(vec![user("hello there", 1)])),
        46
    );
    let image = Message::User(UserMessage {
        content: UserContent::Blocks(vec![
            ContentBlock::text("see"),
            ContentBlock::Image(ImageContent {
                data: String::new(),
                mime_type: "image/png".into(),
            }),
        ]),
        timestamp: 1,
    });
    assert_eq!(estimate_context_tokens(&context(vec![image])), 1415);
}

#[test]
fn the_last_reply_s_usage_counts_with_estimates_of_what_followed() {
    let result = Message::ToolResult(ToolResultMessage {
        tool_call_id: "c".into(),
        tool_name: "read".into(),
        content: vec![ContentBlock::text("file body here")],
        details: None,
        usage: None,
        nested_calls: None,
        is_error: false,
        timestamp: 3,
        duration_ms: None,
    });
    let usage = (1000, 50, 0);
    let messages = vec![user("q", 1), reply(usage, 2, StopReason::Stop), result];
    assert_eq!(estimate_context_tokens(&context(messages)), 1054);
}

#[test]
fn usage_older_than_a_message_before_it_or_of_an_aborted_reply_does_not_count() {
    let stale = vec![
        user("q", 5),
        reply((1000, 50, 1200), 2, StopReason::Stop),
        user("later", 6),
    ];
    assert_eq!(estimate_context_tokens(&context(stale)), 51);
    let aborted = vec![user("q", 1), reply((1000, 50, 0), 2, StopReason::Aborted)];
    assert_eq!(estimate_context_tokens(&context(aborted)), 49);
}

#[test]
fn the_cap_keeps_a_margin_below_the_window() {
    let large = model(200_000, 64_000);
    let small = model(32_768, 8192);
    let short = context(vec![user("hello there", 1)]);
    assert_eq!(clamp_to_context(&large, &short, 64_000), 64_000);
    assert_eq!(clamp_to_context(&small, &short, 8192), 8192);
    // 15 % of the input while that leaves 32,768 tokens, else the fixed 4,096.
    let mid = context(vec![user(&"y".repeat(500_000), 1)]);
    assert_eq!(clamp_to_context(&large, &mid, 64_000), 35_665);
    let near = context(vec![user(&"z".repeat(600_000), 1)]);
    assert_eq!(clamp_to_context(&large, &near, 64_000), 24_433);
    assert_eq!(clamp_to_context(&small, &near, 8192), 1, "at least one");
    assert_eq!(clamp_to_context(&model(0, 8192), &near, 8192), 8192);
}

/// `high`'s default budget, 16,384 tokens.
const HIGH: (&ThinkingBudgets, ThinkingLevel) = (
    &ThinkingBudgets {
        minimal: None,
        low: None,
        medium: None,
        high: None,
    },
    ThinkingLevel::High,
);

#[test]
fn a_thinking_budget_leaves_room_for_the_answer_under_the_fitted_cap() {
    let large = model(200_000, 64_000);
    let short = context(vec![user("hello there", 1)]);
    assert_eq!(
        with_thinking_budget(&large, &short, 32_000, HIGH),
        (48_384, 16_384)
    );
    let near = context(vec![user(&"z".repeat(600_000), 1)]);
    assert_eq!(
        with_thinking_budget(&large, &near, 64_000, HIGH),
        (24_433, 16_384)
    );
    let small = model(32_768, 8192);
    assert_eq!(
        with_thinking_budget(&small, &short, 8192, HIGH),
        (8192, 8192 - 1024)
    );
}
