//! Builds the `POST {baseUrl}/v1/messages` request: URL, headers (API key, OAuth token,
//! Copilot, Cloudflare gateway), and the body's top level (system prompt, tools, thinking,
//! max tokens, cache markers). Message conversion lives in `convert.rs`.

use serde_json::{json, Map, Value};

use super::convert::{claude_code_name, convert_messages};
use crate::message::{Context, Message, Tool, UserContent};
use crate::model::{Model, ThinkingLevel};
use crate::options::{CacheRetention, StreamOptions};
use crate::provider::HttpRequest;

/// The identity line OAuth (Claude Pro/Max) requests must start their system prompt with.
const CLAUDE_CODE_IDENTITY: &str = "You are Claude Code, Anthropic's official CLI for Claude.";
/// The Claude Code version OAuth requests present themselves as.
const CLAUDE_CODE_USER_AGENT: &str = "claude-cli/2.1.322";

/// Whether `key` is an Anthropic OAuth access token (Claude Pro/Max subscription) rather than
/// an API key: such tokens go in `authorization`, and the request must look like Claude Code.
pub fn is_oauth_token(key: &str) -> bool {
    key.contains("sk-ant-oat")
}

/// Whether the model uses adaptive thinking (`effort`) instead of token budgets (spec §1.6).
pub fn is_adaptive_model(id: &str) -> bool {
    [
        "opus-4-6",
        "opus-4.6",
        "opus-4-7",
        "opus-4.7",
        "sonnet-4-6",
        "sonnet-4.6",
    ]
    .iter()
    .any(|m| id.contains(m))
}

/// Builds the request for one call. `options` should already be resolved
/// ([`crate::provider::resolve_options`]): key present, max tokens filled.
pub fn build_request(model: &Model, context: &Context, options: &StreamOptions) -> HttpRequest {
    let key = options.api_key.as_deref().unwrap_or_default();
    let oauth = is_oauth_token(key) && !special_auth(model);
    HttpRequest {
        url: format!("{}/v1/messages", model.base_url.trim_end_matches('/')),
        headers: headers(model, context, options, key, oauth),
        body: body(model, context, options, oauth),
    }
}

/// Providers whose auth scheme overrides the API-key/OAuth distinction.
fn special_auth(model: &Model) -> bool {
    matches!(
        model.provider.as_str(),
        "github-copilot" | "cloudflare-ai-gateway"
    )
}

fn headers(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
    key: &str,
    oauth: bool,
) -> Vec<(String, String)> {
    let mut h = Headers::default();
    h.set("accept", "application/json");
    h.set("anthropic-version", "2023-06-01");
    h.set("anthropic-dangerous-direct-browser-access", "true");
    match model.provider.as_str() {
        "github-copilot" => h.set("authorization", &format!("Bearer {key}")),
        "cloudflare-ai-gateway" => h.set("cf-aig-authorization", &format!("Bearer {key}")),
        _ if oauth => h.set("authorization", &format!("Bearer {key}")),
        _ => h.set("x-api-key", key),
    }
    let betas = betas(model, context, oauth);
    if !betas.is_empty() {
        h.set("anthropic-beta", &betas.join(","));
    }
    if oauth {
        h.set("user-agent", CLAUDE_CODE_USER_AGENT);
        h.set("x-app", "cli");
    }
    for (k, v) in model.headers.iter().flatten() {
        h.set(k, v);
    }
    if model.provider == "github-copilot" {
        copilot_dynamic_headers(&context.messages, &mut h);
    }
    for (k, v) in &options.headers {
        h.set(k, v);
    }
    h.0
}

fn betas(model: &Model, context: &Context, oauth: bool) -> Vec<&'static str> {
    let mut betas = Vec::new();
    if oauth {
        betas.extend(["claude-code-20250219", "oauth-2025-04-20"]);
    }
    if !context.tools.is_empty() && !eager_tool_streaming(model) {
        betas.push("fine-grained-tool-streaming-2025-05-14");
    }
    if !is_adaptive_model(&model.id) {
        betas.push("interleaved-thinking-2025-05-14");
    }
    betas
}

fn eager_tool_streaming(model: &Model) -> bool {
    model
        .compat
        .as_ref()
        .and_then(|c| c.supports_eager_tool_input_streaming)
        .unwrap_or(true)
}

/// Copilot's per-request headers (spec §3.5).
fn copilot_dynamic_headers(messages: &[Message], h: &mut Headers) {
    let initiator = match messages.last() {
        Some(Message::User(_)) => "user",
        _ => "agent",
    };
    h.set("x-initiator", initiator);
    h.set("openai-intent", "conversation-edits");
    let has_image = messages.iter().any(|m| match m {
        Message::User(u) => match &u.content {
            UserContent::Blocks(b) => b.iter().any(is_image),
            UserContent::Text(_) => false,
        },
        Message::ToolResult(r) => r.content.iter().any(is_image),
        Message::Assistant(_) => false,
    });
    if has_image {
        h.set("copilot-vision-request", "true");
    }
}

fn is_image(b: &crate::content::ContentBlock) -> bool {
    matches!(b, crate::content::ContentBlock::Image(_))
}

/// Headers with case-insensitive names where a later value replaces an earlier one in place,
/// so exactly one value per name goes on the wire.
#[derive(Default)]
struct Headers(Vec<(String, String)>);

impl Headers {
    fn set(&mut self, name: &str, value: &str) {
        let name = name.to_ascii_lowercase();
        match self.0.iter_mut().find(|(k, _)| *k == name) {
            Some(slot) => slot.1 = value.to_string(),
            None => self.0.push((name, value.to_string())),
        }
    }
}

fn body(model: &Model, context: &Context, options: &StreamOptions, oauth: bool) -> Value {
    let cache = cache_control(model, options.cache_retention);
    let messages = crate::transform::transform_messages(&context.messages, model);
    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    body.insert(
        "messages".into(),
        Value::Array(convert_messages(&messages, oauth, cache.as_ref())),
    );
    let thinking = thinking(model, context, options);
    body.insert("max_tokens".into(), json!(thinking.max_tokens));
    body.insert("stream".into(), json!(true));
    if let Some(system) = system(context, oauth, cache.as_ref()) {
        body.insert("system".into(), system);
    }
    if let (Some(t), None) = (options.temperature, &thinking.config) {
        body.insert("temperature".into(), json!(t));
    }
    if !context.tools.is_empty() {
        let tools = tools(&context.tools, eager_tool_streaming(model), oauth, cache);
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(config) = thinking.config {
        body.insert("thinking".into(), config);
    } else if model.reasoning {
        body.insert("thinking".into(), json!({"type": "disabled"}));
    }
    if let Some(effort) = thinking.effort {
        body.insert("output_config".into(), json!({ "effort": effort }));
    }
    Value::Object(body)
}

/// The `cache_control` marker for `retention` (spec §3.1), `None` when caching is off.
fn cache_control(model: &Model, retention: CacheRetention) -> Option<Value> {
    let long_ok = model
        .compat
        .as_ref()
        .and_then(|c| c.supports_long_cache_retention)
        .unwrap_or(true);
    match retention {
        CacheRetention::None => None,
        CacheRetention::Long if long_ok => Some(json!({"type": "ephemeral", "ttl": "1h"})),
        _ => Some(json!({"type": "ephemeral"})),
    }
}

fn text_block(text: &str, cache: Option<&Value>) -> Value {
    let mut block = json!({"type": "text", "text": text});
    if let Some(cc) = cache {
        block["cache_control"] = cc.clone();
    }
    block
}

fn system(context: &Context, oauth: bool, cache: Option<&Value>) -> Option<Value> {
    let mut blocks = Vec::new();
    if oauth {
        blocks.push(text_block(CLAUDE_CODE_IDENTITY, cache));
    }
    if let Some(prompt) = &context.system_prompt {
        blocks.push(text_block(prompt, cache));
    }
    (!blocks.is_empty()).then_some(Value::Array(blocks))
}

fn tools(tools: &[Tool], eager: bool, oauth: bool, cache: Option<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = tools
        .iter()
        .map(|t| {
            let name = if oauth {
                claude_code_name(&t.name)
            } else {
                t.name.as_str()
            };
            let mut tool = json!({
                "name": name,
                "description": t.description,
                "input_schema": {
                    "type": "object",
                    "properties": t.parameters.get("properties").cloned().unwrap_or_else(|| json!({})),
                    "required": t.parameters.get("required").cloned().unwrap_or_else(|| json!([])),
                },
            });
            if eager {
                tool["eager_input_streaming"] = json!(true);
            }
            tool
        })
        .collect();
    if let (Some(last), Some(cc)) = (out.last_mut(), cache) {
        last["cache_control"] = cc;
    }
    out
}

/// The thinking part of the body and the `max_tokens` that goes with it.
struct Thinking {
    max_tokens: u64,
    config: Option<Value>,
    effort: Option<String>,
}

fn thinking(model: &Model, context: &Context, options: &StreamOptions) -> Thinking {
    let base = options.max_tokens.unwrap_or(model.max_tokens / 3);
    let level = options.thinking().filter(|_| model.reasoning);
    let Some(level) = level else {
        return Thinking {
            max_tokens: base,
            config: None,
            effort: None,
        };
    };
    if is_adaptive_model(&model.id) {
        return Thinking {
            max_tokens: base,
            config: Some(json!({"type": "adaptive", "display": "summarized"})),
            effort: Some(adaptive_effort(model, level)),
        };
    }
    let budgets = (&options.thinking_budgets, level);
    let (max_tokens, budget) =
        crate::output_cap::with_thinking_budget(model, context, base, budgets);
    Thinking {
        max_tokens,
        config: Some(json!({"type": "enabled", "budget_tokens": budget, "display": "summarized"})),
        effort: None,
    }
}

/// The `output_config.effort` of adaptive models: the model's map value, else the fixed table.
pub(crate) fn adaptive_effort(model: &Model, level: ThinkingLevel) -> String {
    let mapped = model
        .thinking_level_map
        .as_ref()
        .and_then(|m| m.get(level.as_str()).cloned().flatten());
    mapped.unwrap_or_else(|| {
        match level {
            ThinkingLevel::Minimal | ThinkingLevel::Low => "low",
            ThinkingLevel::Medium => "medium",
            _ => "high",
        }
        .to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adaptive_models_by_id() {
        assert!(is_adaptive_model("claude-opus-4-6"));
        assert!(is_adaptive_model("anthropic/claude-sonnet-4.6"));
        assert!(!is_adaptive_model("claude-sonnet-4-5"));
    }

    #[test]
    fn oauth_tokens_are_recognised() {
        assert!(is_oauth_token("sk-ant-oat01-abc"));
        assert!(!is_oauth_token("sk-ant-api03-abc"));
    }

    #[test]
    fn headers_replace_case_insensitively_in_place() {
        let mut h = Headers::default();
        h.set("Accept", "a");
        h.set("x-b", "b");
        h.set("ACCEPT", "c");
        assert_eq!(
            h.0,
            vec![("accept".into(), "c".into()), ("x-b".into(), "b".into())]
        );
    }
}
