//! AgentSession's run loop and post-run chain (seed diagrams 3, 4, 11, 12; D1, D2, D5, D6;
//! RETRY-, BASH-, AB- rules).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::session_common as common;

use std::sync::Arc;

use common::*;
use rho_agent::BashExecutionMessage;
use rho_core::agent_session::{AgentSession, PromptOptions, SessionEvent};
use rho_testkit::scripted::{ScriptedProvider, ScriptedReply, Step};
use serde_json::json;

fn retry_events(events: &[SessionEvent]) -> Vec<serde_json::Value> {
    json_events(events)
        .into_iter()
        .filter(|e| {
            e["type"]
                .as_str()
                .is_some_and(|t| t.starts_with("auto_retry"))
        })
        .collect()
}

#[tokio::test]
async fn retry_5_and_6_and_9_and_loop_2_and_se_6_and_post_2_and_post_4_503_then_success_retries_and_reports_success(
) {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().fail("503 Service Unavailable"));
    provider.push(ScriptedReply::new().fail("503 Service Unavailable"));
    provider.push(ScriptedReply::text("finally"));
    let s = session(&provider);
    let mut rx = s.subscribe();
    s.prompt("go", PromptOptions::default())
        .await
        .expect("resolves after retries");
    assert_eq!(provider.call_count(), 3);
    let events = drain(&mut rx);
    assert_eq!(
        retry_events(&events),
        vec![
            json!({"type": "auto_retry_start", "attempt": 1, "maxAttempts": 3, "delayMs": 1, "errorMessage": "503 Service Unavailable"}),
            json!({"type": "auto_retry_start", "attempt": 2, "maxAttempts": 3, "delayMs": 2, "errorMessage": "503 Service Unavailable"}),
            json!({"type": "auto_retry_end", "success": true, "attempt": 2}),
        ]
    );
    let t = types(&events);
    let end = t.iter().position(|x| *x == "auto_retry_end").expect("end");
    assert_eq!(
        t[end - 1],
        "message_end",
        "RETRY-9: right after the good message_end"
    );
    let roles: Vec<&str> = s.messages().iter().map(|m| m.role()).collect();
    assert_eq!(
        roles,
        ["user", "assistant"],
        "RETRY-6: failed replies left the state"
    );
    let stored: Vec<String> = s.with_session(|m| {
        m.entries()
            .iter()
            .map(|e| e.data.type_name().to_string())
            .collect()
    });
    assert_eq!(
        stored,
        [
            "message",
            "message",
            "context_edit",
            "message",
            "context_edit",
            "message"
        ],
        "the session file keeps both failed replies, each omitted from the context (pi 1.6)"
    );
}

#[tokio::test]
async fn retry_4_exhausted_reports_failure_and_keeps_the_error() {
    let provider = ScriptedProvider::new();
    for _ in 0..4 {
        provider.push(ScriptedReply::new().fail("429 rate limit exceeded"));
    }
    let s = session(&provider);
    let mut rx = s.subscribe();
    s.prompt("go", PromptOptions::default())
        .await
        .expect("resolves");
    assert_eq!(provider.call_count(), 4);
    let retries = retry_events(&drain(&mut rx));
    assert_eq!(retries.len(), 4);
    assert_eq!(
        retries[3],
        json!({"type": "auto_retry_end", "success": false, "attempt": 3, "finalError": "429 rate limit exceeded"})
    );
    let roles: Vec<&str> = s.messages().iter().map(|m| m.role()).collect();
    assert_eq!(roles, ["user", "assistant"]);
    assert_eq!(s.retry_attempt(), 0);
}

#[tokio::test]
async fn retry_14_and_retry_13_non_retryable_error_after_retries_ends_the_sequence() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().fail("503 Service Unavailable"));
    provider.push(ScriptedReply::new().fail("400 invalid request"));
    let s = session(&provider);
    let mut rx = s.subscribe();
    s.prompt("go", PromptOptions::default())
        .await
        .expect("resolves");
    let retries = retry_events(&drain(&mut rx));
    assert_eq!(
        retries.last(),
        Some(
            &json!({"type": "auto_retry_end", "success": false, "attempt": 1, "finalError": "400 invalid request"})
        )
    );
    assert_eq!(s.retry_attempt(), 0);
}

#[tokio::test]
async fn retry_11_disabled_means_no_retry() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().fail("503 Service Unavailable"));
    let mut c = config(&provider);
    c.settings = fast_settings(json!({"retry": {"enabled": false}}));
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.prompt("go", PromptOptions::default())
        .await
        .expect("resolves");
    assert!(retry_events(&drain(&mut rx)).is_empty());
    assert_eq!(provider.call_count(), 1);
}

#[tokio::test]
async fn ab_5_and_retry_7_abort_during_retry_sleep_cancels_the_retry() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().fail("503 Service Unavailable"));
    let mut c = config(&provider);
    c.settings = fast_settings(json!({"retry": {"baseDelayMs": 60000}}));
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    let runner = {
        let s = s.clone();
        tokio::spawn(async move { s.prompt("go", PromptOptions::default()).await })
    };
    wait_for(&mut rx, "auto_retry_start").await;
    assert!(s.is_retrying());
    tokio::time::timeout(std::time::Duration::from_secs(2), s.abort())
        .await
        .expect("abort returns promptly");
    runner.await.expect("join").expect("prompt resolved");
    let end = wait_for(&mut rx, "auto_retry_end").await;
    assert_eq!(
        serde_json::to_value(&end).expect("json"),
        json!({"type": "auto_retry_end", "success": false, "attempt": 1, "finalError": "Retry cancelled"})
    );
    let roles: Vec<&str> = s.messages().iter().map(|m| m.role()).collect();
    assert_eq!(
        roles,
        ["user"],
        "RETRY-7: the failed reply stays out of the state"
    );
    assert_eq!(provider.call_count(), 1);
    assert!(!s.is_streaming());
}

#[tokio::test]
async fn ab_3_abort_while_streaming_keeps_aborted_reply_and_next_prompt_works() {
    let provider = ScriptedProvider::new();
    provider.push(
        ScriptedReply::new()
            .with_text(&["partial"])
            .step(Step::Hang),
    );
    provider.push(ScriptedReply::text("fresh"));
    let s = session(&provider);
    let mut rx = s.subscribe();
    let runner = {
        let s = s.clone();
        tokio::spawn(async move { s.prompt("go", PromptOptions::default()).await })
    };
    wait_for(&mut rx, "message_update").await;
    tokio::time::timeout(std::time::Duration::from_millis(500), s.abort())
        .await
        .expect("abort within 500 ms");
    runner.await.expect("join").expect("resolved");
    let last = s
        .messages()
        .last()
        .and_then(|m| m.as_assistant().cloned())
        .expect("assistant");
    assert_eq!(last.stop_reason, rho_ai::StopReason::Aborted);
    s.prompt("again", PromptOptions::default())
        .await
        .expect("D6: later prompt works");
    assert_eq!(provider.call_count(), 2);
}

#[tokio::test]
async fn ab_6_idle_abort_emits_nothing_and_keeps_queues() {
    let provider = ScriptedProvider::new();
    let s = session(&provider);
    s.follow_up("later", vec![]).await.expect("queued");
    let mut rx = s.subscribe();
    s.abort().await;
    assert!(drain(&mut rx).is_empty());
    assert_eq!(s.pending_message_count(), 1);
}

fn bash(command: &str) -> BashExecutionMessage {
    BashExecutionMessage {
        command: command.into(),
        output: "files".into(),
        exit_code: Some(0),
        cancelled: false,
        truncated: false,
        full_output_path: None,
        timestamp: rho_ai::now_ms(),
        exclude_from_context: None,
    }
}

#[tokio::test]
async fn bash_6_and_7_and_loop_6_result_recorded_while_streaming_lands_after_the_turns_tool_results(
) {
    let provider = ScriptedProvider::new();
    let gate = Arc::new(tokio::sync::Notify::new());
    provider.push(ScriptedReply::tool_calls(&[(
        "t1",
        "missing_tool",
        json!({}),
    )]));
    provider.push(
        ScriptedReply::new()
            .step(Step::Gate(gate.clone()))
            .with_text(&["done"]),
    );
    let s = session(&provider);
    let runner = {
        let s = s.clone();
        tokio::spawn(async move { s.prompt("go", PromptOptions::default()).await })
    };
    provider.wait_for_calls(2).await;
    s.record_bash_result(bash("ls")).await;
    assert!(
        s.has_pending_bash_messages(),
        "BASH-4: queued while streaming"
    );
    gate.notify_one();
    runner.await.expect("join").expect("resolved");
    assert!(
        !s.has_pending_bash_messages(),
        "D5: flushed in the run's finally"
    );
    let roles: Vec<&str> = s.messages().iter().map(|m| m.role()).collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "toolResult",
            "assistant",
            "bashExecution"
        ]
    );
}

#[tokio::test]
async fn q_3_idle_steering_is_delivered_right_after_the_prompt() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[
        ("t1", "nope", json!({})),
        ("t2", "nope", json!({})),
    ]));
    provider.push(ScriptedReply::text("after steer"));
    let s = session(&provider);
    s.steer("change course", vec![])
        .await
        .expect("queued while idle");
    let mut rx = s.subscribe();
    s.prompt("go", PromptOptions::default())
        .await
        .expect("resolves");
    let reqs = provider.requests();
    assert_eq!(
        request_texts(&reqs[0]),
        ["user:go", "user:change course"],
        "Q-3: idle steering goes right after the prompt"
    );
    let events = json_events(&drain(&mut rx));
    let queue_updates: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["type"] == "queue_update")
        .collect();
    assert_eq!(
        queue_updates.last().map(|e| e["steering"].clone()),
        Some(json!([]))
    );
    assert!(s.steering_messages().is_empty());
}

#[tokio::test]
async fn q_4_and_se_3_queue_update_precedes_delivered_user_message_start() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("a"));
    provider.push(ScriptedReply::text("b"));
    let s = session(&provider);
    s.follow_up("F1", vec![]).await.expect("queued");
    let mut rx = s.subscribe();
    s.prompt("go", PromptOptions::default())
        .await
        .expect("resolves");
    let events = json_events(&drain(&mut rx));
    let i = events
        .iter()
        .position(|e| e["type"] == "message_start" && e["message"]["content"][0]["text"] == "F1")
        .expect("follow-up delivered");
    assert_eq!(
        events[i - 1],
        json!({"type": "queue_update", "steering": [], "followUp": []})
    );
    assert_eq!(provider.call_count(), 2);
}

/// The queue lists follow what the agent delivers, not texts that look alike: a prompt with
/// the text of a queued follow-up leaves the follow-up listed until the agent delivers it.
#[tokio::test]
async fn q_4_a_prompt_with_a_queued_text_does_not_take_it_off_the_list() {
    let provider = ScriptedProvider::new();
    let gate = Arc::new(tokio::sync::Notify::new());
    provider.push(
        ScriptedReply::new()
            .step(Step::Gate(gate.clone()))
            .with_text(&["a"]),
    );
    provider.push(ScriptedReply::text("b"));
    let s = session(&provider);
    s.follow_up("yes", vec![]).await.expect("queued");
    let mut rx = s.subscribe();
    let run = spawn_prompt(&s, "yes");
    provider.wait_for_calls(1).await;
    assert_eq!(
        s.follow_up_messages(),
        ["yes"],
        "the prompt is not the queued follow-up"
    );
    gate.notify_one();
    run.await.expect("join").expect("resolves");
    assert!(s.follow_up_messages().is_empty());
    let events = json_events(&drain(&mut rx));
    let updates: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["type"] == "queue_update")
        .collect();
    assert_eq!(
        updates,
        [&json!({"type": "queue_update", "steering": [], "followUp": []})],
        "one update, when the follow-up was delivered"
    );
    assert_eq!(
        request_texts(&provider.requests()[1]),
        ["user:yes", "assistant:a", "user:yes"]
    );
}

#[tokio::test]
async fn cmd_7_steer_and_follow_up_refuse_extension_commands() {
    let provider = ScriptedProvider::new();
    let mut c = config(&provider);
    let mut ext = rho_extension_host::Extension::new("e");
    ext.register_command(rho_extension_host::CommandDef {
        complete: None,
        name: "hello".into(),
        description: None,
        handler: Arc::new(|_, _| Box::pin(async { Ok(()) })),
    });
    c.extensions = vec![ext];
    let s = AgentSession::new(c);
    let err = s.steer("/hello", vec![]).await.expect_err("refused");
    assert_eq!(
        err.to_string(),
        "Extension command \"/hello\" cannot be queued. Use prompt() or execute the command when not streaming."
    );
    assert!(
        s.follow_up("/other x", vec![]).await.is_ok(),
        "non-command slash text is queued"
    );
}

#[tokio::test]
async fn q_10_clear_queue_returns_texts_and_empties_agent_queues() {
    let provider = ScriptedProvider::new();
    let s = session(&provider);
    s.follow_up("a", vec![]).await.expect("queued");
    s.steer("b", vec![]).await.expect("queued");
    let mut rx = s.subscribe();
    let cleared = s.clear_queue();
    assert_eq!(
        (cleared.steering, cleared.follow_up),
        (vec!["b".to_string()], vec!["a".to_string()])
    );
    assert_eq!(
        json_events(&drain(&mut rx)),
        vec![json!({"type": "queue_update", "steering": [], "followUp": []})]
    );
    assert!(!s.agent().has_queued_messages());
}

#[tokio::test]
async fn the_after_run_hook_runs_once_per_run_loop_before_the_session_reports_idle() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().fail("503 Service Unavailable"));
    provider.push(ScriptedReply::text("after a retry"));
    provider.push(ScriptedReply::text("second"));
    let s = session(&provider);
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (hook_seen, hook_session) = (seen.clone(), s.clone());
    s.set_after_run(Arc::new(move || {
        hook_seen.lock().unwrap().push(hook_session.is_streaming());
    }));
    s.prompt("go", PromptOptions::default())
        .await
        .expect("runs");
    s.wait_for_idle().await;
    assert_eq!(
        *seen.lock().unwrap(),
        [true],
        "once for the run and its retry, while the session still counts as running"
    );
    s.prompt("again", PromptOptions::default())
        .await
        .expect("runs");
    s.wait_for_idle().await;
    assert_eq!(seen.lock().unwrap().len(), 2);
}
