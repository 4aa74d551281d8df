//! Messages → Gemini `contents` (providers spec §3.4 "Contents conversion").

use serde_json::{json, Map, Value};

use super::thinking::gemini_major;
use crate::content::{ContentBlock, ImageContent};
use crate::message::{join_text, AssistantMessage, Message, ToolResultMessage, UserContent};
use crate::model::Model;

/// The `contents` array. Consecutive tool results share one `user` content.
pub fn convert_contents(model: &Model, messages: &[Message]) -> Vec<Value> {
    let mut contents: Vec<Value> = Vec::with_capacity(messages.len());
    // Images of older models' tool results, sent after the run of results they belong to.
    let mut pending_images: Vec<Value> = Vec::new();
    let mut in_results = false;
    for message in messages {
        if !matches!(message, Message::ToolResult(_)) && in_results {
            flush_images(&mut contents, &mut pending_images);
            in_results = false;
        }
        match message {
            Message::User(u) => {
                if let Some(c) = user_content(model, &u.content) {
                    contents.push(c);
                }
            }
            Message::Assistant(a) => {
                let parts = model_parts(model, a);
                if !parts.is_empty() {
                    contents.push(json!({"role": "model", "parts": parts}));
                }
            }
            Message::ToolResult(r) => {
                let part = function_response(model, r, &mut pending_images);
                if in_results {
                    if let Some(parts) = contents
                        .last_mut()
                        .and_then(|c| c.get_mut("parts"))
                        .and_then(Value::as_array_mut)
                    {
                        parts.push(part);
                        continue;
                    }
                }
                contents.push(json!({"role": "user", "parts": [part]}));
                in_results = true;
            }
        }
    }
    flush_images(&mut contents, &mut pending_images);
    contents
}

fn flush_images(contents: &mut Vec<Value>, images: &mut Vec<Value>) {
    if images.is_empty() {
        return;
    }
    let mut parts = vec![json!({"text": "Tool result image:"})];
    parts.append(images);
    contents.push(json!({"role": "user", "parts": parts}));
}

fn inline_data(image: &ImageContent) -> Value {
    json!({"inlineData": {"mimeType": image.mime_type, "data": image.data}})
}

fn user_content(model: &Model, content: &UserContent) -> Option<Value> {
    let parts: Vec<Value> = match content {
        UserContent::Text(t) => vec![json!({ "text": t })],
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text(t) => Some(json!({"text": t.text})),
                ContentBlock::Image(i) if model.supports_images() => Some(inline_data(i)),
                _ => None,
            })
            .collect(),
    };
    (!parts.is_empty()).then(|| json!({"role": "user", "parts": parts}))
}

/// Gemini rejects signatures that are not base64 (`TYPE_BYTES`).
fn valid_signature(signature: Option<&str>) -> Option<&str> {
    signature.filter(|s| {
        let body = s.trim_end_matches('=');
        !body.is_empty()
            && s.len() % 4 == 0
            && s.len() - body.len() <= 2
            && body
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
    })
}

/// The signature to send: only to the model that made it, and only when it is base64.
fn replay_signature(same_model: bool, signature: Option<&str>) -> Option<&str> {
    if same_model {
        valid_signature(signature)
    } else {
        None
    }
}

/// Models behind Google's API that need explicit call ids (Claude, gpt-oss).
fn needs_call_ids(model: &Model) -> bool {
    model.id.starts_with("claude-") || model.id.starts_with("gpt-oss-")
}

/// `[^a-zA-Z0-9_-]` → `_`, at most 64 characters.
fn normalize_call_id(id: &str) -> String {
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

fn with_signature(mut part: Map<String, Value>, signature: Option<&str>) -> Value {
    if let Some(s) = signature {
        part.insert("thoughtSignature".into(), json!(s));
    }
    Value::Object(part)
}

fn model_parts(model: &Model, message: &AssistantMessage) -> Vec<Value> {
    let same = message.provider == model.provider && message.model == model.id;
    let mut parts = Vec::with_capacity(message.content.len());
    for block in &message.content {
        match block {
            ContentBlock::Text(t) if !t.text.trim().is_empty() => {
                let mut part = Map::new();
                part.insert("text".into(), json!(t.text));
                parts.push(with_signature(
                    part,
                    replay_signature(same, t.text_signature.as_deref()),
                ));
            }
            ContentBlock::Thinking(t) if !t.thinking.trim().is_empty() => {
                let mut part = Map::new();
                if same {
                    part.insert("thought".into(), json!(true));
                }
                part.insert("text".into(), json!(t.thinking));
                parts.push(with_signature(
                    part,
                    replay_signature(same, t.thinking_signature.as_deref()),
                ));
            }
            ContentBlock::ToolCall(tc) => {
                let mut call = Map::new();
                call.insert("name".into(), json!(tc.name));
                call.insert("args".into(), tc.arguments.clone());
                if needs_call_ids(model) {
                    call.insert("id".into(), json!(normalize_call_id(&tc.id)));
                }
                let mut part = Map::new();
                part.insert("functionCall".into(), Value::Object(call));
                parts.push(with_signature(
                    part,
                    replay_signature(same, tc.thought_signature.as_deref()),
                ));
            }
            _ => {}
        }
    }
    parts
}

/// One `functionResponse` part. Images go inside it for Gemini ≥ 3, else to `pending`.
fn function_response(model: &Model, result: &ToolResultMessage, pending: &mut Vec<Value>) -> Value {
    let text = join_text(&result.content);
    let images: Vec<Value> = if model.supports_images() {
        result
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Image(i) => Some(inline_data(i)),
                _ => None,
            })
            .collect()
    } else {
        Vec::new()
    };
    let has_image = result
        .content
        .iter()
        .any(|b| matches!(b, ContentBlock::Image(_)));
    let value = if text.is_empty() && has_image {
        "(see attached image)".to_string()
    } else {
        text
    };
    let key = if result.is_error { "error" } else { "output" };
    let mut response = Map::new();
    response.insert("name".into(), json!(result.tool_name));
    response.insert("response".into(), json!({ key: value }));
    if !images.is_empty() {
        if gemini_major(&model.id).is_none_or(|v| v >= 3) {
            response.insert("parts".into(), Value::Array(images));
        } else {
            pending.extend(images);
        }
    }
    if needs_call_ids(model) {
        response.insert("id".into(), json!(normalize_call_id(&result.tool_call_id)));
    }
    json!({ "functionResponse": response })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_base64_signatures_are_replayed() {
        assert_eq!(
            valid_signature(Some("c2lnLWdlbWluaQ==")),
            Some("c2lnLWdlbWluaQ==")
        );
        assert_eq!(valid_signature(Some("abcd")), Some("abcd"));
        assert_eq!(valid_signature(Some("abc")), None);
        assert_eq!(valid_signature(Some("ab=c")), None);
        assert_eq!(valid_signature(Some("a===")), None);
        assert_eq!(valid_signature(Some("{\"v\":1}")), None);
        assert_eq!(valid_signature(Some("")), None);
        assert_eq!(valid_signature(None), None);
    }

    #[test]
    fn call_ids_are_normalised() {
        assert_eq!(normalize_call_id("call_1|fc.2"), "call_1_fc_2");
        assert_eq!(normalize_call_id(&"x".repeat(70)).len(), 64);
    }
}
