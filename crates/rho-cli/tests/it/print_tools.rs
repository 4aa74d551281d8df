//! Print mode with a tool round: the model calls the built-in `read` tool on a real file,
//! the result goes back, and the final text is printed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{reply, stderr, stdout, Sandbox};
use rho_testkit::openai_chat::ChatStream;

#[tokio::test]
async fn print_mode_runs_a_read_tool_round() {
    let sb = Sandbox::new().await;
    std::fs::write(sb.cwd.join("notes.txt"), "the secret is 42\n").expect("write file");
    let call = ChatStream::new("chatcmpl-1", "mock-model")
        .tool_call_start(0, "call_1", "read")
        .tool_args(0, "{\"path\":")
        .tool_args(0, "\"notes.txt\"}")
        .finish("tool_calls")
        .done()
        .response();
    sb.server.push(call);
    sb.server.push(reply("The secret is 42."));
    let out = sb
        .rho(&["-p", "--no-session", "what is the secret?"], None)
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "The secret is 42.\n");
    let requests = sb.server.requests();
    assert_eq!(requests.len(), 2);
    let first = requests[0].json();
    let tools = rho_testkit::json::tool_names(&first);
    assert_eq!(tools, ["read", "bash", "edit", "write"]);
    let second = requests[1].json();
    let tool_msg = second["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .find(|m| m["role"] == "tool")
        .expect("tool result sent");
    assert_eq!(tool_msg["tool_call_id"], "call_1");
    assert!(tool_msg["content"].to_string().contains("the secret is 42"));
}

#[tokio::test]
async fn models_json_headers_are_resolved_per_request() {
    let sb = Sandbox::new().await;
    sb.write_models(&serde_json::json!({
        "providers": {
            "mock": {
                "baseUrl": format!("{}/v1", sb.server.url()),
                "api": "openai-completions",
                "apiKey": "test-key",
                "headers": {"x-team": "$TEAM_NAME", "x-bare": "TEAM_NAME", "x-token": "!printf tok-123", "x-plain": "literal"},
                "models": [{"id": "mock-model"}]
            }
        }
    }));
    sb.server.push(reply("ok"));
    let mut cmd = sb.command(&["-p", "--no-session", "hi"]);
    cmd.env("TEAM_NAME", "platform");
    let out = cmd.output().await.expect("runs");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let req = &sb.server.requests()[0];
    assert_eq!(req.header("x-team"), Some("platform"));
    assert_eq!(req.header("x-token"), Some("tok-123"));
    assert_eq!(req.header("x-plain"), Some("literal"));
    assert_eq!(
        req.header("x-bare"),
        Some("TEAM_NAME"),
        "pi 1.x: a bare name is literal"
    );
}
