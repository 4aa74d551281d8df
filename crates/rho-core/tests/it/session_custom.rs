//! Custom messages and extension commands through AgentSession (seed diagrams 6 and 7;
//! CM-, CMD- rules; D9).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::session_common as common;

use std::sync::Arc;

use common::*;
use rho_ai::UserContent;
use rho_core::agent_session::{AgentSession, PromptOptions, SendMessageOptions};
use rho_extension_host::{CommandDef, CustomMessageInput, DeliverAs, Extension, SendOptions};
use rho_testkit::scripted::{ScriptedProvider, ScriptedReply, Step};
use serde_json::json;

fn note(text: &str) -> CustomMessageInput {
    CustomMessageInput {
        custom_type: "note".into(),
        content: UserContent::Text(text.into()),
        display: true,
        details: Some(json!({"k": 1})),
    }
}

#[tokio::test]
async fn cm_6_idle_without_trigger_appends_and_emits_without_llm_call() {
    let provider = ScriptedProvider::new();
    let s = session(&provider);
    let mut rx = s.subscribe();
    s.send_custom_message(note("fyi"), SendMessageOptions::default())
        .await
        .expect("appended");
    assert_eq!(provider.call_count(), 0);
    let events = json_events(&drain(&mut rx));
    assert_eq!(events.len(), 2);
    assert_eq!(events[0]["type"], "message_start");
    assert_eq!(events[1]["type"], "message_end");
    assert_eq!(events[1]["message"]["role"], "custom");
    assert_eq!(events[1]["message"]["details"], json!({"k": 1}));
    assert_eq!(s.messages().len(), 1);
    let stored: Vec<String> = s.with_session(|m| {
        m.entries()
            .iter()
            .map(|e| e.data.type_name().to_string())
            .collect()
    });
    assert_eq!(stored, ["custom_message"]);
}

#[tokio::test]
async fn cm_5_and_cm_1_idle_trigger_turn_runs_through_the_run_loop_d9() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().fail("503 Service Unavailable"));
    provider.push(ScriptedReply::text("reply"));
    let s = session(&provider);
    let mut rx = s.subscribe();
    s.send_custom_message(
        note("please act"),
        SendMessageOptions {
            trigger_turn: true,
            deliver_as: None,
        },
    )
    .await
    .expect("ran");
    assert_eq!(
        provider.call_count(),
        2,
        "D9: retries apply to triggered turns"
    );
    assert_eq!(request_texts(&provider.requests()[0]), ["user:please act"]);
    let events = drain(&mut rx);
    assert!(types(&events).contains(&"auto_retry_start"));
    let custom_end = json_events(&events)
        .into_iter()
        .find(|e| e["type"] == "message_end" && e["message"]["role"] == "custom")
        .expect("CM-1: the custom message is a run prompt");
    let m = &custom_end["message"];
    assert_eq!(
        (
            m["customType"].as_str(),
            m["content"].as_str(),
            m["display"].as_bool(),
            m["details"].clone()
        ),
        (
            Some("note"),
            Some("please act"),
            Some(true),
            json!({"k": 1})
        )
    );
    assert!(m["timestamp"].is_number());
}

#[tokio::test]
async fn cm_3_and_cm_4_and_cm_7_and_cm_11_streaming_routes_follow_up_and_steer() {
    let provider = ScriptedProvider::new();
    let gate = Arc::new(tokio::sync::Notify::new());
    provider.push(
        ScriptedReply::new()
            .step(Step::Gate(gate.clone()))
            .with_text(&["one"]),
    );
    provider.push(ScriptedReply::text("two"));
    provider.push(ScriptedReply::text("three"));
    let s = session(&provider);
    let mut rx = s.subscribe();
    let runner = {
        let s = s.clone();
        tokio::spawn(async move { s.prompt("go", PromptOptions::default()).await })
    };
    wait_for(&mut rx, "message_start").await;
    provider.wait_for_calls(1).await;
    let follow = SendMessageOptions {
        trigger_turn: true,
        deliver_as: Some(DeliverAs::FollowUp),
    };
    s.send_custom_message(note("later"), follow)
        .await
        .expect("queued");
    s.send_custom_message(note("now"), SendMessageOptions::default())
        .await
        .expect("queued");
    assert_eq!(
        s.pending_message_count(),
        0,
        "CM-7: custom messages are not in the lists"
    );
    gate.notify_one();
    runner.await.expect("join").expect("ok");
    let reqs = provider.requests();
    assert_eq!(provider.call_count(), 3);
    let second = request_texts(&reqs[1]);
    assert_eq!(
        second.last().map(String::as_str),
        Some("user:now"),
        "steer first"
    );
    let third = request_texts(&reqs[2]);
    assert_eq!(
        third.last().map(String::as_str),
        Some("user:later"),
        "follow-up when it would stop"
    );
}

#[tokio::test]
async fn cm_10_send_user_message_joins_text_and_skips_templates() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let mut c = config(&provider);
    c.templates = vec![rho_core::resources::templates::parse_template(
        "t",
        "EXPANDED",
        "/t.md".into(),
    )];
    let s = AgentSession::new(c);
    s.send_user_message(
        rho_core::agent_session::UserMessageContent::Blocks(vec![
            rho_ai::ContentBlock::text("/t a"),
            rho_ai::ContentBlock::text("b"),
        ]),
        None,
    )
    .await
    .expect("sent");
    assert_eq!(request_texts(&provider.requests()[0]), ["user:/t a\nb"]);
}

#[tokio::test]
async fn cmd_5_command_sends_a_custom_message_that_triggers_a_turn() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("answer"));
    let mut ext = Extension::new("trigger.ext");
    ext.register_command(CommandDef {
        complete: None,
        name: "ask".into(),
        description: Some("ask the model".into()),
        handler: Arc::new(|args, ctx| {
            Box::pin(async move {
                ctx.host
                    .send_message(
                        note(&format!("question: {args}")),
                        SendOptions {
                            trigger_turn: true,
                            deliver_as: None,
                        },
                    )
                    .await
                    .map_err(String::from)
            })
        }),
    });
    let mut c = config(&provider);
    c.extensions = vec![ext];
    let s = AgentSession::new(c);
    s.prompt("/ask why", PromptOptions::default())
        .await
        .expect("handled");
    assert_eq!(provider.call_count(), 1);
    assert_eq!(
        request_texts(&provider.requests()[0]),
        ["user:question: why"]
    );
    let last = s
        .messages()
        .last()
        .and_then(|m| m.as_assistant().cloned())
        .expect("reply");
    assert_eq!(last.text(), "answer");
}

#[tokio::test]
async fn cmd_5_failing_command_is_reported_and_counts_as_handled() {
    let provider = ScriptedProvider::new();
    let mut ext = Extension::new("fail.ext");
    ext.register_command(CommandDef {
        complete: None,
        name: "fail".into(),
        description: None,
        handler: Arc::new(|_, _| Box::pin(async { Err("it broke".to_string()) })),
    });
    let mut c = config(&provider);
    c.extensions = vec![ext];
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.prompt("/fail", PromptOptions::default())
        .await
        .expect("handled anyway");
    assert_eq!(
        json_events(&drain(&mut rx)),
        vec![
            json!({"type": "extension_error", "extensionPath": "command:fail", "event": "command", "error": "it broke"})
        ]
    );
    assert_eq!(provider.call_count(), 0);
}

#[tokio::test]
async fn ext_10_tool_call_guard_blocks_rm_rf_through_the_session() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[(
        "t1",
        "bash",
        json!({"command": "rm -rf /"}),
    )]));
    provider.push(ScriptedReply::text("ok, not doing that"));
    let mut c = config(&provider);
    c.extensions = vec![extension_on("guard.ext", "tool_call", |e, _| {
        let rho_extension_host::ExtensionEvent::ToolCall { input, .. } = e else {
            return Ok(None);
        };
        let cmd = input["command"].as_str().unwrap_or("");
        Ok(cmd
            .contains("rm -rf")
            .then(|| json!({"block": true, "reason": "Blocked: rm -rf"})))
    })];
    c.tools = vec![Arc::new(EchoBash)];
    let s = AgentSession::new(c);
    s.prompt("clean up", PromptOptions::default())
        .await
        .expect("runs");
    let result = s
        .messages()
        .into_iter()
        .find_map(|m| match m {
            rho_agent::AgentMessage::ToolResult(t) => Some(t),
            _ => None,
        })
        .expect("tool result");
    assert!(result.is_error);
    assert_eq!(
        rho_ai::message::join_text(&result.content),
        "Blocked: rm -rf"
    );
}

/// A `bash` tool that must never run in the guard test.
struct EchoBash;

impl rho_agent::AgentTool for EchoBash {
    fn name(&self) -> &str {
        "bash"
    }
    fn label(&self) -> &str {
        "bash"
    }
    fn description(&self) -> &str {
        "runs commands"
    }
    fn parameters(&self) -> serde_json::Value {
        json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]})
    }
    fn execute(
        &self,
        _args: serde_json::Value,
        _ctx: rho_agent::ToolContext,
    ) -> futures_util::future::BoxFuture<'static, Result<rho_agent::ToolOutput, rho_agent::ToolError>>
    {
        Box::pin(async { panic!("the guard must block this call") })
    }
}

#[tokio::test]
async fn cmd_8_command_context_waits_for_idle_and_session_actions_resolve() {
    let provider = ScriptedProvider::new();
    let gate = Arc::new(tokio::sync::Notify::new());
    provider.push(
        ScriptedReply::new()
            .step(Step::Gate(gate.clone()))
            .with_text(&["done"]),
    );
    let log: Arc<std::sync::Mutex<Vec<String>>> = Default::default();
    let l2 = log.clone();
    let mut ext = Extension::new("waiter");
    ext.register_command(CommandDef {
        complete: None,
        name: "wait".into(),
        description: None,
        handler: Arc::new(move |_, ctx| {
            let l2 = l2.clone();
            Box::pin(async move {
                ctx.host.wait_for_idle().await;
                l2.lock()
                    .expect("lock")
                    .push(format!("idle={}", ctx.host.is_idle()));
                let cancelled = ctx
                    .host
                    .session_action(rho_extension_host::SessionAction::NewSession(
                        Default::default(),
                    ))
                    .await?;
                l2.lock()
                    .expect("lock")
                    .push(format!("cancelled={cancelled}"));
                Ok(())
            })
        }),
    });
    let mut c = config(&provider);
    c.extensions = vec![ext];
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    let run = {
        let s = s.clone();
        tokio::spawn(async move { s.prompt("go", PromptOptions::default()).await })
    };
    wait_for(&mut rx, "message_start").await;
    let cmd = {
        let s = s.clone();
        tokio::spawn(async move { s.prompt("/wait", PromptOptions::default()).await })
    };
    tokio::task::yield_now().await;
    assert!(
        log.lock().expect("lock").is_empty(),
        "still waiting for the run"
    );
    gate.notify_one();
    run.await.expect("join").expect("ok");
    cmd.await.expect("join").expect("handled");
    assert_eq!(*log.lock().expect("lock"), ["idle=true", "cancelled=false"]);
}
