//! The worked examples, compiled and spawned as real processes through rho's process extension
//! host, driving an AgentSession over the scripted provider (docs/extensions.md).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;

use common::*;
use rho_core::agent_session::{AgentSession, PromptOptions};
use rho_extension_host::process::tool::TOOL_ABORTED;
use rho_extension_host::process::ProcessOptions;
use rho_testkit::scripted::{ScriptedProvider, ScriptedReply};
use serde_json::{json, Value};

#[tokio::test]
async fn input_transform_handles_transforms_and_continues() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("a"));
    provider.push(ScriptedReply::text("b"));
    let s = session_with(&provider, "input_transform").await;
    s.prompt("quiet please", PromptOptions::default())
        .await
        .expect("handled");
    assert_eq!(provider.call_count(), 0, "handled consumes the input");
    s.prompt("shout: hello", PromptOptions::default())
        .await
        .expect("runs");
    s.prompt("plain", PromptOptions::default())
        .await
        .expect("runs");
    let reqs = provider.requests();
    assert_eq!(request_texts(&reqs[0]), ["user:HELLO"]);
    assert_eq!(
        request_texts(&reqs[1]).last().map(String::as_str),
        Some("user:plain")
    );
}

#[tokio::test]
async fn command_sends_a_message_that_triggers_a_turn() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("because"));
    let s = session_with(&provider, "command_turn").await;
    let mut rx = s.subscribe();
    s.prompt("/ask why", PromptOptions::default())
        .await
        .expect("handled");
    assert!(errors(&drain(&mut rx)).is_empty());
    assert_eq!(provider.call_count(), 1, "the command's message ran a turn");
    assert_eq!(
        request_texts(&provider.requests()[0]),
        ["user:question: why"]
    );
    let last = s.messages().last().and_then(|m| m.as_assistant().cloned());
    assert_eq!(last.expect("reply").text(), "because");
}

#[tokio::test]
async fn the_model_uses_the_tool_and_its_update_streams() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[(
        "w1",
        "word_count",
        json!({"text": "one two three"}),
    )]));
    provider.push(ScriptedReply::text("three words"));
    let s = session_with(&provider, "tool_word_count").await;
    let mut rx = s.subscribe();
    s.prompt("count", PromptOptions::default())
        .await
        .expect("runs");
    let tools = &provider.requests()[0].tools;
    assert_eq!(tools[0].name, "word_count");
    assert_eq!(tools[0].parameters["required"], json!(["text"]));
    let result = &tool_results(&s)[0];
    assert!(!result.is_error);
    assert_eq!(rho_protocol::message::join_text(&result.content), "3 words");
    assert_eq!(result.details, Some(json!({"words": 3})));
    let updates: Vec<Value> = drain(&mut rx)
        .into_iter()
        .filter(|e| e["type"] == "tool_execution_update")
        .collect();
    assert_eq!(updates.len(), 1);
    assert_eq!(
        updates[0]["partialResult"]["content"][0]["text"],
        "counting…"
    );
}

#[tokio::test]
async fn aborting_the_tool_cancels_it_and_the_process_lives_on() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[(
        "w1",
        "word_count",
        json!({"text": "x", "slow": true}),
    )]));
    provider.push(ScriptedReply::tool_calls(&[(
        "w2",
        "word_count",
        json!({"text": "still here"}),
    )]));
    provider.push(ScriptedReply::text("done"));
    let ext = load_process("tool_word_count", ProcessOptions::default()).await;
    let mut c = config(&provider, json!({}));
    c.extensions = vec![ext.extension()];
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    let run = {
        let s = s.clone();
        tokio::spawn(async move { s.prompt("count slowly", PromptOptions::default()).await })
    };
    wait_for(&mut rx, "tool_execution_update").await;
    s.abort().await;
    run.await.expect("join").expect("prompt resolves");
    let aborted = &tool_results(&s)[0];
    assert!(aborted.is_error);
    assert_eq!(
        rho_protocol::message::join_text(&aborted.content),
        TOOL_ABORTED
    );
    assert!(
        ext.connection().dead_reason().is_none(),
        "the process lives on"
    );
    s.prompt("count again", PromptOptions::default())
        .await
        .expect("runs");
    let again = &tool_results(&s)[1];
    assert_eq!(rho_protocol::message::join_text(&again.content), "2 words");
}

#[tokio::test]
async fn the_guard_blocks_rm_rf_and_lets_harmless_commands_run() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[
        ("t1", "bash", json!({"command": "rm -rf /"})),
        ("t2", "bash", json!({"command": "ls"})),
    ]));
    provider.push(ScriptedReply::text("ok"));
    let mut c = config(&provider, json!({}));
    c.extensions = vec![load_process("guard_rm_rf", ProcessOptions::default())
        .await
        .extension()];
    c.tools = vec![Arc::new(EchoBash)];
    let s = AgentSession::new(c);
    s.prompt("clean up", PromptOptions::default())
        .await
        .expect("runs");
    let results = tool_results(&s);
    assert!(results[0].is_error);
    assert_eq!(
        rho_protocol::message::join_text(&results[0].content),
        "Blocked by guard: rm -rf is not allowed"
    );
    assert!(!results[1].is_error, "ls runs");
    assert_eq!(
        rho_protocol::message::join_text(&results[1].content),
        "ran: ls"
    );
}

#[tokio::test]
async fn the_compaction_entry_carries_the_extension_summary() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("first answer"));
    provider.push(ScriptedReply::text("second answer"));
    let mut c = config(&provider, json!({"compaction": {"keepRecentTokens": 1}}));
    c.extensions = vec![load_process("custom_compaction", ProcessOptions::default())
        .await
        .extension()];
    let s = AgentSession::new(c);
    for text in ["question", "another question"] {
        s.prompt(text, PromptOptions::default())
            .await
            .expect("runs");
    }
    let result = s.compact(None).await.expect("compacts");
    assert_eq!(provider.call_count(), 2, "no summarisation request");
    assert_eq!(result.summary, "Custom summary of 2 messages.");
    let compactions: Vec<Value> = entries(&s)
        .into_iter()
        .filter(|e| e["type"] == "compaction")
        .collect();
    assert_eq!(compactions.len(), 1);
    assert_eq!(compactions[0]["summary"], "Custom summary of 2 messages.");
    assert_eq!(compactions[0]["details"]["by"], "custom_compaction.rs");
    let first = serde_json::to_value(&s.messages()[0]).expect("json");
    assert_eq!(first["role"], "compactionSummary");
}
