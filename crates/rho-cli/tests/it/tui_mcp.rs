//! `/mcp` in a real terminal: rho in a tmux pane with server-everything (npm, over stdio, behind
//! a wrapper that counts its starts) in the user's mcp.json. The list shows the server's state
//! and tools; its menu disables it (saved to mcp.json, the process stops, its tools leave the
//! next request), enables it again (a new process, tools back) and reconnects it (another new
//! process). A second test signs in to a server behind rho-testkit's mock OAuth server from
//! `/mcp`. A third has a pi extension register the server (pi's `registerMcpServer`): the list
//! names the extension, and disabling it lasts for the session, writing no file. Skipped (with
//! a notice) where tmux is not installed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::mcp_support;
use crate::tui;

use std::path::Path;

use common::Sandbox;
use rho_testkit::oauth::MockOAuth;
use serde_json::{json, Value};
use tui::{footer, skip_without_tmux, start, streamed, Tmux};

/// How many times the wrapper has started the server.
fn starts(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

fn mcp_json(sb: &Sandbox) -> Value {
    let text = std::fs::read_to_string(sb.agent.path().join("mcp.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The MCP tool names of request `i`.
fn mcp_tools(sb: &Sandbox, i: usize) -> Vec<String> {
    let tools = sb.server.requests()[i].json()["tools"].clone();
    tools
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str())
        .filter(|n| n.starts_with("mcp__"))
        .map(str::to_string)
        .collect()
}

/// Opens `/mcp`, picks the only server and the menu entry `label`.
async fn act(tmux: &Tmux, label: &str) {
    act_on(tmux, "everything", label).await;
}

async fn act_on(tmux: &Tmux, server: &str, label: &str) {
    tmux.submit("/mcp");
    tmux.wait_for_text("MCP servers").await;
    tmux.send_keys(&["Enter"]);
    tmux.wait_for_text(&format!("MCP server {server}")).await;
    tmux.type_text(label);
    tmux.send_keys(&["Enter"]);
}

/// The first prompt (which waits for servers with direct tools) declares `everything`'s tools;
/// then `/mcp` lists it connected. Its row and the screen, once the list is closed again.
async fn first_prompt_then_listed(tmux: &Tmux, sb: &Sandbox) -> (String, String) {
    let first = ask(tmux, sb, "one", "First reply.").await;
    assert!(
        mcp_tools(sb, first).contains(&"mcp__everything__get_sum".to_string()),
        "{:?}",
        mcp_tools(sb, first)
    );
    tmux.submit("/mcp");
    let screen = tmux
        .wait_for("the server connected in the list", |s| {
            s.contains("MCP servers") && s.contains("connected · ")
        })
        .await;
    let row = screen
        .lines()
        .find(|l| l.contains("everything"))
        .unwrap_or_default()
        .to_string();
    tmux.send_keys(&["Escape"]);
    tmux.wait_for_gone("MCP servers").await;
    (row, screen)
}

/// Sends `prompt` with one reply queued and waits for the reply; the request's index.
async fn ask(tmux: &Tmux, sb: &Sandbox, prompt: &str, reply: &str) -> usize {
    let i = sb.server.requests().len();
    sb.server.push(streamed(&[reply]));
    tmux.submit(prompt);
    // The reply on screen means its request has arrived.
    tmux.wait_for_text(reply).await;
    i
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_lists_servers_and_disables_enables_and_reconnects_one() {
    if skip_without_tmux("/mcp") {
        return;
    }
    let sb = Sandbox::new().await;
    let log = sb.agent.path().join("starts.log");
    let wrapper = format!(
        "echo started >> '{}'; exec '{}' '{}'",
        log.display(),
        mcp_support::node().display(),
        mcp_support::everything().display()
    );
    let config = json!({"mcpServers": {"everything": {
        "command": "sh", "args": ["-c", wrapper], "exposure": "direct"
    }}});
    std::fs::write(
        sb.agent.path().join("mcp.json"),
        serde_json::to_string_pretty(&config).unwrap(),
    )
    .unwrap();
    let tmux = start(&sb).await;
    // The list: name, state with the tool count, exposure and scope.
    let (row, screen) = first_prompt_then_listed(&tmux, &sb).await;
    assert!(row.contains("tools"), "{screen}");
    assert!(row.contains("direct · global"), "{screen}");
    assert_eq!(starts(&log), 1);

    // Disable: saved to mcp.json, the tools leave the next request.
    act(&tmux, "Disable").await;
    tmux.wait_for_text("MCP server \"everything\" disabled (saved to")
        .await;
    assert_eq!(mcp_json(&sb)["mcpServers"]["everything"]["enabled"], false);
    let second = ask(&tmux, &sb, "two", "Second reply.").await;
    assert_eq!(mcp_tools(&sb, second), Vec::<String>::new());
    tmux.submit("/mcp");
    tmux.wait_for("the server disabled in the list", |s| {
        s.lines()
            .any(|l| l.contains("everything") && l.contains("disabled"))
    })
    .await;
    tmux.send_keys(&["Escape"]);
    tmux.wait_for_gone("MCP servers").await;

    // Enable: saved, a new process, the tools are back.
    act(&tmux, "Enable").await;
    tmux.wait_for_text("MCP server \"everything\" enabled (saved to")
        .await;
    assert_eq!(mcp_json(&sb)["mcpServers"]["everything"]["enabled"], true);
    tmux.wait_for_text("MCP server \"everything\": connected · ")
        .await;
    assert_eq!(starts(&log), 2);
    let third = ask(&tmux, &sb, "three", "Third reply.").await;
    assert!(
        mcp_tools(&sb, third).contains(&"mcp__everything__get_sum".to_string()),
        "{:?}",
        mcp_tools(&sb, third)
    );

    // Reconnect: the process is replaced and the server reports connected again.
    act(&tmux, "Reconnect").await;
    tmux.wait_for("the reconnected server's notice", |s| {
        s.matches("MCP server \"everything\": connected · ").count() == 2
    })
    .await;
    assert_eq!(starts(&log), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_signs_in_to_a_server_behind_oauth_and_its_tools_reach_the_model() {
    if skip_without_tmux("/mcp sign-in") {
        return;
    }
    let (_upstream, upstream_url) = mcp_support::everything_http().await;
    let auth = MockOAuth::start_with_upstream(&upstream_url).await;
    let sb = Sandbox::new().await;
    let browser = mcp_support::curl_browser(sb.agent.path());
    let url = format!("{}/mcp", auth.url());
    let config = json!({"mcpServers": {"docs": {"url": url, "exposure": "direct"}}});
    std::fs::write(sb.agent.path().join("mcp.json"), config.to_string()).unwrap();
    let browser = browser.display().to_string();
    let tmux = Tmux::start_with_env(&sb, &[("BROWSER", &browser)], &["--model", "mock-model"]);
    tmux.wait_for("the footer", |s| footer(s).contains("mock-model"))
        .await;
    let first = ask(&tmux, &sb, "one", "First reply.").await;
    assert_eq!(mcp_tools(&sb, first), Vec::<String>::new());

    tmux.submit("/mcp");
    tmux.wait_for("the server needing sign-in", |s| {
        s.lines()
            .any(|l| l.contains("docs") && l.contains("needs sign-in"))
    })
    .await;
    tmux.send_keys(&["Escape"]);
    tmux.wait_for_gone("MCP servers").await;

    act_on(&tmux, "docs", "Sign in").await;
    tmux.wait_for_text("Signed in to MCP server \"docs\" (")
        .await;
    let text = std::fs::read_to_string(sb.agent.path().join("mcp-auth.json")).unwrap();
    let state: Value = serde_json::from_str(&text).unwrap();
    let tokens = &state[format!("mcp__docs|{url}")]["tokens"];
    assert!(
        tokens["access_token"]
            .as_str()
            .is_some_and(|t| t.starts_with("mcp-access-")),
        "{state}"
    );
    let second = ask(&tmux, &sb, "two", "Second reply.").await;
    assert!(
        mcp_tools(&sb, second).contains(&"mcp__docs__get_sum".to_string()),
        "{:?}",
        mcp_tools(&sb, second)
    );
}

/// Registers server-everything as `everything` while loading (pi's `registerMcpServer`).
const REGISTERS: &str = r#"
export default function (pi) {
  pi.registerMcpServer("everything", { command: "__NODE__", args: ["__SERVER__"], exposure: "direct" });
}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_shows_a_registered_servers_extension_and_disables_it_for_the_session() {
    if skip_without_tmux("/mcp") {
        return;
    }
    let sb = Sandbox::new().await;
    if crate::pi_support::prepare_agent(sb.agent.path(), &[]).is_none() {
        return;
    }
    let ext = sb.agent.path().join("exts/registers.ts");
    std::fs::create_dir_all(ext.parent().unwrap()).unwrap();
    let source = REGISTERS
        .replace("__NODE__", &mcp_support::node().display().to_string())
        .replace(
            "__SERVER__",
            &mcp_support::everything().display().to_string(),
        );
    std::fs::write(&ext, &source).unwrap();
    let ext_arg = ext.display().to_string();
    let tmux = Tmux::start(&sb, &["--model", "mock-model", "-e", &ext_arg]);
    tmux.wait_for("the footer", |s| footer(s).contains("mock-model"))
        .await;
    let (row, screen) = first_prompt_then_listed(&tmux, &sb).await;
    assert!(row.contains("direct · extension "), "{screen}");

    // Disabled for the session: nothing is written to the extension (or any mcp.json).
    act(&tmux, "Disable").await;
    tmux.wait_for_text("MCP server \"everything\" disabled (for this session)")
        .await;
    assert_eq!(std::fs::read_to_string(&ext).unwrap(), source);
    assert!(!sb.agent.path().join("mcp.json").exists());
    let second = ask(&tmux, &sb, "two", "Second reply.").await;
    assert_eq!(mcp_tools(&sb, second), Vec::<String>::new());
}
