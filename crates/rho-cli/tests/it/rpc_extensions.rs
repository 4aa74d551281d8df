//! RPC mode with an extension process: queueing an extension command is refused (CMD-7),
//! while `prompt` runs it, also during a streamed reply (Q-12, P-3).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::json;
use support::{hanging_reply, is_text_delta, reply, user_texts, Rpc, Start};

fn ask_extension() -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../extensions/examples/command_turn.py")
        .canonicalize()
        .expect("example exists")
        .display()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn q_12_steer_refuses_a_command_and_prompt_runs_it_while_streaming() {
    let mut rpc = Rpc::start_with(Start {
        args: vec!["-e".into(), ask_extension()],
        ..Start::default()
    })
    .await;
    let r = rpc
        .call(json!({"id": "s", "type": "steer", "message": "/ask why"}))
        .await;
    assert_eq!(
        r["error"],
        "Extension command \"/ask\" cannot be queued. Use prompt() or execute the command when not streaming."
    );
    rpc.server.push(hanging_reply("Thinking"));
    rpc.server.push(reply("Answered."));
    rpc.call(json!({"id": "p1", "type": "prompt", "message": "start"}))
        .await;
    rpc.wait(is_text_delta).await;
    let r = rpc
        .call(json!({"id": "p2", "type": "prompt", "message": "/ask is it done"}))
        .await;
    assert_eq!(
        r["success"], true,
        "the command ran instead of being refused: {r}"
    );
    rpc.event("agent_end").await;
    let texts = user_texts(&rpc.server.last_body());
    assert!(
        texts.iter().any(|t| t == "question: is it done"),
        "the command's message steered the running turn: {texts:?}"
    );
    assert_eq!(rpc.close().await, Some(0));
}
