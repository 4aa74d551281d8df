//! D13: commands take effect in line order. Several `prompt` lines written in one write
//! (back to back while idle, and with `streamingBehavior` while a reply streams) must reach
//! the conversation in the order they were written; only their waiting runs concurrently.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../benches/rpc_soak/session_file.rs"]
mod session_file;
use crate::support;

use std::time::Duration;

use serde_json::{json, Value};
use support::{is_text_delta, slow_reply, Rpc};

/// Rounds per scenario: the race this guards against showed in roughly one round in five.
const ROUNDS: usize = 40;

/// Replies pushed per round: every model call of a round (interrupted ones included) takes
/// one; all are alike, so the ones a round leaves serve the next.
const REPLIES_PER_ROUND: usize = 10;

fn push_replies(rpc: &Rpc) {
    for _ in 0..REPLIES_PER_ROUND {
        rpc.server
            .push(slow_reply("Noted", Duration::from_millis(20), "."));
    }
}

fn prompt_line(text: &str, behavior: Option<&str>) -> String {
    let mut command = json!({"type": "prompt", "message": text});
    if let Some(b) = behavior {
        command["streamingBehavior"] = json!(b);
    }
    format!("{command}\n")
}

/// The text of a `message_start` for a user message, if `v` is one.
fn user_start(v: &Value) -> Option<String> {
    if v["type"] != "message_start" || v["message"]["role"] != "user" {
        return None;
    }
    match &v["message"]["content"] {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => Some(parts.iter().filter_map(|p| p["text"].as_str()).collect()),
        _ => None,
    }
}

/// Waits until the user message `last` has started and its run has ended, then until the
/// session is idle; returns the user messages started since `from` (an index into `seen`).
async fn settle(rpc: &mut Rpc, last: &str, from: usize) -> Vec<String> {
    rpc.wait(|v| user_start(v).as_deref() == Some(last)).await;
    rpc.event("agent_end").await;
    rpc.idle().await;
    rpc.seen[from..].iter().filter_map(user_start).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_prompt_lines_written_at_once_run_in_line_order() {
    let mut rpc = Rpc::start().await;
    for round in 0..ROUNDS {
        push_replies(&rpc);
        let from = rpc.seen.len();
        let (a, b, c) = (
            format!("a{round}"),
            format!("b{round}"),
            format!("c{round}"),
        );
        let lines = prompt_line(&a, None)
            + &prompt_line(&b, Some("followUp"))
            + &prompt_line(&c, Some("followUp"));
        rpc.send_raw(lines.as_bytes()).await;
        let started = settle(&mut rpc, &c, from).await;
        assert_eq!(started, [a, b, c], "round {round}");
    }
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompt_lines_queued_while_streaming_keep_line_order() {
    let mut rpc = Rpc::start().await;
    for round in 0..ROUNDS {
        push_replies(&rpc);
        let from = rpc.seen.len();
        let first = format!("go{round}");
        rpc.send_raw(prompt_line(&first, None).as_bytes()).await;
        rpc.wait(is_text_delta).await;
        let texts: Vec<String> = ["s1", "s2", "f1", "f2"]
            .iter()
            .map(|t| format!("{t}-{round}"))
            .collect();
        let lines = prompt_line(&texts[0], Some("steer"))
            + &prompt_line(&texts[1], Some("steer"))
            + &prompt_line(&texts[2], Some("followUp"))
            + &prompt_line(&texts[3], Some("followUp"));
        rpc.send_raw(lines.as_bytes()).await;
        let started = settle(&mut rpc, &texts[3], from).await;
        let mut expected = vec![first];
        expected.extend(texts);
        assert_eq!(started, expected, "round {round}");
    }
    assert_eq!(rpc.close().await, Some(0));
}

/// Rounds for the prompt-after-`agent_end` race.
const BACK_TO_BACK_ROUNDS: usize = 40;

/// A client that waits for `agent_end` and sends its next prompt at once is never refused:
/// the run that announced its end may still be finishing (its future, the post-run chain),
/// and rho waits for it, as pi's single-threaded loop has always finished it by then.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_sent_right_after_agent_end_is_accepted() {
    let home = tempfile::tempdir().unwrap();
    let work = home.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    // A long transcript makes the end of each run (its checks walk the transcript) long
    // enough for the race to show.
    let session = home.path().join("long.jsonl");
    session_file::generate(&session, &work, 3_000);
    let mut rpc = Rpc::start_with(support::Start {
        with_sessions: true,
        home: Some(home),
        args: vec!["--session".into(), session.to_string_lossy().into_owned()],
        ..Default::default()
    })
    .await;
    for round in 0..BACK_TO_BACK_ROUNDS {
        rpc.server.push(support::reply(&format!("answer {round}")));
        let prompt =
            json!({"id": format!("p{round}"), "type": "prompt", "message": format!("q{round}")});
        let r = rpc.call(prompt).await;
        assert_eq!(r["success"], true, "round {round}: {r}");
        rpc.event("agent_end").await;
    }
    assert_eq!(rpc.close().await, Some(0));
}
