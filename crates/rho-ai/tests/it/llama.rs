//! Issue 37: a llama.cpp router on loopback, driven as pi 1.6's llama.cpp provider drives it:
//! the refresh stores its loaded and sleeping chat models (the loaded ones asked for their
//! chat template) and the registry lists them as provider `llama.cpp`; loading posts to
//! `/models/load` and waits for the router to list the model loaded; the router's errors
//! come back in pi's words.

use std::sync::Arc;

use rho_ai::llama::{LlamaClient, LlamaError};
use rho_ai::models_store::refresh::{refresh_llama, Target};
use rho_ai::models_store::ModelsStore;
use rho_ai::registry::{Base, ModelRegistry};
use rho_testkit::{MockResponse, MockServer};
use serde_json::json;

fn listing(models: serde_json::Value) -> MockResponse {
    MockResponse::json(&json!({ "object": "list", "data": models }))
}

#[tokio::test]
async fn the_routers_loaded_and_sleeping_chat_models_are_stored_and_listed() {
    let router = MockServer::start().await;
    router.push(listing(json!([
        {"id": "qwen3-8b", "status": {"value": "loaded", "args": ["-c", "16384"]}, "source": "cache"},
        {"id": "gemma-3", "status": {"value": "sleeping"}, "meta": {"n_ctx_train": 8192},
         "architecture": {"input_modalities": ["text", "image"], "output_modalities": ["text"]}},
        {"id": "llama-3.2-1b", "status": {"value": "unloaded"}, "source": "cache"},
        {"id": "jev", "status": {"value": "loaded"}, "architecture": {"output_modalities": ["decisions"]}}
    ])));
    // Only the loaded chat model is asked for its template (asking a sleeping one wakes it).
    router.push(MockResponse::json(
        &json!({"chat_template": "{% if enable_thinking %}..."}),
    ));
    let agent = tempfile::tempdir().expect("agent dir");
    let store = Arc::new(ModelsStore::new(agent.path(), Arc::new(|_| {})));
    let target = Target {
        provider: "llama.cpp".into(),
        key: Some("secret".into()),
        base_url: format!("{}/v1/", router.url()),
    };
    refresh_llama(&store, &target).await.expect("refreshed");

    let requests = router.requests();
    let paths: Vec<&str> = requests.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(paths, ["/models", "/props?model=qwen3-8b&autoload=false"]);
    assert!(requests
        .iter()
        .all(|r| r.header("authorization") == Some("Bearer secret")));

    let registry = ModelRegistry::with_config(Base::Catalog(Some(store)), Default::default(), None);
    let models = registry.all();
    let llama: Vec<_> = models
        .iter()
        .filter(|m| m.provider == "llama.cpp")
        .collect();
    let ids: Vec<&str> = llama.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["qwen3-8b", "gemma-3"]);
    let qwen = llama[0];
    assert_eq!(qwen.base_url, format!("{}/v1", router.url()));
    assert_eq!((qwen.context_window, qwen.reasoning), (16_384, true));
    let gemma = llama[1];
    assert_eq!((gemma.context_window, gemma.reasoning), (8192, false));
    assert!(gemma.supports_images());
    assert!(registry.provider_ids().iter().any(|p| p == "llama.cpp"));
    assert_eq!(
        registry.find("llama.cpp", "gemma-3").map(|m| m.id),
        Some("gemma-3".to_string())
    );
}

#[tokio::test]
async fn loading_posts_to_the_router_and_waits_until_it_lists_the_model_loaded() {
    let router = MockServer::start().await;
    router.push(MockResponse::json(&json!({"success": true})));
    router.push(listing(
        json!([{"id": "m", "status": {"value": "loading"}}]),
    ));
    router.push(listing(json!([{"id": "m", "status": {"value": "loaded"}}])));
    let client = LlamaClient::new(&router.url(), None).expect("client");
    client.load_and_wait("m").await.expect("loaded");
    let requests = router.requests();
    let calls: Vec<(&str, &str)> = requests
        .iter()
        .map(|r| (r.method.as_str(), r.path.as_str()))
        .collect();
    assert_eq!(
        calls,
        [
            ("POST", "/models/load"),
            ("GET", "/models"),
            ("GET", "/models")
        ]
    );
    assert_eq!(requests[0].json(), json!({"model": "m"}));
    assert_eq!(
        requests[0].header("authorization"),
        None,
        "no key, no header"
    );

    router.push(MockResponse::json(&json!({"success": true})));
    router.push(listing(
        json!([{"id": "m", "status": {"value": "unloaded"}}]),
    ));
    client.unload_and_wait("m").await.expect("unloaded");
    let last = &router.requests()[3];
    assert_eq!(
        (last.method.as_str(), last.path.as_str()),
        ("POST", "/models/unload")
    );
}

#[tokio::test]
async fn the_routers_failures_come_back_in_pis_words() {
    let router = MockServer::start().await;
    let client = LlamaClient::new(&router.url(), Some("k".into())).expect("client");

    router.push(MockResponse::json(&json!({})));
    router.push(listing(
        json!([{"id": "m", "status": {"value": "unloaded", "failed": true, "exit_code": 1}}]),
    ));
    let failed = client.load_and_wait("m").await.expect_err("failed");
    assert_eq!(failed.to_string(), "Model exited with code 1");

    router.push(MockResponse::error(
        400,
        r#"{"error": {"message": "model not found"}}"#,
    ));
    assert_eq!(
        client.load("nope").await.expect_err("refused"),
        LlamaError::Server("model not found".into())
    );
    router.push(MockResponse::error(503, "busy"));
    assert_eq!(
        client.list().await.expect_err("refused").to_string(),
        "llama.cpp returned HTTP 503"
    );
    // A single-model server lists models without a router status.
    router.push(listing(json!([{"id": "m", "object": "model"}])));
    assert_eq!(
        client.list().await.expect_err("not a router").to_string(),
        "Server is not running in llama.cpp router mode"
    );
    router.push(MockResponse::json(&json!({"models": []})));
    assert_eq!(
        client.list().await.expect_err("no data").to_string(),
        "llama.cpp returned an invalid model catalog"
    );
    let gone = LlamaClient::new("http://127.0.0.1:9", None).expect("client");
    let text = gone.list().await.expect_err("unreachable").to_string();
    assert!(
        text.starts_with("Could not reach llama.cpp server at http://127.0.0.1:9: "),
        "{text}"
    );
}
