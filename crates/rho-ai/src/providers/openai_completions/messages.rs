//! Converts rho messages into Chat Completions `messages` (providers spec §3.2, "Message
//! conversion"). Runs on the output of `transform_messages`, so foreign thinking is already
//! text and orphaned tool calls already have results.

use std::borrow::Cow;

use serde_json::{json, Map, Value};

use super::compat::ResolvedCompat;
use crate::content::{ContentBlock, ImageContent};
use crate::message::{AssistantMessage, Message, ToolResultMessage, UserContent, UserMessage};
use crate::model::Model;

/// The assistant turn inserted between tool results and a user message for servers that
/// reject a user message right after a tool message.
pub const TOOL_RESULT_BRIDGE: &str = "I have processed the tool results.";

/// The text introducing images that tool results returned (sent as a user message).
pub const TOOL_IMAGES_INTRO: &str = "Attached image(s) from tool result:";

/// Tool-result `content` when the result holds images only.
pub const SEE_ATTACHED_IMAGE: &str = "(see attached image)";

/// Delta fields a Chat Completions thinking block can come from (and is replayed into).
pub const REASONING_FIELDS: [&str; 3] = ["reasoning_content", "reasoning", "reasoning_text"];

/// Chat Completions' tool-call id rule: an id with `|` (a Responses `call|item` pair) keeps the
/// part before it, made safe and cut to 40 chars; OpenAI itself caps ids at 40 chars; other
/// servers get the id unchanged.
pub fn normalize_tool_call_id<'a>(id: &'a str, provider: &str) -> Cow<'a, str> {
    if let Some((head, _)) = id.split_once('|') {
        let safe = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
        return Cow::Owned(
            head.chars()
                .map(|c| if safe(c) { c } else { '_' })
                .take(40)
                .collect(),
        );
    }
    if provider == "openai" && id.chars().count() > 40 {
        return Cow::Owned(id.chars().take(40).collect());
    }
    Cow::Borrowed(id)
}

/// The `messages` array: system prompt first, then each message in order.
pub fn convert(
    model: &Model,
    system_prompt: Option<&str>,
    messages: &[Message],
    compat: &ResolvedCompat,
) -> Vec<Value> {
    let mut out = Vec::with_capacity(messages.len() + 1);
    if let Some(prompt) = system_prompt {
        let role = if model.reasoning && compat.supports_developer_role {
            "developer"
        } else {
            "system"
        };
        out.push(json!({"role": role, "content": prompt}));
    }
    let mut after_tool_result = false;
    let mut i = 0;
    while i < messages.len() {
        match &messages[i] {
            Message::User(user) => {
                if compat.requires_assistant_after_tool_result && after_tool_result {
                    out.push(json!({"role": "assistant", "content": TOOL_RESULT_BRIDGE}));
                }
                out.extend(user_message(user, model));
                after_tool_result = false;
                i += 1;
            }
            Message::Assistant(assistant) => {
                out.extend(assistant_message(assistant, model, compat));
                after_tool_result = false;
                i += 1;
            }
            Message::ToolResult(_) => {
                let mut images = Vec::new();
                while let Some(Message::ToolResult(result)) = messages.get(i) {
                    out.push(tool_message(result, model, compat));
                    if model.supports_images() {
                        images.extend(result.content.iter().filter_map(image_part));
                    }
                    i += 1;
                }
                if !images.is_empty() {
                    let mut content = vec![json!({"type": "text", "text": TOOL_IMAGES_INTRO})];
                    content.extend(images);
                    out.push(json!({"role": "user", "content": content}));
                }
                after_tool_result = true;
            }
        }
    }
    out
}

fn image_url(image: &ImageContent) -> Value {
    json!({
        "type": "image_url",
        "image_url": {"url": format!("data:{};base64,{}", image.mime_type, image.data)}
    })
}

fn image_part(block: &ContentBlock) -> Option<Value> {
    match block {
        ContentBlock::Image(image) => Some(image_url(image)),
        _ => None,
    }
}

/// A user message; `None` when nothing sendable is left (e.g. only images for a text model).
fn user_message(user: &UserMessage, model: &Model) -> Option<Value> {
    let blocks = match &user.content {
        UserContent::Text(text) => return Some(json!({"role": "user", "content": text})),
        UserContent::Blocks(blocks) => blocks,
    };
    let parts: Vec<Value> = blocks
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(t) => Some(json!({"type": "text", "text": t.text})),
            ContentBlock::Image(image) if model.supports_images() => Some(image_url(image)),
            _ => None,
        })
        .collect();
    if parts.is_empty() {
        return None;
    }
    Some(json!({"role": "user", "content": parts}))
}

fn is_blank(s: &str) -> bool {
    s.trim().is_empty()
}

/// An assistant message; `None` when it has neither content nor tool calls.
fn assistant_message(
    message: &AssistantMessage,
    model: &Model,
    compat: &ResolvedCompat,
) -> Option<Value> {
    let texts: Vec<&str> = message
        .content
        .iter()
        .filter_map(ContentBlock::as_text)
        .filter(|t| !is_blank(t))
        .collect();
    let thinking: Vec<&crate::content::ThinkingContent> = message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Thinking(t) if !is_blank(&t.thinking) => Some(t),
            _ => None,
        })
        .collect();
    let mut out = Map::new();
    out.insert("role".into(), "assistant".into());
    let content = if compat.requires_thinking_as_text && !thinking.is_empty() {
        let joined = join(thinking.iter().map(|t| t.thinking.as_str()), "\n\n");
        let mut parts = vec![json!({"type": "text", "text": joined})];
        parts.extend(texts.iter().map(|t| json!({"type": "text", "text": t})));
        Value::Array(parts)
    } else if texts.is_empty() {
        if compat.requires_assistant_after_tool_result || compat.requires_non_null_assistant_content
        {
            Value::String(String::new())
        } else {
            Value::Null
        }
    } else {
        Value::String(texts.concat())
    };
    let has_content = match &content {
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => false,
    };
    out.insert("content".into(), content);
    if !compat.requires_thinking_as_text {
        let field = thinking
            .first()
            .and_then(|t| t.thinking_signature.as_deref())
            .filter(|s| REASONING_FIELDS.contains(s));
        if let Some(field) = field {
            let joined = join(thinking.iter().map(|t| t.thinking.as_str()), "\n");
            out.insert(field.to_string(), Value::String(joined));
        }
    }
    if compat.requires_reasoning_content_on_assistant_messages
        && model.reasoning
        && !out.contains_key("reasoning_content")
    {
        out.insert("reasoning_content".into(), Value::String(String::new()));
    }
    let calls: Vec<&crate::content::ToolCall> = message.tool_calls().collect();
    if !calls.is_empty() {
        let tool_calls: Vec<Value> = calls
            .iter()
            .map(|tc| {
                json!({
                    "id": normalize_tool_call_id(&tc.id, &model.provider),
                    "type": "function",
                    "function": {"name": tc.name, "arguments": tc.arguments.to_string()},
                })
            })
            .collect();
        out.insert("tool_calls".into(), Value::Array(tool_calls));
        let details: Vec<Value> = calls
            .iter()
            .filter_map(|tc| tc.thought_signature.as_deref())
            .filter_map(|s| serde_json::from_str::<Value>(s).ok())
            .filter(Value::is_object)
            .collect();
        if !details.is_empty() {
            out.insert("reasoning_details".into(), Value::Array(details));
        }
    } else if !has_content {
        return None;
    }
    Some(Value::Object(out))
}

fn join<'a>(parts: impl Iterator<Item = &'a str>, sep: &str) -> String {
    parts.collect::<Vec<_>>().join(sep)
}

/// One `tool` message; images travel separately (see [`convert`]).
fn tool_message(result: &ToolResultMessage, model: &Model, compat: &ResolvedCompat) -> Value {
    let text = crate::message::join_text(&result.content);
    let content = if text.is_empty() {
        SEE_ATTACHED_IMAGE.to_string()
    } else {
        text
    };
    let mut out = json!({
        "role": "tool",
        "content": content,
        "tool_call_id": normalize_tool_call_id(&result.tool_call_id, &model.provider),
    });
    if compat.requires_tool_result_name {
        out["name"] = Value::String(result.tool_name.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_call_ids_follow_the_chat_completions_rule() {
        assert_eq!(
            normalize_tool_call_id("call_abc|fc_0123", "openrouter"),
            "call_abc"
        );
        assert_eq!(normalize_tool_call_id("call.a+b|fc", "x"), "call_a_b");
        let long = "c".repeat(50);
        assert_eq!(normalize_tool_call_id(&long, "openai").len(), 40);
        assert_eq!(normalize_tool_call_id(&long, "groq").len(), 50);
        let long_pipe = format!("{}|item", "d".repeat(60));
        assert_eq!(normalize_tool_call_id(&long_pipe, "groq").len(), 40);
    }
}
