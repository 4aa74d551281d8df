//! pi 1.6's `pi.registerMcpServer` / `unregisterMcpServer` / `getMcpServers` and the
//! `mcp_servers_change` event (docs/extensions.md "MCP Servers"), over RPC, with a handwritten
//! pi extension registering server-everything (npm) over stdio. A server registered while the
//! extension loads connects with the session and the model calls its tool; one registered from
//! a command connects at once and its tool answers; after unregistering, its tool is unknown.
//! mcp.json's server of the same name wins and `get_state` shows the override; another
//! extension's name and an invalid config are refused with pi's texts. pi 1.6, when installed,
//! runs the same commands and tells the same (an invalid config is its `extension_error`, rho's
//! warning notice). An invalid config registered while loading is a start-up warning; with
//! `--no-mcp` and no extension handling `mcp_servers_change`, every registration is reported
//! with pi's text. Skipped, with the reason printed, without node ≥ 22.18.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::mcp_support;
use crate::pi_support::{self, notified, notified_starting, tool_call};
use crate::support::{reply, Rpc, Start};

use serde_json::{json, Value};

/// Registers what `__AT_LOAD__` says while loading; `/mcp-add <name>` and `/mcp-drop <name>`
/// register and unregister later; `/mcp-bad` registers an invalid config; every
/// `mcp_servers_change` and `getMcpServers()` is told as a notification.
const EXTENSION: &str = r#"
const server = { command: "__NODE__", args: ["__SERVER__"], exposure: "direct" };
const names = (servers) => servers.map((s) => s.name).join(",");
export default function (pi) {
  __AT_LOAD__
  pi.on("mcp_servers_change", (event, ctx) => {
    const own = event.servers.every((s) => s.extensionPath.endsWith(".ts") && s.config.exposure === "direct");
    ctx.ui.notify(`change: ${names(event.servers)} own=${own}`, "info");
  });
  pi.on("session_start", (_event, ctx) => ctx.ui.notify(`at start: ${names(pi.getMcpServers())}`, "info"));
  pi.registerCommand("mcp-add", {
    handler: async (name, ctx) => {
      pi.registerMcpServer(name, server);
      ctx.ui.notify(`listed: ${names(pi.getMcpServers())}`, "info");
    },
  });
  pi.registerCommand("mcp-drop", {
    handler: async (name, ctx) => {
      pi.unregisterMcpServer(name);
      ctx.ui.notify(`listed: ${names(pi.getMcpServers())}`, "info");
    },
  });
  pi.registerCommand("reload-all", { handler: async (_args, ctx) => ctx.reload() });
  pi.registerCommand("mcp-bad", {
    handler: async () => pi.registerMcpServer("bad", { command: "x", args: "not a list" }),
  });
}
"#;

/// A second extension trying to take `loaded`.
const OTHER: &str = r#"
export default function (pi) {
  let refused = "nothing";
  try {
    pi.registerMcpServer("loaded", { url: "http://127.0.0.1:9/mcp" });
  } catch (e) {
    refused = e.message;
  }
  pi.on("session_start", (_event, ctx) => ctx.ui.notify(`other: ${refused}`, "info"));
}
"#;

/// Registered while loading in the first test: `loaded`, and `shadow`, which mcp.json names
/// too and wins (this command does not even exist).
const AT_LOAD: &str = r#"
  pi.registerMcpServer("loaded", server);
  pi.registerMcpServer("shadow", { command: "/nonexistent/mcp-server", exposure: "direct" });
"#;

fn extension(at_load: &str) -> String {
    EXTENSION
        .replace("__AT_LOAD__", at_load)
        .replace("__NODE__", &mcp_support::node().display().to_string())
        .replace(
            "__SERVER__",
            &mcp_support::everything().display().to_string(),
        )
}

/// RPC with the extension, registering `at_load` while loading, plus `others`.
async fn start(at_load: &str, others: &[(&str, &str)], mcp_json: Option<Value>) -> Option<Rpc> {
    let source: &'static str = Box::leak(extension(at_load).into_boxed_str());
    let mut opts = Start::default();
    if let Some(servers) = mcp_json {
        let text = json!({ "mcpServers": servers }).to_string();
        opts.files = vec![("mcp.json", Box::leak(text.into_boxed_str()))];
    }
    let mut files = vec![("mcp.ts", source)];
    files.extend_from_slice(others);
    pi_support::start_with_files(&[], &files, opts).await
}

fn ext_path(rpc: &Rpc, name: &str) -> String {
    let home = rpc.agent_dir().parent().expect("home").to_path_buf();
    home.join("exts").join(name).display().to_string()
}

async fn command(rpc: &mut Rpc, id: &str, text: &str) {
    let r = rpc
        .call(json!({"id": id, "type": "prompt", "message": text}))
        .await;
    assert_eq!(r["success"], true, "{r}");
}

/// The model calls `tool` with 2 + 3; the `tool_execution_end` of that call.
async fn call_sum(rpc: &mut Rpc, id: &str, tool: &str) -> Value {
    rpc.server.push(tool_call(tool, json!({"a": 2, "b": 3})));
    rpc.server.push(reply("done"));
    rpc.prompt_ok(id, "add 2 and 3").await;
    let end = rpc
        .seen
        .iter()
        .rfind(|v| v["type"] == "tool_execution_end" && v["toolName"] == tool)
        .cloned();
    end.unwrap_or_else(|| panic!("no tool_execution_end for {tool}"))
}

/// The tool names declared in the last request to the model.
fn declared(rpc: &Rpc) -> Vec<String> {
    let requests = rpc.server.requests();
    let last = requests.last().expect("a request").json();
    rho_testkit::json::tool_names(&last)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registered_while_loading_connects_with_the_session_and_mcp_json_wins() {
    let everything = json!({"command": mcp_support::node(), "args": [mcp_support::everything()], "exposure": "direct"});
    let mcp_json = Some(json!({ "shadow": everything }));
    let Some(mut rpc) = start(AT_LOAD, &[("other.ts", OTHER)], mcp_json).await else {
        return;
    };
    let mcp = ext_path(&rpc, "mcp.ts");
    let other = ext_path(&rpc, "other.ts");
    notified(&mut rpc, "at start: loaded,shadow").await;
    notified(
        &mut rpc,
        &format!("other: MCP server \"loaded\" is already registered by extension \"{mcp}\""),
    )
    .await;

    let end = call_sum(&mut rpc, "p1", "mcp__loaded__get_sum").await;
    assert_eq!(end["isError"], false, "{end}");
    assert_eq!(
        pi_support::tool_result_text(&end),
        "The sum of 2 and 3 is 5."
    );
    // mcp.json's "shadow" runs, not the extension's (whose command does not exist).
    let end = call_sum(&mut rpc, "p2", "mcp__shadow__get_sum").await;
    assert_eq!(end["isError"], false, "{end}");

    let loaded = mcp_support::server_state(&mut rpc, "loaded").await;
    assert_eq!(loaded["state"], "connected", "{loaded}");
    assert_eq!(loaded["scope"], "extension", "{loaded}");
    assert_eq!(loaded["source"], mcp.as_str(), "{loaded}");
    let shadow = mcp_support::server_state(&mut rpc, "shadow").await;
    assert!(
        shadow["source"].as_str().unwrap().ends_with("mcp.json"),
        "{shadow}"
    );
    assert_eq!(shadow["overrides"], json!([mcp]), "{shadow}");
    assert!(shadow.get("scope").is_none(), "{shadow}");
    // `/mcp` in RPC mode: pi's plain status, the override last.
    command(&mut rpc, "m", "/mcp").await;
    let status = notified_starting(&mut rpc, "shadow: ").await;
    let mcp_json = rpc.agent_dir().join("mcp.json").display().to_string();
    let tools = loaded["tools"].as_array().expect("tools").len();
    assert_eq!(
        status,
        format!(
            "shadow: connected, {tools} tools (direct)\nloaded: connected, {tools} tools (direct)\n\
             overridden: \"shadow\" registered by {mcp} is overridden by \"shadow\" in {mcp_json}"
        )
    );
    assert!(!rpc
        .seen
        .iter()
        .any(|v| v.to_string().contains(&other) && v.to_string().contains("not supported")));
    rpc.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registered_later_connects_at_once_and_unregistered_is_unreachable() {
    // No mcp.json and nothing registered while loading: nothing MCP runs until the command
    // registers a server.
    let Some(mut rpc) = start("", &[], None).await else {
        return;
    };
    let mcp = ext_path(&rpc, "mcp.ts");
    notified(&mut rpc, "at start: ").await;
    assert_eq!(
        mcp_support::server_state(&mut rpc, "late").await,
        Value::Null
    );

    command(&mut rpc, "c1", STEPS[0]).await;
    notified(&mut rpc, "listed: late").await;
    notified(&mut rpc, "change: late own=true").await;
    let end = call_sum(&mut rpc, "p1", "mcp__late__get_sum").await;
    assert_eq!(end["isError"], false, "{end}");
    assert_eq!(
        pi_support::tool_result_text(&end),
        "The sum of 2 and 3 is 5."
    );
    assert_eq!(
        mcp_support::server_state(&mut rpc, "late").await["scope"],
        "extension"
    );

    command(&mut rpc, "c2", STEPS[1]).await;
    notified(&mut rpc, "listed: late,second").await;
    notified(&mut rpc, "change: late,second own=true").await;
    command(&mut rpc, "c3", STEPS[2]).await;
    notified(&mut rpc, "listed: second").await;
    notified(&mut rpc, "change: second own=true").await;
    assert_eq!(
        mcp_support::server_state(&mut rpc, "late").await,
        Value::Null
    );
    let end = call_sum(&mut rpc, "p2", "mcp__late__get_sum").await;
    assert_eq!(end["isError"], true, "{end}");
    assert!(
        !declared(&rpc).iter().any(|n| n.starts_with("mcp__late__")),
        "{:?}",
        declared(&rpc)
    );
    // The other registered server is untouched.
    let end = call_sum(&mut rpc, "p3", "mcp__second__get_sum").await;
    assert_eq!(end["isError"], false, "{end}");

    command(&mut rpc, "c4", STEPS[3]).await;
    let refused = notified_starting(&mut rpc, "Invalid MCP server").await;
    assert_eq!(refused.replace(&mcp, "<ext>"), TOLD[3][0]);
    assert_eq!(
        mcp_support::server_state(&mut rpc, "bad").await,
        Value::Null
    );
    rpc.close().await;

    if let Some(pi) = pi_tells(&extension("")).await {
        let told: Vec<Vec<String>> = TOLD
            .iter()
            .map(|t| t.iter().map(|m| m.to_string()).collect())
            .collect();
        assert_eq!(pi, told, "pi 1.6 tells what rho tells");
    }
}

/// The commands the second test runs, and what each tells (the extension's path as `<ext>`).
const STEPS: [&str; 4] = [
    "/mcp-add late",
    "/mcp-add second",
    "/mcp-drop late",
    "/mcp-bad",
];
const TOLD: [&[&str]; 4] = [
    &["change: late own=true", "listed: late"],
    &["change: late,second own=true", "listed: late,second"],
    &["change: second own=true", "listed: second"],
    &["Invalid MCP server registered by extension \"<ext>\": server \"bad\": args must be an array of strings"],
];

/// pi 1.6 running [`STEPS`] with the extension `source`: what each step told (notifications,
/// extension errors), sorted; `None` without pi 1.6.
async fn pi_tells(source: &str) -> Option<Vec<Vec<String>>> {
    let home = tempfile::tempdir().expect("home");
    let mut pi = pi_support::start_pi(&home, source, &["--no-session"])?;
    let file = home.path().join("extension.ts").display().to_string();
    // Once its session_start handler has told what is registered.
    pi.wait_for("extension_ui_request").await;
    let mut told = Vec::new();
    for step in STEPS {
        pi.send(json!({"type": "prompt", "message": step})).await;
        let mut said: Vec<String> = pi
            .lines_until("response")
            .await
            .iter()
            .filter_map(|v| match v["type"].as_str() {
                Some("extension_ui_request") => v["message"].as_str(),
                Some("extension_error") => v["error"].as_str(),
                _ => None,
            })
            .map(|m| m.replace(&file, "<ext>"))
            .collect();
        said.sort();
        told.push(said);
    }
    pi.stop().await;
    Some(told)
}

/// Registers `jira` (which nothing connects under `--no-mcp`) and an invalid `broken` while
/// loading, with no `mcp_servers_change` handler; `/late` registers `late`.
const UNHANDLED: &str = r#"
export default function (pi) {
  pi.registerMcpServer("jira", { url: "http://127.0.0.1:9/mcp", enabled: false });
  pi.registerMcpServer("broken", { url: "ftp://example.com/mcp" });
  pi.registerCommand("late", { handler: async () => pi.registerMcpServer("late", { url: "http://127.0.0.1:9/mcp", enabled: false }) });
}
"#;

/// rho with [`UNHANDLED`] and `args`; its stderr once it ended, and (with `--no-mcp`) the
/// notice `/late` gets.
async fn unhandled(args: &[&str]) -> Option<(String, String)> {
    let log = tempfile::NamedTempFile::new().expect("stderr file");
    let opts = Start {
        stderr_to: Some(log.path().to_path_buf()),
        args: args.iter().map(|a| a.to_string()).collect(),
        ..Start::default()
    };
    let mut rpc = pi_support::start_with_files(&[], &[("unhandled.ts", UNHANDLED)], opts).await?;
    let ext = ext_path(&rpc, "unhandled.ts");
    let mut said = String::new();
    if args.contains(&"--no-mcp") {
        command(&mut rpc, "c", "/late").await;
        said = notified_starting(&mut rpc, "MCP server \"late\"").await;
    }
    rpc.close().await;
    let stderr = crate::support::read(log.path()).replace(&ext, "<ext>");
    Some((stderr, said))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_and_unconnected_registrations_are_reported_with_pi_s_texts() {
    let Some((stderr, _)) = unhandled(&[]).await else {
        return;
    };
    assert!(
        stderr.contains(
            "Invalid MCP server registered by extension \"<ext>\": server \"broken\": url must be an http or https URL"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("no loaded extension connects"), "{stderr}");

    // MCP off and no extension handling mcp_servers_change: nothing connects them (pi's text).
    let (stderr, late) = unhandled(&["--no-mcp"]).await.expect("node");
    let unconnected = |name: &str| {
        format!(
            "MCP server \"{name}\" is registered, but no loaded extension connects MCP servers; \
             another extension may have replaced the built-in MCP support"
        )
    };
    assert!(stderr.contains(&unconnected("jira")), "{stderr}");
    assert_eq!(late, unconnected("late"));
}

/// A registration later, under `--no-mcp`, with a `mcp_servers_change` handler.
const HANDLED: &str = r#"
export default function (pi) {
  pi.on("mcp_servers_change", (event, ctx) => ctx.ui.notify(`servers: ${event.servers.map((s) => s.name).join(",")}`));
  pi.registerCommand("late", { handler: async () => pi.registerMcpServer("late", { url: "http://127.0.0.1:9/mcp", enabled: false }) });
}
"#;

/// With MCP off, an extension subscribed to `mcp_servers_change` may connect the servers
/// itself (rho learns of the subscription from the extension's registration): the event
/// reaches it, and no "nothing connects" notice comes before it (rho answers first).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_registration_an_extension_may_connect_itself_is_not_reported() {
    let opts = Start {
        args: vec!["--no-mcp".into()],
        ..Start::default()
    };
    let Some(mut rpc) = pi_support::start_with_files(&[], &[("handled.ts", HANDLED)], opts).await
    else {
        return;
    };
    command(&mut rpc, "c", "/late").await;
    let first = rpc
        .wait(|v| {
            let message = v["message"].as_str().unwrap_or_default();
            v["method"] == "notify"
                && (message.starts_with("servers:") || message.starts_with("MCP server"))
        })
        .await;
    assert_eq!(first["message"], "servers: late");
    rpc.close().await;
}
