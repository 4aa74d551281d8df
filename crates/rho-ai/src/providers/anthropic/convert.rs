//! Unified messages → Anthropic `messages` (spec §3.1 "Message conversion"), run after the
//! cross-provider transformation. Also holds the Claude Code tool-name casing OAuth needs.

use serde_json::{json, Value};

use crate::content::{ContentBlock, ImageContent};
use crate::message::{AssistantMessage, Message, ToolResultMessage, UserContent};

/// Claude Code's canonical tool names; OAuth requests must use this casing.
const CLAUDE_CODE_TOOLS: [&str; 17] = [
    "Read",
    "Write",
    "Edit",
    "Bash",
    "Grep",
    "Glob",
    "AskUserQuestion",
    "EnterPlanMode",
    "ExitPlanMode",
    "KillShell",
    "NotebookEdit",
    "Skill",
    "Task",
    "TaskOutput",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
];

/// `name` in Claude Code casing when it matches one of its tools ignoring case, else as is.
pub(super) fn claude_code_name(name: &str) -> &str {
    CLAUDE_CODE_TOOLS
        .iter()
        .find(|t| t.eq_ignore_ascii_case(name))
        .copied()
        .unwrap_or(name)
}

/// Anthropic's id rule: `[^a-zA-Z0-9_-]` → `_`, at most 64 characters.
pub(super) fn normalize_tool_call_id(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect()
}

/// Converts the (already transformed) history. The cache marker, if any, goes on the last
/// block of the last message when that message is a user message.
pub(super) fn convert_messages(
    messages: &[Message],
    oauth: bool,
    cache: Option<&Value>,
) -> Vec<Value> {
    let mut out = Vec::with_capacity(messages.len());
    let mut i = 0;
    while i < messages.len() {
        match &messages[i] {
            Message::User(u) => out.extend(user(&u.content)),
            Message::Assistant(a) => out.extend(assistant(a, oauth)),
            Message::ToolResult(_) => {
                let mut results = Vec::new();
                while let Some(Message::ToolResult(r)) = messages.get(i) {
                    results.push(tool_result(r));
                    i += 1;
                }
                out.push(json!({"role": "user", "content": results}));
                continue;
            }
        }
        i += 1;
    }
    if let Some(cc) = cache {
        mark_last_user_block(&mut out, cc);
    }
    out
}

fn user(content: &UserContent) -> Option<Value> {
    match content {
        UserContent::Text(t) if t.trim().is_empty() => None,
        UserContent::Text(t) => Some(json!({"role": "user", "content": t})),
        UserContent::Blocks(blocks) => {
            let blocks: Vec<Value> = blocks
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::Text(t) if t.text.trim().is_empty() => None,
                    ContentBlock::Text(t) => Some(json!({"type": "text", "text": t.text})),
                    ContentBlock::Image(img) => Some(image(img)),
                    _ => None,
                })
                .collect();
            (!blocks.is_empty()).then(|| json!({"role": "user", "content": blocks}))
        }
    }
}

fn image(img: &ImageContent) -> Value {
    json!({
        "type": "image",
        "source": {"type": "base64", "media_type": img.mime_type, "data": img.data},
    })
}

fn assistant(message: &AssistantMessage, oauth: bool) -> Option<Value> {
    let blocks: Vec<Value> = message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) if t.text.trim().is_empty() => None,
            ContentBlock::Text(t) => Some(json!({"type": "text", "text": t.text})),
            ContentBlock::Thinking(t) => {
                let signature = t.thinking_signature.as_deref().unwrap_or_default();
                if t.redacted == Some(true) {
                    Some(json!({"type": "redacted_thinking", "data": signature}))
                } else if t.thinking.trim().is_empty() {
                    None
                } else if signature.trim().is_empty() {
                    Some(json!({"type": "text", "text": t.thinking}))
                } else {
                    Some(
                        json!({"type": "thinking", "thinking": t.thinking, "signature": signature}),
                    )
                }
            }
            ContentBlock::ToolCall(tc) => {
                let name = if oauth {
                    claude_code_name(&tc.name)
                } else {
                    tc.name.as_str()
                };
                Some(json!({
                    "type": "tool_use",
                    "id": normalize_tool_call_id(&tc.id),
                    "name": name,
                    "input": tc.arguments,
                }))
            }
            ContentBlock::Image(_) => None,
        })
        .collect();
    (!blocks.is_empty()).then(|| json!({"role": "assistant", "content": blocks}))
}

fn tool_result(r: &ToolResultMessage) -> Value {
    json!({
        "type": "tool_result",
        "tool_use_id": normalize_tool_call_id(&r.tool_call_id),
        "content": tool_result_content(&r.content),
        "is_error": r.is_error,
    })
}

/// Texts joined with `\n` when there are no images; otherwise a block array, led by a
/// `(see attached image)` text when there is no text at all.
fn tool_result_content(content: &[ContentBlock]) -> Value {
    let has_image = content.iter().any(|b| matches!(b, ContentBlock::Image(_)));
    if !has_image {
        return Value::String(crate::message::join_text(content));
    }
    let mut blocks: Vec<Value> = content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(json!({"type": "text", "text": t.text})),
            ContentBlock::Image(img) => Some(image(img)),
            _ => None,
        })
        .collect();
    if !content.iter().any(|b| matches!(b, ContentBlock::Text(_))) {
        blocks.insert(0, json!({"type": "text", "text": "(see attached image)"}));
    }
    Value::Array(blocks)
}

fn mark_last_user_block(messages: &mut [Value], cc: &Value) {
    let Some(last) = messages.last_mut() else {
        return;
    };
    if last["role"] != "user" {
        return;
    }
    if let Some(text) = last["content"].as_str() {
        last["content"] = json!([{"type": "text", "text": text, "cache_control": cc}]);
        return;
    }
    if let Some(block) = last["content"].as_array_mut().and_then(|b| b.last_mut()) {
        if matches!(
            block["type"].as_str(),
            Some("text" | "image" | "tool_result")
        ) {
            block["cache_control"] = cc.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_normalised_and_cut() {
        assert_eq!(normalize_tool_call_id("call|a.b c"), "call_a_b_c");
        assert_eq!(normalize_tool_call_id(&"x".repeat(80)).len(), 64);
    }

    #[test]
    fn claude_code_casing_only_for_known_tools() {
        assert_eq!(claude_code_name("read"), "Read");
        assert_eq!(claude_code_name("todowrite"), "TodoWrite");
        assert_eq!(claude_code_name("find"), "find");
    }

    #[test]
    fn string_user_content_becomes_marked_text_block() {
        let msgs = vec![Message::User(crate::message::UserMessage {
            content: UserContent::Text("hi".into()),
            timestamp: 0,
        })];
        let cc = json!({"type": "ephemeral"});
        let out = convert_messages(&msgs, false, Some(&cc));
        assert_eq!(
            out,
            vec![json!({"role": "user", "content": [
                {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}
            ]})]
        );
    }
}
