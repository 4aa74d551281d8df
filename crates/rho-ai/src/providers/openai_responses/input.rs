//! Context → Responses `input` items (providers spec §3.3 "Input conversion").

use serde_json::{json, Map, Value};

use super::short_hash;
use crate::content::{ContentBlock, ImageContent, TextContent, ToolCall};
use crate::message::{AssistantMessage, Context, Message, ToolResultMessage, UserContent};
use crate::model::Model;

/// The `input` array: system prompt first, then one or more items per message.
pub fn convert_input(model: &Model, context: &Context, messages: &[Message]) -> Vec<Value> {
    let mut items = Vec::with_capacity(messages.len() + 1);
    if let Some(system) = &context.system_prompt {
        let role = if model.reasoning {
            "developer"
        } else {
            "system"
        };
        items.push(json!({"role": role, "content": system}));
    }
    for (position, message) in messages.iter().enumerate() {
        match message {
            Message::User(u) => {
                if let Some(item) = user_item(model, &u.content) {
                    items.push(item);
                }
            }
            Message::Assistant(a) => assistant_items(model, a, position, &mut items),
            Message::ToolResult(r) => items.push(tool_result_item(model, r)),
        }
    }
    items
}

fn image_part(image: &ImageContent) -> Value {
    json!({
        "type": "input_image",
        "detail": "auto",
        "image_url": format!("data:{};base64,{}", image.mime_type, image.data),
    })
}

fn text_part(text: &str) -> Value {
    json!({"type": "input_text", "text": text})
}

/// A user message; `None` when nothing is left (images only, for a text-only model).
fn user_item(model: &Model, content: &UserContent) -> Option<Value> {
    let parts: Vec<Value> = match content {
        UserContent::Text(t) => vec![text_part(t)],
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text(t) => Some(text_part(&t.text)),
                ContentBlock::Image(i) if model.supports_images() => Some(image_part(i)),
                _ => None,
            })
            .collect(),
    };
    if parts.is_empty() {
        return None;
    }
    Some(json!({"role": "user", "content": parts}))
}

fn assistant_items(
    model: &Model,
    message: &AssistantMessage,
    position: usize,
    out: &mut Vec<Value>,
) {
    let other_model =
        message.model != model.id && message.provider == model.provider && message.api == model.api;
    for block in &message.content {
        match block {
            ContentBlock::Thinking(t) => {
                // The signature is the whole reasoning item; anything else cannot be replayed.
                let item = t
                    .thinking_signature
                    .as_deref()
                    .and_then(|s| serde_json::from_str::<Value>(s).ok())
                    .filter(Value::is_object);
                if let Some(item) = item {
                    out.push(item);
                }
            }
            ContentBlock::Text(t) => out.push(text_item(t, position)),
            ContentBlock::ToolCall(tc) => out.push(function_call_item(tc, other_model)),
            ContentBlock::Image(_) => {}
        }
    }
}

/// The message item id and phase carried in a text signature (JSON v1 or a bare legacy id).
fn parse_text_signature(signature: Option<&str>) -> Option<(String, Option<String>)> {
    let signature = signature.filter(|s| !s.is_empty())?;
    if signature.starts_with('{') {
        if let Ok(v) = serde_json::from_str::<Value>(signature) {
            if v["v"] == 1 {
                if let Some(id) = v["id"].as_str() {
                    let phase = v["phase"]
                        .as_str()
                        .filter(|p| matches!(*p, "commentary" | "final_answer"))
                        .map(str::to_string);
                    return Some((id.to_string(), phase));
                }
            }
        }
    }
    Some((signature.to_string(), None))
}

fn text_item(text: &TextContent, position: usize) -> Value {
    let (id, phase) = match parse_text_signature(text.text_signature.as_deref()) {
        Some((id, phase)) if id.len() > 64 => (format!("msg_{}", short_hash(&id)), phase),
        Some((id, phase)) => (id, phase),
        None => (format!("msg_{position}"), None),
    };
    let mut item = Map::new();
    item.insert("type".into(), json!("message"));
    item.insert("role".into(), json!("assistant"));
    item.insert(
        "content".into(),
        json!([{"type": "output_text", "text": text.text, "annotations": []}]),
    );
    item.insert("status".into(), json!("completed"));
    item.insert("id".into(), json!(id));
    if let Some(phase) = phase {
        item.insert("phase".into(), json!(phase));
    }
    Value::Object(item)
}

fn function_call_item(call: &ToolCall, other_model: bool) -> Value {
    let (call_id, item_id) = match call.id.split_once('|') {
        Some((c, i)) => (c, Some(i)),
        None => (call.id.as_str(), None),
    };
    let mut item = Map::new();
    item.insert("type".into(), json!("function_call"));
    if let Some(id) = item_id.filter(|i| !(other_model && i.starts_with("fc_"))) {
        item.insert("id".into(), json!(id));
    }
    item.insert("call_id".into(), json!(call_id));
    item.insert("name".into(), json!(call.name));
    item.insert("arguments".into(), json!(call.arguments.to_string()));
    Value::Object(item)
}

fn tool_result_item(model: &Model, result: &ToolResultMessage) -> Value {
    let call_id = result
        .tool_call_id
        .split_once('|')
        .map_or(result.tool_call_id.as_str(), |(c, _)| c);
    let text = crate::message::join_text(&result.content);
    let images: Vec<&ImageContent> = result
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Image(i) => Some(i),
            _ => None,
        })
        .collect();
    let output = if !images.is_empty() && model.supports_images() {
        let mut parts = Vec::with_capacity(images.len() + 1);
        if !text.is_empty() {
            parts.push(text_part(&text));
        }
        parts.extend(images.into_iter().map(image_part));
        Value::Array(parts)
    } else if text.is_empty() && !images.is_empty() {
        json!("(see attached image)")
    } else {
        json!(text)
    };
    json!({"type": "function_call_output", "call_id": call_id, "output": output})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_signatures_parse_in_both_forms() {
        let v1 = parse_text_signature(Some(r#"{"v":1,"id":"msg_a","phase":"commentary"}"#));
        assert_eq!(v1, Some(("msg_a".into(), Some("commentary".into()))));
        let bad_phase = parse_text_signature(Some(r#"{"v":1,"id":"msg_a","phase":"x"}"#));
        assert_eq!(bad_phase, Some(("msg_a".into(), None)));
        assert_eq!(
            parse_text_signature(Some("msg_legacy")),
            Some(("msg_legacy".into(), None))
        );
        assert_eq!(parse_text_signature(Some("")), None);
        assert_eq!(parse_text_signature(None), None);
    }

    #[test]
    fn long_message_ids_are_hashed_and_missing_ones_numbered() {
        let long = "x".repeat(80);
        let item = text_item(
            &TextContent {
                text: "hi".into(),
                text_signature: Some(long.clone()),
            },
            3,
        );
        assert_eq!(item["id"], json!(format!("msg_{}", short_hash(&long))));
        let item = text_item(&TextContent::default(), 3);
        assert_eq!(item["id"], "msg_3");
        assert!(item.get("phase").is_none());
    }

    #[test]
    fn function_call_ids_split_and_foreign_fc_ids_dropped() {
        let call = ToolCall {
            namespace: None,
            id: "call_1|fc_1".into(),
            name: "read".into(),
            arguments: json!({"path": "a"}),
            thought_signature: None,
        };
        let own = function_call_item(&call, false);
        assert_eq!(own["id"], "fc_1");
        assert_eq!(own["call_id"], "call_1");
        assert_eq!(own["arguments"], r#"{"path":"a"}"#);
        assert!(function_call_item(&call, true).get("id").is_none());
    }
}
