//! How a stored catalog changes a provider's built-in models, as pi 1.6 applies it:
//!
//! - OpenRouter's entry is the user's personal list (the models the key may use, with its
//!   limits and prices): when it holds chat models it replaces the catalog.
//! - Every other provider's entry is a catalog from pi.dev: used only when it is newer than the
//!   built-in data (`lastModified` after the catalog's `generatedAt`), and then each stored
//!   model replaces the built-in one of the same id or is added after them.
//! - Radius keeps its built-in list (rho does not refresh its gateway catalog).

use serde_json::Value;

use super::StoreEntry;
use crate::model::Model;

/// The provider whose stored list replaces the catalog.
pub const PERSONALIZED: &str = "openrouter";

/// Providers whose catalog rho does not refresh.
pub const NOT_REFRESHED: &[&str] = &["radius"];

/// `builtin` (the provider's models from the catalog) after `entry`; `generated_at_ms` is when
/// the built-in catalog was generated.
pub fn overlay(
    provider: &str,
    builtin: Vec<Model>,
    entry: Option<&StoreEntry>,
    generated_at_ms: i64,
) -> Vec<Model> {
    let Some(entry) = entry.filter(|_| !NOT_REFRESHED.contains(&provider)) else {
        return builtin;
    };
    let stored = chat_models(provider, &entry.models);
    if provider == PERSONALIZED {
        return if stored.is_empty() { builtin } else { stored };
    }
    if entry.last_modified.unwrap_or(0) <= generated_at_ms {
        return builtin;
    }
    let mut merged = builtin;
    for model in stored {
        match merged.iter_mut().find(|m| m.id == model.id) {
            Some(slot) => *slot = model,
            None => merged.push(model),
        }
    }
    merged
}

/// The chat models of a stored list, as `provider`'s (entries of other types, or that do not
/// read as a model, are left out).
pub fn chat_models(provider: &str, models: &[Value]) -> Vec<Model> {
    models
        .iter()
        .filter(|m| matches!(m.get("type"), None | Some(Value::String(_))))
        .filter(|m| m.get("type").and_then(Value::as_str).unwrap_or("chat") == "chat")
        .filter_map(|m| serde_json::from_value::<Model>(m.clone()).ok())
        .filter(|m| m.provider == provider)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn model(provider: &str, id: &str, context: u64) -> Value {
        json!({"id": id, "name": id, "api": "openai-completions", "provider": provider,
               "baseUrl": "http://x", "reasoning": false, "input": ["text"],
               "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0},
               "contextWindow": context, "maxTokens": 100})
    }

    fn builtin(provider: &str) -> Vec<Model> {
        ["a", "b"]
            .map(|id| serde_json::from_value(model(provider, id, 1000)).expect("model"))
            .to_vec()
    }

    fn entry(models: Vec<Value>, last_modified: i64) -> StoreEntry {
        StoreEntry {
            models,
            last_modified: Some(last_modified),
            ..StoreEntry::default()
        }
    }

    #[test]
    fn a_newer_catalog_replaces_by_id_and_adds_an_older_one_is_ignored() {
        let stored = entry(
            vec![
                model("xai", "b", 5000),
                model("xai", "c", 7000),
                json!({"id": "img", "type": "image", "provider": "xai"}),
            ],
            2000,
        );
        let merged = overlay("xai", builtin("xai"), Some(&stored), 1000);
        let ids: Vec<(&str, u64)> = merged
            .iter()
            .map(|m| (m.id.as_str(), m.context_window))
            .collect();
        assert_eq!(ids, [("a", 1000), ("b", 5000), ("c", 7000)]);
        let old = overlay("xai", builtin("xai"), Some(&stored), 2000);
        assert_eq!(old, builtin("xai"));
        assert_eq!(overlay("xai", builtin("xai"), None, 0), builtin("xai"));
    }

    #[test]
    fn openrouters_personal_list_replaces_the_catalog_unless_empty() {
        let stored = entry(vec![model("openrouter", "b", 9)], 0);
        let list = overlay("openrouter", builtin("openrouter"), Some(&stored), i64::MAX);
        assert_eq!(list.len(), 1);
        assert_eq!((list[0].id.as_str(), list[0].context_window), ("b", 9));
        let empty = entry(Vec::new(), 0);
        let kept = overlay("openrouter", builtin("openrouter"), Some(&empty), 0);
        assert_eq!(kept, builtin("openrouter"));
        let radius = overlay("radius", builtin("radius"), Some(&stored), 0);
        assert_eq!(radius, builtin("radius"));
    }
}
