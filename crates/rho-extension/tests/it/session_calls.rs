//! The `session_calls` example: calls into rho reach the session, and the delivery routes of
//! `send_message` behave as their names say.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use rho_core::agent_session::{AgentSession, PromptOptions};
use rho_extension_host::process::ProcessOptions;
use rho_testkit::scripted::{ScriptedProvider, ScriptedReply};
use serde_json::{json, Value};

async fn session(provider: &ScriptedProvider, flags: Value) -> AgentSession {
    let options = ProcessOptions {
        flags: flags.as_object().cloned().unwrap_or_default(),
        ..ProcessOptions::default()
    };
    let mut c = config(provider, json!({}));
    c.extensions = vec![load_process("session_calls", options).await.extension()];
    AgentSession::new(c)
}

#[tokio::test]
async fn status_records_state_exec_ui_and_flag_through_calls() {
    let provider = ScriptedProvider::new();
    let s = session(&provider, json!({"greeting": "hej"})).await;
    let mut rx = s.subscribe();
    s.prompt("/status", PromptOptions::default())
        .await
        .expect("handled");
    assert!(errors(&drain(&mut rx)).is_empty());
    assert_eq!(provider.call_count(), 0);
    let custom: Vec<Value> = entries(&s)
        .into_iter()
        .filter(|e| e["type"] == "custom")
        .collect();
    assert_eq!(custom.len(), 1);
    assert_eq!(custom[0]["customType"], "status");
    assert_eq!(
        custom[0]["data"],
        json!({"cwd": "/work", "isIdle": true, "exec": "hi from exec", "confirm": false,
               "greeting": "hej"})
    );
    let name = s.with_session(|m| m.name().map(str::to_string));
    assert_eq!(name.as_deref(), Some("status checked"));
}

#[tokio::test]
async fn append_adds_the_note_without_a_turn_and_next_turn_rides_with_the_prompt() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let s = session(&provider, json!({})).await;
    let mut rx = s.subscribe();
    s.prompt("/note append kept quietly", PromptOptions::default())
        .await
        .expect("handled");
    s.prompt(
        "/note nextTurn along for the ride",
        PromptOptions::default(),
    )
    .await
    .expect("handled");
    assert_eq!(provider.call_count(), 0, "neither route starts a turn");
    s.prompt("hi", PromptOptions::default())
        .await
        .expect("runs");
    assert!(errors(&drain(&mut rx)).is_empty());
    assert_eq!(
        request_texts(&provider.requests()[0]),
        ["user:kept quietly", "user:hi", "user:along for the ride"],
        "the appended note is history; the next-turn note follows the prompt it rode with"
    );
}

#[tokio::test]
async fn an_unknown_route_is_the_command_error() {
    let provider = ScriptedProvider::new();
    let s = session(&provider, json!({})).await;
    let mut rx = s.subscribe();
    s.prompt("/note sideways x", PromptOptions::default())
        .await
        .expect("handled");
    let errs = errors(&drain(&mut rx));
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0]["error"], "unknown route \"sideways\"");
}
