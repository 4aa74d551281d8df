//! The `/v1/chat/completions` request: URL, headers and the snake_case body.

use serde_json::{json, Map, Value};

use super::ToolCallIds;
use crate::content::ContentBlock;
use crate::message::{Context, Message, UserContent};
use crate::model::{Model, ThinkingLevel};
use crate::options::{CacheRetention, StreamOptions};
use crate::provider::HttpRequest;

/// Builds the streaming request for `model`. Pure: no I/O, no clock.
pub fn build_request(model: &Model, context: &Context, options: &StreamOptions) -> HttpRequest {
    let messages = crate::transform::transform_messages_with(&context.messages, model, None);
    HttpRequest {
        url: format!(
            "{}/v1/chat/completions",
            model.base_url.trim_end_matches('/')
        ),
        headers: headers(model, options),
        body: body(model, context, &messages, options),
    }
}

/// The session id, when the call uses prompt caching.
fn cache_session(options: &StreamOptions) -> Option<&str> {
    match options.cache_retention {
        CacheRetention::None => None,
        _ => options.session_id.as_deref().filter(|s| !s.is_empty()),
    }
}

fn headers(model: &Model, options: &StreamOptions) -> Vec<(String, String)> {
    let mut out = vec![("accept".to_string(), "text/event-stream".to_string())];
    if let Some(key) = &options.api_key {
        out.push(("authorization".to_string(), format!("Bearer {key}")));
    }
    let overrides = model.headers.iter().flatten().chain(&options.headers);
    let mut affinity_set = false;
    for (name, value) in overrides {
        affinity_set |= name.eq_ignore_ascii_case("x-affinity");
        out.push((name.clone(), value.clone()));
    }
    if let (Some(session), false) = (cache_session(options), affinity_set) {
        out.push(("x-affinity".to_string(), session.to_string()));
    }
    out
}

fn body(model: &Model, context: &Context, messages: &[Message], options: &StreamOptions) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    body.insert("stream".into(), json!(true));
    body.insert(
        "messages".into(),
        Value::Array(chat_messages(model, context, messages)),
    );
    if !context.tools.is_empty() {
        let strict = model.compat().supports_strict_mode.unwrap_or(false);
        let tools = context
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description,
                    "parameters": t.parameters, "strict": strict,
                }})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(t) = options.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(n) = options.max_tokens {
        body.insert("max_tokens".into(), json!(n));
    }
    reasoning(model, options, &mut body);
    if let Some(session) = cache_session(options) {
        body.insert("prompt_cache_key".into(), json!(session));
    }
    Value::Object(body)
}

/// Models with a thinking-level map take `reasoning_effort` (the map's value for the level,
/// `high` when it has none; the `off` value when thinking is off); other reasoning models
/// switch thinking on with `prompt_mode: "reasoning"`.
fn reasoning(model: &Model, options: &StreamOptions, body: &mut Map<String, Value>) {
    if !model.reasoning {
        return;
    }
    let level = options
        .thinking()
        .map(|l| model.clamp_thinking_level(l))
        .filter(|l| *l != ThinkingLevel::Off);
    match (&model.thinking_level_map, level) {
        (Some(map), Some(level)) => {
            let effort = map.get(level.as_str()).cloned().flatten();
            let effort = effort.unwrap_or_else(|| "high".to_string());
            body.insert("reasoning_effort".into(), json!(effort));
        }
        (Some(map), None) => {
            if let Some(Some(off)) = map.get("off") {
                body.insert("reasoning_effort".into(), json!(off));
            }
        }
        (None, Some(_)) => {
            body.insert("prompt_mode".into(), json!("reasoning"));
        }
        (None, None) => {}
    }
}

fn chat_messages(model: &Model, context: &Context, messages: &[Message]) -> Vec<Value> {
    let images = model.supports_images();
    let mut ids = ToolCallIds::default();
    let mut out = Vec::with_capacity(messages.len() + 1);
    if let Some(system) = context.system_prompt.as_deref().filter(|s| !s.is_empty()) {
        out.push(json!({"role": "system", "content": system}));
    }
    for message in messages {
        match message {
            Message::User(user) => {
                if let Some(m) = user_message(&user.content, images) {
                    out.push(m);
                }
            }
            Message::Assistant(reply) => {
                if let Some(m) = assistant_message(&reply.content, &mut ids) {
                    out.push(m);
                }
            }
            Message::ToolResult(result) => {
                let text = result_text(&result.content, images, result.is_error);
                let mut content = vec![json!({"type": "text", "text": text})];
                if images {
                    content.extend(result.content.iter().filter_map(image_chunk));
                }
                out.push(json!({
                    "role": "tool",
                    "tool_call_id": ids.get(&result.tool_call_id),
                    "name": result.tool_name,
                    "content": content,
                }));
            }
        }
    }
    out
}

fn image_chunk(block: &ContentBlock) -> Option<Value> {
    match block {
        ContentBlock::Image(i) => Some(json!({
            "type": "image_url",
            "image_url": format!("data:{};base64,{}", i.mime_type, i.data),
        })),
        _ => None,
    }
}

fn user_message(content: &UserContent, images: bool) -> Option<Value> {
    let blocks = match content {
        UserContent::Text(text) => return Some(json!({"role": "user", "content": text})),
        UserContent::Blocks(blocks) => blocks,
    };
    let chunks: Vec<Value> = blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(json!({"type": "text", "text": t.text})),
            ContentBlock::Image(_) if images => image_chunk(b),
            _ => None,
        })
        .collect();
    if !chunks.is_empty() {
        return Some(json!({"role": "user", "content": chunks}));
    }
    let had_images = blocks.iter().any(|b| matches!(b, ContentBlock::Image(_)));
    (had_images && !images)
        .then(|| json!({"role": "user", "content": crate::transform::USER_IMAGE_PLACEHOLDER}))
}

fn assistant_message(blocks: &[ContentBlock], ids: &mut ToolCallIds) -> Option<Value> {
    let mut content = Vec::new();
    let mut calls = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::Text(t) if !t.text.trim().is_empty() => {
                content.push(json!({"type": "text", "text": t.text}));
            }
            ContentBlock::Thinking(t) if !t.thinking.trim().is_empty() => {
                content.push(json!({"type": "thinking",
                    "thinking": [{"type": "text", "text": t.thinking}]}));
            }
            ContentBlock::ToolCall(call) => calls.push(json!({
                "id": ids.get(&call.id),
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments.to_string()},
                "index": 0,
            })),
            _ => {}
        }
    }
    if content.is_empty() && calls.is_empty() {
        return None;
    }
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    message.insert("prefix".into(), json!(false));
    if !content.is_empty() {
        message.insert("content".into(), Value::Array(content));
    }
    if !calls.is_empty() {
        message.insert("tool_calls".into(), Value::Array(calls));
    }
    Some(Value::Object(message))
}

/// A tool result's text as pi 1.6 sends it to Mistral: the joined text (errors marked), or a
/// note for a result that is only images or empty.
fn result_text(content: &[ContentBlock], images: bool, is_error: bool) -> String {
    let text = crate::message::join_text(content);
    let text = text.trim();
    let has_images = content.iter().any(|b| matches!(b, ContentBlock::Image(_)));
    let error = if is_error { "[tool error] " } else { "" };
    if !text.is_empty() {
        let omitted = if has_images && !images {
            "\n[tool image omitted: model does not support images]"
        } else {
            ""
        };
        return format!("{error}{text}{omitted}");
    }
    let note = match (has_images, images) {
        (true, true) => "(see attached image)",
        (true, false) => "(image omitted: model does not support images)",
        (false, _) => "(no tool output)",
    };
    format!("{error}{note}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_result_texts() {
        let img = ContentBlock::Image(crate::content::ImageContent {
            data: "AA==".into(),
            mime_type: "image/png".into(),
        });
        assert_eq!(result_text(&[], true, false), "(no tool output)");
        assert_eq!(
            result_text(&[], true, true),
            "[tool error] (no tool output)"
        );
        assert_eq!(
            result_text(std::slice::from_ref(&img), true, false),
            "(see attached image)"
        );
        assert_eq!(
            result_text(&[ContentBlock::text(" ok "), img], false, true),
            "[tool error] ok\n[tool image omitted: model does not support images]"
        );
    }
}
