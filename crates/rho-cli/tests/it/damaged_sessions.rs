//! A damaged session still opens through `-c` (issue 17 #4): the bad line is skipped with a
//! warning naming file and line, the rest of the conversation reaches the model, and the file
//! keeps the bad line.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{chat_messages, reply, stderr, Sandbox};
use serde_json::json;

#[tokio::test]
async fn continue_skips_a_bad_middle_line_with_a_warning_and_keeps_it() {
    let sb = Sandbox::new().await;
    let dir = sb.session_dir();
    std::fs::create_dir_all(&dir).expect("session dir");
    let path = dir.join("2026-01-01T00-00-00-000Z_s1.jsonl");
    let cwd = sb.cwd.to_string_lossy();
    let msg = |id: &str, parent: Option<&str>, role: &str, text: &str| {
        let message = if role == "user" {
            json!({"role": "user", "content": text, "timestamp": 1})
        } else {
            json!({"role": "assistant", "content": [{"type": "text", "text": text}],
                "api": "openai-completions", "provider": "mock", "model": "mock-model",
                "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                "stopReason": "stop", "timestamp": 2})
        };
        json!({"type": "message", "id": id, "parentId": parent,
            "timestamp": "2026-01-01T00:00:00.000Z", "message": message})
        .to_string()
    };
    let header = json!({"type": "session", "version": 3, "id": "s1",
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd});
    let text = [
        header.to_string(),
        msg("a1", None, "user", "remember the word kumquat"),
        "{\"type\":\"message\",\"id\":\"broken".to_string(),
        msg("a2", Some("a1"), "assistant", "noted: kumquat"),
    ]
    .join("\n")
        + "\n";
    std::fs::write(&path, &text).expect("write");
    sb.server.push(reply("kumquat"));
    let out = sb.rho(&["-c", "-p", "what was the word?"], None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "{}:3: skipped a line that is not a valid session entry",
            path.display()
        )),
        "{err}"
    );
    let sent: Vec<String> = chat_messages(&sb.server.last_body())
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    assert!(sent.iter().any(|t| t == "noted: kumquat"), "{sent:?}");
    let after = std::fs::read_to_string(&path).expect("read");
    assert!(
        after.starts_with(&text),
        "the file before the new entries is unchanged"
    );
}
