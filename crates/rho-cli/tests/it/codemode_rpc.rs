//! codemode through `rho --mode rpc`: scripts the loopback model writes run in the embedded
//! QuickJS VM and call real tools (server-everything over stdio, bash) through the session's
//! tool pipeline; their output reaches the model in the next request.
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

fn script(id: &str, code: &str) -> MockResponse {
    calls(&[(id, "codemode", json!({ "code": code }))])
}

fn tool_end(rpc: &Rpc, id: &str) -> Value {
    rpc.seen
        .iter()
        .find(|v| v["type"] == "tool_execution_end" && v["toolCallId"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("no tool_execution_end for {id}"))
}

fn text_of(end: &Value) -> String {
    end["result"]["content"]
        .as_array()
        .map(|c| c.iter().filter_map(|b| b["text"].as_str()).collect())
        .unwrap_or_default()
}

async fn start(start: Start) -> Rpc {
    Rpc::start_with(start).await
}

fn with_codemode() -> Start {
    Start {
        args: vec!["--tools".into(), "+codemode".into()],
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_calls_two_mcp_tools_and_its_output_reaches_the_model() {
    // No "exposure": pi's default, codemode.
    let servers = json!({"mcpServers": {"everything": {
        "command": mcp_support::node(), "args": [mcp_support::everything()]
    }}});
    let text: &'static str = Box::leak(servers.to_string().into_boxed_str());
    let mut rpc = start(Start {
        files: vec![("mcp.json", text)],
        ..Default::default()
    })
    .await;
    rpc.server.push(script(
        "cm1",
        r#"const [sum, echo] = await Promise.all([
  tools.mcp__everything__get_sum({ a: 2, b: 3 }),
  tools.mcp__everything__echo({ message: "from a script" }),
]);
text(sum.content[0].text);
console.log("isError", sum.isError ?? false);
return echo.content[0].text;"#,
    ));
    rpc.server.push(reply("done"));
    assert_eq!(rpc.prompt_ok("p", "add and echo").await, "done");

    let requests = rpc.server.requests();
    let declared = tool_names(&requests[0].json());
    assert!(declared.contains(&"codemode".to_string()), "{declared:?}");
    assert!(
        !declared
            .iter()
            .any(|n| n.starts_with("mcp__") || n == "tool_search"),
        "codemode tools are not declared: {declared:?}"
    );
    let end = tool_end(&rpc, "cm1");
    assert_eq!(end["isError"], false, "{end}");
    let out = text_of(&end);
    assert!(out.starts_with("Script completed\nWall time "), "{out}");
    assert!(
        out.contains("==> text 1/2 <==\nThe sum of 2 and 3 is 5.\n==> text 2/2 <==\nEcho: from a script\n<console_output>\nisError false\n</console_output>"),
        "{out}"
    );
    // The nested calls ran through the pipeline, as events naming their parent.
    let nested: Vec<&Value> = rpc
        .seen
        .iter()
        .filter(|v| v["type"] == "tool_execution_end" && v["parentToolCallId"] == "cm1")
        .collect();
    let mut names: Vec<&str> = nested
        .iter()
        .filter_map(|v| v["toolName"].as_str())
        .collect();
    names.sort();
    assert_eq!(names, ["mcp__everything__echo", "mcp__everything__get_sum"]);
    assert!(nested
        .iter()
        .all(|v| v["toolCallId"].as_str().unwrap().starts_with("cm1/")));
    // The model's next request carries the script's output.
    let second = requests[1].json().to_string();
    assert!(second.contains("The sum of 2 and 3 is 5."), "{second}");
    assert!(second.contains("Echo: from a script"), "{second}");
    // By then the server is connected (the script waited for it), and codemode's description
    // lists its tools under the server's namespace, as pi's does for `codemode` exposure.
    let listed = declared_description(&requests[1].json(), "codemode").expect("codemode");
    let listed = listed
        .strip_prefix(rho_codemode::tool::DESCRIPTION)
        .expect("pi's description first");
    assert!(
        listed.starts_with("\n\nNested tools:\n\n## mcp__everything"),
        "{listed}"
    );
    assert!(listed.contains("### `mcp__everything__echo`"), "{listed}");
    rpc.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permission_rule_refuses_a_call_from_inside_a_script() {
    let mut start = with_codemode();
    start.settings = Some(json!({"permissions": {"deny": ["bash(touch*)"]}}));
    let mut rpc = Rpc::start_with(start).await;
    rpc.server.push(script(
        "cm1",
        r#"const ok = await tools.bash({ command: "echo allowed" });
try {
  await tools.bash({ command: "touch made-by-script" });
  return "ran";
} catch (e) {
  return ok.output.trim() + " / refused: " + e.message;
}"#,
    ));
    rpc.server.push(reply("done"));
    assert_eq!(rpc.prompt_ok("p", "try it").await, "done");
    let out = text_of(&tool_end(&rpc, "cm1"));
    assert!(
        out.contains(
            "allowed / refused: Permission denied by rule \"bash(touch*)\" in settings.json (permissions.deny)"
        ),
        "{out}"
    );
    assert!(!rpc.work_dir().join("made-by-script").exists());
    rpc.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runaway_scripts_are_stopped_and_the_session_lives() {
    let mut rpc = start(with_codemode()).await;
    rpc.server.push(calls(&[
        (
            "t1",
            "codemode",
            json!({"code": "// @options: {\"timeout_ms\": 400}\ntext('started');\nwhile (true) {}"}),
        ),
        (
            "m1",
            "codemode",
            json!({"code": "const keep = [];\nwhile (true) keep.push('x'.repeat(1 << 20) + keep.length);"}),
        ),
        (
            "o1",
            "codemode",
            json!({"code": "// @options: {\"max_output_tokens\": 10}\ntext('a'.repeat(300) + 'MIDDLE' + 'z'.repeat(300));"}),
        ),
        (
            "b1",
            "codemode",
            json!({"code": "text(1)\n// @options: {}"}),
        ),
    ]));
    rpc.server.push(reply("survived"));
    assert_eq!(rpc.prompt_ok("p", "run them").await, "survived");

    let timed_out = tool_end(&rpc, "t1");
    assert_eq!(timed_out["isError"], true);
    let text = text_of(&timed_out);
    assert!(text.starts_with("Script failed\nWall time "), "{text}");
    assert!(
        text.ends_with("Output:\nstarted\nScript error:\nScript timed out: Execution timed out after 400 ms\n\nNo tool calls were made."),
        "{text}"
    );
    let oom = text_of(&tool_end(&rpc, "m1"));
    assert!(
        oom.contains("Script error:\nInternalError: out of memory"),
        "{oom}"
    );
    let long = tool_end(&rpc, "o1");
    let text = text_of(&long);
    assert!(
        text.contains("Warning: truncated output (original token count: 152)"),
        "{text}"
    );
    assert!(!text.contains("MIDDLE"), "{text}");
    let full = long["result"]["details"]["fullOutputPath"]
        .as_str()
        .expect("path");
    assert!(std::fs::read_to_string(full).unwrap().contains("MIDDLE"));
    assert_eq!(
        text_of(&tool_end(&rpc, "b1")),
        "The // @options: line must be the first line of the input; found one on line 2"
    );

    // The session goes on.
    rpc.server.push(script("n1", "return 6 * 7"));
    rpc.server.push(reply("again"));
    assert_eq!(rpc.prompt_ok("p2", "once more").await, "again");
    assert!(text_of(&tool_end(&rpc, "n1")).ends_with("Output:\n42"));
    rpc.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn store_values_last_across_calls_and_follow_the_branch() {
    let mut start = with_codemode();
    start.with_sessions = true;
    let mut rpc = Rpc::start_with(start).await;
    rpc.server.push(script(
        "s1",
        "store('n', 1); store('tmp', 'x'); return load('n');",
    ));
    rpc.server.push(reply("one"));
    assert_eq!(rpc.prompt_ok("p1", "first").await, "one");
    rpc.server.push(script(
        "s2",
        "store('n', load('n') + 1); store('tmp', undefined); return [load('n'), load('tmp') ?? 'gone'];",
    ));
    rpc.server.push(reply("two"));
    assert_eq!(rpc.prompt_ok("p2", "second").await, "two");
    assert!(text_of(&tool_end(&rpc, "s2")).ends_with("Output:\n[2,\"gone\"]"));
    // A failed script's writes are not kept.
    rpc.server
        .push(script("s3", "store('n', 100); throw new Error('no');"));
    rpc.server.push(reply("three"));
    assert_eq!(rpc.prompt_ok("p3", "third").await, "three");

    let r = rpc
        .call(json!({"id": "fm", "type": "get_fork_messages"}))
        .await;
    let forkable = r["data"]["messages"].as_array().expect("list").clone();
    let second = forkable
        .iter()
        .find(|m| m["text"] == "second")
        .expect("second prompt");
    let r = rpc
        .call(json!({"id": "f", "type": "fork", "entryId": second["entryId"]}))
        .await;
    assert_eq!(r["success"], true, "{r}");
    // On the fork, the branch holds only the first script's writes.
    rpc.server
        .push(script("s4", "return [load('n'), load('tmp')];"));
    rpc.server.push(reply("forked"));
    assert_eq!(rpc.prompt_ok("p4", "on the fork").await, "forked");
    assert!(
        text_of(&tool_end(&rpc, "s4")).ends_with("Output:\n[1,\"x\"]"),
        "{}",
        text_of(&tool_end(&rpc, "s4"))
    );
    let file = rpc.call(json!({"id": "s", "type": "get_state"})).await["data"]["sessionFile"]
        .as_str()
        .expect("file")
        .to_string();
    let stored = std::fs::read_to_string(file).unwrap();
    assert!(
        stored.contains(
            r#""customType":"codemode-store","data":{"set":{"n":1,"tmp":"x"},"delete":[]}"#
        ),
        "{stored}"
    );
    // Each store entry sits between the script's call and its result (pi's order), so a fork
    // before the prompt never keeps it, however far the file lags behind the run.
    let entries: Vec<Value> = stored
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut checked = 0;
    for (i, e) in entries.iter().enumerate() {
        if e["customType"] != "codemode-store" {
            continue;
        }
        let result = entries
            .iter()
            .find(|r| r["parentId"] == e["id"])
            .expect("a child");
        assert_eq!(result["message"]["role"], "toolResult", "{result}");
        assert_eq!(
            entries[i - 1]["message"]["role"],
            "assistant",
            "{}",
            entries[i - 1]
        );
        checked += 1;
    }
    assert_eq!(
        checked, 1,
        "the fork keeps the first script's entry: {stored}"
    );
    rpc.close().await;
}

/// The description a request declares `name` with.
fn declared_description(body: &Value, name: &str) -> Option<String> {
    body["tools"].as_array()?.iter().find_map(|t| {
        (t["function"]["name"] == name)
            .then(|| t["function"]["description"].as_str().map(str::to_string))?
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declared_tools_say_how_scripts_call_them_and_bash_resolves_to_an_object() {
    let mut start = with_codemode();
    start.with_sessions = true;
    let mut rpc = Rpc::start_with(start).await;
    rpc.server.push(script(
        "cm1",
        r#"const small = await tools.bash({ command: "echo hi; exit 3" });
const big = await tools.bash({ command: "seq 1 300000" });
const text = await tools.read({ path: "note.txt" });
return {
  small: [small.output, small.exit_code, small.truncated, typeof small.wall_time_seconds],
  big: [big.truncated, big.output.length, big.output.includes("bytes omitted ...]"), big.output.endsWith("300000\n")],
  path: big.full_output_path,
  text,
};"#,
    ));
    rpc.server.push(reply("done"));
    std::fs::write(rpc.work_dir().join("note.txt"), "a note").unwrap();
    assert_eq!(rpc.prompt_ok("p", "run it").await, "done");

    let first = rpc.server.requests()[0].json();
    let bash = declared_description(&first, "bash").expect("bash declared");
    assert!(
        bash.ends_with("\n\nCodemode: `tools.bash(args)` resolves to `{ output, truncated, full_output_path?, exit_code, wall_time_seconds }`."),
        "{bash}"
    );
    let read = declared_description(&first, "read").expect("read declared");
    assert!(
        read.ends_with("\n\nCodemode: `tools.read(args)` resolves to a string."),
        "{read}"
    );
    // In `on` mode codemode lists no declarations: its description is pi's plain one.
    assert_eq!(
        declared_description(&first, "codemode").as_deref(),
        Some(rho_codemode::tool::DESCRIPTION)
    );

    let end = tool_end(&rpc, "cm1");
    assert_eq!(end["isError"], false, "{end}");
    let out = text_of(&end);
    let json = out.rsplit("Output:\n").next().expect("output");
    let v: Value = serde_json::from_str(json).expect("the script's JSON");
    assert_eq!(v["small"], json!(["hi\n", 3, false, "number"]));
    assert_eq!(v["big"][0], true, "{v}");
    assert!(v["big"][1].as_u64().unwrap() <= 1024 * 1024 + 64, "{v}");
    assert_eq!(v["big"][2], true, "{v}");
    assert_eq!(v["big"][3], true, "{v}");
    let full = std::fs::read_to_string(v["path"].as_str().expect("full_output_path")).unwrap();
    assert!(full.starts_with("1\n2\n") && full.ends_with("300000\n"));
    assert_eq!(v["text"], "a note");

    // The session file keeps the nested calls on the script's tool result (pi's nestedCalls).
    let file = rpc.call(json!({"id": "s", "type": "get_state"})).await["data"]["sessionFile"]
        .as_str()
        .expect("file")
        .to_string();
    let result = std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["message"]["role"] == "toolResult" && e["message"]["toolCallId"] == "cm1")
        .expect("the script's result");
    let nested = &result["message"]["nestedCalls"];
    assert_eq!(nested["complete"], true, "{nested}");
    let calls = nested["calls"].as_array().expect("calls");
    let summary: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap(),
                c["name"].as_str().unwrap(),
                c["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("cm1/1", "bash", "error"),
            ("cm1/2", "bash", "ok"),
            ("cm1/3", "read", "ok")
        ]
    );
    assert_eq!(calls[0]["arguments"], json!({"command": "echo hi; exit 3"}));
    assert!(calls[0]["error"]
        .as_str()
        .unwrap()
        .contains("Command exited with code 3"));
    assert!(calls.iter().all(|c| c["durationMs"].is_u64()));
    rpc.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codemode_only_lists_the_tools_in_its_description_and_hides_them() {
    let mut start = with_codemode();
    start.settings = Some(json!({"codemode": {"mode": "only"}}));
    let mut rpc = Rpc::start_with(start).await;
    rpc.server.push(script(
        "cm1",
        r#"const r = await tools.bash({ command: "echo via script" }); return r.output.trim();"#,
    ));
    rpc.server.push(reply("done"));
    assert_eq!(rpc.prompt_ok("p", "go").await, "done");
    let first = rpc.server.requests()[0].json();
    assert_eq!(tool_names(&first), ["codemode"]);
    let description = declared_description(&first, "codemode").unwrap();
    let listed = description
        .strip_prefix(rho_codemode::tool::DESCRIPTION)
        .expect("pi's description first");
    assert!(
        listed.starts_with("\n\nNested tools:\n\n### `read`\n"),
        "{listed}"
    );
    assert!(
        listed.contains("declare const tools: { bash(args: {\n  // Bash command to execute\n  command: string;\n  // Timeout in seconds (optional, no default timeout)\n  timeout?: number;\n}): Promise<{\n  exit_code: number;\n  // Full output, when truncated\n  full_output_path?: string;\n  // Combined stdout and stderr, possibly truncated\n  output: string;\n  truncated: boolean;\n  wall_time_seconds: number;\n}>; };"),
        "{listed}"
    );
    // The guidelines the system prompt has for declared tools come with the declaration.
    assert!(
        listed.contains("- Use read to examine files instead of cat or sed."),
        "{listed}"
    );
    assert!(text_of(&tool_end(&rpc, "cm1")).ends_with("Output:\nvia script"));
    rpc.close().await;

    // A budget of 0 lists no declarations.
    let mut start = with_codemode();
    start.settings = Some(json!({"codemode": {"mode": "only", "inlineBudget": 0}}));
    let mut rpc = Rpc::start_with(start).await;
    rpc.server.push(reply("ok"));
    assert_eq!(rpc.prompt_ok("p", "go").await, "ok");
    let first = rpc.server.requests()[0].json();
    assert_eq!(
        declared_description(&first, "codemode").unwrap(),
        format!("{}\n\nNested tools:", rho_codemode::tool::DESCRIPTION)
    );
    rpc.close().await;
}
