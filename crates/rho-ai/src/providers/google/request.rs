//! The `streamGenerateContent` request: URL, headers and body (providers spec §3.4).

use serde_json::{json, Map, Value};

use super::contents::convert_contents;
use super::thinking::thinking_config;
use crate::message::Context;
use crate::model::Model;
use crate::options::StreamOptions;
use crate::provider::HttpRequest;

/// Builds the streaming request for `model`. Pure: no I/O, no clock.
pub fn build_request(model: &Model, context: &Context, options: &StreamOptions) -> HttpRequest {
    let messages = crate::transform::transform_messages(&context.messages, model);
    let url = format!(
        "{}/models/{}:streamGenerateContent?alt=sse",
        model.base_url.trim_end_matches('/'),
        model.id
    );
    let mut headers = Vec::new();
    if let Some(key) = &options.api_key {
        headers.push(("x-goog-api-key".to_string(), key.clone()));
    }
    if let Some(h) = &model.headers {
        headers.extend(h.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    headers.extend(options.headers.iter().map(|(k, v)| (k.clone(), v.clone())));

    let mut body = Map::new();
    body.insert(
        "contents".into(),
        Value::Array(convert_contents(model, &messages)),
    );
    if let Some(system) = &context.system_prompt {
        body.insert(
            "systemInstruction".into(),
            json!({"role": "user", "parts": [{"text": system}]}),
        );
    }
    if !context.tools.is_empty() {
        let declarations: Vec<Value> = context
            .tools
            .iter()
            .map(|t| {
                json!({
                    "name": t.name,
                    "description": t.description,
                    "parametersJsonSchema": t.parameters,
                })
            })
            .collect();
        body.insert(
            "tools".into(),
            json!([{ "functionDeclarations": declarations }]),
        );
    }
    let mut generation = Map::new();
    if let Some(t) = options.temperature {
        generation.insert("temperature".into(), json!(t));
    }
    if let Some(n) = options.max_tokens {
        generation.insert("maxOutputTokens".into(), json!(n));
    }
    if let Some(thinking) = thinking_config(model, options) {
        generation.insert("thinkingConfig".into(), thinking);
    }
    if !generation.is_empty() {
        body.insert("generationConfig".into(), Value::Object(generation));
    }
    HttpRequest {
        url,
        headers,
        body: Value::Object(body),
    }
}
