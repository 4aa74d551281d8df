//! The event stream of pi 1.x's dialect (pi 1.6.0 `docs/json.md`), spawning rho against the
//! loopback server: delta-only `message_update`s, `toolcall_start` naming its call,
//! `agent_end.willRetry`, and one `agent_settled`, last, after retries, compaction and
//! follow-ups. Where pi 1.6 is installed, the same scripted replies run through it too and
//! the event shapes must match (else the comparison is skipped with a printed reason).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::support;

use std::time::Duration;

use rho_testkit::openai_chat::{self, ChatStream};
use rho_testkit::{pi16, MockResponse, MockServer};
use serde_json::{json, Value};
use support::{hanging_reply, reply, slow_reply, Rpc, Start};

/// rho in RPC mode speaking pi 1.x's dialect, with `settings`.
async fn rho_1x(settings: Option<Value>) -> Rpc {
    Rpc::start_with(Start {
        args: vec!["--rpc-dialect".into(), "1.x".into()],
        settings,
        ..Start::default()
    })
    .await
}

/// Sends a prompt and returns every line from its response to `agent_settled`.
async fn prompt_until_settled(rpc: &mut Rpc, text: &str) -> Vec<Value> {
    let from = rpc.seen.len();
    let r = rpc
        .call(json!({"id": "p", "type": "prompt", "message": text}))
        .await;
    assert_eq!(r["success"], true, "{r}");
    rpc.event("agent_settled").await;
    let lines: Vec<Value> = rpc.seen[from..].to_vec();
    lines
        .into_iter()
        .filter(|l| l["type"] != "response")
        .collect()
}

/// An event reduced to its shape: its type, the role of its message, its field names, and
/// for `message_update` the provider event's type and field names.
fn shape(v: &Value) -> String {
    let keys = |v: &Value| -> String {
        let mut k: Vec<&str> = v
            .as_object()
            .map(|o| {
                o.keys()
                    .map(String::as_str)
                    .filter(|k| *k != "type")
                    .collect()
            })
            .unwrap_or_default();
        k.sort_unstable();
        k.join(",")
    };
    let kind = v["type"].as_str().unwrap_or("?");
    match kind {
        "message_update" => {
            let e = &v["assistantMessageEvent"];
            format!(
                "message_update({}) {}:{}",
                keys(v),
                e["type"].as_str().unwrap_or("?"),
                keys(e)
            )
        }
        "message_start" | "message_end" => {
            format!("{kind} {}", v["message"]["role"].as_str().unwrap_or("?"))
        }
        _ => format!("{kind}({})", keys(v)),
    }
}

fn shapes(lines: &[Value]) -> Vec<String> {
    lines.iter().map(shape).collect()
}

/// Asserts what every 1.x stream must hold: updates are delta-only with `usage`, and one
/// `agent_settled` ends it.
fn assert_1x_stream(lines: &[Value], aborted: bool) {
    for l in lines.iter().filter(|l| l["type"] == "message_update") {
        assert!(l.get("message").is_none(), "delta-only: {l}");
        assert!(l["assistantMessageEvent"].get("partial").is_none(), "{l}");
        assert!(l["usage"]["totalTokens"].is_u64(), "{l}");
    }
    let settled: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "agent_settled")
        .collect();
    assert_eq!(settled.len(), 1, "{:#?}", shapes(lines));
    assert_eq!(lines.last(), Some(settled[0]));
    assert_eq!(
        settled[0],
        &json!({"type": "agent_settled", "aborted": aborted})
    );
}

fn thinking_then_text() -> MockResponse {
    ChatStream::new("chatcmpl-t", "m1")
        .role()
        .reasoning("reasoning_content", "Let me ")
        .reasoning("reasoning_content", "think.")
        .text("Hel")
        .text("lo")
        .finish("stop")
        .usage(12, 3, None)
        .done()
        .response()
}

const THINKING_THEN_TEXT: &[&str] = &[
    "agent_start()",
    "turn_start()",
    // A new session's first request records its system prompt and tools first (D18).
    "message_start system",
    "message_end system",
    "message_start user",
    "message_end user",
    "message_start assistant",
    "message_update(assistantMessageEvent,usage) thinking_start:contentIndex",
    "message_update(assistantMessageEvent,usage) thinking_delta:contentIndex,delta",
    "message_update(assistantMessageEvent,usage) thinking_delta:contentIndex,delta",
    "message_update(assistantMessageEvent,usage) text_start:contentIndex",
    "message_update(assistantMessageEvent,usage) text_delta:contentIndex,delta",
    "message_update(assistantMessageEvent,usage) text_delta:contentIndex,delta",
    // Chat Completions has no block ends: pi closes every block when the stream ends.
    "message_update(assistantMessageEvent,usage) thinking_end:content,contentIndex",
    "message_update(assistantMessageEvent,usage) text_end:content,contentIndex",
    "message_end assistant",
    "turn_end(message,toolResults)",
    "agent_end(messages,willRetry)",
    "agent_settled(aborted)",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thinking_and_text_stream_as_deltas() {
    let mut rpc = rho_1x(None).await;
    rpc.server.push(thinking_then_text());
    let lines = prompt_until_settled(&mut rpc, "hi").await;
    assert_1x_stream(&lines, false);
    assert_eq!(shapes(&lines), THINKING_THEN_TEXT);
    let start = &lines[6];
    assert_eq!(start["message"]["stopReason"], "pending", "{start}");
    let deltas: String = lines
        .iter()
        .filter(|l| l["assistantMessageEvent"]["type"] == "text_delta")
        .filter_map(|l| l["assistantMessageEvent"]["delta"].as_str())
        .collect();
    assert_eq!(deltas, "Hello");
    assert_eq!(
        lines[13]["assistantMessageEvent"]["content"],
        "Let me think."
    );
    assert_eq!(lines[14]["assistantMessageEvent"]["content"], "Hello");
    assert_eq!(lines[15]["message"]["content"][1]["text"], "Hello");
    assert_eq!(lines[17]["willRetry"], false);

    match pi16_lines(vec![thinking_then_text()], "hi").await {
        Ok(pi) => assert_eq!(shapes(&pi), THINKING_THEN_TEXT, "pi 1.6's own sequence"),
        Err(why) => eprintln!("skipping the pi 1.6 comparison: {why}"),
    }
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_call_names_its_call_and_both_turns_end_in_one_settle() {
    let mut rpc = rho_1x(None).await;
    rpc.server
        .push(openai_chat::reasoning_tool_call().response());
    rpc.server.push(reply("Done."));
    let lines = prompt_until_settled(&mut rpc, "read it").await;
    assert_1x_stream(&lines, false);
    let find = |kind: &str, inner: &str| -> Value {
        lines
            .iter()
            .find(|l| {
                l["type"] == kind
                    && (inner.is_empty() || l["assistantMessageEvent"]["type"] == inner)
            })
            .cloned()
            .unwrap_or_else(|| panic!("no {kind} {inner}: {:#?}", shapes(&lines)))
    };
    assert_eq!(
        find("message_update", "toolcall_start")["assistantMessageEvent"],
        json!({"type": "toolcall_start", "contentIndex": 1, "id": "call_0_a1b2", "toolName": "read"})
    );
    let end = find("message_update", "toolcall_end");
    assert_eq!(end["assistantMessageEvent"]["toolCall"]["type"], "toolCall");
    assert_eq!(
        end["assistantMessageEvent"]["toolCall"]["arguments"],
        json!({"path": "src/main.rs"})
    );
    let start = find("tool_execution_start", "");
    assert_eq!(start["toolCallId"], "call_0_a1b2");
    assert_eq!(start["args"], json!({"path": "src/main.rs"}));
    let done = find("tool_execution_end", "");
    assert_eq!(done["toolName"], "read");
    assert_eq!(done["isError"], true, "src/main.rs does not exist: {done}");
    let kinds: Vec<&str> = lines.iter().filter_map(|l| l["type"].as_str()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "turn_end").count(), 2);
    assert_eq!(kinds.iter().filter(|k| **k == "agent_end").count(), 1);

    let replies = vec![
        openai_chat::reasoning_tool_call().response(),
        reply("Done."),
    ];
    match pi16_lines(replies, "read it").await {
        Ok(pi) => {
            // Both time the tool call (`durationMs` on `tool_execution_end`).
            assert_eq!(shapes(&lines), shapes(&pi), "pi 1.6's own sequence");
        }
        Err(why) => eprintln!("skipping the pi 1.6 comparison: {why}"),
    }
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_error_says_will_retry_and_settles_after_the_retry() {
    let mut rpc = rho_1x(Some(json!({"retry": {"baseDelayMs": 1}}))).await;
    rpc.server
        .push(openai_chat::error(500, openai_chat::ERROR_SERVER));
    rpc.server.push(reply("Recovered."));
    let lines = prompt_until_settled(&mut rpc, "go").await;
    assert_1x_stream(&lines, false);
    let ends: Vec<&Value> = lines.iter().filter(|l| l["type"] == "agent_end").collect();
    assert_eq!(ends.len(), 2, "{:#?}", shapes(&lines));
    assert_eq!(ends[0]["willRetry"], true);
    assert_eq!(ends[1]["willRetry"], false);
    let kinds: Vec<&str> = lines.iter().filter_map(|l| l["type"].as_str()).collect();
    let retry_start = kinds.iter().position(|k| *k == "auto_retry_start");
    let retry_end = kinds.iter().position(|k| *k == "auto_retry_end");
    assert!(
        retry_start.is_some() && retry_end > retry_start,
        "{kinds:?}"
    );
    assert_eq!(
        lines[retry_end.expect("retry end")],
        json!({"type": "auto_retry_end", "success": true, "attempt": 1})
    );
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_threshold_compaction_comes_before_the_settle() {
    // A context window of 100,000 with 99,990 reserved: every reply passes the threshold.
    let settings = json!({"compaction": {"reserveTokens": 99990, "keepRecentTokens": 1}});
    let mut rpc = rho_1x(Some(settings)).await;
    // Replies and summaries alike (the check before the second prompt may compact too).
    for _ in 0..8 {
        rpc.server.push(reply("## Goal\nAnswer questions."));
    }
    let first = prompt_until_settled(&mut rpc, "first question").await;
    assert_1x_stream(&first, false);
    let lines = prompt_until_settled(&mut rpc, "second question").await;
    assert_1x_stream(&lines, false);
    let kinds: Vec<&str> = lines.iter().filter_map(|l| l["type"].as_str()).collect();
    let agent_end = kinds.iter().position(|k| *k == "agent_end").expect("end");
    let start = kinds
        .iter()
        .rposition(|k| *k == "compaction_start")
        .unwrap_or_else(|| panic!("no compaction: {kinds:?}"));
    let end = kinds
        .iter()
        .rposition(|k| *k == "compaction_end")
        .expect("end");
    assert!(
        agent_end < start && start < end && end == kinds.len() - 2,
        "{kinds:?}"
    );
    assert_eq!(
        lines[start],
        json!({"type": "compaction_start", "reason": "threshold"})
    );
    assert_eq!(lines[end]["willRetry"], false);
    let result = &lines[end]["result"];
    assert!(
        result["estimatedTokensAfter"].as_u64() > Some(0),
        "{result}"
    );
    assert!(
        result["usage"]["totalTokens"].as_u64() > Some(0),
        "{result}"
    );
    assert_eq!(rpc.close().await, Some(0));
}

/// pi 1.x: `compaction_end.result` is what `compact` answers, `estimatedTokensAfter` and the
/// summary's `usage` included.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_manual_compaction_ends_with_the_reply_it_answers() {
    let settings = json!({"compaction": {"keepRecentTokens": 1}});
    let mut rpc = rho_1x(Some(settings)).await;
    for _ in 0..4 {
        rpc.server.push(reply("## Goal\nAnswer questions."));
    }
    prompt_until_settled(&mut rpc, "first question").await;
    prompt_until_settled(&mut rpc, "second question").await;
    let r = rpc.call(json!({"id": "c", "type": "compact"})).await;
    assert_eq!(r["success"], true, "{r}");
    assert!(r["data"]["estimatedTokensAfter"].as_u64() > Some(0), "{r}");
    assert!(r["data"]["usage"].is_object(), "{r}");
    let end = rpc.event("compaction_end").await;
    assert_eq!(end["result"], r["data"]);
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_follow_up_runs_before_the_one_settle() {
    let mut rpc = rho_1x(None).await;
    rpc.server
        .push(slow_reply("Working", Duration::from_millis(300), " done."));
    rpc.server.push(reply("Follow-up answered."));
    let from = rpc.seen.len();
    let r = rpc
        .call(json!({"id": "p", "type": "prompt", "message": "start"}))
        .await;
    assert_eq!(r["success"], true, "{r}");
    rpc.event("message_update").await;
    let r = rpc
        .call(json!({"id": "f", "type": "follow_up", "message": "and then?"}))
        .await;
    assert_eq!(r["success"], true, "{r}");
    rpc.event("agent_settled").await;
    let lines: Vec<Value> = rpc.seen[from..]
        .iter()
        .filter(|l| l["type"] != "response")
        .cloned()
        .collect();
    assert_1x_stream(&lines, false);
    let queue: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "queue_update")
        .collect();
    assert_eq!(
        queue.first().map(|q| &q["followUp"]),
        Some(&json!(["and then?"]))
    );
    let users = lines
        .iter()
        .filter(|l| l["type"] == "message_start" && l["message"]["role"] == "user")
        .count();
    assert_eq!(users, 2, "{:#?}", shapes(&lines));
    assert_eq!(rpc.server.requests().len(), 2);
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_aborted_run_settles_as_aborted() {
    let mut rpc = rho_1x(None).await;
    rpc.server.push(hanging_reply("Partial"));
    let from = rpc.seen.len();
    rpc.call(json!({"id": "p", "type": "prompt", "message": "go"}))
        .await;
    rpc.event("message_update").await;
    rpc.call(json!({"id": "a", "type": "abort"})).await;
    rpc.event("agent_settled").await;
    let lines: Vec<Value> = rpc.seen[from..]
        .iter()
        .filter(|l| l["type"] != "response")
        .cloned()
        .collect();
    assert_1x_stream(&lines, true);
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test]
async fn json_mode_writes_the_session_header_then_the_1x_events() {
    let sb = common::Sandbox::new().await;
    sb.server.push(common::reply("Hello there"));
    let out = sb
        .rho(
            &[
                "--mode",
                "json",
                "--rpc-dialect",
                "1.x",
                "--no-session",
                "--provider",
                "mock",
                "--model",
                "mock-model",
                "hi",
            ],
            None,
        )
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let lines: Vec<Value> = common::stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let header = &lines[0];
    assert_eq!(shape(header), "session(cwd,id,timestamp,version)");
    assert_eq!(header["version"], 3);
    assert_1x_stream(&lines[1..], false);
    assert_eq!(lines[1]["type"], "agent_start");
}

/// pi 1.6's lines for `prompt` over `replies`, or why it cannot run here.
async fn pi16_lines(replies: Vec<MockResponse>, prompt: &str) -> Result<Vec<Value>, String> {
    pi16::pi16().map_err(|e| e.to_string())?;
    let server = MockServer::start().await;
    for r in replies {
        server.push(r);
    }
    let home = tempfile::tempdir().map_err(|e| e.to_string())?;
    pi16::write_agent_dir(&home.path().join("agent"), &format!("{}/v1", server.url()));
    let mut pi = pi16::Pi::start(
        home.path(),
        home.path(),
        &[
            "--no-session",
            "--model",
            "loop/loop-model",
            "--thinking",
            "off",
        ],
    )
    .map_err(|e| e.to_string())?;
    pi.call(json!({"type": "prompt", "message": prompt})).await;
    let lines = pi.lines_until("agent_settled").await;
    pi.stop().await;
    Ok(lines)
}

/// On Anthropic every `message_update` reports the input tokens of the provider's
/// `message_start` (pi 1.6), not zeros until the reply ends.
#[tokio::test]
async fn anthropic_updates_report_the_usage_of_message_start() {
    let mut rpc = Rpc::start_with(Start {
        args: vec!["--rpc-dialect".into(), "1.x".into()],
        providers: Some(|url| json!({"anthropic": {"baseUrl": url, "apiKey": "sk-ant-test"}})),
        ..Start::default()
    })
    .await;
    let set = rpc
        .call(json!({"id": "m", "type": "set_model", "provider": "anthropic", "modelId": "claude-sonnet-4-5"}))
        .await;
    assert_eq!(set["success"], true, "{set}");
    rpc.server
        .push(MockResponse::sse(rho_testkit::anthropic::transcript_a1()));
    let lines = prompt_until_settled(&mut rpc, "hi").await;
    assert_1x_stream(&lines, false);
    let updates: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "message_update")
        .collect();
    assert!(!updates.is_empty(), "{:#?}", shapes(&lines));
    for u in updates {
        let usage = &u["usage"];
        assert_eq!(
            (&usage["input"], &usage["cacheRead"]),
            (&json!(412), &json!(1800)),
            "{u}"
        );
    }
    assert_eq!(rpc.close().await, Some(0));
}
