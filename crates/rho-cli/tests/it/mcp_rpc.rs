//! MCP through RPC mode against real servers nobody here wrote: server-everything (npm) over
//! stdio and streamable HTTP, and a FastMCP fixture (PyPI `mcp`). The LLM is the loopback mock.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::mcp_support;
use crate::support;

use rho_testkit::json::tool_names;
use rho_testkit::openai_chat::ChatStream;
use rho_testkit::server::MockResponse;
use serde_json::{json, Value};
use support::{reply, Rpc, Start};

/// A reply calling tools: (id, name, JSON arguments).
fn calls(list: &[(&str, &str, Value)]) -> MockResponse {
    let mut s = ChatStream::new("chatcmpl-t", "m1").role();
    for (i, (id, name, args)) in list.iter().enumerate() {
        s = s
            .tool_call_start(i as u64, id, name)
            .tool_args(i as u64, &args.to_string());
    }
    s.finish("tool_calls").done().response()
}

fn everything_stdio(exposure: &str) -> Value {
    json!({"command": mcp_support::node(), "args": [mcp_support::everything()], "exposure": exposure})
}

fn fixture(extra: Value) -> Value {
    let mut v = json!({"command": mcp_support::mcp_python(), "args": [mcp_support::fastmcp_fixture()], "exposure": "direct"});
    if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
        m.extend(e);
    }
    v
}

async fn start(servers: Value, args: &[&str]) -> Rpc {
    let text: &'static str = Box::leak(json!({"mcpServers": servers}).to_string().into_boxed_str());
    Rpc::start_with(Start {
        files: vec![("mcp.json", text)],
        args: args.iter().map(|a| a.to_string()).collect(),
        ..Default::default()
    })
    .await
}

/// The `tool_execution_end` events seen so far, by tool call id.
fn tool_end(rpc: &Rpc, id: &str) -> Value {
    rpc.seen
        .iter()
        .find(|v| v["type"] == "tool_execution_end" && v["toolCallId"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("no tool_execution_end for {id}"))
}

fn text_of(result: &Value) -> String {
    result["content"]
        .as_array()
        .map(|c| {
            c.iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_tool_calls_return_text_structured_and_image_results() {
    let mut rpc = start(json!({"everything": everything_stdio("direct")}), &[]).await;
    rpc.server.push(calls(&[
        ("c1", "mcp__everything__get_sum", json!({"a": 2, "b": 3})),
        (
            "c2",
            "mcp__everything__get_structured_content",
            json!({"location": "Chicago"}),
        ),
        ("c3", "mcp__everything__get_tiny_image", json!({})),
    ]));
    rpc.server.push(reply("done"));
    assert_eq!(rpc.prompt_ok("p", "use the tools").await, "done");
    let first = rpc.server.requests()[0].json();
    let names = tool_names(&first);
    assert!(
        names.contains(&"mcp__everything__get_sum".to_string()),
        "sanitised name declared: {names:?}"
    );
    assert!(!names.iter().any(|n| n.contains('-')), "{names:?}");
    let sum = tool_end(&rpc, "c1");
    assert_eq!(sum["isError"], false);
    assert_eq!(text_of(&sum["result"]), "The sum of 2 and 3 is 5.");
    let structured = tool_end(&rpc, "c2");
    assert!(
        structured["result"]["details"]["structuredContent"]["temperature"].is_number(),
        "{structured}"
    );
    let image = tool_end(&rpc, "c3");
    let blocks = image["result"]["content"].as_array().expect("content");
    assert!(
        blocks
            .iter()
            .any(|b| b["type"] == "image" && b["mimeType"] == "image/png"),
        "{image}"
    );
    let second = rpc.server.requests()[1].json();
    assert!(
        second.to_string().contains("The sum of 2 and 3 is 5."),
        "result reached the model"
    );
    let state = mcp_support::server_state(&mut rpc, "everything").await;
    assert_eq!(state["state"], "connected");
    rpc.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deferred_tools_are_found_with_tool_search_and_declared_on_the_next_call() {
    let mut rpc = start(json!({"everything": everything_stdio("deferred")}), &[]).await;
    rpc.server
        .push(calls(&[("s1", "tool_search", json!({"query": "echo"}))]));
    rpc.server.push(calls(&[(
        "e1",
        "mcp__everything__echo",
        json!({"message": "hi there"}),
    )]));
    rpc.server.push(reply("echoed"));
    assert_eq!(rpc.prompt_ok("p", "find an echo tool").await, "echoed");
    let requests = rpc.server.requests();
    let first = tool_names(&requests[0].json());
    assert!(first.contains(&"tool_search".to_string()), "{first:?}");
    assert!(
        !first.iter().any(|n| n.starts_with("mcp__")),
        "deferred tools are not declared: {first:?}"
    );
    let search = tool_end(&rpc, "s1");
    assert!(
        text_of(&search["result"]).contains("- mcp__everything__echo:"),
        "{search}"
    );
    let second = tool_names(&requests[1].json());
    assert!(
        second.contains(&"mcp__everything__echo".to_string()),
        "{second:?}"
    );
    assert_eq!(text_of(&tool_end(&rpc, "e1")["result"]), "Echo: hi there");
    rpc.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fastmcp_resources_prompts_and_long_results() {
    let mut rpc = start(json!({"fixture": fixture(json!({}))}), &[]).await;
    rpc.server.push(calls(&[
        ("l1", "list_mcp_resources", json!({})),
        (
            "r1",
            "read_mcp_resource",
            json!({"server": "fixture", "uri": "fixture://greeting"}),
        ),
        ("b1", "mcp__fixture__big_text", json!({"size": 40000})),
        ("a1", "mcp__fixture__add_numbers", json!({"a": 40, "b": 2})),
    ]));
    rpc.server.push(reply("read"));
    assert_eq!(rpc.prompt_ok("p", "look around").await, "read");
    let listed = text_of(&tool_end(&rpc, "l1")["result"]);
    let listed: Value = serde_json::from_str(&listed).expect("listing is JSON");
    assert_eq!(listed["resources"][0]["server"], "fixture");
    assert_eq!(listed["resources"][0]["uri"], "fixture://greeting");
    assert_eq!(
        text_of(&tool_end(&rpc, "r1")["result"]),
        "hello from the fixture"
    );
    let big = text_of(&tool_end(&rpc, "b1")["result"]);
    assert!(
        big.starts_with("Warning: truncated output"),
        "{}",
        &big[..100]
    );
    assert!(big.contains("chars truncated…") && !big.contains("MIDDLE"));
    let path = big
        .rsplit("[Full output: ")
        .next()
        .and_then(|r| r.split(" (read it").next())
        .expect("path named");
    assert!(std::fs::read_to_string(path)
        .expect("full output saved")
        .contains("MIDDLE"));
    assert_eq!(text_of(&tool_end(&rpc, "a1")["result"]), "42");

    rpc.server.push(reply("reviewed"));
    assert_eq!(
        rpc.prompt_ok("q", "/mcp__fixture__review the parser").await,
        "reviewed"
    );
    let last = rpc.server.last_body();
    assert_eq!(
        support::user_texts(&last).last().map(String::as_str),
        Some("Please review the parser carefully.")
    );
    rpc.close().await;
}

/// Asks `get_state` until the server is in `state`.
async fn until_state(rpc: &mut Rpc, name: &str, state: &str) -> Value {
    for _ in 0..2000 {
        let s = mcp_support::server_state(rpc, name).await;
        if s["state"] == state {
            return s;
        }
        tokio::task::yield_now().await;
    }
    panic!("{name} never became {state}");
}

fn group_alive(pgid: i32) -> bool {
    // SAFETY: signal 0 only checks that the group exists.
    unsafe { libc::killpg(pgid, 0) == 0 }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_is_reported_and_reconnected_and_no_orphans_remain() {
    let node = mcp_support::node();
    let wrapper = format!(
        "'{}' '{}'; exit 0",
        node.display(),
        mcp_support::everything().display()
    );
    let mut rpc = start(
        json!({"everything": {"command": "sh", "args": ["-c", wrapper], "exposure": "direct"}}),
        &[],
    )
    .await;
    rpc.server.push(reply("ready"));
    rpc.prompt_ok("p0", "hello").await;
    let before = until_state(&mut rpc, "everything", "connected").await;
    let pgid = before["pid"].as_i64().expect("pid") as i32;
    // SAFETY: kills the test's own server group.
    unsafe { libc::killpg(pgid, libc::SIGKILL) };
    let down = until_state(&mut rpc, "everything", "disconnected").await;
    assert!(down["error"].is_string(), "{down}");
    rpc.server.push(calls(&[(
        "c1",
        "mcp__everything__echo",
        json!({"message": "back"}),
    )]));
    rpc.server.push(reply("ok"));
    rpc.prompt_ok("p1", "again").await;
    assert_eq!(text_of(&tool_end(&rpc, "c1")["result"]), "Echo: back");
    let after = until_state(&mut rpc, "everything", "connected").await;
    let new_group = after["pid"].as_i64().expect("pid") as i32;
    assert_ne!(new_group, pgid);
    assert!(group_alive(new_group));
    assert_eq!(rpc.close().await, Some(0));
    assert!(
        !group_alive(new_group),
        "the server group (sh wrapper and node) is gone after exit"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_starts_leaves_the_session_usable() {
    let mut rpc = start(
        json!({"broken": {"command": "/nonexistent/mcp-server", "exposure": "direct"}}),
        &[],
    )
    .await;
    rpc.server.push(reply("still here"));
    assert_eq!(rpc.prompt_ok("p", "hi").await, "still here");
    let state = until_state(&mut rpc, "broken", "failed").await;
    assert!(
        state["error"]
            .as_str()
            .unwrap_or("")
            .contains("cannot start \"/nonexistent/mcp-server\""),
        "{state}"
    );
    rpc.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_tool_call_ends_by_timeout_and_by_abort() {
    let mut rpc = start(
        json!({"slow": fixture(json!({"timeout": 1})), "fixture": fixture(json!({}))}),
        &[],
    )
    .await;
    rpc.server
        .push(calls(&[("t1", "mcp__slow__hang", json!({}))]));
    rpc.server.push(reply("gave up"));
    assert_eq!(rpc.prompt_ok("p", "wait").await, "gave up");
    let timed_out = tool_end(&rpc, "t1");
    assert_eq!(timed_out["isError"], true);
    assert_eq!(
        text_of(&timed_out["result"]),
        "MCP server \"slow\" did not answer within 1s"
    );

    rpc.server
        .push(calls(&[("t2", "mcp__fixture__hang", json!({}))]));
    let r = rpc
        .call(json!({"id": "p2", "type": "prompt", "message": "wait more"}))
        .await;
    assert_eq!(r["success"], true);
    rpc.wait(|v| v["type"] == "tool_execution_start" && v["toolCallId"] == "t2")
        .await;
    let a = rpc.call(json!({"id": "ab", "type": "abort"})).await;
    assert_eq!(a["success"], true);
    let end = rpc
        .wait(|v| v["type"] == "tool_execution_end" && v["toolCallId"] == "t2")
        .await;
    assert_eq!(end["isError"], true);
    rpc.event("agent_end").await;
    rpc.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_server_tool_call() {
    let (mut server, base) = mcp_support::everything_http().await;
    let url = format!("{base}/mcp");
    let mut rpc = start(
        json!({"everything": {"url": url, "exposure": "direct"}}),
        &[],
    )
    .await;
    rpc.server.push(calls(&[(
        "h1",
        "mcp__everything__get_sum",
        json!({"a": 20, "b": 22}),
    )]));
    rpc.server.push(reply("http done"));
    assert_eq!(rpc.prompt_ok("p", "sum over http").await, "http done");
    assert_eq!(
        text_of(&tool_end(&rpc, "h1")["result"]),
        "The sum of 20 and 22 is 42."
    );
    rpc.close().await;
    let _ = server.kill().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_mcp_and_tools_patterns_limit_mcp_tools() {
    let servers = json!({"everything": everything_stdio("direct")});
    let mut rpc = start(servers.clone(), &["--no-mcp"]).await;
    rpc.server.push(reply("plain"));
    rpc.prompt_ok("p", "hi").await;
    assert!(!tool_names(&rpc.server.requests()[0].json())
        .iter()
        .any(|n| n.starts_with("mcp__")));
    let s = rpc.call(json!({"id": "s", "type": "get_state"})).await;
    assert!(s["data"].get("mcpServers").is_none());
    rpc.close().await;

    let mut rpc = start(servers, &["--tools", "read,mcp__everything__get_s*"]).await;
    rpc.server.push(reply("few"));
    rpc.prompt_ok("p", "hi").await;
    let names = tool_names(&rpc.server.requests()[0].json());
    assert_eq!(
        names,
        [
            "read",
            "mcp__everything__get_structured_content",
            "mcp__everything__get_sum"
        ]
    );
    rpc.close().await;
}

/// Issue 17: SIGTERM, SIGHUP and SIGINT end rho without its orderly MCP shutdown; the
/// server's whole group must end with it all the same. The server leaves a helper process
/// behind (as servers that spawn workers do), which stdin EOF alone would not end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn termination_signals_end_the_server_group() {
    let wrapper = format!(
        "sleep 1000 & '{}' '{}'",
        mcp_support::node().display(),
        mcp_support::everything().display()
    );
    let server = json!({"command": "sh", "args": ["-c", wrapper], "exposure": "direct"});
    for (signal, code) in [
        (libc::SIGTERM, 143),
        (libc::SIGHUP, 129),
        (libc::SIGINT, 130),
    ] {
        let mut rpc = start(json!({ "everything": server }), &[]).await;
        rpc.server.push(reply("ready"));
        rpc.prompt_ok("p0", "hello").await;
        let state = until_state(&mut rpc, "everything", "connected").await;
        let pgid = state["pid"].as_i64().expect("pid") as i32;
        assert!(group_alive(pgid));
        let pid = rpc.child.id().expect("rho runs") as i32;
        // SAFETY: signals the rho process this test started.
        unsafe { libc::kill(pid, signal) };
        let status = tokio::time::timeout(std::time::Duration::from_secs(20), rpc.child.wait())
            .await
            .expect("rho exits on the signal")
            .expect("wait");
        assert_eq!(status.code(), Some(code), "signal {signal}");
        // Killed members are reaped by init once rho is gone: allow it a moment.
        let mut gone = false;
        for _ in 0..1000 {
            gone = !group_alive(pgid);
            if gone {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert!(gone, "signal {signal}: the server group is gone");
    }
}

/// A server that never answers `initialize` (`cat`) does not hold up rho's exit: end of input
/// stops its connect at once instead of waiting out the server's timeout (60 s by default,
/// three times the time `close` allows).
#[tokio::test]
async fn end_of_input_does_not_wait_for_a_server_that_never_answers() {
    let mut rpc = start(json!({"mute": {"command": "cat"}}), &[]).await;
    assert_eq!(
        mcp_support::server_state(&mut rpc, "mute").await["state"],
        "connecting"
    );
    assert_eq!(rpc.close().await, Some(0));
}
