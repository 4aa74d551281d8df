//! The `/responses` request: URL, headers and body (providers spec §3.3).

use serde_json::{json, Map, Value};

use super::input::convert_input;
use crate::content::ContentBlock;
use crate::message::{Context, Message, UserContent};
use crate::model::{Model, ThinkingLevel};
use crate::options::{CacheRetention, StreamOptions};
use crate::provider::HttpRequest;

/// Builds the streaming request for `model`, models.json's sampling parameters merged in.
/// Pure: no I/O, no clock.
pub fn build_request(model: &Model, context: &Context, options: &StreamOptions) -> HttpRequest {
    let mut request = build_request_without_sampling(model, context, options);
    crate::providers::merge_sampling_params(model, options, &mut request.body);
    request
}

/// [`build_request`] without models.json's sampling parameters (the Codex endpoint, to which
/// pi 1.6 does not send them).
pub fn build_request_without_sampling(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
) -> HttpRequest {
    let messages = crate::transform::transform_messages(&context.messages, model);
    HttpRequest {
        url: format!("{}/responses", model.base_url.trim_end_matches('/')),
        headers: headers(model, &messages, options),
        body: body(model, context, &messages, options),
    }
}

/// Whether the call uses prompt caching keyed by the session.
fn cache_session(options: &StreamOptions) -> Option<&str> {
    match options.cache_retention {
        CacheRetention::None => None,
        _ => options.session_id.as_deref().filter(|s| !s.is_empty()),
    }
}

fn headers(model: &Model, messages: &[Message], options: &StreamOptions) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(key) = &options.api_key {
        out.push(("authorization".to_string(), format!("Bearer {key}")));
    }
    if let Some(h) = &model.headers {
        out.extend(h.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    if model.provider == "github-copilot" {
        copilot_headers(messages, &mut out);
    }
    if let Some(session) = cache_session(options) {
        if model.compat().send_session_id_header != Some(false) {
            out.push(("session_id".to_string(), session.to_string()));
        }
        out.push(("x-client-request-id".to_string(), session.to_string()));
    }
    out.extend(options.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
    out
}

/// GitHub Copilot's per-request headers (providers spec §3.5).
fn copilot_headers(messages: &[Message], out: &mut Vec<(String, String)>) {
    let agent = messages
        .last()
        .is_some_and(|m| !matches!(m, Message::User(_)));
    let initiator = if agent { "agent" } else { "user" };
    out.push(("X-Initiator".into(), initiator.into()));
    out.push(("Openai-Intent".into(), "conversation-edits".into()));
    let has_image = messages.iter().any(|m| match m {
        Message::User(u) => match &u.content {
            UserContent::Text(_) => false,
            UserContent::Blocks(b) => b.iter().any(|c| matches!(c, ContentBlock::Image(_))),
        },
        Message::ToolResult(r) => r
            .content
            .iter()
            .any(|c| matches!(c, ContentBlock::Image(_))),
        Message::Assistant(_) => false,
    });
    if has_image {
        out.push(("Copilot-Vision-Request".into(), "true".into()));
    }
}

fn body(model: &Model, context: &Context, messages: &[Message], options: &StreamOptions) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    body.insert(
        "input".into(),
        Value::Array(convert_input(model, context, messages)),
    );
    body.insert("stream".into(), json!(true));
    if let Some(session) = cache_session(options) {
        body.insert("prompt_cache_key".into(), json!(session));
    }
    let long_ok = model.compat().supports_long_cache_retention != Some(false);
    if options.cache_retention == CacheRetention::Long && long_ok {
        body.insert("prompt_cache_retention".into(), json!("24h"));
    }
    body.insert("store".into(), json!(false));
    let max_output_ok = model.compat().supports_max_output_tokens != Some(false);
    if let (Some(n), true) = (options.max_tokens, max_output_ok) {
        body.insert("max_output_tokens".into(), json!(n));
    }
    if let Some(t) = options.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if !context.tools.is_empty() {
        let tools = context
            .tools
            .iter()
            .map(|t| {
                json!({
                    "type": "function",
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                    "strict": false,
                })
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if model.reasoning {
        add_reasoning(model, options, &mut body);
    }
    Value::Object(body)
}

/// `reasoning` (+ `include`) for reasoning models: the clamped level's effort, or the
/// model's "off" value when thinking is off.
fn add_reasoning(model: &Model, options: &StreamOptions, body: &mut Map<String, Value>) {
    let level = options
        .thinking()
        .map(|l| model.clamp_thinking_level(l))
        .filter(|l| *l != ThinkingLevel::Off);
    match level {
        Some(level) => {
            let effort = model.thinking_wire_value(level);
            body.insert(
                "reasoning".into(),
                json!({"effort": effort, "summary": "auto"}),
            );
            body.insert("include".into(), json!(["reasoning.encrypted_content"]));
        }
        None => {
            if model.provider == "github-copilot" {
                return;
            }
            let off = model.thinking_level_map.as_ref().and_then(|m| m.get("off"));
            let effort = match off {
                Some(None) => return,
                Some(Some(v)) => v.clone(),
                None => "none".to_string(),
            };
            body.insert("reasoning".into(), json!({ "effort": effort }));
        }
    }
}
