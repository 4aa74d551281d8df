//! The engine through the real Anthropic provider against `rho_testkit::MockServer`: the
//! summariser request goes over HTTP as the real API's body, and the reply comes back as the
//! real SSE bytes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use rho_compaction::{
    context_messages, prepare_compaction, prompts, run_compaction, summarize_branch,
    BranchSummaryOptions, BranchSummarySettings, CompactionRecord, CompactionSettings, EntryKind,
    HookDecision, PathEntry, Summarizer,
};
use rho_testkit::{sse_event, MockResponse, MockServer};
use serde_json::{json, Value};

/// The SSE reply of a Messages API call answering `text`.
fn anthropic_reply(text: &str) -> MockResponse {
    let start = json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
        "role": "assistant", "model": "claude-test", "content": [], "stop_reason": null,
        "usage": {"input_tokens": 900, "output_tokens": 1}}});
    let block = json!({"type": "content_block_start", "index": 0,
        "content_block": {"type": "text", "text": ""}});
    let delta = json!({"type": "content_block_delta", "index": 0,
        "delta": {"type": "text_delta", "text": text}});
    let stop = json!({"type": "content_block_stop", "index": 0});
    let message_delta = json!({"type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": null},
        "usage": {"output_tokens": 42}});
    MockResponse::sse([
        sse_event(Some("message_start"), &start.to_string()),
        sse_event(Some("content_block_start"), &block.to_string()),
        sse_event(Some("content_block_delta"), &delta.to_string()),
        sse_event(Some("content_block_stop"), &stop.to_string()),
        sse_event(Some("message_delta"), &message_delta.to_string()),
        sse_event(Some("message_stop"), r#"{"type":"message_stop"}"#),
    ])
}

fn summarizer(server: &MockServer) -> Summarizer {
    Summarizer {
        api_key: Some("sk-ant-test".into()),
        ..Summarizer::new(model(&server.url(), 40_000))
    }
}

/// Every string inside a JSON value, concatenated.
fn all_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(all_text).collect::<Vec<_>>().join("\n"),
        Value::Object(o) => o.values().map(all_text).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    }
}

/// The text of the single user message of a Messages API body.
fn user_text(body: &Value) -> String {
    let content = &body["messages"][0]["content"];
    assert_eq!(body["messages"].as_array().map(Vec::len), Some(1), "{body}");
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        other => panic!("unexpected content {other}"),
    }
}

/// Three turns; with keepRecentTokens 25 the cut lands on turn 3's user message.
fn session() -> Vec<PathEntry> {
    let mut path = Vec::new();
    push_turn(&mut path, 1, "README.md", false, 40_000, 10_000);
    push_turn(&mut path, 2, "src/lib.rs", true, 40_000, 20_000);
    push_turn(&mut path, 3, "src/main.rs", false, 40, 30_000);
    path
}

fn settings() -> CompactionSettings {
    CompactionSettings {
        keep_recent_tokens: 25,
        ..Default::default()
    }
}

#[tokio::test]
async fn compaction_over_http_carries_prompt_and_previous_summary() {
    let server = MockServer::start().await;
    server.push(anthropic_reply("## Goal\nFirst"));
    server.push(anthropic_reply("## Goal\nSecond"));
    let mut path = session();
    let prep = prepare_compaction(&path, &settings()).expect("prepares");
    assert!(!prep.is_split_turn);
    let r1 = run_compaction(&prep, &summarizer(&server), None, HookDecision::Proceed)
        .await
        .expect("first compaction")
        .result;
    assert_eq!(
        r1.summary,
        "## Goal\nFirst\n\n<read-files>\nREADME.md\n</read-files>\n\n<modified-files>\nsrc/lib.rs\n</modified-files>"
    );
    assert_eq!(r1.first_kept_entry_id, "u3");
    assert_eq!(r1.tokens_before, 30_000);

    let first = server.requests()[0].clone();
    assert_eq!(first.path, "/v1/messages");
    assert_eq!(first.header("x-api-key"), Some("sk-ant-test"));
    let body = first.json();
    assert_eq!(body["model"], json!("claude-test"));
    assert_eq!(body["max_tokens"], json!(13_107));
    assert!(all_text(&body["system"]).contains(prompts::SYSTEM_PROMPT));
    let user = user_text(&body);
    assert!(user.starts_with("<conversation>\n[User]: turn 1: look at README.md"));
    assert!(user.ends_with(prompts::SUMMARY_PROMPT));

    path.push(PathEntry {
        id: "cmp".into(),
        kind: EntryKind::Compaction(CompactionRecord {
            summary: r1.summary.clone(),
            first_kept_entry_id: r1.first_kept_entry_id.clone(),
            tokens_before: r1.tokens_before,
            details: r1.details.clone(),
            from_hook: false,
            timestamp: 1_000,
        }),
    });
    let roles: Vec<_> = context_messages(&path).iter().map(|m| m.role()).collect();
    assert_eq!(
        roles,
        [
            "compactionSummary",
            "user",
            "assistant",
            "toolResult",
            "assistant"
        ]
    );

    push_turn(&mut path, 4, "src/new.rs", true, 40, 31_000);
    let keep_turn_4 = CompactionSettings {
        keep_recent_tokens: 40,
        ..Default::default()
    };
    let prep2 = prepare_compaction(&path, &keep_turn_4).expect("prepares again");
    assert_eq!(
        (prep2.first_kept_entry_id.as_str(), prep2.is_split_turn),
        ("u4", false)
    );
    let r2 = run_compaction(&prep2, &summarizer(&server), None, HookDecision::Proceed)
        .await
        .expect("second compaction")
        .result;
    assert!(r2
        .summary
        .starts_with("## Goal\nSecond\n\n<read-files>\nREADME.md\nsrc/main.rs\n"));
    assert!(r2
        .summary
        .ends_with("<modified-files>\nsrc/lib.rs\n</modified-files>"));
    let second = user_text(&server.requests()[1].json());
    let previous = format!("<previous-summary>\n{}\n</previous-summary>", r1.summary);
    assert!(second.contains(&previous), "{second}");
    assert!(second.contains(prompts::UPDATE_PROMPT));
    assert!(second.starts_with("<conversation>\n[User]: turn 3: look at src/main.rs"));
}

#[tokio::test]
async fn summariser_http_error_is_reported() {
    let server = MockServer::start().await;
    server.push(MockResponse::error(
        500,
        r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#,
    ));
    let prep = prepare_compaction(&session(), &settings()).expect("prepares");
    let err = run_compaction(&prep, &summarizer(&server), None, HookDecision::Proceed)
        .await
        .expect_err("fails");
    let text = err.to_string();
    assert!(text.starts_with("Summarization failed: 500 "), "{text}");
    assert!(text.contains("Internal server error"), "{text}");
}

/// pi 1.6 retries a summary request that failed transiently, within the `retry.*` budget,
/// and reports each retry (scheduled, attempt start, finished once); a lasting failure is
/// sent `1 + maxRetries` times.
#[tokio::test]
async fn a_transient_summary_failure_is_retried_with_events() {
    use rho_compaction::{RetryEvent, SummaryRetry};
    use std::sync::{Arc, Mutex};
    let events: Arc<Mutex<Vec<RetryEvent>>> = Arc::default();
    let seen = events.clone();
    let retry_settings = rho_ai::retry::RetrySettings {
        base_delay_ms: 1,
        max_retries: 2,
        ..Default::default()
    };
    let retried = |server: &MockServer| Summarizer {
        retry: SummaryRetry::new(
            retry_settings,
            Arc::new({
                let seen = seen.clone();
                move |e| seen.lock().unwrap().push(e)
            }),
        ),
        ..summarizer(server)
    };
    let overloaded =
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let server = MockServer::start().await;
    server.push(MockResponse::error(529, overloaded));
    server.push(anthropic_reply("## Goal\nRetried."));
    let prep = prepare_compaction(&session(), &settings()).expect("prepares");
    let done = run_compaction(&prep, &retried(&server), None, HookDecision::Proceed)
        .await
        .expect("the retry succeeds");
    assert!(done.result.summary.starts_with("## Goal\nRetried."));
    assert_eq!(server.requests().len(), 2);
    let scheduled = RetryEvent::Scheduled {
        attempt: 1,
        max_attempts: 2,
        delay_ms: 1,
        error_message: format!("529 {overloaded}"),
    };
    assert_eq!(
        std::mem::take(&mut *events.lock().unwrap()),
        [scheduled, RetryEvent::AttemptStart, RetryEvent::Finished]
    );

    let server = MockServer::start().await;
    for _ in 0..3 {
        server.push(MockResponse::error(529, overloaded));
    }
    run_compaction(&prep, &retried(&server), None, HookDecision::Proceed)
        .await
        .expect_err("fails after the budget");
    assert_eq!(server.requests().len(), 3, "1 + maxRetries requests");
    let kinds: Vec<&str> = events
        .lock()
        .unwrap()
        .iter()
        .map(|e| match e {
            RetryEvent::Scheduled { .. } => "scheduled",
            RetryEvent::AttemptStart => "start",
            RetryEvent::Finished => "finished",
        })
        .collect();
    assert_eq!(
        kinds,
        ["scheduled", "start", "scheduled", "start", "finished"]
    );
}

#[tokio::test]
async fn branch_summary_over_http() {
    let server = MockServer::start().await;
    server.push(anthropic_reply("## Goal\nExplore"));
    let old = session();
    let target = ["u1", "a1", "t1", "f1", "other"];
    let (entries, ancestor) = rho_compaction::branch_entries(&old, &target);
    assert_eq!(ancestor, Some("f1"));
    let options = BranchSummaryOptions::default();
    let s = summarize_branch(
        entries,
        &summarizer(&server),
        &BranchSummarySettings::default(),
        &options,
        HookDecision::Proceed,
    )
    .await
    .expect("summarises");
    assert!(!s.from_hook);
    assert_eq!(
        s.summary,
        format!(
            "{}## Goal\nExplore\n\n<read-files>\nsrc/main.rs\n</read-files>\n\n<modified-files>\nsrc/lib.rs\n</modified-files>",
            prompts::BRANCH_PREAMBLE
        )
    );
    assert_eq!(
        s.details,
        Some(json!({"readFiles": ["src/main.rs"], "modifiedFiles": ["src/lib.rs"]}))
    );
    let body = server.last_body();
    assert_eq!(body["max_tokens"], json!(2_048));
    let user = user_text(&body);
    assert!(user.starts_with("<conversation>\n[User]: turn 2: look at src/lib.rs"));
    assert!(
        !user.contains("[Tool result]"),
        "tool results are left out of branch summaries"
    );
    assert!(user.ends_with(prompts::BRANCH_PROMPT));

    let replaced = summarize_branch(
        entries,
        &summarizer(&server),
        &BranchSummarySettings::default(),
        &BranchSummaryOptions::default(),
        HookDecision::Replace("mine".into()),
    )
    .await
    .expect("replaced");
    assert_eq!(replaced.summary, "mine");
    assert!(replaced.from_hook);
    assert_eq!(
        server.requests().len(),
        1,
        "the replacement made no request"
    );
}

#[tokio::test]
async fn abort_during_the_summary_request_cancels() {
    let server = MockServer::start().await;
    // The reply starts, then the server goes quiet: only the abort can end it.
    let start = json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
        "role": "assistant", "model": "claude-test", "content": [], "stop_reason": null,
        "usage": {"input_tokens": 900, "output_tokens": 1}}});
    server.push(
        MockResponse::sse([sse_event(Some("message_start"), &start.to_string())])
            .then(rho_testkit::Chunk::Hang),
    );
    let prep = prepare_compaction(&session(), &settings()).expect("prepares");
    let summarizer = summarizer(&server);
    let cancel = summarizer.cancel.clone();
    let task = tokio::spawn(async move {
        run_compaction(&prep, &summarizer, None, HookDecision::Proceed).await
    });
    server.wait_for_requests(1).await;
    cancel.cancel();
    let outcome = task.await.expect("task joins");
    assert_eq!(outcome, Err(rho_compaction::CompactionError::Cancelled));
    // The HTTP request was really given up, not left running.
    server.wait_for_closed(1).await;
}

#[tokio::test]
async fn split_turn_over_http_sends_history_and_prefix_requests() {
    let server = MockServer::start().await;
    // The two requests run concurrently; identical replies keep the result deterministic.
    server.push(anthropic_reply("PART"));
    server.push(anthropic_reply("PART"));
    let mut path = Vec::new();
    push_turn(&mut path, 1, "a.rs", false, 400, 500);
    path.push(PathEntry::message("big", user("one giant turn", 100)));
    for i in 0..6 {
        let id = format!("c{i}");
        path.push(PathEntry::message(
            format!("x{i}"),
            assistant(vec![call(&id, "bash", json!({"command": "ls"}))], 0, 101),
        ));
        path.push(PathEntry::message(
            format!("y{i}"),
            result(&id, "bash", &"z".repeat(4_000), 102),
        ));
    }
    let s = CompactionSettings {
        keep_recent_tokens: 1_500,
        ..Default::default()
    };
    let prep = prepare_compaction(&path, &s).expect("prepares");
    assert!(prep.is_split_turn);
    let r = run_compaction(&prep, &summarizer(&server), None, HookDecision::Proceed)
        .await
        .expect("compacts")
        .result;
    assert_eq!(
        r.summary,
        "PART\n\n---\n\n**Turn Context (split turn):**\n\nPART\n\n<read-files>\na.rs\n</read-files>"
    );
    let mut budgets: Vec<_> = server
        .requests()
        .iter()
        .map(|req| {
            let body = req.json();
            let text = user_text(&body);
            (
                body["max_tokens"].as_u64(),
                text.contains("BEGINNING of a turn"),
            )
        })
        .collect();
    budgets.sort();
    assert_eq!(budgets, [(Some(8_192), true), (Some(13_107), false)]);
}
