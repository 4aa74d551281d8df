//! The Converse request body (pure): `messages` with content blocks, `system`,
//! `inferenceConfig`, `toolConfig` and the model's thinking fields in
//! `additionalModelRequestFields`, as pi 1.6 builds them.

use serde_json::{json, Map, Value};

use crate::content::{ContentBlock, ImageContent};
use crate::message::{Context, Message, ToolResultMessage, UserContent};
use crate::model::{Model, ThinkingLevel};
use crate::options::{CacheRetention, StreamOptions};

/// Bedrock rejects empty text; pi sends this instead.
const EMPTY_TEXT: &str = "<empty>";

/// Claude rejects images in error tool results: they follow the results, and this note
/// stands in their place.
const ERROR_IMAGE_PLACEHOLDER: &str = "(image attached after the tool results)";

/// The beta Claude models take for signed-thinking binding.
const THINKING_BINDING_BETA: &str = "thinking-binding-controls-2026-08-01";

/// Environment lookup (tests pass their own).
pub(crate) type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The model's id and name, lower-cased, as-is and with separators made dashes: application
/// inference profile ARNs do not name the model, so its `name` is consulted too.
fn candidates(model: &Model) -> Vec<String> {
    [model.id.as_str(), model.name.as_str()]
        .iter()
        .filter(|s| !s.is_empty())
        .flat_map(|s| {
            let lower = s.to_lowercase();
            let dashed: String = lower
                .chars()
                .map(|c| {
                    if matches!(c, ' ' | '_' | '.' | ':') {
                        '-'
                    } else {
                        c
                    }
                })
                .collect();
            [lower, dashed]
        })
        .collect()
}

fn any_candidate(model: &Model, names: &[&str]) -> bool {
    candidates(model)
        .iter()
        .any(|c| names.iter().any(|n| c.contains(n)))
}

/// An Anthropic Claude model on Bedrock.
pub(crate) fn is_claude(model: &Model) -> bool {
    let id = model.id.to_lowercase();
    let name = model.name.to_lowercase();
    ["anthropic.claude", "anthropic/claude"]
        .iter()
        .any(|p| id.contains(p) || name.contains(p))
        || name.contains("claude")
}

const FIVE: &[&str] = &["opus-5", "sonnet-5", "haiku-5", "fable-5"];

fn is_adaptive(model: &Model) -> bool {
    any_candidate(model, &["opus-4-6", "opus-4-7", "opus-4-8", "sonnet-4-6"])
        || any_candidate(model, FIVE)
}

fn takes_block_binding(model: &Model) -> bool {
    any_candidate(model, &["opus-4-7", "opus-4-8"]) || any_candidate(model, FIVE)
}

/// Cache points for Claude 3.5 Haiku, 3.7 Sonnet, 4.x and 5 (`AWS_BEDROCK_FORCE_CACHE=1`
/// for application inference profiles that do not name their model).
fn caches_prompts(model: &Model, env: Env) -> bool {
    if !any_candidate(model, &["claude"]) {
        return env("AWS_BEDROCK_FORCE_CACHE").as_deref() == Some("1");
    }
    any_candidate(model, FIVE)
        || any_candidate(model, &["-4-", "claude-3-7-sonnet", "claude-3-5-haiku"])
}

fn cache_point(retention: CacheRetention) -> Value {
    match retention {
        CacheRetention::Long => json!({"cachePoint": {"type": "default", "ttl": "1h"}}),
        _ => json!({"cachePoint": {"type": "default"}}),
    }
}

/// The request body for `model`.
pub(crate) fn body(model: &Model, context: &Context, options: &StreamOptions, env: Env) -> Value {
    let caching = options.cache_retention != CacheRetention::None && caches_prompts(model, env);
    let mut body = Map::new();
    let mut messages = messages(model, &context.messages);
    if caching {
        if let Some(last) = messages.last_mut().filter(|m| m["role"] == "user") {
            if let Some(content) = last["content"].as_array_mut() {
                content.push(cache_point(options.cache_retention));
            }
        }
    }
    body.insert("messages".into(), Value::Array(messages));
    if let Some(system) = context.system_prompt.as_deref().filter(|s| !s.is_empty()) {
        let mut blocks = vec![json!({"text": system})];
        if caching {
            blocks.push(cache_point(options.cache_retention));
        }
        body.insert("system".into(), Value::Array(blocks));
    }
    let thinking = thinking(model, context, options, env);
    let mut inference = Map::new();
    // Claude needs a cap; other models may go without one.
    let cap = options
        .max_tokens
        .or_else(|| is_claude(model).then_some(model.max_tokens));
    if let Some(n) = thinking.max_tokens.or(cap) {
        inference.insert("maxTokens".into(), json!(n));
    }
    if let Some(t) = options.temperature {
        inference.insert("temperature".into(), json!(t));
    }
    body.insert("inferenceConfig".into(), Value::Object(inference));
    if !context.tools.is_empty() {
        let tools: Vec<Value> = context
            .tools
            .iter()
            .map(|t| {
                json!({"toolSpec": {
                    "name": t.name, "description": t.description,
                    "inputSchema": {"json": t.parameters},
                }})
            })
            .collect();
        body.insert("toolConfig".into(), json!({ "tools": tools }));
    }
    if let Some(fields) = thinking.fields {
        body.insert("additionalModelRequestFields".into(), fields);
    }
    Value::Object(body)
}

/// The thinking fields, and for budget-based Claude the `maxTokens` that leaves room for them.
struct Thinking {
    fields: Option<Value>,
    max_tokens: Option<u64>,
}

fn thinking(model: &Model, context: &Context, options: &StreamOptions, env: Env) -> Thinking {
    let none = Thinking {
        fields: None,
        max_tokens: None,
    };
    let Some(level) = options
        .thinking()
        .filter(|_| model.reasoning)
        .map(|l| model.clamp_thinking_level(l))
        .filter(|l| *l != ThinkingLevel::Off)
    else {
        return none;
    };
    if is_claude(model) {
        return claude_thinking(model, context, options, level, env);
    }
    let mapped = model
        .thinking_level_map
        .as_ref()
        .and_then(|m| m.get(level.as_str()).cloned().flatten());
    let fields = if any_candidate(model, &["gpt-oss"]) {
        let effort = match level {
            ThinkingLevel::Minimal | ThinkingLevel::Low => "low",
            ThinkingLevel::Medium => "medium",
            _ => "high",
        };
        json!({"reasoning_effort": effort})
    } else if any_candidate(model, &["gpt-"]) {
        let effort = mapped.unwrap_or_else(|| match level {
            ThinkingLevel::Minimal => "low".to_string(),
            other => other.as_str().to_string(),
        });
        json!({"reasoning": {"effort": effort}})
    } else {
        return none;
    };
    Thinking {
        fields: Some(fields),
        max_tokens: None,
    }
}

/// GovCloud's Converse schema rejects Claude's `thinking.display` and block binding.
fn is_gov_cloud(model: &Model, env: Env) -> bool {
    let region = env("AWS_REGION").or_else(|| env("AWS_DEFAULT_REGION"));
    let id = model.id.to_lowercase();
    region.is_some_and(|r| r.to_lowercase().starts_with("us-gov-"))
        || id.starts_with("us-gov.")
        || id.starts_with("arn:aws-us-gov:")
}

fn claude_thinking(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
    level: ThinkingLevel,
    env: Env,
) -> Thinking {
    let gov = is_gov_cloud(model, env);
    let mut config = Map::new();
    let mut fields = Map::new();
    let mut max_tokens = None;
    if is_adaptive(model) {
        config.insert("type".into(), json!("adaptive"));
        if !gov {
            config.insert("display".into(), json!("summarized"));
        }
        let binding = !gov && takes_block_binding(model);
        if binding {
            config.insert(
                "block_binding".into(),
                json!({"prefix_mismatch_behavior": "drop_block"}),
            );
        }
        fields.insert("thinking".into(), Value::Object(config));
        fields.insert(
            "output_config".into(),
            json!({"effort": adaptive_effort(model, level)}),
        );
        if binding {
            fields.insert("anthropic_beta".into(), json!([THINKING_BINDING_BETA]));
        }
    } else {
        let base = options.max_tokens.unwrap_or(model.max_tokens);
        let budgets = (&options.thinking_budgets, level);
        let (total, budget) =
            crate::output_cap::with_thinking_budget(model, context, base, budgets);
        max_tokens = Some(total);
        config.insert("type".into(), json!("enabled"));
        config.insert("budget_tokens".into(), json!(budget));
        if !gov {
            config.insert("display".into(), json!("summarized"));
        }
        fields.insert("thinking".into(), Value::Object(config));
        fields.insert(
            "anthropic_beta".into(),
            json!(["interleaved-thinking-2025-05-14"]),
        );
    }
    Thinking {
        fields: Some(Value::Object(fields)),
        max_tokens,
    }
}

/// Claude's effort for `level`: `xhigh` where the model has it natively, else as on the
/// Anthropic API.
fn adaptive_effort(model: &Model, level: ThinkingLevel) -> String {
    let native_xhigh =
        any_candidate(model, &["opus-4-7", "opus-4-8"]) || any_candidate(model, FIVE);
    if level == ThinkingLevel::Xhigh && native_xhigh {
        return "xhigh".into();
    }
    crate::providers::anthropic::adaptive_effort(model, level)
}

fn text_block(text: &str) -> Option<Value> {
    (!text.trim().is_empty()).then(|| json!({ "text": text }))
}

fn image_block(image: &ImageContent) -> Option<Value> {
    let format = match image.mime_type.as_str() {
        "image/jpeg" | "image/jpg" => "jpeg",
        "image/png" => "png",
        "image/gif" => "gif",
        "image/webp" => "webp",
        _ => return None,
    };
    Some(json!({"image": {"format": format, "source": {"bytes": image.data}}}))
}

/// Arguments with empty object keys removed, at every depth (Bedrock rejects them).
fn sanitize_document(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(sanitize_document).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !k.is_empty())
                .map(|(k, v)| (k.clone(), sanitize_document(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn messages(model: &Model, history: &[Message]) -> Vec<Value> {
    let transformed = crate::transform::transform_messages(history, model);
    let claude = is_claude(model);
    let mut out = Vec::new();
    let mut i = 0;
    while i < transformed.len() {
        match &transformed[i] {
            Message::User(user) => {
                out.push(json!({"role": "user", "content": user_content(&user.content)}))
            }
            Message::Assistant(reply) => {
                let content = assistant_content(&reply.content, claude);
                if !content.is_empty() {
                    out.push(json!({"role": "assistant", "content": content}));
                }
            }
            Message::ToolResult(_) => {
                // Every consecutive tool result goes into one user message.
                let mut results = Vec::new();
                let mut after = Vec::new();
                while let Some(Message::ToolResult(result)) = transformed.get(i) {
                    results.push(tool_result(result, claude, &mut after));
                    i += 1;
                }
                results.extend(after);
                out.push(json!({"role": "user", "content": results}));
                continue;
            }
        }
        i += 1;
    }
    out
}

fn user_content(content: &UserContent) -> Vec<Value> {
    let blocks = match content {
        UserContent::Text(text) => {
            return vec![text_block(text).unwrap_or_else(|| json!({ "text": EMPTY_TEXT }))]
        }
        UserContent::Blocks(blocks) => blocks,
    };
    let out: Vec<Value> = blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => text_block(&t.text),
            ContentBlock::Image(i) => image_block(i),
            _ => None,
        })
        .collect();
    if out.is_empty() {
        return vec![json!({ "text": EMPTY_TEXT })];
    }
    out
}

fn assistant_content(blocks: &[ContentBlock], claude: bool) -> Vec<Value> {
    blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => text_block(&t.text),
            ContentBlock::ToolCall(call) => Some(json!({"toolUse": {
                "toolUseId": call.id, "name": call.name,
                "input": sanitize_document(&call.arguments),
            }})),
            ContentBlock::Thinking(t) if t.redacted == Some(true) => {
                // Replayed as the opaque payload; one that is not base64 is dropped.
                let payload = t.thinking_signature.as_deref().filter(|s| {
                    !s.is_empty()
                        && base64::Engine::decode(&base64::engine::general_purpose::STANDARD, s)
                            .is_ok()
                })?;
                Some(json!({"reasoningContent": {"redactedContent": payload}}))
            }
            ContentBlock::Thinking(t) if t.thinking.trim().is_empty() => None,
            ContentBlock::Thinking(t) => {
                let signature = t
                    .thinking_signature
                    .as_deref()
                    .filter(|s| !s.trim().is_empty());
                Some(match (claude, signature) {
                    // Claude rejects reasoning without its signature: sent as text, as on
                    // the Anthropic API.
                    (true, None) => json!({ "text": t.thinking }),
                    (true, Some(sig)) => json!({"reasoningContent": {"reasoningText": {
                        "text": t.thinking, "signature": sig}}}),
                    // Other models reject the signature field.
                    (false, _) => {
                        json!({"reasoningContent": {"reasoningText": {"text": t.thinking}}})
                    }
                })
            }
            _ => None,
        })
        .collect()
}

/// One `toolResult` block. For Claude, the images of an error result go to `after` (with a
/// caption), to follow all the results of the turn.
fn tool_result(result: &ToolResultMessage, claude: bool, after: &mut Vec<Value>) -> Value {
    let has_images = result
        .content
        .iter()
        .any(|b| matches!(b, ContentBlock::Image(_)));
    let split = claude && result.is_error && has_images;
    let mut content = Vec::new();
    let mut placeholder = false;
    for block in &result.content {
        match block {
            ContentBlock::Image(_) if split => {
                if !placeholder {
                    content.push(json!({ "text": ERROR_IMAGE_PLACEHOLDER }));
                }
                placeholder = true;
            }
            ContentBlock::Image(image) => content.extend(image_block(image)),
            ContentBlock::Text(t) => {
                placeholder = t.text == ERROR_IMAGE_PLACEHOLDER;
                content.extend(text_block(&t.text));
            }
            _ => {}
        }
    }
    if content.is_empty() {
        content.push(json!({ "text": EMPTY_TEXT }));
    }
    if split {
        after.push(json!({"text": format!(
            "Images from the error result of tool call {} ({}):",
            result.tool_call_id, result.tool_name
        )}));
        after.extend(result.content.iter().filter_map(|b| match b {
            ContentBlock::Image(image) => image_block(image),
            _ => None,
        }));
    }
    json!({"toolResult": {
        "toolUseId": result.tool_call_id,
        "content": content,
        "status": if result.is_error { "error" } else { "success" },
    }})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::{ThinkingContent, ToolCall};
    use crate::message::{AssistantMessage, UserMessage};

    fn model(id: &str) -> Model {
        serde_json::from_value(json!({
            "id": id, "name": id, "api": "bedrock-converse-stream",
            "provider": "amazon-bedrock", "baseUrl": "", "reasoning": true,
            "input": ["text", "image"], "thinkingLevelMap": {"xhigh": "xhigh"}
        }))
        .expect("model")
    }

    fn png() -> ContentBlock {
        ContentBlock::Image(ImageContent {
            data: "iVBORw0KGgo=".into(),
            mime_type: "image/png".into(),
        })
    }

    /// A reply from another provider: a Responses tool call and its thinking.
    fn foreign_history() -> Vec<Message> {
        let mut reply = AssistantMessage::empty("openai-responses", "openai", "gpt-5");
        reply.content = vec![
            ContentBlock::Thinking(ThinkingContent {
                thinking: "private".into(),
                thinking_signature: Some("enc".into()),
                redacted: None,
            }),
            ContentBlock::ToolCall(ToolCall {
                id: "call_1|fc_2".into(),
                name: "screenshot".into(),
                arguments: json!({"": 1, "full": true}),
                ..Default::default()
            }),
        ];
        vec![
            Message::User(UserMessage::text("look")),
            Message::Assistant(reply),
            Message::ToolResult(ToolResultMessage {
                tool_call_id: "call_1|fc_2".into(),
                tool_name: "screenshot".into(),
                content: vec![ContentBlock::text("failed"), png()],
                details: None,
                usage: None,
                nested_calls: None,
                is_error: true,
                timestamp: 0,
                duration_ms: None,
            }),
        ]
    }

    #[test]
    fn foreign_history_is_converted_for_claude() {
        let m = model("anthropic.claude-sonnet-4-5-20250929-v1:0");
        let out = messages(&m, &foreign_history());
        // The shared transform makes foreign thinking text; the id is sanitized for Claude;
        // empty keys are removed from the arguments.
        assert_eq!(
            out[1],
            json!({"role": "assistant", "content": [{"text": "private"}, {"toolUse": {
                "toolUseId": "call_1_fc_2", "name": "screenshot", "input": {"full": true}}}]})
        );
        // Claude rejects images in error results: they follow the results with a caption.
        assert_eq!(
            out[2]["content"],
            json!([
                {"toolResult": {"toolUseId": "call_1_fc_2", "status": "error", "content": [
                    {"text": "failed"}, {"text": "(image attached after the tool results)"}]}},
                {"text": "Images from the error result of tool call call_1_fc_2 (screenshot):"},
                {"image": {"format": "png", "source": {"bytes": "iVBORw0KGgo="}}}
            ])
        );
    }

    #[test]
    fn other_models_keep_images_in_error_results_and_get_their_reasoning_fields() {
        let m = model("openai.gpt-oss-120b-1:0");
        let out = messages(&m, &foreign_history());
        assert_eq!(
            out[2]["content"][0]["toolResult"]["content"][1],
            json!({"image": {"format": "png", "source": {"bytes": "iVBORw0KGgo="}}})
        );
        let options = StreamOptions {
            reasoning: Some(ThinkingLevel::Xhigh),
            ..Default::default()
        };
        let none = |_: &str| None;
        let body = body(&m, &Context::default(), &options, &none);
        assert_eq!(
            body["additionalModelRequestFields"],
            json!({"reasoning_effort": "high"})
        );
    }

    #[test]
    fn adaptive_claude_models_send_effort_and_block_binding() {
        let m = model("us.anthropic.claude-opus-4-7-v1");
        let options = StreamOptions {
            reasoning: Some(ThinkingLevel::Xhigh),
            max_tokens: Some(8000),
            ..Default::default()
        };
        let none = |_: &str| None;
        let body = body(&m, &Context::default(), &options, &none);
        assert_eq!(
            body["additionalModelRequestFields"],
            json!({
                "thinking": {"type": "adaptive", "display": "summarized",
                    "block_binding": {"prefix_mismatch_behavior": "drop_block"}},
                "output_config": {"effort": "xhigh"},
                "anthropic_beta": [THINKING_BINDING_BETA],
            })
        );
        assert_eq!(body["inferenceConfig"]["maxTokens"], 8000);
        let gov = |name: &str| (name == "AWS_REGION").then(|| "us-gov-west-1".to_string());
        let body = super::body(&m, &Context::default(), &options, &gov);
        assert_eq!(
            body["additionalModelRequestFields"]["thinking"],
            json!({"type": "adaptive"})
        );
    }
}
