//! Issue 37: `/llama` in a real terminal against a loopback llama.cpp router
//! (`LLAMA_BASE_URL`): `/llama load <id>` posts to the router's `/models/load`, waits until
//! the router lists the model loaded, reads the router's models again, and `/model` then
//! offers the loaded model, whose requests go to the router's `/v1`. Skipped (with a notice)
//! where tmux is not installed.

use crate::common;
use crate::tui;

use common::Sandbox;
use rho_testkit::{MockResponse, MockServer};
use serde_json::json;
use tui::{footer, skip_without_tmux, streamed, Tmux};

fn listing(models: serde_json::Value) -> MockResponse {
    MockResponse::json(&json!({ "object": "list", "data": models }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llama_load_calls_the_router_and_model_then_offers_the_loaded_model() {
    if skip_without_tmux("/llama") {
        return;
    }
    let sb = Sandbox::new().await;
    let router = MockServer::start().await;
    let url = router.url();
    // Offline: no start-up refresh asks the router; /llama does, as pi's does offline too.
    let env = [("LLAMA_BASE_URL", url.as_str())];
    let tmux = Tmux::start_with_env(&sb, &env, &["--offline", "--model", "mock-model"]);
    tmux.wait_for("the footer", |s| footer(s).contains("mock-model"))
        .await;

    let loaded = json!({"id": "qwen3-8b", "status": {"value": "loaded"}});
    let unloaded = json!({"id": "gemma-3", "status": {"value": "unloaded"}});
    router.push(MockResponse::json(&json!({"success": true})));
    router.push(listing(json!([loaded])));
    router.push(listing(json!([loaded, unloaded])));
    router.push(MockResponse::json(&json!({"chat_template": "plain"})));
    tmux.submit("/llama load qwen3-8b");
    tmux.wait_for_text("Loaded qwen3-8b").await;
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
            ("GET", "/models"),
            ("GET", "/props?model=qwen3-8b&autoload=false")
        ]
    );
    assert_eq!(requests[0].json(), json!({"model": "qwen3-8b"}));

    tmux.submit("/model");
    tmux.wait_for_text("Select model").await;
    tmux.type_text("qwen3");
    tmux.wait_for_text("qwen3-8b").await;
    tmux.send_keys(&["Enter"]);
    tmux.wait_for("qwen3-8b in the footer", |s| footer(s).contains("qwen3-8b"))
        .await;
    // The router's models are kept as pi keeps them: its loaded ones, in models-store.json.
    let store = std::fs::read_to_string(sb.agent.path().join("models-store.json")).unwrap();
    let store: serde_json::Value = serde_json::from_str(&store).unwrap();
    let ids: Vec<&str> = store["llama.cpp"]["models"]
        .as_array()
        .expect("the router's entry")
        .iter()
        .filter_map(|m| m["id"].as_str())
        .collect();
    assert_eq!(ids, ["qwen3-8b"], "an unloaded model is not offered");

    router.push(streamed(&["Local answer."]));
    tmux.submit("hello");
    tmux.wait_for_text("Local answer.").await;
    let chat = router.requests().pop().expect("the chat request");
    assert_eq!(chat.path, "/v1/chat/completions");
    assert_eq!(chat.json()["model"], "qwen3-8b");
    assert_eq!(chat.header("authorization"), Some("Bearer local"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llama_without_a_router_says_how_to_configure_one() {
    if skip_without_tmux("/llama") {
        return;
    }
    let sb = Sandbox::new().await;
    let tmux = tui::start(&sb).await;
    tmux.submit("/llama");
    tmux.wait_for_text("set LLAMA_BASE_URL").await;
}
