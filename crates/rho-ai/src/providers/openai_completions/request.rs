//! Builds the Chat Completions request: URL, headers and body (providers spec §3.2).
//! Pure: everything it needs is in the model, the context and the options.

use serde_json::{json, Map, Value};

use super::compat::{self, PromptCacheKeyMode, ResolvedCompat, ThinkingFormat};
use super::messages;
use crate::content::ContentBlock;
use crate::message::{Context, Message};
use crate::model::{Model, ThinkingLevel};
use crate::options::{CacheRetention, StreamOptions};
use crate::provider::HttpRequest;

/// The full request for one call.
pub fn build(model: &Model, context: &Context, options: &StreamOptions) -> HttpRequest {
    let compat = compat::resolve(model);
    let transformed = crate::transform::transform_messages(&context.messages, model);
    let mut msgs = messages::convert(
        model,
        context.system_prompt.as_deref(),
        &transformed,
        &compat,
    );
    let mut tools = tools(context, &compat);
    if compat.anthropic_cache_control && options.cache_retention != CacheRetention::None {
        let long =
            options.cache_retention == CacheRetention::Long && compat.supports_long_cache_retention;
        add_cache_markers(&mut msgs, tools.as_mut(), long);
    }
    let mut body = body(model, context, options, &compat, msgs, tools);
    crate::providers::merge_sampling_params(model, options, &mut body);
    HttpRequest {
        url: format!("{}/chat/completions", model.base_url.trim_end_matches('/')),
        headers: headers(model, context, options, &compat),
        body,
    }
}

fn body(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
    compat: &ResolvedCompat,
    msgs: Vec<Value>,
    tools: Option<Vec<Value>>,
) -> Value {
    let mut b = Map::new();
    b.insert("model".into(), model.id.clone().into());
    b.insert("messages".into(), Value::Array(msgs));
    b.insert("stream".into(), true.into());
    prompt_cache(model, options, compat, &mut b);
    if compat.supports_usage_in_streaming {
        b.insert("stream_options".into(), json!({"include_usage": true}));
    }
    if compat.supports_store {
        b.insert("store".into(), false.into());
    }
    if let Some(n) = options.max_tokens {
        b.insert(compat.max_tokens_field.key().into(), n.into());
    }
    if let Some(t) = options.temperature {
        b.insert("temperature".into(), t.into());
    }
    if let Some(tools) = tools {
        b.insert("tools".into(), Value::Array(tools));
    }
    if compat.zai_tool_stream && !context.tools.is_empty() {
        b.insert("tool_stream".into(), true.into());
    }
    thinking_params(model, options, compat, &mut b);
    if let Some(priority) = compat.vllm_priority {
        b.insert("priority".into(), priority.into());
    }
    if let Some(routing) = &compat.open_router_routing {
        if model.base_url.contains("openrouter.ai") {
            b.insert("provider".into(), routing.clone());
        }
    }
    if let Some(routing) = &compat.vercel_gateway_routing {
        if model.base_url.contains("ai-gateway.vercel.sh") {
            let mut gateway = Map::new();
            for key in ["only", "order"] {
                if let Some(v) = routing.get(key).filter(|v| !v.is_null()) {
                    gateway.insert(key.into(), v.clone());
                }
            }
            if !gateway.is_empty() {
                b.insert("providerOptions".into(), json!({"gateway": gateway}));
            }
        }
    }
    Value::Object(b)
}

/// `prompt_cache_key` / `prompt_cache_retention` (OpenAI's prompt cache).
fn prompt_cache(
    model: &Model,
    options: &StreamOptions,
    compat: &ResolvedCompat,
    b: &mut Map<String, Value>,
) {
    let retention = options.cache_retention;
    let long = retention == CacheRetention::Long && compat.supports_long_cache_retention;
    if let Some(session) = &options.session_id {
        let caching = retention != CacheRetention::None;
        let send = match compat.prompt_cache_key_mode {
            PromptCacheKeyMode::Auto => {
                (model.base_url.contains("api.openai.com") && caching) || long
            }
            PromptCacheKeyMode::Enabled => caching,
            PromptCacheKeyMode::Disabled => false,
        };
        if send {
            b.insert("prompt_cache_key".into(), session.clone().into());
        }
    }
    if long {
        b.insert("prompt_cache_retention".into(), "24h".into());
    }
}

/// The `tools` array: the context's tools, `[]` when there are none but the history holds
/// tool calls or results (proxies in front of Anthropic require the field), else absent.
fn tools(context: &Context, compat: &ResolvedCompat) -> Option<Vec<Value>> {
    if context.tools.is_empty() {
        return has_tool_history(&context.messages).then(Vec::new);
    }
    Some(
        context
            .tools
            .iter()
            .map(|tool| {
                let mut function = json!({
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                });
                if compat.supports_strict_mode {
                    function["strict"] = false.into();
                }
                json!({"type": "function", "function": function})
            })
            .collect(),
    )
}

fn has_tool_history(messages: &[Message]) -> bool {
    messages.iter().any(|m| match m {
        Message::ToolResult(_) => true,
        Message::Assistant(a) => a.tool_calls().next().is_some(),
        Message::User(_) => false,
    })
}

/// Reasoning switches per `thinkingFormat` (only for reasoning models).
fn thinking_params(
    model: &Model,
    options: &StreamOptions,
    compat: &ResolvedCompat,
    b: &mut Map<String, Value>,
) {
    if !model.reasoning {
        return;
    }
    // pi 1.6 caps reasoning with a top-level field on servers where reasoning and answer share
    // the output cap, whatever the thinking format.
    if let (Some(field), Some(level)) = (&compat.thinking_token_budget_field, options.thinking()) {
        let ceiling = options.max_tokens.unwrap_or(model.max_tokens);
        let budget = options.thinking_budgets.within(level, ceiling);
        if budget > 0 {
            b.insert(field.clone(), budget.into());
        }
    }
    let wire = options
        .thinking()
        .map(|level| model.clamp_thinking_level(level))
        .filter(|level| *level != ThinkingLevel::Off)
        .map(|level| model.thinking_wire_value(level));
    let off = model
        .thinking_level_map
        .as_ref()
        .and_then(|m| m.get(ThinkingLevel::Off.as_str()).cloned());
    let on = wire.is_some();
    match compat.thinking_format {
        ThinkingFormat::OpenAi => {
            let effort = wire.or_else(|| off.flatten());
            if let (Some(effort), true) = (effort, compat.supports_reasoning_effort) {
                b.insert("reasoning_effort".into(), effort.into());
            }
        }
        ThinkingFormat::OpenRouter => {
            let effort = match (wire, off) {
                (Some(w), _) => Some(w),
                (None, Some(None)) => None,
                (None, Some(Some(o))) => Some(o),
                (None, None) => Some("none".to_string()),
            };
            if let Some(effort) = effort {
                b.insert("reasoning".into(), json!({"effort": effort}));
            }
        }
        ThinkingFormat::DeepSeek => match wire {
            Some(w) => {
                b.insert("thinking".into(), json!({"type": "enabled"}));
                b.insert("reasoning_effort".into(), w.into());
            }
            None => {
                b.insert("thinking".into(), json!({"type": "disabled"}));
            }
        },
        ThinkingFormat::Zai | ThinkingFormat::Qwen => {
            b.insert("enable_thinking".into(), on.into());
        }
        ThinkingFormat::QwenChatTemplate => {
            b.insert(
                "chat_template_kwargs".into(),
                json!({"enable_thinking": on, "preserve_thinking": on}),
            );
        }
    }
}

/// Anthropic-style cache breakpoints: the first system/developer message, the last tool,
/// and the last text part of the last user or assistant message that has text.
fn add_cache_markers(msgs: &mut [Value], tools: Option<&mut Vec<Value>>, long: bool) {
    let cc = if long {
        json!({"type": "ephemeral", "ttl": "1h"})
    } else {
        json!({"type": "ephemeral"})
    };
    let is_role = |m: &Value, roles: &[&str]| {
        m.get("role")
            .and_then(Value::as_str)
            .is_some_and(|r| roles.contains(&r))
    };
    if let Some(system) = msgs
        .iter_mut()
        .find(|m| is_role(m, &["system", "developer"]))
    {
        mark_last_text(system, &cc);
    }
    if let Some(last) = tools.and_then(|t| t.last_mut()) {
        last["cache_control"] = cc.clone();
    }
    for m in msgs.iter_mut().rev() {
        if is_role(m, &["user", "assistant"]) && mark_last_text(m, &cc) {
            break;
        }
    }
}

/// Puts `cc` on the message's last text part (a string content becomes one text part).
/// Returns false when the message has no text.
fn mark_last_text(message: &mut Value, cc: &Value) -> bool {
    let Some(content) = message.get_mut("content") else {
        return false;
    };
    match content {
        Value::String(s) if !s.is_empty() => {
            let text = std::mem::take(s);
            *content = json!([{"type": "text", "text": text, "cache_control": cc}]);
            true
        }
        Value::Array(parts) => {
            match parts
                .iter_mut()
                .rev()
                .find(|p| p.get("type").and_then(Value::as_str) == Some("text"))
            {
                Some(part) => {
                    part["cache_control"] = cc.clone();
                    true
                }
                None => false,
            }
        }
        _ => false,
    }
}

/// Headers in precedence order: auth, `model.headers`, dynamic (Copilot, session affinity),
/// `options.headers`. A later header replaces an earlier one of the same name.
fn headers(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
    compat: &ResolvedCompat,
) -> Vec<(String, String)> {
    let mut h = Headers::default();
    let key = options
        .api_key
        .clone()
        .filter(|k| !k.is_empty())
        .or_else(|| std::env::var("OPENAI_API_KEY").ok())
        .unwrap_or_default();
    if compat::is_cloudflare_gateway(model) {
        h.set("cf-aig-authorization", format!("Bearer {key}"));
    } else {
        h.set("authorization", format!("Bearer {key}"));
    }
    for (k, v) in model.headers.iter().flatten() {
        h.set(k, v.clone());
    }
    if model.provider == "github-copilot" {
        copilot_headers(context, &mut h);
    }
    if let Some(session) = &options.session_id {
        if compat.send_session_affinity_headers && options.cache_retention != CacheRetention::None {
            for name in ["session_id", "x-client-request-id", "x-session-affinity"] {
                h.set(name, session.clone());
            }
        }
    }
    for (k, v) in &options.headers {
        h.set(k, v.clone());
    }
    h.0
}

/// GitHub Copilot's per-request headers (providers spec §3.5).
fn copilot_headers(context: &Context, h: &mut Headers) {
    let initiator = match context.messages.last() {
        Some(Message::User(_)) => "user",
        _ => "agent",
    };
    h.set("X-Initiator", initiator.to_string());
    h.set("Openai-Intent", "conversation-edits".to_string());
    let has_image =
        |blocks: &[ContentBlock]| blocks.iter().any(|b| matches!(b, ContentBlock::Image(_)));
    let vision = context.messages.iter().any(|m| match m {
        Message::User(u) => match &u.content {
            crate::message::UserContent::Blocks(b) => has_image(b),
            crate::message::UserContent::Text(_) => false,
        },
        Message::ToolResult(r) => has_image(&r.content),
        Message::Assistant(_) => false,
    });
    if vision {
        h.set("Copilot-Vision-Request", "true".to_string());
    }
}

/// An ordered header list where names are case-insensitive and the last write wins.
#[derive(Default)]
struct Headers(Vec<(String, String)>);

impl Headers {
    fn set(&mut self, name: &str, value: String) {
        self.0.retain(|(k, _)| !k.eq_ignore_ascii_case(name));
        self.0.push((name.to_string(), value));
    }
}
