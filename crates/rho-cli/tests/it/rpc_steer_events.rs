//! D4 + D15 over RPC: a steer that interrupts a streaming reply leaves a well-formed event
//! stream (every `message_start` has its `message_end`, every `turn_start` its `turn_end`,
//! every `agent_start` its `agent_end`),
//! while the discarded partial stays out of the session file and the next request.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::json;
use support::stream::assert_well_formed;
use support::{hanging_reply, is_text_delta, reply, user_texts, Rpc, Start};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_steer_ends_the_interrupted_reply_and_its_turn() {
    let mut rpc = Rpc::start_with(Start {
        with_sessions: true,
        ..Start::default()
    })
    .await;
    rpc.server.push(hanging_reply("Refactoring every"));
    rpc.server.push(reply("Only the parser, then."));
    let r = rpc
        .call(json!({"id": "p", "type": "prompt", "message": "refactor"}))
        .await;
    assert_eq!(r["success"], true);
    rpc.wait(is_text_delta).await;
    let r = rpc
        .call(json!({"id": "s", "type": "steer", "message": "only the parser"}))
        .await;
    assert_eq!(r["success"], true);
    rpc.event("agent_end").await;
    rpc.idle().await;
    let assistants = assert_well_formed(&rpc.seen);
    assert_eq!(assistants.len(), 2, "{assistants:#?}");
    assert_eq!(assistants[0]["stopReason"], "aborted");
    assert_eq!(assistants[0]["content"][0]["text"], "Refactoring every");
    assert!(
        assistants[0]["errorMessage"]
            .as_str()
            .is_some_and(|m| m.contains("discarded")),
        "says it was discarded: {}",
        assistants[0]
    );
    assert_eq!(assistants[1]["stopReason"], "stop");
    let second = user_texts(&rpc.server.requests()[1].json());
    assert_eq!(second, ["refactor", "only the parser"]);
    let body = rpc.server.requests()[1].json();
    assert!(
        !body.to_string().contains("Refactoring every"),
        "the partial is not sent again"
    );
    let files: Vec<_> = walk(&rpc.sessions_dir());
    assert_eq!(files.len(), 1, "{files:?}");
    let text = support::read(&files[0]);
    assert!(!text.contains("Refactoring every"), "not persisted: {text}");
    assert!(text.contains("Only the parser, then."));
    assert_eq!(rpc.close().await, Some(0));
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
    out
}

/// Issue 18.7: an aborted stream closes its open blocks (`text_end`) before `message_end`,
/// as pi's openai-completions provider does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abort_closes_the_open_text_block_before_message_end() {
    let mut rpc = Rpc::start().await;
    rpc.server.push(hanging_reply("Half a sent"));
    rpc.call(json!({"id": "p", "type": "prompt", "message": "go"}))
        .await;
    rpc.wait(is_text_delta).await;
    let r = rpc.call(json!({"id": "a", "type": "abort"})).await;
    assert_eq!(r["success"], true);
    rpc.event("agent_end").await;
    let kinds: Vec<String> = rpc
        .seen
        .iter()
        .filter_map(|v| match v["type"].as_str() {
            Some("message_update") => v["assistantMessageEvent"]["type"]
                .as_str()
                .map(str::to_string),
            Some("message_end") if v["message"]["role"] == "assistant" => Some(format!(
                "message_end:{}",
                v["message"]["stopReason"].as_str().unwrap_or("")
            )),
            _ => None,
        })
        .collect();
    let end = kinds
        .iter()
        .position(|k| k == "message_end:aborted")
        .expect("aborted end");
    assert_eq!(kinds[end - 1], "text_end", "{kinds:?}");
    let text_end = rpc
        .seen
        .iter()
        .find(|v| v["assistantMessageEvent"]["type"] == "text_end")
        .expect("text_end");
    assert_eq!(text_end["assistantMessageEvent"]["content"], "Half a sent");
    assert_well_formed(&rpc.seen);
    assert_eq!(rpc.close().await, Some(0));
}
