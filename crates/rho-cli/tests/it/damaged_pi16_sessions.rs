//! Bad input at file level (issue 14): a session with an unknown entry kind, a truncated last
//! line, or a pi 1.x field of the wrong type opens through `-c`, `--session` and RPC
//! `switch_session` with a warning naming file and line; the rest of the conversation reaches
//! the model, and after rho continued the file every byte it had is still there, in place.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::{assistant_message, chat_messages, message_line, reply, stderr, Sandbox};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// One damaged file: its text, the line the warning names and what the warning says.
struct Damage {
    text: String,
    line: usize,
    says: &'static str,
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text, "timestamp": 1})
}

fn header(cwd: &Path) -> String {
    json!({"type": "session", "version": 3, "id": "0195508c-damaged",
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd.to_string_lossy()})
    .to_string()
}

/// A future entry kind between the question and the answer (the answer's parent).
fn unknown_kind(cwd: &Path) -> Damage {
    let future = json!({"type": "bookmark_v9", "id": "u1", "parentId": "a1",
        "timestamp": "2026-01-01T00:00:00.000Z", "pinned": {"why": "later pi"}});
    let lines = [
        header(cwd),
        message_line("a1", None, user("remember the word kumquat")),
        future.to_string(),
        message_line("a2", Some("u1"), assistant_message("noted: kumquat")),
    ];
    Damage {
        text: lines.join("\n") + "\n",
        line: 3,
        says: "unknown entry type \"bookmark_v9\": kept as written and left out of the context",
    }
}

/// The last line cut off mid-write (no newline).
fn truncated_last_line(cwd: &Path) -> Damage {
    let last = message_line("a3", Some("a2"), user("this one never finished"));
    let lines = [
        header(cwd),
        message_line("a1", None, user("remember the word kumquat")),
        message_line("a2", Some("a1"), assistant_message("noted: kumquat")),
        last[..last.len() / 2].to_string(),
    ];
    Damage {
        text: lines.join("\n"),
        line: 4,
        says: "incomplete last line (interrupted write?) not loaded",
    }
}

/// pi 1.x's system message with `toolsAdded` a string instead of a list.
fn wrong_type_field(cwd: &Path) -> Damage {
    let system = json!({"role": "system", "content": "be brief", "toolsAdded": "read",
        "timestamp": 0});
    let lines = [
        header(cwd),
        message_line("s0", None, system),
        message_line("a1", Some("s0"), user("remember the word kumquat")),
        message_line("a2", Some("a1"), assistant_message("noted: kumquat")),
    ];
    Damage {
        text: lines.join("\n") + "\n",
        line: 2,
        says: "unexpected message entry",
    }
}

/// Writes `damage` at `path` and returns the bytes written.
fn plant(path: &Path, damage: &Damage) -> Vec<u8> {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
    std::fs::write(path, &damage.text).expect("write");
    damage.text.clone().into_bytes()
}

/// After rho continued `path`: every byte it had is still at the start, a torn last line was
/// closed by a newline before the new entries, and the new exchange is there.
fn assert_kept_and_continued(path: &Path, before: &[u8], how: &str) {
    let after = std::fs::read(path).expect("read");
    assert!(
        after.starts_with(before),
        "{how}: the file's bytes are kept"
    );
    assert!(
        after.len() > before.len(),
        "{how}: the exchange was appended"
    );
    if before.last() != Some(&b'\n') {
        assert_eq!(after[before.len()], b'\n', "{how}: the torn line is closed");
    }
    let text = String::from_utf8_lossy(&after);
    assert!(text.contains("what was the word?"), "{how}: {text}");
}

/// The earlier conversation reached the model in the last request.
fn assert_model_saw_history(sb: &Sandbox, how: &str) {
    let sent: Vec<String> = chat_messages(&sb.server.last_body())
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    assert!(
        sent.iter().any(|t| t == "remember the word kumquat")
            && sent.iter().any(|t| t == "noted: kumquat"),
        "{how}: {sent:?}"
    );
}

fn expect_warning(err: &str, path: &Path, damage: &Damage, how: &str) {
    let named = format!("{}:{}: {}", path.display(), damage.line, damage.says);
    assert!(err.contains(&named), "{how}: expected {named:?} in {err}");
}

/// The next stdout line matching `pred`.
async fn until(
    lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    pred: impl Fn(&Value) -> bool,
) -> Value {
    loop {
        let line = lines.next_line().await.expect("stdout").expect("rho runs");
        let v: Value = serde_json::from_str(&line).expect("json line");
        if pred(&v) {
            return v;
        }
    }
}

/// `rho --mode rpc`: `switch_session` to `path`, one prompt, then EOF; returns stderr.
async fn rpc_switch_and_prompt(sb: &Sandbox, path: &Path) -> String {
    let mut child = sb
        .command(&["--mode", "rpc", "--model", "mock/mock-model"])
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn rho");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let switch = json!({"id": "s", "type": "switch_session", "sessionPath": path});
    stdin
        .write_all(format!("{switch}\n").as_bytes())
        .await
        .expect("write");
    let r = until(&mut lines, |v| v["id"] == "s").await;
    assert_eq!(r["success"], true, "{r}");
    let prompt = json!({"id": "p", "type": "prompt", "message": "what was the word?"});
    stdin
        .write_all(format!("{prompt}\n").as_bytes())
        .await
        .expect("write");
    until(&mut lines, |v| v["type"] == "agent_end").await;
    drop(stdin);
    let out = child.wait_with_output().await.expect("rho exits");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stderr(&out)
}

/// Opens `damage` three ways (`-c`, `--session`, RPC `switch_session`), each on its own copy,
/// continues it, and checks warning, context and bytes.
async fn opens_three_ways(make: fn(&Path) -> Damage) {
    let sb = Sandbox::new().await;
    let damage = make(&sb.cwd);
    let elsewhere = sb.agent.path().join("elsewhere");

    let by_continue = sb
        .session_dir()
        .join("2026-01-01T00-00-00-000Z_damaged.jsonl");
    let before = plant(&by_continue, &damage);
    sb.server.push(reply("kumquat"));
    let out = sb.rho(&["-c", "-p", "what was the word?"], None).await;
    assert_eq!(out.status.code(), Some(0), "-c: {}", stderr(&out));
    expect_warning(&stderr(&out), &by_continue, &damage, "-c");
    assert_model_saw_history(&sb, "-c");
    assert_kept_and_continued(&by_continue, &before, "-c");

    let by_flag: PathBuf = elsewhere.join("flag.jsonl");
    let before = plant(&by_flag, &damage);
    sb.server.push(reply("kumquat"));
    let flag = by_flag.to_string_lossy().into_owned();
    let out = sb
        .rho(&["--session", &flag, "-p", "what was the word?"], None)
        .await;
    assert_eq!(out.status.code(), Some(0), "--session: {}", stderr(&out));
    expect_warning(&stderr(&out), &by_flag, &damage, "--session");
    assert_model_saw_history(&sb, "--session");
    assert_kept_and_continued(&by_flag, &before, "--session");

    let by_rpc = elsewhere.join("rpc.jsonl");
    let before = plant(&by_rpc, &damage);
    sb.server.push(reply("kumquat"));
    let err = rpc_switch_and_prompt(&sb, &by_rpc).await;
    expect_warning(&err, &by_rpc, &damage, "switch_session");
    assert_model_saw_history(&sb, "switch_session");
    assert_kept_and_continued(&by_rpc, &before, "switch_session");
}

#[tokio::test]
async fn unknown_entry_kind_opens_with_a_warning_and_stays() {
    opens_three_ways(unknown_kind).await;
}

#[tokio::test]
async fn truncated_last_line_opens_with_a_warning_and_stays() {
    opens_three_ways(truncated_last_line).await;
}

#[tokio::test]
async fn pi1x_field_of_the_wrong_type_opens_with_a_warning_and_stays() {
    opens_three_ways(wrong_type_field).await;
}
