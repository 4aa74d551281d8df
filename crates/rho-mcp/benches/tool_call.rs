//! The overhead of one MCP tool call through rho over the bare rmcp round trip, against
//! server-everything's `echo` over stdio (installed by rho-cli's MCP tests under
//! `~/.cache/rho-mcp-test`; node 24 from `~/.cache/node24`). Run with
//! `cargo bench -p rho-mcp --bench tool_call`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rho_agent::ToolContext;
use rho_mcp::config::{validate, Scope};
use rho_mcp::ordered::Json;
use rho_mcp::{McpConfig, McpManager, McpOptions, ServerEnv};
use serde_json::json;

const RUNS: usize = 300;

fn find(dir: &std::path::Path, name: &str) -> Option<PathBuf> {
    let out = std::process::Command::new("find")
        .arg(dir)
        .args(["-name", name, "-type", "f"])
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .map(PathBuf::from)
}

fn main() {
    let home = PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache");
    let entry = home.join(
        "rho-mcp-test/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    let Some(node) = find(&home.join("node24"), "node").filter(|_| entry.exists()) else {
        println!("server-everything or node 24 missing: run `cargo test -p rho-cli --test it mcp_rpc::` first");
        return;
    };
    let empty = tempfile::tempdir().expect("tempdir");
    let start = Instant::now();
    for _ in 0..1000 {
        assert!(rho_mcp::load_config(empty.path(), empty.path()).is_empty());
    }
    println!(
        "config check without mcp.json: {:.1} µs",
        start.elapsed().as_secs_f64() * 1e6 / 1000.0
    );

    let raw = Json::from_value(&json!({"command": node, "args": [entry], "exposure": "direct"}));
    let config = validate(
        "everything",
        raw,
        &empty.path().join("mcp.json"),
        Scope::User,
    )
    .expect("config");
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let manager = McpManager::start(
            McpConfig {
                servers: vec![config],
                errors: Vec::new(),
                auto_enable_codemode: None,
            },
            McpOptions {
                env: ServerEnv {
                    cwd: empty.path().to_path_buf(),
                    hook: None,
                    log: Arc::new(rho_mcp::log::McpLog::new(None, String::new)),
                    auth: rho_mcp::McpAuthStore::new(empty.path()),
                },
                tool_patterns: None,
            },
        );
        manager.wait_all().await;
        let tool = manager
            .tools()
            .into_iter()
            .find(|t| t.name() == "mcp__everything__echo")
            .expect("echo tool");
        let server = manager.servers()[0].clone();
        let conn = server.client().await.expect("connected");
        let mut bare = Vec::new();
        let mut via_rho = Vec::new();
        for i in 0..RUNS {
            let t = Instant::now();
            let params = rmcp::model::CallToolRequestParams::new("echo").with_arguments(
                json!({"message": "hi"})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            );
            conn.service
                .peer()
                .call_tool(params)
                .await
                .expect("bare call");
            bare.push(t.elapsed());
            let t = Instant::now();
            tool.execute(
                json!({"message": "hi"}),
                ToolContext::detached(format!("c{i}")),
            )
            .await
            .expect("call");
            via_rho.push(t.elapsed());
        }
        report("bare rmcp call_tool round trip", &mut bare);
        report("McpTool::execute (rho's path)", &mut via_rho);
        manager.shutdown().await;
    });
}

fn report(name: &str, times: &mut [Duration]) {
    times.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "{name}: median {:.0} µs (p90 {:.0}) over {} calls",
        us(times[times.len() / 2]),
        us(times[times.len() * 9 / 10]),
        times.len()
    );
}
