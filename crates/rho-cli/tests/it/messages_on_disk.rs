//! A session opened from its file keeps its messages on disk (issue 20): `get_state` and
//! `get_messages` answer without decoding them, and a file another program truncated under a
//! running rho is a clear error on the next prompt, after which rho still answers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;
use std::process::Stdio;

use common::{assistant_message, message_line, stderr, Sandbox};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{ChildStdin, ChildStdout};

/// A session file: a question, its answer, and `last` as the third message.
fn plant(sb: &Sandbox, last: Value) -> std::path::PathBuf {
    let path = sb.cwd.join("s.jsonl");
    let header = json!({"type": "session", "version": 3, "id": "0195508c-on-disk",
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": sb.cwd.to_string_lossy()});
    let lines = [
        header.to_string(),
        message_line(
            "a1",
            None,
            json!({"role": "user", "content": "remember the word kumquat", "timestamp": 1}),
        ),
        message_line("a2", Some("a1"), assistant_message("noted: kumquat")),
        message_line("a3", Some("a2"), last),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    path
}

struct Rpc {
    child: tokio::process::Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
}

impl Rpc {
    fn start(sb: &Sandbox, path: &Path) -> Rpc {
        let session = path.to_string_lossy().into_owned();
        let mut child = sb
            .command(&[
                "--mode",
                "rpc",
                "--model",
                "mock/mock-model",
                "--session",
                &session,
            ])
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn rho");
        let stdin = child.stdin.take().expect("stdin");
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        Rpc {
            child,
            stdin,
            lines,
        }
    }

    async fn send(&mut self, command: Value) {
        let line = format!("{command}\n");
        self.stdin.write_all(line.as_bytes()).await.expect("write");
    }

    async fn until(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            let line = self
                .lines
                .next_line()
                .await
                .expect("stdout")
                .expect("rho runs");
            let v: Value = serde_json::from_str(&line).expect("json line");
            if pred(&v) {
                return v;
            }
        }
    }

    async fn ask(&mut self, id: &str, command: &str) -> Value {
        self.send(json!({"id": id, "type": command})).await;
        let r = self.until(|v| v["id"] == id).await;
        assert_eq!(r["success"], true, "{r}");
        r["data"].clone()
    }

    /// Prompts and returns the error of the run's last message (`None` when it succeeded).
    async fn prompt(&mut self, text: &str) -> Option<String> {
        self.send(json!({"id": "p", "type": "prompt", "message": text}))
            .await;
        let end = self.until(|v| v["type"] == "agent_end").await;
        let last = end["messages"].as_array().and_then(|m| m.last()).cloned();
        last.and_then(|m| m["errorMessage"].as_str().map(str::to_string))
    }

    async fn close(self) -> String {
        drop(self.stdin);
        let out = self.child.wait_with_output().await.expect("rho exits");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stderr(&out)
    }
}

/// The third message's body is not a valid user message (`content` a number): decoding it
/// would fail, so answering `get_state` and `get_messages` shows it was never decoded
/// (before, opening skipped it with a warning and the session had two messages). The prompt
/// that must send it fails with an error naming the file and where the message is.
#[tokio::test]
async fn get_state_and_get_messages_answer_without_decoding_messages() {
    let sb = Sandbox::new().await;
    let bad = json!({"role": "user", "content": 5, "timestamp": 3});
    let path = plant(&sb, bad.clone());
    let mut rpc = Rpc::start(&sb, &path);
    assert_eq!(rpc.ask("s", "get_state").await["messageCount"], 3);
    let messages = rpc.ask("m", "get_messages").await["messages"].clone();
    assert_eq!(messages[1], assistant_message("noted: kumquat"));
    assert_eq!(messages[2], bad, "sent as stored");
    prompt_fails_reading(&mut rpc, &sb, &path).await;
    assert_eq!(rpc.ask("s2", "get_state").await["messageCount"], 5);
    rpc.close().await;
}

/// Another program truncates the file under a running rho: the next prompt is an error that
/// names the file, nothing is sent, and rho goes on answering.
#[tokio::test]
async fn a_session_file_truncated_under_rho_is_a_clear_error_and_rho_lives() {
    let sb = Sandbox::new().await;
    let question = json!({"role": "user", "content": "and a fig", "timestamp": 3});
    let path = plant(&sb, question);
    let mut rpc = Rpc::start(&sb, &path);
    assert_eq!(rpc.ask("s", "get_state").await["messageCount"], 3);
    let text = std::fs::read_to_string(&path).expect("read");
    let header = text.lines().next().expect("header");
    std::fs::write(&path, format!("{header}\n")).expect("truncate in place");
    prompt_fails_reading(&mut rpc, &sb, &path).await;
    rpc.ask("s2", "get_state").await;
    rpc.close().await;
}

/// Another program rewrites a message in place with other bytes of the same length, still a
/// valid message of the same role: `get_messages` copies messages as stored without parsing
/// them, and their checksum keeps it from sending the changed one as the stored message (it
/// sends `null` in its place and says why on stderr); the others are sent as stored.
#[tokio::test]
async fn a_message_rewritten_in_place_is_not_sent_as_the_stored_one() {
    let sb = Sandbox::new().await;
    let question = json!({"role": "user", "content": "and a fig", "timestamp": 3});
    let path = plant(&sb, question.clone());
    let mut rpc = Rpc::start(&sb, &path);
    assert_eq!(rpc.ask("s", "get_state").await["messageCount"], 3);
    let text = std::fs::read_to_string(&path).expect("read");
    std::fs::write(&path, text.replace("kumquat", "loquats")).expect("rewrite in place");
    let messages = rpc.ask("m", "get_messages").await["messages"].clone();
    assert_eq!(messages[0], Value::Null, "{messages}");
    assert_eq!(messages[1], Value::Null, "{messages}");
    assert_eq!(messages[2], question, "unchanged, sent as stored");
    let err = rpc.close().await;
    assert!(
        err.contains("cannot read the message at byte") && err.contains("rewritten"),
        "{err}"
    );
}

/// The next prompt fails with the read-back error naming `path`, and nothing reaches the
/// server.
async fn prompt_fails_reading(rpc: &mut Rpc, sb: &Sandbox, path: &Path) {
    let error = rpc
        .prompt("what was the word?")
        .await
        .expect("the prompt fails");
    assert!(
        error.contains("cannot read the message at byte")
            && error.contains(&path.to_string_lossy().into_owned()),
        "{error}"
    );
    assert!(
        sb.server.requests().is_empty(),
        "no request with a wrong context"
    );
}
