//! `one-at-a-time` steering over RPC (D4, pi's "one steering message per completed assistant
//! turn"): two `steer` lines sent while a reply streams give the first steer, a model call
//! answering it, then the second, in every run. Both lines in one write, and in two writes.
//!
//! The answer to the first steer waits at a gate until rho has answered both steer lines, so
//! the second always arrives while a run is going (a steer sent after the run is over is
//! queued for the next prompt, as in pi, which is not this scenario).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use rho_testkit::Gate;
use serde_json::{json, Value};
use support::{gated_reply, hanging_reply, is_text_delta, reply, user_texts, Rpc};

/// How many prompts each test steers twice; the order must hold in every one.
const RUNS: usize = 50;

/// How the two steer lines reach rho's stdin.
#[derive(Clone, Copy)]
enum Writes {
    One,
    Two,
}

async fn steer_twice_per_run(writes: Writes) {
    let mut rpc = Rpc::start().await;
    let r = rpc
        .call(json!({"id": "mode", "type": "set_steering_mode", "mode": "one-at-a-time"}))
        .await;
    assert_eq!(r["success"], true, "{r}");
    for run in 0..RUNS {
        let before = rpc.server.requests().len();
        let seen_before = rpc.seen.len();
        let prompt = format!("prompt {run}");
        let first = format!("first steer {run}");
        let second = format!("second steer {run}");
        let partial = format!("Working on {run}");
        let gate = Gate::new();
        rpc.server.push(hanging_reply(&partial));
        rpc.server.push(gated_reply(
            &format!("answer to the first {run}"),
            &gate,
            ".",
        ));
        rpc.server
            .push(reply(&format!("answer to the second {run}")));
        let r = rpc
            .call(json!({"id": format!("p{run}"), "type": "prompt", "message": prompt}))
            .await;
        assert_eq!(r["success"], true, "{r}");
        rpc.wait(|v| is_text_delta(v) && v["assistantMessageEvent"]["delta"] == partial)
            .await;
        let (a, b) = (format!("a{run}"), format!("b{run}"));
        let lines = [
            json!({"id": a, "type": "steer", "message": first}).to_string(),
            json!({"id": b, "type": "steer", "message": second}).to_string(),
        ];
        match writes {
            Writes::One => {
                rpc.send_raw(format!("{}\n{}\n", lines[0], lines[1]).as_bytes())
                    .await
            }
            Writes::Two => {
                rpc.send_raw(format!("{}\n", lines[0]).as_bytes()).await;
                rpc.send_raw(format!("{}\n", lines[1]).as_bytes()).await;
            }
        }
        for id in [a, b] {
            let r = rpc.response(&json!(id)).await;
            assert_eq!(r["success"], true, "{r}");
        }
        gate.open();
        rpc.event("agent_end").await;
        rpc.idle().await;
        let requests: Vec<Value> = rpc.server.requests()[before..]
            .iter()
            .map(|r| r.json())
            .collect();
        let tail = |n: usize, texts: &[String]| texts[texts.len().saturating_sub(n)..].to_vec();
        let users: Vec<Vec<String>> = requests.iter().map(user_texts).collect();
        let recent: Vec<Vec<String>> = users.iter().map(|u| tail(3, u)).collect();
        assert_eq!(
            requests.len(),
            3,
            "run {run}: the prompt, the first steer and the second each get a model call: {recent:?}"
        );
        assert_eq!(
            tail(2, &users[1]),
            [prompt.clone(), first.clone()],
            "run {run}: the first steer is answered alone"
        );
        assert_eq!(
            tail(3, &users[2]),
            [prompt, first, second.clone()],
            "run {run}: the second steer comes after the first's answer"
        );
        assert!(
            requests[2]
                .to_string()
                .contains(&format!("answer to the first {run}.")),
            "run {run}: the whole answer to the first steer is in the context of the second"
        );
        assert_order(&rpc.seen[seen_before..], run, &second);
    }
    assert_eq!(rpc.close().await, Some(0));
}

/// The events of one run: one interrupted reply, then two answers, and the second steer's
/// `message_start` after the first answer's `message_end`.
fn assert_order(lines: &[Value], run: usize, second: &str) {
    let ends: Vec<(usize, &str)> = lines
        .iter()
        .enumerate()
        .filter(|(_, v)| v["type"] == "message_end" && v["message"]["role"] == "assistant")
        .map(|(i, v)| (i, v["message"]["stopReason"].as_str().unwrap_or("")))
        .collect();
    let stops: Vec<&str> = ends.iter().map(|(_, s)| *s).collect();
    assert_eq!(
        stops,
        ["aborted", "stop", "stop"],
        "run {run}: one interrupted reply, then two answers: {lines:#?}"
    );
    let second_start = lines
        .iter()
        .position(|v| {
            v["type"] == "message_start"
                && v["message"]["role"] == "user"
                && v["message"]["content"][0]["text"] == second
        })
        .unwrap_or_else(|| panic!("run {run}: the second steer is delivered: {lines:#?}"));
    assert!(
        ends[1].0 < second_start,
        "run {run}: the first steer's answer ends before the second is delivered: {lines:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_steers_in_one_write_are_answered_one_at_a_time_every_run() {
    steer_twice_per_run(Writes::One).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_steers_in_two_writes_are_answered_one_at_a_time_every_run() {
    steer_twice_per_run(Writes::Two).await;
}
