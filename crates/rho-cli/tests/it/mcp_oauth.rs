//! An MCP server behind OAuth, with real processes: server-everything (npm) speaks streamable
//! HTTP behind rho-testkit's `MockOAuth`, which answers 401 with a challenge until a valid
//! bearer token comes, serves the discovery documents, registers clients and issues tokens.
//! `rho mcp list` reports the server as needing sign-in; `rho mcp login` (a fake browser,
//! curl, follows the authorization redirect to rho's loopback callback) stores pi's
//! `mcp-auth.json` state; the server then connects and its tools work in a prompt; a revoked
//! token is refreshed once and the connection goes on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::mcp_support;

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use common::{stderr, stdout, Sandbox};
use rho_testkit::oauth::MockOAuth;
use rho_testkit::openai_chat::ChatStream;
use serde_json::{json, Value};

/// Runs rho with `BROWSER` set; stdin stays open (a terminal) for `mcp login`.
async fn run(sb: &Sandbox, browser: &Path, args: &[&str]) -> Output {
    let mut cmd = sb.command(args);
    cmd.env("BROWSER", browser);
    let mut child = cmd.spawn().expect("spawn rho");
    let input = child.stdin.take().expect("stdin");
    let input = args.contains(&"login").then_some(input);
    let out = tokio::time::timeout(Duration::from_secs(90), child.wait_with_output())
        .await
        .expect("rho finishes")
        .expect("output");
    drop(input);
    out
}

fn mcp_auth(sb: &Sandbox) -> Value {
    let text =
        std::fs::read_to_string(sb.agent.path().join("mcp-auth.json")).expect("mcp-auth.json");
    serde_json::from_str(&text).expect("JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_server_behind_oauth_connects_after_login_and_a_revoked_token_is_refreshed() {
    let (_upstream, upstream_url) = mcp_support::everything_http().await;
    let auth = MockOAuth::start_with_upstream(&upstream_url).await;
    let sb = Sandbox::new().await;
    let browser = mcp_support::curl_browser(sb.agent.path());
    let url = format!("{}/mcp", auth.url());
    std::fs::write(
        sb.agent.path().join("mcp.json"),
        json!({"mcpServers": {"docs": {"url": url, "exposure": "direct"}}}).to_string(),
    )
    .unwrap();

    let out = run(&sb, &browser, &["mcp", "list"]).await;
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("docs: needs sign-in (direct, global)"),
        "{text}"
    );
    assert!(text.contains("sign in with: rho mcp login docs"), "{text}");

    let out = run(&sb, &browser, &["mcp", "login", "docs"]).await;
    let text = stdout(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {text}\nstderr: {}",
        stderr(&out)
    );
    assert!(text.contains("Signed in to MCP server \"docs\"."), "{text}");
    // pi's shape, keyed by namespace and URL.
    let state = mcp_auth(&sb)[format!("mcp__docs|{url}")].clone();
    let access = state["tokens"]["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(access.starts_with("mcp-access-"), "{state}");
    assert!(state["tokens"]["refresh_token"].is_string());
    assert!(state["tokensExpireAt"].is_u64());
    assert_eq!(state["serverUrl"], url.as_str());
    let client = state["clientInformation"]["client_id"].as_str().unwrap();
    let registered = auth.registered_clients();
    assert_eq!(registered.len(), 1);
    assert_eq!(registered[0]["client_id"], client);
    assert_eq!(registered[0]["client_name"], "rho");
    let redirect = registered[0]["redirect_uris"][0].as_str().unwrap();
    assert!(
        redirect.starts_with("http://127.0.0.1:") && redirect.ends_with("/callback"),
        "{redirect}"
    );

    let out = run(&sb, &browser, &["mcp", "list"]).await;
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("docs: connected, "), "{text}");
    assert!(text.contains("(direct, global)"), "{text}");
    assert!(
        text.contains(", get-sum, "),
        "tools by the server's names: {text}"
    );

    // The server forgets the token: the next connection is refused once, refreshes, goes on.
    auth.revoke_mcp_tokens();
    sb.server.push(
        ChatStream::new("c1", "mock-model")
            .role()
            .tool_call_start(0, "t1", "mcp__docs__get_sum")
            .tool_args(0, r#"{"a": 2, "b": 40}"#)
            .finish("tool_calls")
            .done()
            .response(),
    );
    sb.server.push(common::reply("summed"));
    let out = run(&sb, &browser, &["-p", "--no-session", "add"]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "summed\n");
    let tool_result = sb.server.requests()[1].json();
    assert!(
        tool_result
            .to_string()
            .contains("The sum of 2 and 40 is 42."),
        "{tool_result}"
    );
    let refreshed = mcp_auth(&sb)[format!("mcp__docs|{url}")]["tokens"]["access_token"].clone();
    assert_ne!(refreshed, access.as_str());
    let refreshes = auth
        .requests()
        .iter()
        .filter(|r| r.path == "/token" && r.body.contains("grant_type=refresh_token"))
        .count();
    assert_eq!(refreshes, 1);

    let out = run(&sb, &browser, &["mcp", "logout", "docs"]).await;
    assert_eq!(stdout(&out), "Signed out of MCP server \"docs\".\n");
    assert!(mcp_auth(&sb).get(format!("mcp__docs|{url}")).is_none());
}
