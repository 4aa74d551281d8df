//! Commands that arrive while a reply streams (D13): steer, follow_up, prompt with and
//! without streamingBehavior, abort, bash; and shutdown on EOF during a run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::time::Duration;

use serde_json::json;
use support::{hanging_reply, is_text_delta, reply, slow_reply, user_texts, Rpc};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn steer_during_a_streamed_reply_reaches_the_next_model_call() {
    let mut rpc = Rpc::start().await;
    rpc.server.push(hanging_reply("Working on"));
    rpc.server.push(reply("Only the unit suite then."));
    rpc.call(json!({"id": "t1", "type": "prompt", "message": "Run the tests"}))
        .await;
    rpc.wait(is_text_delta).await;
    let r = rpc
        .call(json!({"id": "t2", "type": "prompt", "message": "also lint"}))
        .await;
    assert_eq!(
        r["error"],
        "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
    );
    let r = rpc
        .call(json!({"id": "t3", "type": "steer", "message": "only the unit suite"}))
        .await;
    assert_eq!(r["success"], true);
    let queued = rpc
        .position(|v| v["type"] == "queue_update")
        .expect("queue_update");
    let answered = rpc.position(|v| v["id"] == "t3").expect("response");
    assert!(
        queued < answered,
        "queue_update is written before the steer response"
    );
    assert_eq!(rpc.seen[queued]["steering"], json!(["only the unit suite"]));
    let end = rpc.event("agent_end").await;
    let last = end["messages"]
        .as_array()
        .and_then(|m| m.last())
        .expect("last");
    assert_eq!(last["content"][0]["text"], "Only the unit suite then.");
    assert_eq!(rpc.server.requests().len(), 2);
    let second = user_texts(&rpc.server.requests()[1].json());
    assert_eq!(second, ["Run the tests", "only the unit suite"]);
    let emptied = rpc
        .seen
        .iter()
        .rev()
        .find(|v| v["type"] == "queue_update")
        .expect("queue_update");
    assert_eq!(emptied["steering"], json!([]));
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follow_up_and_queued_prompt_wait_until_the_reply_ends() {
    let mut rpc = Rpc::start().await;
    rpc.server
        .push(slow_reply("First", Duration::from_millis(800), " answer."));
    rpc.server.push(reply("Follow-up answer."));
    rpc.server.push(reply("Queued prompt answer."));
    rpc.call(json!({"id": "p", "type": "prompt", "message": "one"}))
        .await;
    rpc.wait(is_text_delta).await;
    let r = rpc
        .call(json!({"id": "f", "type": "follow_up", "message": "two"}))
        .await;
    assert_eq!(r["success"], true);
    let r = rpc
        .call(json!({"id": "q", "type": "prompt", "message": "three", "streamingBehavior": "followUp"}))
        .await;
    assert_eq!(r["success"], true);
    let state = rpc.call(json!({"id": "s", "type": "get_state"})).await;
    assert_eq!(state["data"]["isStreaming"], true);
    assert_eq!(state["data"]["pendingMessageCount"], 2);
    rpc.event("agent_end").await;
    let requests = rpc.server.requests();
    assert_eq!(requests.len(), 3, "the reply, then one call per follow-up");
    assert_eq!(user_texts(&requests[1].json()), ["one", "two"]);
    assert_eq!(user_texts(&requests[2].json()), ["one", "two", "three"]);
    let first = rpc
        .seen
        .iter()
        .find(|v| v["type"] == "message_end" && v["message"]["role"] == "assistant")
        .expect("first reply");
    assert_eq!(first["message"]["content"][0]["text"], "First answer.");
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abort_ends_the_reply_and_the_next_prompt_works() {
    let mut rpc = Rpc::start().await;
    rpc.server.push(hanging_reply("Thinking about"));
    rpc.call(json!({"id": "p", "type": "prompt", "message": "long task"}))
        .await;
    rpc.wait(is_text_delta).await;
    let r = rpc.call(json!({"id": "a", "type": "abort"})).await;
    assert_eq!(r["success"], true);
    let end = rpc
        .wait(|v| v["type"] == "message_end" && v["message"]["role"] == "assistant")
        .await;
    assert_eq!(end["message"]["stopReason"], "aborted");
    assert_eq!(end["message"]["errorMessage"], "Request was aborted");
    rpc.event("agent_end").await;
    let aborted_at = rpc
        .position(|v| v["type"] == "agent_end")
        .expect("agent_end");
    let answered_at = rpc.position(|v| v["id"] == "a").expect("abort response");
    assert!(
        aborted_at < answered_at,
        "abort answers once the run is idle"
    );
    let state = rpc.call(json!({"id": "s", "type": "get_state"})).await;
    assert_eq!(state["data"]["isStreaming"], false);
    rpc.server.push(reply("Fresh start."));
    assert_eq!(rpc.prompt_ok("p2", "again").await, "Fresh start.");
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bash_while_streaming_is_held_until_the_run_ends() {
    let mut rpc = Rpc::start().await;
    rpc.server.push(hanging_reply("Partial"));
    rpc.call(json!({"id": "p", "type": "prompt", "message": "go"}))
        .await;
    rpc.wait(is_text_delta).await;
    let r = rpc
        .call(json!({"id": "b", "type": "bash", "command": "echo during"}))
        .await;
    assert_eq!(
        r["data"],
        json!({"output": "during\n", "exitCode": 0, "cancelled": false, "truncated": false})
    );
    let msgs = rpc.call(json!({"id": "m1", "type": "get_messages"})).await;
    let roles: Vec<_> = msgs["data"]["messages"]
        .as_array()
        .expect("list")
        .iter()
        .map(|m| m["role"].clone())
        .collect();
    assert_eq!(roles, [json!("user")], "held while the run is active");
    rpc.call(json!({"id": "a", "type": "abort"})).await;
    let msgs = rpc.call(json!({"id": "m2", "type": "get_messages"})).await;
    let list = msgs["data"]["messages"].as_array().expect("list");
    assert_eq!(list.len(), 3);
    assert_eq!(list[1]["role"], "assistant");
    assert_eq!(list[2]["role"], "bashExecution");
    assert_eq!(list[2]["command"], "echo during");
    assert!(rpc.seen.iter().all(|v| v["type"] != "bashExecution"));
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eof_during_a_run_aborts_it_and_exits_zero() {
    let mut rpc = Rpc::start().await;
    rpc.server.push(hanging_reply("Never finishing"));
    rpc.call(json!({"id": "p", "type": "prompt", "message": "go"}))
        .await;
    rpc.wait(is_text_delta).await;
    rpc.close_stdin();
    let end = rpc.event("agent_end").await;
    let last = end["messages"]
        .as_array()
        .and_then(|m| m.last())
        .expect("last");
    assert_eq!(last["stopReason"], "aborted");
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_and_sighup_exit_with_pi_codes_and_kill_running_shells() {
    for (signal, code) in [(libc::SIGTERM, 143), (libc::SIGHUP, 129)] {
        let mut rpc = Rpc::start().await;
        let marker = rpc.work_dir().join("shell.pid");
        let command = format!("echo $$ > {}; exec sleep 30", marker.display());
        rpc.send(json!({"id": "b", "type": "bash", "command": command}))
            .await;
        // The shell writes its pid before sleeping; ask for state until the file is there.
        let mut n = 0;
        while !marker.exists() || support::read(&marker).trim().is_empty() {
            n += 1;
            assert!(n < 5000, "the shell never started");
            rpc.call(json!({"id": format!("s{n}"), "type": "get_state"}))
                .await;
        }
        let shell: i32 = support::read(&marker).trim().parse().expect("pid");
        let pid = rpc.child.id().expect("running") as i32;
        // SAFETY: sending a signal to our own child process.
        unsafe { libc::kill(pid, signal) };
        let status = tokio::time::timeout(Duration::from_secs(20), rpc.child.wait())
            .await
            .expect("rho exits on the signal")
            .expect("wait");
        assert_eq!(
            status.code(),
            Some(code),
            "stdin is still open: the signal ended it"
        );
        // The shell is not our child, so its death cannot be awaited; SIGKILL takes effect
        // within moments, so look for up to two seconds.
        let dead = || {
            std::fs::read_to_string(format!("/proc/{shell}/stat"))
                .map(|s| s.contains(") Z") || s.contains(") X"))
                .unwrap_or(true)
        };
        let mut tries = 0;
        while !dead() && tries < 200 {
            tries += 1;
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(
            dead(),
            "the shell's process group was killed: {:?}",
            std::fs::read_to_string(format!("/proc/{shell}/stat"))
        );
    }
}
