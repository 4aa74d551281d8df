//! The registry's layers, and that looking one model up gives what the whole list holds.

use std::sync::{Arc, Mutex};

use serde_json::json;

use super::*;
use crate::models_json::parse_models_json;
use crate::models_store::{StoreEntry, Warn};

fn config(text: &str) -> ModelsConfig {
    parse_models_json(text, "models.json").expect("valid models.json")
}

const MODELS_JSON: &str = r#"{"providers": {
    "anthropic": {"baseUrl": "https://proxy.example/anthropic",
                  "modelOverrides": {"claude-opus-4-6": {"contextWindow": 500000}},
                  "models": [{"id": "claude-opus-4-7", "contextWindow": 50000}]},
    "ollama": {"baseUrl": "http://localhost:11434/v1", "api": "openai-completions",
               "apiKey": "ollama", "models": [{"id": "qwen3:8b"}]}
}}"#;

fn collecting() -> (Warn, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let warn: Warn = Arc::new(move |w| sink.lock().expect("warnings").push(w));
    (warn, seen)
}

fn store_with(dir: &tempfile::TempDir, text: &str) -> Arc<ModelsStore> {
    std::fs::write(dir.path().join("models-store.json"), text).expect("store");
    Arc::new(ModelsStore::new(dir.path(), collecting().0))
}

/// Every model of the list is what [`ModelRegistry::find`] builds alone.
fn assert_find_matches_all(registry: &ModelRegistry) {
    let all = registry.all();
    for m in all.iter() {
        assert_eq!(
            registry.find(&m.provider, &m.id).as_ref(),
            Some(m),
            "{}/{}",
            m.provider,
            m.id
        );
    }
}

#[test]
fn nothing_is_built_until_the_list_is_asked_for() {
    let registry = ModelRegistry::with_config(Base::Catalog(None), config(MODELS_JSON), None);
    let opus = registry
        .find("anthropic", "claude-opus-4-6")
        .expect("built in");
    assert_eq!(opus.context_window, 500_000, "modelOverrides apply");
    assert_eq!(opus.base_url, "https://proxy.example/anthropic");
    assert!(!registry.list().is_built());
    assert_eq!(registry.all().len(), catalog::builtin_models().len() + 1);
    assert!(registry.list().is_built());
}

#[test]
fn one_model_found_equals_its_entry_in_the_list() {
    let registry = ModelRegistry::with_config(Base::Catalog(None), config(MODELS_JSON), None);
    assert_find_matches_all(&registry);
    let custom = registry
        .find("anthropic", "claude-opus-4-7")
        .expect("custom");
    assert_eq!(
        custom.context_window, 50_000,
        "the custom model replaced the row"
    );
    assert!(registry.find("ollama", "qwen3:8b").is_some());
    assert!(registry.find("ollama", "nothing").is_none());
    let ids = registry.provider_ids();
    assert_eq!(ids.first().map(String::as_str), Some("amazon-bedrock"));
    assert_eq!(ids.last().map(String::as_str), Some("ollama"));
}

#[test]
fn a_newer_stored_catalog_changes_lookups_and_the_list_alike() {
    let dir = tempfile::tempdir().expect("tempdir");
    let newer = generated_at_ms() + 1;
    let model = |id: &str, context: u64| {
        json!({"id": id, "name": id, "api": "openai-responses", "provider": "xai",
               "baseUrl": "https://api.x.ai/v1", "reasoning": true, "input": ["text"],
               "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0},
               "contextWindow": context, "maxTokens": 1000, "type": "chat"})
    };
    let entry = StoreEntry {
        models: vec![model("grok-4.7", 123_456), model("grok-9", 9_000)],
        last_modified: Some(newer),
        ..StoreEntry::default()
    };
    let text = json!({"xai": entry}).to_string();
    let store = store_with(&dir, &text);
    let registry =
        ModelRegistry::with_config(Base::Catalog(Some(store)), ModelsConfig::default(), None);
    let changed = registry.find("xai", "grok-4.7").expect("in the catalog");
    assert_eq!(changed.context_window, 123_456);
    assert!(
        registry.find("xai", "grok-9").is_some(),
        "added by the refresh"
    );
    assert_find_matches_all(&registry);
    assert_eq!(
        registry
            .all()
            .iter()
            .filter(|m| m.provider == "xai")
            .count(),
        catalog::provider_models("xai").map_or(0, |m| m.len()) + 1
    );
}

#[test]
fn a_stored_list_read_again_after_a_refresh_reaches_every_list_holder() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = store_with(&dir, "{}");
    let registry =
        ModelRegistry::with_config(Base::Catalog(Some(store)), ModelsConfig::default(), None);
    let session_list = registry.list();
    let before = session_list.get().len();
    let personal = json!({"openrouter": {"models": [
        {"id": "only/one", "name": "Only", "api": "openai-completions",
         "provider": "openrouter", "baseUrl": "https://openrouter.ai/api/v1",
         "reasoning": false, "input": ["text"], "cost": {"input": 0, "output": 0},
         "contextWindow": 1000, "maxTokens": 100}], "checkedAt": 1}});
    std::fs::write(dir.path().join("models-store.json"), personal.to_string()).expect("store");
    assert_eq!(session_list.get().len(), before, "built once, kept");
    registry.reload_store();
    let openrouter: Vec<String> = session_list
        .get()
        .iter()
        .filter(|m| m.provider == "openrouter")
        .map(|m| m.id.clone())
        .collect();
    assert_eq!(openrouter, ["only/one"]);
}

#[test]
fn an_extension_provider_replaces_its_models() {
    let registry = ModelRegistry::with_config(Base::Catalog(None), config(MODELS_JSON), None);
    let before = registry.all().len();
    let mut own = catalog::find_builtin("groq", "openai/gpt-oss-120b").expect("built in");
    own.id = "ext-model".into();
    registry.replace_provider("groq", vec![own], ProviderConfig::default());
    let groq: Vec<String> = registry
        .all()
        .iter()
        .filter(|m| m.provider == "groq")
        .map(|m| m.id.clone())
        .collect();
    assert_eq!(groq, ["ext-model"]);
    assert!(registry.find("groq", "openai/gpt-oss-120b").is_none());
    assert_eq!(registry.all().len(), before - 7 + 1, "groq had 7 models");
    assert_find_matches_all(&registry);
}

/// pi's `unregisterProvider`: the provider's models go and the built-in ones it replaced come
/// back, in the list a holder already had.
#[test]
fn removing_an_extension_provider_brings_back_what_it_replaced() {
    let registry = ModelRegistry::with_config(Base::Catalog(None), config(MODELS_JSON), None);
    let session_list = registry.list();
    let before = session_list.get().len();
    let mut own = catalog::find_builtin("groq", "openai/gpt-oss-120b").expect("built in");
    own.id = "ext-model".into();
    registry.replace_provider("groq", vec![own], ProviderConfig::default());
    assert_eq!(
        session_list.get().len(),
        before - 7 + 1,
        "the holder sees it"
    );
    assert!(registry.remove_provider("groq"));
    assert!(!registry.remove_provider("groq"), "nothing left to remove");
    assert_eq!(session_list.get().len(), before);
    assert!(registry.find("groq", "openai/gpt-oss-120b").is_some());
    assert!(registry.find("groq", "ext-model").is_none());
    assert_find_matches_all(&registry);
}

#[test]
fn the_models_of_some_providers_are_the_lists_own() {
    let registry = ModelRegistry::with_config(Base::Catalog(None), config(MODELS_JSON), None);
    let keep = |p: &str| matches!(p, "anthropic" | "ollama" | "xai");
    let some = registry.all_where(&keep);
    assert!(!registry.list().is_built(), "built alone");
    let from_list: Vec<Model> = registry
        .all()
        .iter()
        .filter(|m| keep(&m.provider))
        .cloned()
        .collect();
    assert_eq!(some, from_list);
    assert_eq!(
        registry.all_where(&keep),
        from_list,
        "and from the built list"
    );
}

fn virtual_model(provider: &str, id: &str) -> Model {
    Model {
        id: id.into(),
        name: id.into(),
        api: rho_protocol::virtual_model::VIRTUAL_MODEL_API.into(),
        provider: provider.into(),
        ..Model::default()
    }
}

#[test]
fn virtual_models_are_listed_after_the_physical_ones_and_found_alone() {
    let registry = ModelRegistry::with_config(Base::Catalog(None), config(MODELS_JSON), None);
    registry
        .add_virtual_model(virtual_model("router", "auto"))
        .expect("a new provider");
    registry
        .add_virtual_model(virtual_model("ollama", "auto"))
        .expect("beside ollama's physical model");
    let all = registry.all();
    let tail: Vec<(&str, &str)> = all[all.len() - 2..]
        .iter()
        .map(|m| (m.provider.as_str(), m.id.as_str()))
        .collect();
    assert_eq!(tail, [("router", "auto"), ("ollama", "auto")]);
    assert!(registry
        .find("router", "auto")
        .is_some_and(|m| m.is_virtual()));
    assert!(registry.find_physical("router", "auto").is_none());
    assert!(registry.provider_ids().contains(&"router".to_string()));
    assert!(registry.is_virtual_only("router"), "needs no credentials");
    assert!(
        !registry.is_virtual_only("ollama"),
        "ollama's own auth counts"
    );
    assert_find_matches_all(&registry);
}

#[test]
fn a_removed_virtual_model_is_no_longer_listed_nor_found() {
    let registry = ModelRegistry::with_config(Base::Catalog(None), config(MODELS_JSON), None);
    let session_list = registry.list();
    registry
        .add_virtual_model(virtual_model("router", "auto"))
        .expect("added");
    assert!(session_list.get().iter().any(|m| m.provider == "router"));
    assert!(registry.remove_virtual_model("router", "auto"));
    assert!(!registry.remove_virtual_model("router", "auto"));
    assert!(!session_list.get().iter().any(|m| m.provider == "router"));
    assert!(registry.find("router", "auto").is_none());
    assert!(!registry.is_virtual_only("router"));
}

#[test]
fn a_virtual_model_may_not_take_a_physical_models_id() {
    let registry = ModelRegistry::with_config(Base::Catalog(None), config(MODELS_JSON), None);
    let refused = registry.add_virtual_model(virtual_model("ollama", "qwen3:8b"));
    assert_eq!(
        refused.map_err(|e| e.to_string()),
        Err("Virtual model ollama/qwen3:8b conflicts with a physical model.".to_string())
    );
    registry
        .add_virtual_model(virtual_model("router", "auto"))
        .expect("first");
    registry
        .add_virtual_model(virtual_model("router", "auto"))
        .expect("the same id again replaces it");
    let all = registry.all();
    let autos = all.iter().filter(|m| m.provider == "router").count();
    assert_eq!(autos, 1);
}
