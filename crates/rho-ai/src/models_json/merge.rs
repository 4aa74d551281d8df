//! Applying a [`ModelsConfig`] to the built-in models (interfaces §6.4 "Merge"), and the
//! per-request resolution of the secrets it holds.

use std::collections::BTreeMap;

use serde_json::Value;

use super::schema::{
    CompatMap, ModelDef, ModelExtras, ModelOverride, ModelsConfig, ProviderConfig,
};
use crate::catalog::provider_info;
use crate::config_value::{resolve_value, ShellRunner};
use crate::model::{InputKind, Model, ModelCompat};

/// Built-ins first (provider `baseUrl`/`compat`/`headers` applied, then `modelOverrides`),
/// then custom models upserted by (provider, id).
///
/// Header values are kept as written (a template with `$NAME` references or `!command`); resolve them per
/// request with [`resolve_request_headers`].
pub fn merge_models(builtins: &[Model], config: &ModelsConfig) -> Vec<Model> {
    merge_into(builtins.to_vec(), config)
}

/// [`merge_models`] over models the caller owns (no copy of the list).
pub fn merge_into(builtins: Vec<Model>, config: &ModelsConfig) -> Vec<Model> {
    let mut models: Vec<Model> = builtins
        .into_iter()
        .map(|model| match config.providers.get(&model.provider) {
            Some(provider) => apply_provider(model, provider),
            None => model,
        })
        .collect();
    for (provider_id, provider) in &config.providers {
        for def in provider.models.iter().flatten() {
            let model = custom_model(provider_id, provider, def);
            match models
                .iter_mut()
                .find(|m| m.provider == model.provider && m.id == model.id)
            {
                Some(existing) => *existing = model,
                None => models.push(model),
            }
        }
    }
    models
}

pub(crate) fn apply_provider(mut model: Model, provider: &ProviderConfig) -> Model {
    if let Some(base_url) = &provider.base_url {
        model.base_url = base_url.clone();
    }
    model.compat = merge_compat(model.compat.as_ref(), provider.compat.as_ref());
    model.headers = overlay(model.headers.take(), provider.headers.as_ref());
    if let Some(o) = provider.model_overrides.get(&model.id) {
        apply_override(&mut model, o);
    }
    model
}

fn apply_override(model: &mut Model, o: &ModelOverride) {
    if let Some(name) = &o.name {
        model.name = name.clone();
    }
    if let Some(reasoning) = o.reasoning {
        model.reasoning = reasoning;
    }
    if let Some(map) = &o.thinking_level_map {
        let merged = model.thinking_level_map.get_or_insert_with(BTreeMap::new);
        merged.extend(map.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    if let Some(input) = &o.input {
        model.input = input.clone();
    }
    if let Some(cost) = &o.cost {
        let c = &mut model.cost;
        c.input = cost.input.unwrap_or(c.input);
        c.output = cost.output.unwrap_or(c.output);
        c.cache_read = cost.cache_read.unwrap_or(c.cache_read);
        c.cache_write = cost.cache_write.unwrap_or(c.cache_write);
        if let Some(tiers) = &cost.tiers {
            c.tiers = tiers.clone();
        }
    }
    merge_extras(model, &o.extras);
    model.context_window = o.context_window.unwrap_or(model.context_window);
    model.max_tokens = o.max_tokens.unwrap_or(model.max_tokens);
    model.headers = overlay(model.headers.take(), o.headers.as_ref());
    model.compat = merge_compat(model.compat.as_ref(), o.compat.as_ref());
}

/// A custom model with the defaults of providers spec §1.4.
pub(crate) fn custom_model(provider_id: &str, provider: &ProviderConfig, def: &ModelDef) -> Model {
    let builtin = provider_info(provider_id);
    let api = def
        .api
        .clone()
        .or_else(|| provider.api.clone())
        .or_else(|| builtin.map(|b| b.api.to_string()))
        .unwrap_or_default();
    let base_url = def
        .base_url
        .clone()
        .or_else(|| provider.base_url.clone())
        .or_else(|| builtin.map(|b| b.base_url.to_string()))
        .unwrap_or_default();
    let provider_compat = merge_compat(None, provider.compat.as_ref());
    Model {
        id: def.id.clone(),
        name: def.name.clone().unwrap_or_else(|| def.id.clone()),
        api,
        provider: provider_id.to_string(),
        base_url,
        reasoning: def.reasoning.unwrap_or(false),
        thinking_level_map: def.thinking_level_map.clone(),
        input: def.input.clone().unwrap_or_else(|| vec![InputKind::Text]),
        cost: def.cost.clone().unwrap_or_default(),
        context_window: def.context_window.unwrap_or(128_000),
        max_tokens: def.max_tokens.unwrap_or(16_384),
        headers: overlay(provider.headers.clone(), def.headers.as_ref()),
        compat: merge_compat(provider_compat.as_ref(), def.compat.as_ref()),
        input_limits: def.extras.input_limits,
        prompt_cache: def.extras.prompt_cache,
        sampling_params: def.extras.sampling_params.clone(),
        sampling_params_by_thinking_level: def.extras.sampling_params_by_thinking_level.clone(),
    }
}

/// An override's input limits, prompt cache and sampling parameters over the model's: objects
/// merge key by key (image limits and the resize profile each on their own), as pi 1.6's
/// `applyModelOverride` merges them.
fn merge_extras(model: &mut Model, o: &ModelExtras) {
    if let Some(top) = o.input_limits {
        let base = model.input_limits.unwrap_or_default();
        let images = match (base.images, top.images) {
            (Some(b), Some(t)) => Some(crate::model::ImageLimits {
                max_per_message: t.max_per_message.or(b.max_per_message),
                max_per_request: t.max_per_request.or(b.max_per_request),
                resize: match (b.resize, t.resize) {
                    (Some(br), Some(tr)) => Some(crate::model::ImageResize {
                        max_width: tr.max_width.or(br.max_width),
                        max_height: tr.max_height.or(br.max_height),
                        max_bytes: tr.max_bytes.or(br.max_bytes),
                        jpeg_quality: tr.jpeg_quality.or(br.jpeg_quality),
                    }),
                    (b, t) => t.or(b),
                },
            }),
            (b, t) => t.or(b),
        };
        model.input_limits = Some(crate::model::InputLimits {
            max_request_bytes: top.max_request_bytes.or(base.max_request_bytes),
            images,
        });
    }
    if let Some(top) = o.prompt_cache {
        let base = model.prompt_cache.unwrap_or_default();
        model.prompt_cache = Some(crate::model::PromptCache {
            short: top.short.or(base.short),
            long: top.long.or(base.long),
        });
    }
    if let Some(top) = &o.sampling_params {
        let merged = model.sampling_params.get_or_insert_with(Default::default);
        merged.extend(top.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    if let Some(top) = &o.sampling_params_by_thinking_level {
        let merged = model
            .sampling_params_by_thinking_level
            .get_or_insert_with(Default::default);
        for (level, params) in top {
            let into = merged.entry(level.clone()).or_default();
            into.extend(params.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
    }
}

/// `base` with `top`'s entries written over it; `None` when both are empty.
fn overlay(
    base: Option<BTreeMap<String, String>>,
    top: Option<&BTreeMap<String, String>>,
) -> Option<BTreeMap<String, String>> {
    let mut merged = base.unwrap_or_default();
    if let Some(top) = top {
        merged.extend(top.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    (!merged.is_empty()).then_some(merged)
}

/// `top`'s flags over `base`'s. Flags were type-checked during validation, so the merged
/// object always reads back as a [`ModelCompat`].
fn merge_compat(base: Option<&ModelCompat>, top: Option<&CompatMap>) -> Option<ModelCompat> {
    let Some(top) = top else {
        return base.cloned();
    };
    let mut merged = match base.map(serde_json::to_value) {
        Some(Ok(Value::Object(map))) => map,
        _ => CompatMap::new(),
    };
    merged.extend(top.iter().map(|(k, v)| (k.clone(), v.clone())));
    serde_json::from_value(Value::Object(merged)).ok()
}

/// A request-time failure to turn configured values into a key or headers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// The `apiKey` command failed or printed nothing, or a variable it names is unset.
    #[error("Failed to resolve API key for provider \"{provider}\" from {from}")]
    ApiKey {
        /// Provider id.
        provider: String,
        /// pi's wording of the source: `shell command: <cmd>`, `environment variable: <NAME>`.
        from: String,
    },
    /// A header value's command failed or printed nothing, or a variable it names is unset.
    #[error("Failed to resolve header \"{header}\" for provider \"{provider}\" from {from}")]
    Header {
        /// Provider id.
        provider: String,
        /// Header name.
        header: String,
        /// As in [`ResolveError::ApiKey`].
        from: String,
    },
    /// `authHeader: true` but no key could be found.
    #[error("Provider \"{provider}\" sets \"authHeader\" in models.json but has no API key: set \"apiKey\" or log in")]
    MissingKeyForAuthHeader {
        /// Provider id.
        provider: String,
    },
}

/// Resolves a provider's models.json `apiKey` (uncached: commands run on every call, as the
/// spec asks, so rotated keys are picked up). `Ok(None)` when none is configured.
pub fn resolve_provider_api_key(
    provider_id: &str,
    provider: Option<&ProviderConfig>,
    env: &dyn Fn(&str) -> Option<String>,
    run: &ShellRunner,
) -> Result<Option<String>, ResolveError> {
    let Some(raw) = provider.and_then(|p| p.api_key.as_deref()) else {
        return Ok(None);
    };
    resolve_value(raw, env, run)
        .map(Some)
        .map_err(|e| ResolveError::ApiKey {
            provider: provider_id.to_string(),
            from: e.source_text(),
        })
}

/// Request headers, name to value.
pub type Headers = BTreeMap<String, String>;

/// The headers to send for `model`: its (merged, raw) headers with each value resolved, plus
/// `Authorization: Bearer <api_key>` when the provider sets `authHeader`.
pub fn resolve_request_headers(
    model: &Model,
    provider: Option<&ProviderConfig>,
    api_key: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
    run: &ShellRunner,
) -> Result<Headers, ResolveError> {
    let mut out = BTreeMap::new();
    for (name, raw) in model.headers.iter().flatten() {
        let value = resolve_value(raw, env, run).map_err(|e| ResolveError::Header {
            provider: model.provider.clone(),
            header: name.clone(),
            from: e.source_text(),
        })?;
        out.insert(name.clone(), value);
    }
    if provider.is_some_and(|p| p.auth_header) {
        let key = api_key.ok_or_else(|| ResolveError::MissingKeyForAuthHeader {
            provider: model.provider.clone(),
        })?;
        out.insert("Authorization".into(), format!("Bearer {key}"));
    }
    Ok(out)
}

/// Whether the provider has an `apiKey` configured, without running anything (for the
/// "has configured auth" check).
pub fn has_configured_api_key(provider: Option<&ProviderConfig>) -> bool {
    provider
        .and_then(|p| p.api_key.as_deref())
        .is_some_and(|raw| !raw.is_empty())
}
