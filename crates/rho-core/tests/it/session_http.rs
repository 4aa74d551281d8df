//! AgentSession scenarios over real HTTP: the Anthropic provider against the loopback
//! server speaking the real SSE bytes (issue "AgentSession": scenario tests).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::session_common as common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use futures_util::future::BoxFuture;
use rho_agent::{AgentMessage, AgentTool, ToolContext, ToolError, ToolOutput};
use rho_ai::Model;
use rho_core::agent_session::{AgentSession, AgentSessionConfig, PromptOptions, StaticCredentials};
use rho_session::SessionManager;
use rho_testkit::anthropic::{
    overloaded_error, prompt_too_long, rate_limit_error, text_reply, tool_calls_reply,
    ToolCallScript, Usage,
};
use rho_testkit::{Chunk, MockResponse, MockServer};
use serde_json::{json, Value};
use tokio::sync::Notify;

fn model(server: &MockServer) -> Model {
    serde_json::from_value(json!({
        "id": "claude-test", "name": "Claude Test", "api": "anthropic-messages",
        "provider": "anthropic", "baseUrl": server.url(), "contextWindow": 200000, "maxTokens": 8192,
        "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}
    }))
    .expect("model")
}

fn usage(input: u64, output: u64) -> Usage {
    Usage {
        input,
        output,
        ..Default::default()
    }
}

fn http_config(server: &MockServer, settings: Value) -> AgentSessionConfig {
    let mut c = AgentSessionConfig::new("/work");
    c.model = Some(model(server));
    c.credentials = Arc::new(StaticCredentials::new("anthropic", "sk-test"));
    c.settings = fast_settings(settings);
    c
}

fn reply(text: &str) -> MockResponse {
    MockResponse::sse(text_reply("msg_t", "claude-test", &[text], usage(10, 2)))
}

fn tool_reply(id: &str, name: &str, args: &str) -> MockResponse {
    let half = args.len() / 2;
    MockResponse::sse(tool_calls_reply(
        "msg_tc",
        "claude-test",
        &[ToolCallScript {
            id,
            name,
            fragments: vec!["", &args[..half], &args[half..]],
        }],
        usage(20, 5),
    ))
}

/// `echo`: returns its `text` argument. `wait`: finishes when the gate opens.
struct TestTool {
    name: &'static str,
    gate: Option<Arc<Notify>>,
}

impl AgentTool for TestTool {
    fn name(&self) -> &str {
        self.name
    }
    fn label(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "test tool"
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
    }
    fn execute(
        &self,
        args: Value,
        _ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let gate = self.gate.clone();
        Box::pin(async move {
            if let Some(g) = gate {
                g.notified().await;
            }
            Ok(ToolOutput::text(format!(
                "echo: {}",
                args["text"].as_str().unwrap_or("")
            )))
        })
    }
}

fn user_texts(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .flat_map(|msg| msg["content"].as_array().cloned().unwrap_or_default())
                .filter_map(|b| {
                    b["text"]
                        .as_str()
                        .or(b["content"].as_str())
                        .map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn two_tool_rounds_persist_and_rebuild_identically() {
    let server = MockServer::start().await;
    server.push(tool_reply("toolu_1", "echo", r#"{"text":"one"}"#));
    server.push(tool_reply("toolu_2", "echo", r#"{"text":"two"}"#));
    server.push(reply("all done"));
    let dir = tempfile::tempdir().expect("tempdir");
    let mut c = http_config(&server, json!({}));
    c.session = SessionManager::create(dir.path(), "/work");
    c.tools = vec![Arc::new(TestTool {
        name: "echo",
        gate: None,
    })];
    let s = AgentSession::new(c);
    s.prompt("use the tool twice", PromptOptions::default())
        .await
        .expect("runs");
    assert_eq!(server.requests().len(), 3);
    let roles: Vec<&str> = s.messages().iter().map(|m| m.role()).collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "toolResult",
            "assistant",
            "toolResult",
            "assistant"
        ]
    );
    let third = server.requests()[2].json();
    assert!(user_texts(&third).iter().any(|t| t.contains("echo: two")));
    let path = s
        .with_session(|m| m.path().map(|p| p.to_path_buf()))
        .expect("file session");
    let reopened = SessionManager::open(&path).expect("reopens");
    let rebuilt: Vec<AgentMessage> = reopened.build_context().owned_messages();
    assert_eq!(
        serde_json::to_value(&rebuilt).expect("json"),
        serde_json::to_value(s.messages()).expect("json"),
        "the file rebuilds the exact conversation"
    );
}

#[tokio::test]
async fn rate_limit_then_success_retries_with_events() {
    let server = MockServer::start().await;
    server.push(rate_limit_error());
    server.push(reply("ok now"));
    let s = AgentSession::new(http_config(&server, json!({})));
    let mut rx = s.subscribe();
    s.prompt("hi", PromptOptions::default())
        .await
        .expect("runs");
    let events = json_events(&drain(&mut rx));
    let retry: Vec<&Value> = events
        .iter()
        .filter(|e| {
            e["type"]
                .as_str()
                .is_some_and(|t| t.starts_with("auto_retry"))
        })
        .collect();
    assert_eq!(retry.len(), 2);
    assert_eq!(retry[0]["attempt"], 1);
    assert!(retry[0]["errorMessage"]
        .as_str()
        .is_some_and(|m| m.starts_with("429 ")));
    assert_eq!(
        retry[1],
        &json!({"type": "auto_retry_end", "success": true, "attempt": 1})
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn retry_1_retries_exhausted_end_with_failure() {
    let server = MockServer::start().await;
    server.push(overloaded_error());
    server.push(overloaded_error());
    let s = AgentSession::new(http_config(
        &server,
        json!({"retry": {"maxRetries": 1, "baseDelayMs": 1}}),
    ));
    let mut rx = s.subscribe();
    s.prompt("hi", PromptOptions::default())
        .await
        .expect("resolves");
    let end = json_events(&drain(&mut rx))
        .into_iter()
        .find(|e| e["type"] == "auto_retry_end")
        .expect("end");
    assert_eq!(end["success"], false);
    assert_eq!(end["attempt"], 1);
    assert!(end["finalError"]
        .as_str()
        .is_some_and(|m| m.contains("overloaded")));
}

#[tokio::test]
async fn overflow_then_compaction_then_continued_run() {
    let server = MockServer::start().await;
    server.push(reply("first answer"));
    server.push(prompt_too_long(213_462, 200_000));
    server.push(reply("SUMMARY: user asked twice"));
    server.push(reply("answer after compaction"));
    let s = AgentSession::new(http_config(
        &server,
        json!({"compaction": {"keepRecentTokens": 1}}),
    ));
    s.prompt("first", PromptOptions::default())
        .await
        .expect("runs");
    let mut rx = s.subscribe();
    s.prompt("second", PromptOptions::default())
        .await
        .expect("recovers");
    let t = types(&drain(&mut rx));
    assert!(t.contains(&"compaction_start") && t.contains(&"compaction_end"));
    assert_eq!(server.requests().len(), 4);
    let summary_request = server.requests()[2].json();
    assert!(summary_request["system"].is_array() || summary_request["system"].is_string());
    let last = s
        .messages()
        .last()
        .and_then(|m| m.as_assistant().cloned())
        .expect("reply");
    assert_eq!(last.text(), "answer after compaction");
    let continued = server.requests()[3].json();
    assert!(user_texts(&continued)
        .iter()
        .any(|t| t.contains("SUMMARY: user asked twice")));
}

#[tokio::test]
async fn steer_during_a_slow_tool_is_delivered_after_its_result() {
    let server = MockServer::start().await;
    server.push(tool_reply("toolu_1", "wait", r#"{"text":"slow"}"#));
    server.push(reply("steered"));
    let gate = Arc::new(Notify::new());
    let mut c = http_config(&server, json!({}));
    c.tools = vec![Arc::new(TestTool {
        name: "wait",
        gate: Some(gate.clone()),
    })];
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    let run = {
        let s = s.clone();
        tokio::spawn(async move { s.prompt("go", PromptOptions::default()).await })
    };
    wait_for(&mut rx, "tool_execution_start").await;
    s.steer("stop and summarise", vec![]).await.expect("queued");
    gate.notify_one();
    run.await.expect("join").expect("runs");
    let second = server.requests()[1].json();
    let texts = user_texts(&second);
    let result_at = texts
        .iter()
        .position(|t| t.contains("echo: slow"))
        .expect("tool result sent");
    let steer_at = texts
        .iter()
        .position(|t| t == "stop and summarise")
        .expect("steer sent");
    assert!(result_at < steer_at);
}

#[tokio::test]
async fn follow_up_during_streaming_waits_for_the_reply() {
    let server = MockServer::start().await;
    let slow = MockResponse::sse(text_reply(
        "msg_1",
        "claude-test",
        &["part one", " part two"],
        usage(5, 2),
    ))
    .with_delay(Duration::from_millis(20));
    server.push(slow);
    server.push(reply("follow-up answered"));
    let s = AgentSession::new(http_config(&server, json!({})));
    let mut rx = s.subscribe();
    let run = {
        let s = s.clone();
        tokio::spawn(async move { s.prompt("go", PromptOptions::default()).await })
    };
    wait_for(&mut rx, "message_update").await;
    s.follow_up("and then?", vec![]).await.expect("queued");
    run.await.expect("join").expect("runs");
    let second = server.requests()[1].json();
    let texts = user_texts(&second);
    assert_eq!(texts.last().map(String::as_str), Some("and then?"));
    assert!(
        texts.iter().any(|t| t == "part one part two"),
        "the first reply was complete: {texts:?}"
    );
}

#[tokio::test]
async fn abort_during_retry_sleep_over_http() {
    let server = MockServer::start().await;
    server.push(rate_limit_error());
    let s = AgentSession::new(http_config(
        &server,
        json!({"retry": {"baseDelayMs": 60000}}),
    ));
    let mut rx = s.subscribe();
    let run = {
        let s = s.clone();
        tokio::spawn(async move { s.prompt("hi", PromptOptions::default()).await })
    };
    wait_for(&mut rx, "auto_retry_start").await;
    tokio::time::timeout(Duration::from_secs(2), s.abort())
        .await
        .expect("abort is prompt");
    run.await.expect("join").expect("resolves");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn abort_mid_stream_closes_the_connection() {
    let server = MockServer::start().await;
    let hanging = MockResponse::sse(vec![
        rho_testkit::anthropic::message_start("msg_h", "claude-test", usage(1, 1)),
        rho_testkit::anthropic::text_start(0),
        rho_testkit::anthropic::text_delta(0, "partial"),
    ])
    .then(Chunk::Hang);
    server.push(hanging);
    let s = AgentSession::new(http_config(&server, json!({})));
    let mut rx = s.subscribe();
    let run = {
        let s = s.clone();
        tokio::spawn(async move { s.prompt("hi", PromptOptions::default()).await })
    };
    wait_for(&mut rx, "message_update").await;
    tokio::time::timeout(Duration::from_millis(500), s.abort())
        .await
        .expect("abort within 500 ms");
    run.await.expect("join").expect("resolves");
    tokio::time::timeout(Duration::from_secs(5), server.wait_for_closed(1))
        .await
        .expect("connection closed");
    let last = s
        .messages()
        .last()
        .and_then(|m| m.as_assistant().cloned())
        .expect("reply");
    assert_eq!(last.stop_reason, rho_ai::StopReason::Aborted);
}

#[tokio::test]
async fn bash_recorded_while_streaming_follows_the_turns_tool_results() {
    let server = MockServer::start().await;
    server.push(tool_reply("toolu_1", "wait", r#"{"text":"x"}"#));
    server.push(reply("done"));
    server.push(reply("next"));
    let gate = Arc::new(Notify::new());
    let mut c = http_config(&server, json!({}));
    c.tools = vec![Arc::new(TestTool {
        name: "wait",
        gate: Some(gate.clone()),
    })];
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    let run = {
        let s = s.clone();
        tokio::spawn(async move { s.prompt("go", PromptOptions::default()).await })
    };
    wait_for(&mut rx, "tool_execution_start").await;
    s.record_bash_result(rho_agent::BashExecutionMessage {
        command: "git status".into(),
        output: "clean".into(),
        exit_code: Some(0),
        cancelled: false,
        truncated: false,
        full_output_path: None,
        timestamp: rho_ai::now_ms(),
        exclude_from_context: None,
    })
    .await;
    gate.notify_one();
    run.await.expect("join").expect("runs");
    s.prompt("next", PromptOptions::default())
        .await
        .expect("runs");
    let third = server.requests()[2].json();
    let texts = user_texts(&third);
    let tool_at = texts
        .iter()
        .position(|t| t.contains("echo: x"))
        .expect("tool result");
    let bash_at = texts
        .iter()
        .position(|t| t.starts_with("Ran `git status`"))
        .expect("bash text");
    let next_at = texts.iter().position(|t| t == "next").expect("new prompt");
    assert!(tool_at < bash_at && bash_at < next_at, "{texts:?}");
}

#[tokio::test]
async fn threshold_compaction_over_http_keeps_tool_pairs_and_shrinks_the_context() {
    let server = MockServer::start().await;
    server.push(tool_reply("toolu_1", "echo", r#"{"text":"data"}"#));
    server.push(MockResponse::sse(text_reply(
        "msg_big",
        "claude-test",
        &["a long answer"],
        usage(190_000, 20),
    )));
    server.push(reply("SUMMARY: echoed data"));
    let mut c = http_config(&server, json!({"compaction": {"keepRecentTokens": 1}}));
    c.tools = vec![Arc::new(TestTool {
        name: "echo",
        gate: None,
    })];
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.prompt("echo something", PromptOptions::default())
        .await
        .expect("runs");
    let events = json_events(&drain(&mut rx));
    let end = events
        .iter()
        .find(|e| e["type"] == "compaction_end")
        .expect("threshold compaction");
    assert_eq!(end["reason"], "threshold");
    assert!(end["result"]["summary"]
        .as_str()
        .is_some_and(|t| t.contains("SUMMARY: echoed data")));
    assert_eq!(
        server.requests().len(),
        3,
        "two model calls and one summary call, no continuation"
    );
    let messages = s.messages();
    assert_eq!(messages[0].role(), "compactionSummary");
    assert_ne!(
        messages[1].role(),
        "toolResult",
        "the kept tail never starts at a tool result"
    );
    for (i, m) in messages.iter().enumerate() {
        if let AgentMessage::ToolResult(t) = m {
            let call_before = messages[..i].iter().any(|p| {
                p.as_assistant()
                    .is_some_and(|a| a.tool_calls().any(|c| c.id == t.tool_call_id))
            });
            assert!(call_before, "every kept tool result keeps its call");
        }
    }
    let estimate: u64 = messages
        .iter()
        .map(rho_compaction::tokens::estimate_tokens)
        .sum();
    assert!(
        estimate < 200_000 - 16_384,
        "the rebuilt context is below the threshold: {estimate}"
    );
}

#[tokio::test]
async fn ext_6_provider_request_and_response_hooks() {
    let server = MockServer::start().await;
    server.push(reply("one"));
    let statuses: Log = Default::default();
    let s2 = statuses.clone();
    let mut c = http_config(&server, json!({}));
    let mut ext = extension_on("a", "before_provider_request", |e, _| {
        let rho_extension_host::ExtensionEvent::BeforeProviderRequest { mut payload } = e else {
            return Ok(None);
        };
        payload["temperature"] = json!(0);
        Ok(Some(payload))
    });
    ext.on(
        "after_provider_response",
        handler(move |e, _| {
            if let rho_extension_host::ExtensionEvent::AfterProviderResponse { status, headers } = e
            {
                s2.lock()
                    .expect("lock")
                    .push(format!("{status} {}", headers["content-type"]));
            }
            Ok(None)
        }),
    );
    let unchanged = extension_on("b", "before_provider_request", |_, _| Ok(None));
    c.extensions = vec![ext, unchanged];
    let s = AgentSession::new(c);
    s.prompt("hi", PromptOptions::default())
        .await
        .expect("runs");
    let body = server.requests()[0].json();
    assert_eq!(body["temperature"], 0);
    assert_eq!(
        body["model"], "claude-test",
        "the rest of the payload is kept"
    );
    assert_eq!(
        *statuses.lock().expect("lock"),
        ["200 \"text/event-stream\""]
    );
}
