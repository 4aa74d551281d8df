//! A `compact` holds nothing back on the RPC side: the commands after it take effect while
//! the compaction runs, and a prompt sent meanwhile is the session's to hold, which runs it
//! once the compaction is over, with the summary in its context.

use crate::support;

use rho_testkit::Gate;
use serde_json::json;
use support::{gated_reply, reply, Rpc, Start};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_after_a_compact_take_effect_during_it_and_a_prompt_runs_after_it() {
    let mut rpc = Rpc::start_with(Start {
        settings: Some(json!({"compaction": {"keepRecentTokens": 1}})),
        ..Start::default()
    })
    .await;
    rpc.server.push(reply("First answer."));
    rpc.prompt_ok("p1", "first question").await;
    let gate = Gate::new();
    rpc.server
        .push(gated_reply("## Goal\n", &gate, "THE SUMMARY."));
    rpc.server.push(reply("## Goal\nTHE SUMMARY."));
    rpc.server.push(reply("After the summary."));
    rpc.send(json!({"id": "c", "type": "compact"})).await;
    rpc.event("compaction_start").await;
    let named = rpc
        .call(json!({"id": "n", "type": "set_session_name", "name": "during"}))
        .await;
    assert_eq!(named["success"], true, "answered while compacting: {named}");
    let state = rpc.call(json!({"id": "s", "type": "get_state"})).await;
    assert_eq!(state["data"]["isCompacting"], true, "{state}");
    assert_eq!(state["data"]["isStreaming"], false, "{state}");
    rpc.send(json!({"id": "p2", "type": "prompt", "message": "typed while compacting"}))
        .await;
    gate.open();
    let accepted = rpc.response(&json!("p2")).await;
    assert_eq!(accepted["success"], true, "{accepted}");
    let compacted = rpc.response(&json!("c")).await;
    assert_eq!(compacted["success"], true, "{compacted}");
    rpc.event("agent_end").await;
    let from = rpc
        .position(|v| v["type"] == "compaction_start")
        .expect("seen");
    let after: Vec<&str> = rpc.seen[from..]
        .iter()
        .filter_map(|v| match v["type"].as_str() {
            Some("response") => v["id"].as_str(),
            other => other,
        })
        .filter(|t| ["compaction_end", "p2", "agent_start", "n"].contains(t))
        .collect();
    assert_eq!(
        after,
        ["n", "compaction_end", "p2", "agent_start"],
        "{:#?}",
        rpc.seen
    );
    let requests = rpc.server.requests();
    let sent = requests
        .last()
        .expect("the prompt's call")
        .json()
        .to_string();
    assert!(sent.contains("typed while compacting"), "{sent}");
    assert!(
        sent.contains("THE SUMMARY."),
        "sent after the summary: {sent}"
    );
    assert_eq!(rpc.close().await, Some(0));
}
