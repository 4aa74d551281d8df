//! A provider a pi extension registers with `refreshModels` (pi 1.6's dynamic discovery,
//! docs/extensions.md): rho runs pi's two phases, over RPC with the real host. The stored
//! phase (`allowNetwork: false`, the models-store.json entry as `stored`) runs before the
//! model is chosen, so `--offline --model` can name a model only the store holds; the network
//! phase gets the provider's key resolved as `credential`, its models replace the provider's
//! and what it publishes (`persist`) lands in models-store.json, where pi 1.6 reads it too.
//! Skipped, with the reason printed, without node ≥ 22.18.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use crate::pi_support;
use crate::support::{Rpc, Start};

use serde_json::{json, Value};

/// Provider `live`: restores its stored models offline; from "the network" it lists
/// `net-model` named after the key it was handed, and persists that list. `forget` in the
/// key makes it delete its entry instead.
const LIVE: &str = r#"
export default function (pi) {
  pi.registerProvider("live", {
    baseUrl: "http://127.0.0.1:9/v1",
    apiKey: "live-key",
    api: "openai-completions",
    async refreshModels({ allowNetwork, stored, credential, publish }) {
      if (!allowNetwork) return stored?.models;
      if (credential?.key === "forget") {
        await publish({ persist: null });
        return [];
      }
      const models = [{ id: "net-model", name: `listed with ${credential?.key}`, reasoning: false,
        input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        contextWindow: 100000, maxTokens: 1000 }];
      await publish({ persist: { models, checkedAt: Date.now() } });
      return models;
    },
  });
}
"#;

/// How long the network phase, which runs in the background, may take to show.
const SETTLES: Duration = Duration::from_secs(20);

/// `get_available_models`' entries of provider `live`.
async fn live_models(rpc: &mut Rpc) -> Vec<Value> {
    let r = rpc
        .call(json!({"id": "am", "type": "get_available_models"}))
        .await;
    let models = r["data"]["models"].as_array().cloned().unwrap_or_default();
    models
        .into_iter()
        .filter(|m| m["provider"] == "live")
        .collect()
}

/// `live`'s models once `holds` says they are what the background refresh makes of them.
async fn live_models_once(rpc: &mut Rpc, holds: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let deadline = tokio::time::Instant::now() + SETTLES;
    loop {
        let models = live_models(rpc).await;
        if holds(&models) || tokio::time::Instant::now() > deadline {
            return models;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The `live` entry of the models-store.json in `agent`.
fn stored_entry(agent: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(agent.join("models-store.json")).unwrap_or_default();
    let store: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    store["live"].clone()
}

async fn start(home: Option<tempfile::TempDir>, args: &[&str]) -> Option<Rpc> {
    let opts = Start {
        home,
        own_model: args.contains(&"--model"),
        args: args.iter().map(|s| s.to_string()).collect(),
        ..Start::default()
    };
    pi_support::start_with_files(&[], &[("live.ts", LIVE)], opts).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refreshed_models_replace_the_providers_are_persisted_and_restored_offline() {
    let Some(mut rpc) = start(None, &[]).await else {
        return;
    };
    let models = live_models_once(&mut rpc, |m| !m.is_empty()).await;
    let names: Vec<&Value> = models.iter().map(|m| &m["name"]).collect();
    assert_eq!(
        names,
        [&json!("listed with live-key")],
        "the network phase's models, listed with the key resolved: {models:#?}"
    );
    let agent = rpc.agent_dir();
    let entry = stored_entry(&agent);
    assert_eq!(entry["models"][0]["id"], "net-model", "persisted: {entry}");
    assert!(entry["checkedAt"].is_i64(), "{entry}");
    let store = std::fs::read_to_string(agent.join("models-store.json")).expect("store");
    // The same home again: the folder outlives this process.
    let home = std::mem::replace(&mut rpc.home, tempfile::tempdir().expect("tempdir"));
    assert_eq!(rpc.close().await, Some(0));

    // Offline only the stored phase runs, before the model is chosen.
    let offline = ["--offline", "--model", "live/net-model"];
    let mut rpc = start(Some(home), &offline).await.expect("started before");
    let state = rpc.call(json!({"id": "s", "type": "get_state"})).await;
    assert_eq!(state["data"]["model"]["provider"], "live", "{state}");
    assert_eq!(state["data"]["model"]["id"], "net-model", "{state}");
    assert_eq!(state["data"]["model"]["name"], "listed with live-key");
    assert_eq!(rpc.close().await, Some(0));

    // pi 1.6 restores the same model from the store rho wrote.
    let home = tempfile::tempdir().expect("home");
    std::fs::create_dir_all(home.path().join("agent")).expect("agent");
    std::fs::write(home.path().join("agent/models-store.json"), &store).expect("store");
    let Some(mut pi) = pi_support::start_pi(&home, LIVE, &offline) else {
        return;
    };
    let state = pi.call(json!({"type": "get_state"})).await;
    pi.stop().await;
    assert_eq!(state["data"]["model"]["id"], "net-model", "pi 1.6: {state}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_that_publishes_null_deletes_the_providers_stored_entry() {
    let home = tempfile::tempdir().expect("home");
    let agent = home.path().join("agent");
    std::fs::create_dir_all(&agent).expect("agent");
    let entry = json!({"models": [{"id": "old-model"}], "checkedAt": 1});
    let store = json!({"live": entry, "other": {"models": []}});
    std::fs::write(agent.join("models-store.json"), store.to_string()).expect("store");
    std::fs::write(
        agent.join("auth.json"),
        json!({"live": {"type": "api_key", "key": "forget"}}).to_string(),
    )
    .expect("auth.json");
    let Some(mut rpc) = start(Some(home), &[]).await else {
        return;
    };
    let models = live_models_once(&mut rpc, |m| m.is_empty()).await;
    assert!(
        models.is_empty(),
        "the network phase's empty list: {models:#?}"
    );
    let deadline = tokio::time::Instant::now() + SETTLES;
    while !stored_entry(&agent).is_null() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let text = std::fs::read_to_string(agent.join("models-store.json")).expect("store");
    let store: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(
        store,
        json!({"other": {"models": []}}),
        "only live's entry went"
    );
    assert_eq!(rpc.close().await, Some(0));
}
