//! A client that stops reading while a long reply streams (issue 20): rho keeps no backlog of
//! whole-message updates; the client still gets every delta (merged) and the full message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::Sandbox;
use rho_testkit::openai_chat::ChatStream;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const DELTAS: usize = 3000;

fn piece(i: usize) -> String {
    format!("w{} ", i % 10)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_that_pauses_gets_merged_updates_and_the_whole_reply() {
    let sb = Sandbox::new().await;
    let mut stream = ChatStream::new("chatcmpl-1", "mock-model").role();
    for i in 0..DELTAS {
        stream = stream.text(&piece(i));
    }
    sb.server.push(
        stream
            .finish("stop")
            .usage(3, DELTAS as u64, None)
            .done()
            .response(),
    );
    let text: String = (0..DELTAS).map(piece).collect();

    let args = [
        "--mode",
        "rpc",
        "--no-session",
        "--provider",
        "mock",
        "--model",
        "mock-model",
    ];
    let mut child = sb.command(&args).spawn().expect("spawn rho");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(b"{\"id\":\"p\",\"type\":\"prompt\",\"message\":\"go\"}\n")
        .await
        .expect("send prompt");
    // Nothing is read until the provider has sent the whole reply: stdout's pipe fills
    // after a few updates, and the rest of the reply arrives while the client is not reading.
    sb.server.wait_for_closed(1).await;

    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let (mut deltas, mut updates, mut end, mut agent_end) = (String::new(), 0, None, None);
    while let Some(line) = lines.next_line().await.expect("read stdout") {
        let v: Value = serde_json::from_str(&line).expect("every line is JSON");
        match v["type"].as_str() {
            Some("message_update") => {
                updates += 1;
                let e = &v["assistantMessageEvent"];
                if e["type"] == "text_delta" {
                    deltas.push_str(e["delta"].as_str().expect("delta"));
                    assert_eq!(e["partial"], v["message"], "partial is the message");
                    let shown = v["message"]["content"][0]["text"].as_str().expect("text");
                    assert_eq!(shown, deltas, "the partial holds exactly the deltas so far");
                }
            }
            Some("message_end") if v["message"]["role"] == "assistant" => end = Some(v),
            Some("agent_end") => {
                agent_end = Some(v);
                break;
            }
            _ => {}
        }
    }
    drop(stdin);
    let _ = child.wait().await;

    assert_eq!(deltas, text, "the merged deltas add up to the reply");
    assert!(
        updates < DELTAS,
        "queued updates were merged ({updates} written)"
    );
    let end = end.expect("message_end");
    assert_eq!(end["message"]["content"][0]["text"], text.as_str());
    let agent_end = agent_end.expect("agent_end");
    assert_eq!(
        agent_end["messages"][1]["content"][0]["text"],
        text.as_str()
    );
}
