//! Model providers extensions register (pi's `registerProvider`): their models join the
//! session's registry, and replies of a provider that streams in the extension come through
//! the extension's `stream` requests as pi `AssistantMessageEvent`s.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, RwLock};

use rho_ai::models_json::{
    merge_models, parse_models_json, ModelsConfig, ModelsJsonError, ProviderConfig,
};
use rho_ai::{AssistantMessage, AssistantMessageEvent, AssistantStream, Model, StopReason};
use serde_json::{json, Value};

use super::{ProviderDef, ProviderStream};
use rho_agent::StreamFn;

/// The provider's models.json entry: the extension's config (validated as models.json is)
/// with the user's own entry of the same name (`baseUrl`, `apiKey`, `headers`) laid over it.
pub fn provider_config(
    def: &ProviderDef,
    user: Option<&ProviderConfig>,
) -> Result<ProviderConfig, ModelsJsonError> {
    // A provider that signs in needs no apiKey (pi asks none of it); models.json does, so the
    // check runs with a stand-in that is dropped again.
    let keyless = def.oauth.is_some() && def.config.get("apiKey").is_none();
    let mut entry = def.config.clone();
    if let (true, Some(fields)) = (keyless, entry.as_object_mut()) {
        fields.insert("apiKey".into(), json!("signed-in"));
    }
    let text = json!({"providers": {&def.name: entry}}).to_string();
    let parsed = parse_models_json(&text, &format!("registerProvider(\"{}\")", def.name))?;
    let mut config = parsed.providers.into_values().next().unwrap_or_default();
    if keyless {
        config.api_key = None;
    }
    if let Some(user) = user {
        config.base_url = user.base_url.clone().or(config.base_url);
        config.api_key = user.api_key.clone().or(config.api_key);
        config.headers = user.headers.clone().or(config.headers);
    }
    Ok(config)
}

/// The models of one provider entry.
pub fn provider_models(name: &str, config: &ProviderConfig) -> Vec<Model> {
    let config = ModelsConfig {
        providers: BTreeMap::from([(name.to_string(), config.clone())]),
    };
    merge_models(&[], &config)
}

/// The providers whose replies their extension streams, by name; shared, since extensions
/// register and unregister providers while the session runs.
pub type ProviderStreams = Arc<RwLock<HashMap<String, ProviderStream>>>;

/// `inner`, except that models of the providers in `streams` are answered by their extension.
pub fn bridged_stream_fn(inner: StreamFn, streams: ProviderStreams) -> StreamFn {
    Arc::new(move |model, context, options| {
        let stream = streams
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(&model.provider)
            .cloned();
        let Some(stream) = stream else {
            return inner(model, context, options);
        };
        let (sink, out) = AssistantStream::channel();
        let model = model.clone();
        let context = serde_json::to_value(context).unwrap_or(Value::Null);
        let cancel = options.cancel.clone();
        let options = json!({
            "apiKey": options.api_key,
            "maxTokens": options.max_tokens,
            "reasoning": options.reasoning.map(|l| l.as_str()),
        });
        tokio::spawn(async move {
            let events = sink.clone();
            let forward: Arc<dyn Fn(Value) + Send + Sync> = Arc::new(move |v| {
                if let Some(event) = pi_event(&v) {
                    events.push(event);
                }
            });
            let model_json = serde_json::to_value(&model).unwrap_or(Value::Null);
            let outcome = tokio::select! {
                r = stream(model_json, context, options, forward) => r.err(),
                _ = cancel.cancelled() => Some("Request was aborted".to_string()),
            };
            if !sink.has_ended() {
                let reason = if cancel.is_cancelled() {
                    StopReason::Aborted
                } else {
                    StopReason::Error
                };
                let message = outcome
                    .unwrap_or_else(|| "the extension's stream ended without a reply".into());
                sink.push(failed(&model, reason, message));
            }
        });
        Ok(out)
    })
}

fn failed(model: &Model, reason: StopReason, message: String) -> AssistantMessageEvent {
    let mut error = AssistantMessage::empty(&model.api, &model.provider, &model.id);
    error.stop_reason = reason;
    error.error_message = Some(message);
    AssistantMessageEvent::Error { reason, error }
}

fn index(v: &Value) -> usize {
    v["contentIndex"].as_u64().unwrap_or(0) as usize
}

fn text(v: &Value, key: &str) -> String {
    v[key].as_str().unwrap_or_default().to_string()
}

/// One pi `AssistantMessageEvent` as rho's; `None` for one it cannot read.
fn pi_event(v: &Value) -> Option<AssistantMessageEvent> {
    let i = index(v);
    let block = &v["partial"]["content"][i];
    let message = |key: &str| serde_json::from_value::<AssistantMessage>(v[key].clone()).ok();
    let reason = || serde_json::from_value::<StopReason>(v["reason"].clone()).ok();
    use AssistantMessageEvent as E;
    Some(match v["type"].as_str()? {
        "start" => E::Start {
            partial: message("partial")?,
        },
        "text_start" => E::TextStart { content_index: i },
        "text_delta" => E::TextDelta {
            content_index: i,
            delta: text(v, "delta"),
        },
        "text_end" => E::TextEnd {
            content_index: i,
            text: rho_ai::TextContent {
                text: text(v, "content"),
                ..Default::default()
            },
        },
        "thinking_start" => E::ThinkingStart { content_index: i },
        "thinking_delta" => E::ThinkingDelta {
            content_index: i,
            delta: text(v, "delta"),
        },
        "thinking_end" => E::ThinkingEnd {
            content_index: i,
            thinking: rho_ai::ThinkingContent {
                thinking: text(v, "content"),
                ..Default::default()
            },
        },
        "toolcall_start" => E::ToolCallStart {
            content_index: i,
            id: text(block, "id"),
            name: text(block, "name"),
        },
        "toolcall_delta" => E::ToolCallDelta {
            content_index: i,
            delta: text(v, "delta"),
        },
        "toolcall_end" => E::ToolCallEnd {
            content_index: i,
            tool_call: serde_json::from_value(v["toolCall"].clone()).ok()?,
        },
        "done" => E::Done {
            reason: reason()?,
            message: message("message")?,
        },
        "error" => E::Error {
            reason: reason()?,
            error: message("error")?,
        },
        _ => return None,
    })
}
