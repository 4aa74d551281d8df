//! More rule tests: steering and follow-up timing (D4), overflow flag, compaction state,
//! request-time auth, aborts around tools and compaction.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::session_common as common;

use std::sync::Arc;

use common::*;
use futures_util::future::BoxFuture;
use rho_agent::{AgentMessage, AgentTool, ToolContext, ToolError, ToolOutput};
use rho_ai::UserMessage;
use rho_core::agent_session::{
    AgentSession, AuthStatus, CredentialError, CredentialStore, PromptOptions,
};
use rho_session::SessionManager;
use rho_testkit::scripted::{ScriptedProvider, ScriptedReply, Step};
use serde_json::json;

const OVERFLOW: &str = "prompt is too long: 213462 tokens > 200000 maximum";

#[tokio::test]
async fn q_5_steering_interrupts_a_streaming_reply_d4() {
    let provider = ScriptedProvider::new();
    provider.push(
        ScriptedReply::new()
            .with_text(&["partial"])
            .step(Step::Hang),
    );
    provider.push(ScriptedReply::text("after steer"));
    let s = session(&provider);
    let mut rx = s.subscribe();
    let run = spawn_prompt(&s, "go");
    wait_for(&mut rx, "message_update").await;
    s.steer("change course", vec![]).await.expect("queued");
    run.await.expect("join").expect("ok");
    assert_eq!(provider.call_count(), 2);
    assert_eq!(
        request_texts(&provider.requests()[1]),
        ["user:go", "user:change course"],
        "the partial is discarded"
    );
    let roles: Vec<&str> = s.messages().iter().map(|m| m.role()).collect();
    assert_eq!(roles, ["user", "user", "assistant"]);
}

#[tokio::test]
async fn q_6_follow_up_during_a_tool_turn_waits_for_the_final_reply_in_one_run() {
    let provider = ScriptedProvider::new();
    let gate = Arc::new(tokio::sync::Notify::new());
    provider.push(ScriptedReply::tool_calls(&[("t1", "missing", json!({}))]));
    provider.push(
        ScriptedReply::new()
            .step(Step::Gate(gate.clone()))
            .with_text(&["final"]),
    );
    provider.push(ScriptedReply::text("follow-up reply"));
    let s = session(&provider);
    let mut rx = s.subscribe();
    let run = spawn_prompt(&s, "go");
    wait_for(&mut rx, "tool_execution_end").await;
    s.follow_up("F", vec![]).await.expect("queued");
    gate.notify_one();
    run.await.expect("join").expect("ok");
    let t = types(&drain(&mut rx));
    assert_eq!(
        t.iter().filter(|x| **x == "agent_start").count(),
        0,
        "only the one run (already started)"
    );
    assert_eq!(
        request_texts(&provider.requests()[2])
            .last()
            .map(String::as_str),
        Some("user:F")
    );
    assert_eq!(
        request_texts(&provider.requests()[1])
            .last()
            .map(String::as_str),
        Some("toolResult:Tool missing not found")
    );
}

#[tokio::test]
async fn comp_9_overflow_flag_resets_after_a_good_reply() {
    let provider = ScriptedProvider::from_fn(|n| match n {
        0 | 3 => ScriptedReply::new().fail(OVERFLOW),
        _ => ScriptedReply::text("SUMMARY or answer"),
    });
    let mut store = SessionManager::in_memory("/work");
    store
        .append_message(AgentMessage::User(UserMessage::text("old")))
        .expect("append");
    let mut c = config(&provider);
    c.stream_fn = provider.stream_fn();
    c.session = store;
    c.settings = fast_settings(json!({"compaction": {"keepRecentTokens": 1}}));
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.prompt("one", PromptOptions::default())
        .await
        .expect("runs");
    s.prompt("two", PromptOptions::default())
        .await
        .expect("runs");
    let ends: Vec<serde_json::Value> = json_events(&drain(&mut rx))
        .into_iter()
        .filter(|e| e["type"] == "compaction_end")
        .collect();
    assert_eq!(ends.len(), 2, "the second overflow got its own recovery");
    assert!(ends.iter().all(|e| e["willRetry"] == true));
}

#[tokio::test]
async fn comp_22_and_ab_7_is_compacting_and_abort_compaction() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("a"));
    let gate = Arc::new(tokio::sync::Notify::new());
    provider.push(
        ScriptedReply::new()
            .step(Step::Gate(gate))
            .with_text(&["never"]),
    );
    provider.push(ScriptedReply::new().step(Step::Hang));
    let mut c = config(&provider);
    c.settings = fast_settings(json!({"compaction": {"keepRecentTokens": 1}}));
    let s = AgentSession::new(c);
    s.prompt("q", PromptOptions::default()).await.expect("runs");
    let mut rx = s.subscribe();
    let compaction = {
        let s = s.clone();
        tokio::spawn(async move { s.compact(None).await })
    };
    wait_for(&mut rx, "compaction_start").await;
    provider.wait_for_calls(2).await;
    assert!(s.is_compacting());
    s.abort_compaction();
    let err = compaction.await.expect("join").expect_err("cancelled");
    assert_eq!(err.to_string(), "Compaction cancelled");
    let end = wait_for(&mut rx, "compaction_end").await;
    assert_eq!(serde_json::to_value(&end).expect("json")["aborted"], true);
    assert!(!s.is_compacting());
}

#[tokio::test]
async fn comp_23_silent_overflow_compacts_and_continues() {
    let provider = ScriptedProvider::from_fn(|n| match n {
        0 => ScriptedReply::text("truncated").with_usage(200_000, 5),
        _ => ScriptedReply::text("fine"),
    });
    let mut c = config(&provider);
    c.stream_fn = provider.stream_fn();
    c.settings = fast_settings(json!({"compaction": {"keepRecentTokens": 1}}));
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.prompt("q", PromptOptions::default()).await.expect("runs");
    let end = json_events(&drain(&mut rx))
        .into_iter()
        .find(|e| e["type"] == "compaction_end")
        .expect("compacted");
    assert_eq!(
        (end["reason"].as_str(), end["willRetry"].as_bool()),
        (Some("overflow"), Some(true))
    );
    assert!(
        provider.call_count() >= 3,
        "D12: rho's continuation calls the model again"
    );
}

#[tokio::test]
async fn post_3_retryable_error_above_threshold_retries_without_compacting() {
    let provider = ScriptedProvider::new();
    provider.push(
        ScriptedReply::new()
            .fail("503 Service Unavailable")
            .with_usage(120_000, 0),
    );
    provider.push(ScriptedReply::text("ok"));
    let s = session(&provider);
    let mut rx = s.subscribe();
    s.prompt("q", PromptOptions::default()).await.expect("runs");
    let t = types(&drain(&mut rx));
    assert!(t.contains(&"auto_retry_start"));
    assert!(!t.contains(&"compaction_start"));
}

#[tokio::test]
async fn loop_3_slow_message_end_handler_still_waits_for_the_retry() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().fail("503 Service Unavailable"));
    provider.push(ScriptedReply::text("ok"));
    let mut c = config(&provider);
    let mut ext = rho_extension_host::Extension::new("slow");
    ext.on(
        "message_end",
        Arc::new(|_, _| {
            Box::pin(async {
                for _ in 0..50 {
                    tokio::task::yield_now().await;
                }
                Ok(None)
            })
        }),
    );
    c.extensions = vec![ext];
    let s = AgentSession::new(c);
    s.prompt("q", PromptOptions::default()).await.expect("runs");
    assert_eq!(
        provider.call_count(),
        2,
        "prompt() returned after the retry's run"
    );
}

#[tokio::test]
async fn loop_5_no_timers_nothing_runs_after_prompt_returns() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().fail("503 Service Unavailable"));
    provider.push(ScriptedReply::text("ok"));
    let s = session(&provider);
    s.prompt("q", PromptOptions::default()).await.expect("runs");
    let calls = provider.call_count();
    s.wait_for_idle().await;
    tokio::task::yield_now().await;
    assert_eq!(provider.call_count(), calls);
    assert!(!s.is_streaming());
}

struct FixedCredentials {
    status: AuthStatus,
    key: Result<Option<String>, String>,
}

impl CredentialStore for FixedCredentials {
    fn status(&self, _: &str) -> AuthStatus {
        self.status.clone()
    }
    fn api_key(&self, _: &str) -> Result<Option<String>, CredentialError> {
        self.key.clone().map_err(CredentialError::Other)
    }
}

#[tokio::test]
async fn auth_8_manual_compaction_without_a_key_fails_with_the_d7_text() {
    let provider = ScriptedProvider::new();
    let mut store = SessionManager::in_memory("/work");
    for text in ["earlier", "q"] {
        store
            .append_message(AgentMessage::User(UserMessage::text(text)))
            .expect("append");
    }
    let mut c = config(&provider);
    c.session = store;
    // Something to summarise: only the newest message is kept.
    c.settings = fast_settings(json!({"compaction": {"keepRecentTokens": 1}}));
    c.credentials = Arc::new(FixedCredentials {
        status: AuthStatus::Configured,
        key: Ok(None),
    });
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.compact(None).await.expect_err("no key");
    let end = json_events(&drain(&mut rx)).pop().expect("compaction_end");
    assert!(end["errorMessage"]
        .as_str()
        .is_some_and(|m| m.starts_with("Compaction failed: No API key found for scripted.")));
}

#[tokio::test]
async fn auth_9_request_time_auth_failure_ends_the_run_without_message_end() {
    let provider = ScriptedProvider::new();
    let mut c = config(&provider);
    c.stream_fn = Arc::new(rho_ai::stream);
    c.credentials = Arc::new(FixedCredentials {
        status: AuthStatus::Configured,
        key: Err("key command failed".into()),
    });
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.prompt("q", PromptOptions::default())
        .await
        .expect("resolves");
    let events = json_events(&drain(&mut rx));
    let end = events
        .iter()
        .find(|e| e["type"] == "agent_end")
        .expect("agent_end");
    assert_eq!(
        end["messages"].as_array().map(|m| m.len()),
        Some(1),
        "one synthetic assistant (interfaces §1.5)"
    );
    assert_eq!(end["messages"][0]["stopReason"], "error");
    assert!(!events
        .iter()
        .any(|e| e["type"] == "message_end" && e["message"]["role"] == "assistant"));
}

/// Waits until cancelled, then fails like pi's bash tool.
struct WaitsForAbort;

impl AgentTool for WaitsForAbort {
    fn name(&self) -> &str {
        "wait"
    }
    fn label(&self) -> &str {
        "wait"
    }
    fn description(&self) -> &str {
        "waits"
    }
    fn parameters(&self) -> serde_json::Value {
        json!({"type": "object", "properties": {}})
    }
    fn execute(
        &self,
        _args: serde_json::Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            ctx.cancel.cancelled().await;
            Err(ToolError::new("Command aborted"))
        })
    }
}

#[tokio::test]
async fn ab_4_abort_during_a_tool_ends_the_run_with_an_error_result() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[("t1", "wait", json!({}))]));
    let mut c = config(&provider);
    c.tools = vec![Arc::new(WaitsForAbort)];
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    let run = spawn_prompt(&s, "go");
    wait_for(&mut rx, "tool_execution_start").await;
    tokio::time::timeout(std::time::Duration::from_secs(2), s.abort())
        .await
        .expect("prompt abort");
    run.await.expect("join").expect("ok");
    let result = s
        .messages()
        .into_iter()
        .find_map(|m| match m {
            AgentMessage::ToolResult(t) => Some(t),
            _ => None,
        })
        .expect("tool result");
    assert!(result.is_error);
    assert_eq!(
        rho_ai::message::join_text(&result.content),
        "Command aborted"
    );
    assert_eq!(
        provider.call_count(),
        1,
        "no further HTTP request after the abort"
    );
}

#[tokio::test]
async fn p_14_a_prompt_during_the_post_run_chain_waits_instead_of_failing() {
    let provider = ScriptedProvider::new();
    let gate = Arc::new(tokio::sync::Notify::new());
    provider.push(ScriptedReply::text("big").with_usage(120_000, 10));
    provider.push(
        ScriptedReply::new()
            .step(Step::Gate(gate.clone()))
            .with_text(&["SUMMARY"]),
    );
    provider.push(ScriptedReply::text("SUMMARY"));
    provider.push(ScriptedReply::text("SUMMARY"));
    let mut c = config(&provider);
    c.settings = fast_settings(json!({"compaction": {"keepRecentTokens": 1}}));
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    let first = spawn_prompt(&s, "first");
    wait_for(&mut rx, "compaction_start").await;
    assert!(
        s.is_streaming(),
        "the run loop is busy with its post-run chain"
    );
    let second = spawn_prompt(&s, "second");
    // Current-thread runtime: one yield lets `second` run up to its first pending await
    // (stage 4) while the summary is still gated.
    tokio::task::yield_now().await;
    assert!(
        !second.is_finished(),
        "without the wait, stage 4 would have refused it by now"
    );
    gate.notify_one();
    first.await.expect("join").expect("first ok");
    second
        .await
        .expect("join")
        .expect("the second prompt ran after the chain");
    let last_request = provider.requests().last().cloned().expect("requests");
    assert_eq!(
        request_texts(&last_request).last().map(String::as_str),
        Some("user:second")
    );
    assert!(s.messages().iter().any(|m| m.role() == "compactionSummary"));
}

#[tokio::test]
async fn se_9_manual_compaction_during_a_run_drops_the_aborted_reply_from_the_file() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("first"));
    provider.push(
        ScriptedReply::new()
            .with_text(&["partial"])
            .step(Step::Hang),
    );
    provider.push(ScriptedReply::text("SUMMARY"));
    provider.push(ScriptedReply::text("SUMMARY"));
    let mut c = config(&provider);
    c.settings = fast_settings(json!({"compaction": {"keepRecentTokens": 1}}));
    let s = AgentSession::new(c);
    s.prompt("one", PromptOptions::default())
        .await
        .expect("runs");
    let mut rx = s.subscribe();
    let run = spawn_prompt(&s, "two");
    wait_for(&mut rx, "message_update").await;
    s.compact(None).await.expect("compacted");
    run.await.expect("join").expect("ok");
    let stored: Vec<rho_agent::AgentMessage> = s.with_session(|m| {
        m.entries()
            .iter()
            .filter_map(|e| e.message().map(|m| (*m).clone()))
            .collect()
    });
    assert!(
        !stored.iter().any(|m| m
            .as_assistant()
            .is_some_and(|a| a.stop_reason == rho_ai::StopReason::Aborted)),
        "the aborted reply is not in the session file"
    );
    // Listeners see the aborted run end before the compaction starts, so the stream stays
    // well-formed (D15).
    let events = json_events(&drain(&mut rx));
    let kinds: Vec<String> = events
        .iter()
        .filter(|e| e["type"] != "message_update")
        .map(|e| match e["message"]["stopReason"].as_str() {
            Some(stop) => format!("{}:{stop}", e["type"].as_str().unwrap_or("")),
            None => e["type"].as_str().unwrap_or("").to_string(),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "message_end:aborted",
            "turn_end:aborted",
            "agent_end",
            "compaction_start",
            "compaction_end"
        ]
    );
}
