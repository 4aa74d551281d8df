//! The JSON shape of agent events where typed clients look (issue 18.7): pi's
//! `toolcall_end.toolCall` is a content block with `"type":"toolCall"`, and
//! `turn_end.toolResults[]` are messages with `"role":"toolResult"`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{agent, run_events, user};
use rho_testkit::scripted::{ScriptedProvider, ScriptedReply};
use serde_json::{json, Value};

use common::{Behavior, TestTool};

async fn tool_run_json() -> Vec<Value> {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[(
        "c1",
        "echo",
        json!({"x": 1}),
    )]));
    provider.push(ScriptedReply::text("done"));
    let agent = agent(&provider);
    agent.set_tools(vec![TestTool::new("echo", Behavior::Echo).arc()]);
    let mut rx = agent.subscribe();
    let run = agent.prompt(vec![user("go")]);
    let events = run_events(&mut rx).await;
    run.await.expect("run");
    events
        .iter()
        .map(|e| serde_json::to_value(&**e).expect("serializes"))
        .collect()
}

#[tokio::test]
async fn toolcall_end_carries_a_typed_tool_call() {
    let events = tool_run_json().await;
    let end = events
        .iter()
        .find(|e| e["assistantMessageEvent"]["type"] == "toolcall_end")
        .expect("toolcall_end");
    let call = &end["assistantMessageEvent"]["toolCall"];
    assert_eq!(call["type"], "toolCall");
    assert_eq!(call["id"], "c1");
    assert_eq!(call["arguments"], json!({"x": 1}));
}

#[tokio::test]
async fn turn_end_tool_results_are_tool_result_messages() {
    let events = tool_run_json().await;
    let turn_end = events
        .iter()
        .find(|e| {
            e["type"] == "turn_end" && e["toolResults"].as_array().is_some_and(|r| !r.is_empty())
        })
        .expect("turn_end with results");
    let result = &turn_end["toolResults"][0];
    assert_eq!(result["role"], "toolResult");
    assert_eq!(result["toolCallId"], "c1");
}
