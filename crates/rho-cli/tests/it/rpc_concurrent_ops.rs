//! Every command that affects a run, sent while a prompt's reply streams (pi 1.x dialect,
//! the spawned binary against the loopback provider): the event stream stays well-formed.
//! Each `agent_start` has its `agent_end` and each `message_start` its `message_end`, the
//! prompt's run settles exactly once, every response carries the id of its command, and
//! after the settle only what a command itself causes follows (a manual compaction's
//! events, the responses).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use rho_testkit::{Gate, MockResponse};
use serde_json::{json, Value};
use support::stream::assert_well_formed;
use support::{gated_reply, is_text_delta, reply, Rpc, Start};

/// One command sent while the reply streams.
struct Case {
    name: &'static str,
    command: Value,
    /// Replies the command's own model calls take (a steer's answer, a summary).
    replies: Vec<MockResponse>,
    /// Whether the command ends the run itself (else the reply is let finish once it was
    /// answered).
    ends_run: bool,
    /// Event types the command causes after the run has settled.
    after_settle: &'static [&'static str],
}

fn cases(other_session: &str) -> Vec<Case> {
    let case = |name, command: Value, replies, ends_run, after_settle| Case {
        name,
        command,
        replies,
        ends_run,
        after_settle,
    };
    let summary = || vec![reply("## Goal\nWork."), reply("## Goal\nWork.")];
    vec![
        case("abort", json!({"type": "abort"}), vec![], true, &[]),
        case(
            "steer",
            json!({"type": "steer", "message": "only the tests"}),
            vec![reply("Only the tests, then.")],
            false,
            &[],
        ),
        case(
            "follow_up",
            json!({"type": "follow_up", "message": "and then?"}),
            vec![reply("Then nothing.")],
            false,
            &[],
        ),
        case(
            "compact",
            json!({"type": "compact"}),
            summary(),
            true,
            &["compaction_start", "compaction_end"],
        ),
        case(
            "bash",
            json!({"type": "bash", "command": "echo concurrent"}),
            vec![],
            false,
            &[],
        ),
        case(
            "switch_session",
            json!({"type": "switch_session", "sessionPath": other_session}),
            vec![],
            true,
            &[],
        ),
        case(
            "new_session",
            json!({"type": "new_session"}),
            vec![],
            true,
            &[],
        ),
        case(
            "set_model",
            json!({"type": "set_model", "provider": "mock", "modelId": "m2"}),
            vec![],
            false,
            &[],
        ),
        case(
            "set_thinking_level",
            json!({"type": "set_thinking_level", "level": "high"}),
            vec![],
            false,
            &[],
        ),
    ]
}

/// rho in pi 1.x's dialect, with sessions on disk and compaction that keeps little.
async fn start() -> Rpc {
    Rpc::start_with(Start {
        args: vec!["--rpc-dialect".into(), "1.x".into()],
        with_sessions: true,
        settings: Some(json!({"compaction": {"keepRecentTokens": 1}})),
        ..Start::default()
    })
    .await
}

/// A finished conversation in a first session file (a switch needs a file to go to), then
/// a fresh session with one exchange (compaction needs history before the run it
/// interrupts); returns the first file.
async fn prepare(rpc: &mut Rpc) -> String {
    rpc.server.push(reply("Earlier answer."));
    rpc.call(json!({"id": "warm", "type": "prompt", "message": "earlier question"}))
        .await;
    rpc.event("agent_settled").await;
    let state = rpc.call(json!({"id": "s0", "type": "get_state"})).await;
    let file = state["data"]["sessionFile"]
        .as_str()
        .expect("file")
        .to_string();
    let r = rpc.call(json!({"id": "n0", "type": "new_session"})).await;
    assert_eq!(r["success"], true, "{r}");
    rpc.server.push(reply("A first answer."));
    rpc.call(json!({"id": "warm2", "type": "prompt", "message": "first question"}))
        .await;
    rpc.event("agent_settled").await;
    file
}

/// Runs case `index` of [`cases`] in a rho of its own.
async fn run_case(index: usize) {
    let mut rpc = start().await;
    let earlier = prepare(&mut rpc).await;
    let case = cases(&earlier).swap_remove(index);
    let from = rpc.seen.len();
    let gate = Gate::new();
    rpc.server.push(gated_reply("Working on", &gate, " it."));
    for r in case.replies {
        rpc.server.push(r);
    }
    let r = rpc
        .call(json!({"id": "p", "type": "prompt", "message": "do the work"}))
        .await;
    assert_eq!(r["success"], true, "{}: {r}", case.name);
    rpc.wait(|v| is_text_delta(v) && v["assistantMessageEvent"]["delta"] == "Working on")
        .await;
    let mut command = case.command;
    command["id"] = json!("op");
    rpc.send(command).await;
    if !case.ends_run {
        let r = rpc.response(&json!("op")).await;
        assert_eq!(r["success"], true, "{}: {r}", case.name);
        gate.open();
    }
    let settled = rpc.event("agent_settled").await;
    if case.ends_run {
        let r = rpc.response(&json!("op")).await;
        assert_eq!(r["success"], true, "{}: {r}", case.name);
    }
    rpc.call(json!({"id": "end", "type": "get_state"})).await;
    let lines = rpc.seen[from..].to_vec();
    check(case.name, &lines, &settled, case.after_settle);
    assert_eq!(
        settled["aborted"], case.ends_run,
        "{}: settles as aborted exactly when the command ended the run",
        case.name
    );
    assert_eq!(rpc.close().await, Some(0), "{}", case.name);
}

/// The checks every case shares (see the module doc).
fn check(name: &str, lines: &[Value], settled: &Value, after_settle: &[&str]) {
    let events: Vec<Value> = lines
        .iter()
        .filter(|l| l["type"] != "response")
        .cloned()
        .collect();
    assert_well_formed(&events);
    let settles = events
        .iter()
        .filter(|e| e["type"] == "agent_settled")
        .count();
    assert_eq!(settles, 1, "{name}: one settle for the prompt: {events:#?}");
    let responses: Vec<&Value> = lines.iter().filter(|l| l["type"] == "response").collect();
    for id in ["p", "op", "end"] {
        let n = responses.iter().filter(|r| r["id"] == id).count();
        assert_eq!(n, 1, "{name}: one response for {id}: {responses:#?}");
    }
    assert!(
        responses.iter().all(|r| r["id"].is_string()),
        "{name}: every response carries its id: {responses:#?}"
    );
    let at = lines
        .iter()
        .position(|l| l == settled)
        .expect("the settle is in the stream");
    let caused: Vec<&str> = lines[at + 1..]
        .iter()
        .filter_map(|l| l["type"].as_str())
        .filter(|t| *t != "response")
        .collect();
    assert!(
        caused.iter().all(|t| after_settle.contains(t)),
        "{name}: after the settle only {after_settle:?}, got {caused:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_run_affecting_command_during_a_streaming_reply_keeps_the_stream_well_formed() {
    for index in 0..cases("").len() {
        run_case(index).await;
    }
}
