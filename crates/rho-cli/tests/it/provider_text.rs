//! Issue 17 #10 through the binary: a huge provider error body is cut before it is saved,
//! and escape sequences in a provider's text are neutralised in `-p` text output (JSON mode
//! carries them as data).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{read_jsonl, reply, stderr, stdout, Sandbox};
use rho_testkit::MockResponse;

/// Clears the screen, sets the window title and colours: must not reach the terminal.
const HOSTILE: &str = "safe\x1b[2J\x1b]0;owned\x07\x1b[31mred\u{9b}2J\rend";

#[tokio::test]
async fn print_text_mode_neutralises_escape_sequences() {
    let sb = Sandbox::new().await;
    sb.server.push(reply(HOSTILE));
    let out = sb.rho(&["-p", "--no-session", "hi"], None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let text = stdout(&out);
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "no control characters reach the terminal: {text:?}"
    );
    assert_eq!(text, "safe␛[2J␛]0;owned␇␛[31mred\u{FFFD}2J␍end\n");
}

#[tokio::test]
async fn print_text_mode_neutralises_escapes_in_error_messages() {
    let sb = Sandbox::new().await;
    sb.server
        .push(MockResponse::error(400, "bad\x1b[2Jrequest"));
    let out = sb.rho(&["-p", "--no-session", "hi"], None).await;
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(!err.contains('\x1b'), "{err:?}");
    assert!(err.contains("bad␛[2Jrequest"), "{err:?}");
}

#[tokio::test]
async fn json_mode_keeps_the_text_as_data() {
    let sb = Sandbox::new().await;
    sb.server.push(reply(HOSTILE));
    let out = sb
        .rho(&["--mode", "json", "--no-session", "hi"], None)
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let end = stdout(&out)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["type"] == "agent_end")
        .expect("agent_end");
    let last = end["messages"].as_array().and_then(|m| m.last()).cloned();
    assert_eq!(
        last.expect("reply")["content"][0]["text"].as_str(),
        Some(HOSTILE)
    );
}

#[tokio::test]
async fn a_huge_error_body_is_saved_cut() {
    let sb = Sandbox::new().await;
    let huge = "e".repeat(10 * 1024 * 1024);
    sb.server.push(MockResponse::error(500, huge));
    let settings = serde_json::json!({"retry": {"enabled": false}});
    std::fs::write(sb.agent.path().join("settings.json"), settings.to_string()).expect("settings");
    let out = sb.rho(&["-p", "hi"], None).await;
    assert_eq!(out.status.code(), Some(1));
    let files = sb.session_files();
    assert_eq!(files.len(), 1, "{files:?}");
    let size = std::fs::metadata(&files[0]).expect("stat").len();
    assert!(size < 64 * 1024, "session file is {size} bytes");
    let lines = read_jsonl(&files[0]);
    let error = lines.last().expect("reply")["message"]["errorMessage"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        error.contains("[error body cut: first 16384 bytes kept]"),
        "{}",
        &error[error.len().saturating_sub(100)..]
    );
}
