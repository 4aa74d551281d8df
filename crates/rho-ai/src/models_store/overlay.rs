//! How a stored catalog changes a provider's built-in models, as pi 1.6 applies it:
//!
//! - OpenRouter's entry is the user's personal list (the models the key may use, with its
//!   limits and prices): when it holds chat models it replaces the catalog.
//! - Every other provider's entry is a catalog from pi.dev: used only when it is newer than the
//!   built-in data (`lastModified` after the catalog's `generatedAt`), and then each stored
//!   model replaces the built-in one of the same id or is added after them.
//! - Radius keeps its built-in list (rho does not refresh its gateway catalog).
//! - A llama.cpp router's entry is its whole list (it has no built-in models).

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::model::Model;

/// The provider whose stored list replaces the catalog.
pub const PERSONALIZED: &str = "openrouter";

/// Providers whose catalog rho does not refresh.
pub const NOT_REFRESHED: &[&str] = &["radius"];

/// What the model list needs of a stored entry: its chat models and when the catalog was
/// published.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StoredCatalog {
    /// The entry's chat models, as `provider`'s.
    pub models: Vec<Model>,
    /// The catalog's `Last-Modified`, Unix ms.
    pub last_modified: Option<i64>,
}

impl StoredCatalog {
    /// Reads `provider`'s entry (its JSON text): models of other types, or that do not read as
    /// a model, are left out; `None` when the entry is not an entry.
    pub fn parse(provider: &str, entry: &str) -> Option<StoredCatalog> {
        #[derive(Deserialize)]
        struct Entry<'a> {
            #[serde(borrow, default)]
            models: Vec<&'a RawValue>,
            #[serde(default, rename = "lastModified")]
            last_modified: Option<i64>,
        }
        #[derive(Deserialize)]
        struct Kind {
            #[serde(default, rename = "type")]
            kind: Option<String>,
        }
        let entry: Entry = serde_json::from_str(entry).ok()?;
        let chat = |raw: &&&RawValue| {
            serde_json::from_str::<Kind>(raw.get())
                .is_ok_and(|k| k.kind.as_deref().unwrap_or("chat") == "chat")
        };
        let models = entry
            .models
            .iter()
            .filter(chat)
            .filter_map(|raw| serde_json::from_str::<Model>(raw.get()).ok())
            .filter(|m| m.provider == provider)
            .collect();
        Some(StoredCatalog {
            models,
            last_modified: entry.last_modified,
        })
    }
}

/// `builtin` (the provider's models from the catalog) after its stored catalog;
/// `generated_at_ms` is when the built-in catalog was generated.
pub fn overlay(
    provider: &str,
    builtin: Vec<Model>,
    stored: Option<StoredCatalog>,
    generated_at_ms: i64,
) -> Vec<Model> {
    let Some(stored) = stored.filter(|_| !NOT_REFRESHED.contains(&provider)) else {
        return builtin;
    };
    if provider == crate::llama::PROVIDER {
        return stored.models;
    }
    if provider == PERSONALIZED {
        return if stored.models.is_empty() {
            builtin
        } else {
            stored.models
        };
    }
    if stored.last_modified.unwrap_or(0) <= generated_at_ms {
        return builtin;
    }
    let mut merged = builtin;
    for model in stored.models {
        match merged.iter_mut().find(|m| m.id == model.id) {
            Some(slot) => *slot = model,
            None => merged.push(model),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

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

    fn entry(provider: &str, models: Vec<Value>, last_modified: i64) -> StoredCatalog {
        let text = json!({"models": models, "lastModified": last_modified}).to_string();
        StoredCatalog::parse(provider, &text).expect("an entry")
    }

    #[test]
    fn a_newer_catalog_replaces_by_id_and_adds_an_older_one_is_ignored() {
        let stored = entry(
            "xai",
            vec![
                model("xai", "b", 5000),
                model("xai", "c", 7000),
                json!({"id": "img", "name": "Image", "api": "openai-images", "provider": "xai",
                       "baseUrl": "http://x", "type": "image"}),
                model("groq", "d", 1),
            ],
            2000,
        );
        let merged = overlay("xai", builtin("xai"), Some(stored.clone()), 1000);
        let ids: Vec<(&str, u64)> = merged
            .iter()
            .map(|m| (m.id.as_str(), m.context_window))
            .collect();
        assert_eq!(ids, [("a", 1000), ("b", 5000), ("c", 7000)]);
        let old = overlay("xai", builtin("xai"), Some(stored), 2000);
        assert_eq!(old, builtin("xai"));
        assert_eq!(overlay("xai", builtin("xai"), None, 0), builtin("xai"));
    }

    #[test]
    fn openrouters_personal_list_replaces_the_catalog_unless_empty() {
        let stored = entry("openrouter", vec![model("openrouter", "b", 9)], 0);
        let list = overlay(
            "openrouter",
            builtin("openrouter"),
            Some(stored.clone()),
            i64::MAX,
        );
        assert_eq!(list.len(), 1);
        assert_eq!((list[0].id.as_str(), list[0].context_window), ("b", 9));
        let empty = entry("openrouter", Vec::new(), 0);
        let kept = overlay("openrouter", builtin("openrouter"), Some(empty), 0);
        assert_eq!(kept, builtin("openrouter"));
        let radius = overlay("radius", builtin("radius"), Some(stored), 0);
        assert_eq!(radius, builtin("radius"));
    }
}
