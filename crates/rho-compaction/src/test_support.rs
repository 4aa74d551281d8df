//! Message and entry builders for the unit tests.

use rho_agent::{AgentMessage, BashExecutionMessage, CompactionSummaryMessage, CustomMessage};
use rho_ai::{
    AssistantMessage, ContentBlock, ImageContent, StopReason, TextContent, ThinkingContent,
    ToolCall, ToolResultMessage, Usage, UserContent, UserMessage,
};
use serde_json::Value;

use super::entry::{CompactionRecord, EntryKind, PathEntry};

pub fn text(t: &str) -> ContentBlock {
    ContentBlock::Text(TextContent {
        text: t.into(),
        text_signature: None,
    })
}

pub fn thinking(t: &str) -> ContentBlock {
    ContentBlock::Thinking(ThinkingContent {
        thinking: t.into(),
        ..Default::default()
    })
}

pub fn tool_call(id: &str, name: &str, arguments: Value) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall {
        namespace: None,
        id: id.into(),
        name: name.into(),
        arguments,
        thought_signature: None,
    })
}

fn image() -> ContentBlock {
    ContentBlock::Image(ImageContent {
        data: "AAAA".into(),
        mime_type: "image/png".into(),
    })
}

pub fn user(t: &str) -> AgentMessage {
    AgentMessage::User(UserMessage {
        content: UserContent::Blocks(vec![text(t)]),
        timestamp: 1,
    })
}

pub fn user_with_image(t: &str) -> AgentMessage {
    AgentMessage::User(UserMessage {
        content: UserContent::Blocks(vec![text(t), image()]),
        timestamp: 1,
    })
}

pub fn assistant_with(content: Vec<ContentBlock>, total_tokens: u64) -> AgentMessage {
    let mut a = AssistantMessage::empty("anthropic-messages", "anthropic", "m");
    a.content = content;
    a.usage = Usage {
        total_tokens,
        ..Default::default()
    };
    a.timestamp = 2;
    AgentMessage::Assistant(a)
}

pub fn assistant(t: &str, total_tokens: u64) -> AgentMessage {
    assistant_with(vec![text(t)], total_tokens)
}

pub fn error_assistant(t: &str, total_tokens: u64) -> AgentMessage {
    let mut m = assistant(t, total_tokens);
    if let AgentMessage::Assistant(a) = &mut m {
        a.stop_reason = StopReason::Error;
        a.error_message = Some("boom".into());
    }
    m
}

pub fn tool_result(id: &str, t: &str) -> AgentMessage {
    AgentMessage::ToolResult(ToolResultMessage {
        duration_ms: None,
        usage: None,
        nested_calls: None,
        tool_call_id: id.into(),
        tool_name: "read".into(),
        content: vec![text(t)],
        details: None,
        is_error: false,
        timestamp: 3,
    })
}

pub fn tool_result_with_image(id: &str, t: &str) -> AgentMessage {
    let mut m = tool_result(id, t);
    if let AgentMessage::ToolResult(r) = &mut m {
        r.content.push(image());
    }
    m
}

pub fn bash(command: &str, output: &str) -> AgentMessage {
    AgentMessage::BashExecution(BashExecutionMessage {
        command: command.into(),
        output: output.into(),
        exit_code: Some(0),
        cancelled: false,
        truncated: false,
        full_output_path: None,
        timestamp: 4,
        exclude_from_context: None,
    })
}

pub fn compaction_summary(s: &str) -> AgentMessage {
    AgentMessage::CompactionSummary(CompactionSummaryMessage {
        summary: s.into(),
        tokens_before: 0,
        timestamp: 5,
    })
}

pub fn msg(id: &str, message: AgentMessage) -> PathEntry {
    PathEntry::message(id, message)
}

pub fn other(id: &str) -> PathEntry {
    PathEntry {
        id: id.into(),
        kind: EntryKind::Other,
    }
}

pub fn custom_entry(id: &str, t: &str) -> PathEntry {
    PathEntry {
        id: id.into(),
        kind: EntryKind::CustomMessage(CustomMessage {
            custom_type: "note".into(),
            content: UserContent::Text(t.into()),
            display: true,
            details: None,
            timestamp: 6,
        }),
    }
}

pub fn compaction_entry(id: &str, summary: &str, first_kept: &str, details: Value) -> PathEntry {
    PathEntry {
        id: id.into(),
        kind: EntryKind::Compaction(CompactionRecord {
            summary: summary.into(),
            first_kept_entry_id: first_kept.into(),
            tokens_before: 1234,
            details: Some(details),
            from_hook: false,
            timestamp: 10,
        }),
    }
}

/// Text of `n` characters (so ⌈n/4⌉ tokens).
pub fn chars(n: usize) -> String {
    "a".repeat(n)
}

/// A non-reasoning Anthropic model with a 128k window.
pub fn model() -> rho_ai::Model {
    serde_json::from_value(serde_json::json!({
        "id": "claude-test", "name": "Claude Test", "api": "anthropic-messages",
        "provider": "anthropic", "baseUrl": "http://127.0.0.1:1", "contextWindow": 128000,
        "maxTokens": 8192
    }))
    .expect("model literal parses")
}
