//! Permission rules and modes with the real binary: the loopback model scripts tool calls,
//! the rules allow, ask or deny them; `ask` is answered through RPC's extension UI protocol
//! and refused in print mode, which cannot ask.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::support;

use common::{reply, stderr, Sandbox};
use rho_testkit::openai_chat::ChatStream;
use serde_json::{json, Value};

/// An assistant message calling `bash` with `command`.
fn bash_call(command: &str) -> rho_testkit::MockResponse {
    ChatStream::new("chatcmpl-1", "mock-model")
        .role()
        .tool_call_start(0, "call_0", "bash")
        .tool_args(0, &json!({ "command": command }).to_string())
        .finish("tool_calls")
        .done()
        .response()
}

fn write_settings(sb: &Sandbox, settings: Value) {
    std::fs::write(sb.agent.path().join("settings.json"), settings.to_string()).expect("write");
}

/// The text of the tool result the model got back in the last request.
fn tool_result(body: &Value) -> String {
    body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .find(|m| m["role"] == "tool")
        .map(|m| m["content"].to_string())
        .unwrap_or_default()
}

async fn print_run(sb: &Sandbox, flags: &[&str], command: &str) -> String {
    sb.server.push(bash_call(command));
    sb.server.push(reply("done"));
    let mut args = vec!["-p", "--no-session"];
    args.extend_from_slice(flags);
    args.push("go");
    let out = sb.rho(&args, None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    tool_result(&sb.server.last_body())
}

#[tokio::test]
async fn deny_and_allow_rules_apply_as_written() {
    let sb = Sandbox::new().await;
    std::fs::write(sb.cwd.join("keep.txt"), "x").expect("write");
    write_settings(
        &sb,
        json!({"permissions": {"deny": ["bash(rm *)"], "ask": ["bash"], "allow": ["bash(touch *)"]}}),
    );
    let denied = print_run(&sb, &[], "rm keep.txt").await;
    assert!(sb.cwd.join("keep.txt").exists());
    assert!(
        denied.contains("Permission denied by rule \\\"bash(rm *)\\\""),
        "{denied}"
    );
    let allowed = print_run(&sb, &[], "touch made.txt").await;
    assert!(sb.cwd.join("made.txt").exists(), "{allowed}");
}

#[tokio::test]
async fn ask_in_print_mode_is_refused_with_a_reason() {
    let sb = Sandbox::new().await;
    write_settings(&sb, json!({"permissions": {"ask": ["bash(touch *)"]}}));
    let result = print_run(&sb, &[], "touch asked.txt").await;
    assert!(!sb.cwd.join("asked.txt").exists());
    assert!(result.contains("this mode cannot ask"), "{result}");
    let bypassed = print_run(&sb, &["--permission-mode", "bypass"], "touch asked.txt").await;
    assert!(sb.cwd.join("asked.txt").exists(), "{bypassed}");
}

#[tokio::test]
async fn plan_mode_exposes_no_writing_tool() {
    let sb = Sandbox::new().await;
    sb.server.push(reply("a plan"));
    let out = sb
        .rho(
            &["-p", "--no-session", "--permission-mode", "plan", "plan it"],
            None,
        )
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let body = sb.server.last_body();
    let tools = rho_testkit::json::tool_names(&body);
    assert_eq!(tools, ["read", "grep", "find", "ls"]);
}

#[tokio::test]
async fn an_untrusted_projects_settings_do_not_apply_and_a_trusted_ones_do() {
    let sb = Sandbox::new().await;
    std::fs::create_dir_all(sb.cwd.join(".rho")).expect("mkdir");
    std::fs::write(
        sb.cwd.join(".rho/settings.json"),
        json!({"permissions": {"deny": ["bash"]}}).to_string(),
    )
    .expect("write");
    print_run(&sb, &[], "touch untrusted.txt").await;
    assert!(
        sb.cwd.join("untrusted.txt").exists(),
        "project rules ignored"
    );
    let result = print_run(&sb, &["--approve"], "touch trusted.txt").await;
    assert!(!sb.cwd.join("trusted.txt").exists(), "{result}");
}

async fn rpc_ask(answer: bool) -> (bool, String) {
    let mut rpc = support::Rpc::start_with(support::Start {
        settings: Some(json!({"permissions": {"ask": ["bash(touch *)"]}})),
        ..Default::default()
    })
    .await;
    rpc.server.push(bash_call("touch answered.txt"));
    rpc.server.push(support::reply("done"));
    rpc.call(json!({"id": "p", "type": "prompt", "message": "go"}))
        .await;
    let request = rpc
        .wait(|v| v["type"] == "extension_ui_request" && v["method"] == "confirm")
        .await;
    let message = request["message"].as_str().unwrap_or_default().to_string();
    rpc.send(json!({"type": "extension_ui_response", "id": request["id"], "confirmed": answer}))
        .await;
    rpc.event("agent_end").await;
    let made = rpc.work_dir().join("answered.txt").exists();
    assert_eq!(rpc.close().await, Some(0));
    (made, message)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_is_answered_through_rpc_extension_ui_confirm() {
    let (made, message) = rpc_ask(true).await;
    assert!(made, "yes runs the call");
    assert!(message.contains("bash: touch answered.txt"), "{message}");
    let (made, _) = rpc_ask(false).await;
    assert!(!made, "no blocks it");
}

/// One assistant message calling `bash` with each of `lines`.
fn bash_calls(lines: &[&str]) -> rho_testkit::MockResponse {
    let mut stream = ChatStream::new("chatcmpl-1", "mock-model").role();
    for (i, line) in lines.iter().enumerate() {
        stream = stream
            .tool_call_start(i as u64, &format!("call_{i}"), "bash")
            .tool_args(i as u64, &json!({ "command": line }).to_string());
    }
    stream.finish("tool_calls").done().response()
}

/// Real processes behind the rule table of `rho-core/tests/it/permission_lines.rs`: every way of
/// hiding `rm -rf keep` in a line is refused before anything runs, and lines using the same
/// shell features for harmless commands run and leave their file.
#[tokio::test]
async fn a_denied_command_inside_a_compound_line_is_refused_and_plain_lines_still_run() {
    let sb = Sandbox::new().await;
    std::fs::create_dir_all(sb.cwd.join("keep")).expect("mkdir");
    write_settings(&sb, json!({"permissions": {"deny": ["bash(rm -rf*)"]}}));
    let refused = [
        "true && rm -rf keep",
        "false || rm -rf keep",
        "echo a; rm -rf keep",
        "ls | xargs rm -rf keep",
        "(rm -rf keep)",
        "{ rm -rf keep; }",
        "echo $(rm -rf keep)",
        "echo `rm -rf keep`",
        "sh -c 'rm -rf keep'",
        "bash -c \"cd . && rm -rf keep\"",
        "env X=1 rm -rf keep",
        "'r'm -rf keep",
        "/bin/rm -rf keep",
        "cat <<EOF\n$(rm -rf keep)\nEOF",
        "eval 'rm -rf keep'",
        "timeout 5 rm -rf keep",
        "if true; then rm -rf keep; fi",
    ];
    let allowed = [
        "echo a > ok1",
        "printf 'x\\n' | wc -l > ok2",
        "(cd . && touch ok3)",
        "{ echo b; } > ok4",
        "echo \"rm -rf keep\" > ok5",
        "cat > ok6 <<'EOF'\nrm -rf keep\nEOF",
        "sh -c 'echo c > ok7'",
        "env X=1 sh -c 'echo $X > ok8'",
        "echo ok9 | xargs touch",
        "touch \"$(echo ok10)\"",
        "for f in ok11; do touch $f; done",
    ];
    let lines: Vec<&str> = refused.iter().chain(&allowed).copied().collect();
    sb.server.push(bash_calls(&lines));
    sb.server.push(reply("done"));
    let out = sb.rho(&["-p", "--no-session", "go"], None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let results: Vec<String> = sb.server.last_body()["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].to_string())
        .collect();
    assert_eq!(results.len(), lines.len(), "{results:#?}");
    for (line, result) in refused.iter().zip(&results) {
        assert!(result.contains("bash(rm -rf*)"), "{line:?}: {result}");
    }
    assert!(sb.cwd.join("keep").exists(), "a refused line ran");
    for (i, line) in allowed.iter().enumerate() {
        let made = sb.cwd.join(format!("ok{}", i + 1));
        assert!(made.exists(), "{line:?}: {}", results[refused.len() + i]);
    }
}

#[tokio::test]
async fn permissions_check_prints_the_decision_and_exits_with_its_code() {
    let sb = Sandbox::new().await;
    write_settings(
        &sb,
        json!({"permissions": {"deny": ["bash(rm -rf*)"], "ask": ["bash(git push*)"]}}),
    );
    let cases = [
        (
            "true && rm -rf x",
            1,
            "rule: bash(rm -rf*) (permissions.deny)\ncommand: rm -rf x",
        ),
        (
            "git status; git push",
            2,
            "ask\nrule: bash(git push*) (permissions.ask)\ncommand: git push",
        ),
        ("ls -la", 0, "allow\n"),
    ];
    for (line, code, expected) in cases {
        let out = sb.rho(&["permissions", "check", "bash", line], None).await;
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(code),
            "{line}: {stdout}{}",
            stderr(&out)
        );
        assert!(stdout.contains(expected), "{line}: {stdout}");
    }
    let out = sb
        .rho(&["permissions", "check", "mcp__x__y", "not json"], None)
        .await;
    assert_eq!(out.status.code(), Some(64));
    assert!(
        stderr(&out).contains("arguments as JSON"),
        "{}",
        stderr(&out)
    );
}
