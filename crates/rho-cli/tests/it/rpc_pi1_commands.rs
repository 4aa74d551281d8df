//! The commands of the pi 1.x dialect against the binary (pi 1.6's docs/rpc-commands.md):
//! dispositions, `clear_queue`, `get_entries`, `get_tree`, `get_available_thinking_levels`,
//! `bash` with `bash_execution_update` and `excludeFromContext`, `get_last_assistant_text`'s
//! null, the unsaved-session refusal of `clone`; and the 0.73.1 dialect answering as before.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::{json, Value};
use support::{reply, Rpc, Start};

async fn start(dialect: &str) -> Rpc {
    Rpc::start_with(Start {
        with_sessions: true,
        args: vec!["--rpc-dialect".into(), dialect.into()],
        ..Start::default()
    })
    .await
}

async fn data(rpc: &mut Rpc, command: Value) -> Value {
    let r = rpc.call(command).await;
    assert_eq!(r["success"], true, "{r}");
    r["data"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_1x_dialect_has_the_1x_commands_and_answers() {
    let mut rpc = start("1.x").await;
    let r = data(&mut rpc, json!({"id": "q", "type": "clear_queue"})).await;
    assert_eq!(r, json!({"steering": [], "followUp": []}));
    let r = data(
        &mut rpc,
        json!({"id": "t", "type": "get_last_assistant_text"}),
    )
    .await;
    assert_eq!(r, json!({"text": null}));
    let r = data(
        &mut rpc,
        json!({"id": "l", "type": "get_available_thinking_levels"}),
    )
    .await;
    assert_eq!(r, json!({"levels": ["off"]}));
    rpc.call(json!({"id": "m", "type": "set_model", "provider": "mock", "modelId": "r1"}))
        .await;
    let r = data(
        &mut rpc,
        json!({"id": "l2", "type": "get_available_thinking_levels"}),
    )
    .await;
    assert_eq!(r["levels"][0], "off");
    assert!(r["levels"].as_array().expect("levels").len() > 1, "{r}");
    let r = data(&mut rpc, json!({"id": "e0", "type": "get_entries"})).await;
    let before = r["entries"].as_array().expect("entries").len();

    rpc.server.push(reply("hello back"));
    let r = data(
        &mut rpc,
        json!({"id": "p", "type": "prompt", "message": "hi"}),
    )
    .await;
    assert_eq!(r, json!({"disposition": "started"}));
    rpc.event("agent_end").await;
    rpc.idle().await;
    let r = data(
        &mut rpc,
        json!({"id": "t2", "type": "get_last_assistant_text"}),
    )
    .await;
    assert_eq!(r, json!({"text": "hello back"}));

    let r = data(&mut rpc, json!({"id": "e", "type": "get_entries"})).await;
    let entries = r["entries"].as_array().expect("entries").clone();
    // The first prompt records the system prompt and tools first (D18), then user and reply.
    assert_eq!(entries.len(), before + 3, "{r}");
    assert_eq!(entries[before]["message"]["role"], "system", "{r}");
    let last = entries.last().expect("an entry");
    assert_eq!(r["leafId"], last["id"]);
    assert_eq!(last["message"]["role"], "assistant");
    let first_id = entries[0]["id"].clone();
    let r = data(
        &mut rpc,
        json!({"id": "e2", "type": "get_entries", "since": first_id}),
    )
    .await;
    assert_eq!(
        r["entries"].as_array().expect("entries").len(),
        entries.len() - 1
    );
    let r = rpc
        .call(json!({"id": "e3", "type": "get_entries", "since": "nope"}))
        .await;
    assert_eq!(
        (r["success"].clone(), r["error"].clone()),
        (json!(false), json!("Entry not found: nope"))
    );

    let r = data(&mut rpc, json!({"id": "g", "type": "get_tree"})).await;
    assert_eq!(r["leafId"], last["id"]);
    let mut node = &r["tree"][0];
    let mut chain = vec![node["entry"]["id"].clone()];
    while let Some(child) = node["children"].get(0) {
        node = child;
        chain.push(node["entry"]["id"].clone());
    }
    let ids: Vec<Value> = entries.iter().map(|e| e["id"].clone()).collect();
    assert_eq!(chain, ids);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bash_streams_updates_with_its_id_and_can_stay_out_of_context() {
    let mut rpc = start("1.x").await;
    let r = data(
        &mut rpc,
        json!({"id": "b1", "type": "bash", "command": "echo one; echo two", "excludeFromContext": true}),
    )
    .await;
    assert_eq!(r["output"], "one\ntwo\n");
    let updates: Vec<&Value> = rpc
        .seen
        .iter()
        .filter(|v| v["type"] == "bash_execution_update")
        .collect();
    assert!(!updates.is_empty());
    assert!(updates.iter().all(|u| u["id"] == "b1"), "{updates:?}");
    let streamed: String = updates.iter().filter_map(|u| u["delta"].as_str()).collect();
    assert_eq!(streamed, "one\ntwo\n");
    let response = rpc.position(|v| v["type"] == "response" && v["id"] == "b1");
    let first = rpc.position(|v| v["type"] == "bash_execution_update");
    assert!(first < response, "updates come before the response");
    let m = data(&mut rpc, json!({"id": "m", "type": "get_messages"})).await;
    assert_eq!(m["messages"][0]["role"], "bashExecution");
    assert_eq!(m["messages"][0]["excludeFromContext"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clone_refuses_a_session_not_written_yet() {
    let mut rpc = start("1.x").await;
    let r = data(
        &mut rpc,
        json!({"id": "b", "type": "bash", "command": "true"}),
    )
    .await;
    assert_eq!(r["exitCode"], 0);
    let r = rpc.call(json!({"id": "c", "type": "clone"})).await;
    assert_eq!(
        r["error"],
        "This session has not been saved yet. Send a message before cloning or forking it."
    );
}

/// The types of the session's entries, as `get_entries` lists them.
async fn entry_types(rpc: &mut support::Rpc, id: &str) -> Vec<String> {
    let r = data(rpc, json!({"id": id, "type": "get_entries"})).await;
    let entries = r["entries"].as_array().cloned().unwrap_or_default();
    entries
        .iter()
        .filter_map(|e| e["type"].as_str().map(str::to_string))
        .collect()
}

/// pi 1.6 starts a new session with its model and thinking level, as start-up does, and
/// still refuses to clone it before anything is written; pi 0.73.1 started it empty.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_session_starts_with_the_model_and_thinking_level() {
    let mut rpc = start("1.x").await;
    let r = data(&mut rpc, json!({"id": "n", "type": "new_session"})).await;
    assert_eq!(r["cancelled"], false);
    assert_eq!(
        entry_types(&mut rpc, "e").await,
        ["model_change", "thinking_level_change"]
    );
    let r = rpc.call(json!({"id": "c", "type": "clone"})).await;
    assert_eq!(
        r["error"],
        "This session has not been saved yet. Send a message before cloning or forking it."
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_073_dialect_answers_as_pi_073() {
    let mut rpc = start("0.73").await;
    for name in [
        "clear_queue",
        "get_entries",
        "get_tree",
        "get_available_thinking_levels",
    ] {
        let r = rpc.call(json!({"id": name, "type": name})).await;
        assert_eq!(r["error"], format!("Unknown command: {name}"), "{r}");
        assert_eq!(r["id"], name);
    }
    let r = rpc
        .call(json!({"id": "t", "type": "get_last_assistant_text"}))
        .await;
    assert_eq!(r["data"], json!({}));
    rpc.server.push(reply("fine"));
    let r = rpc
        .call(json!({"id": "p", "type": "prompt", "message": "hi"}))
        .await;
    assert_eq!(
        r,
        json!({"id": "p", "type": "response", "command": "prompt", "success": true})
    );
    rpc.event("agent_end").await;
    rpc.idle().await;
    let r = rpc
        .call(json!({"id": "b", "type": "bash", "command": "echo x"}))
        .await;
    assert_eq!(r["data"]["output"], "x\n");
    assert!(rpc
        .position(|v| v["type"] == "bash_execution_update")
        .is_none());
}
