//! Nothing rho starts outlives it, and tool processes do not see provider keys (issue 17
//! #2, #11): a bash tool call's processes end when rho gets SIGTERM, SIGHUP or SIGINT or
//! reads EOF in RPC mode, background children of finished commands end when rho ends, and
//! provider key variables are scrubbed from the tool's environment unless the settings say
//! otherwise.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::pids;

use common::{chat_messages, reply, stderr, Sandbox};
use pids::{ends, read_pid};
use rho_testkit::openai_chat::ChatStream;
use serde_json::json;
use tokio::io::AsyncWriteExt;

/// A reply that runs `command` with the bash tool.
fn bash_call(command: &str) -> rho_testkit::MockResponse {
    let args = json!({ "command": command }).to_string();
    ChatStream::new("chatcmpl-b", "mock-model")
        .role()
        .tool_call_start(0, "call_1", "bash")
        .tool_args(0, &args)
        .finish("tool_calls")
        .done()
        .response()
}

/// A command that leaves a background child and a foreground child, recording both pids.
const TWO_SLEEPERS: &str =
    "sleep 1000 >/dev/null 2>&1 & echo $! > bg.pid; sleep 1000 & echo $! > fg.pid; wait";

#[tokio::test]
async fn signals_during_a_bash_tool_call_end_all_its_processes() {
    for (signal, code) in [
        (libc::SIGTERM, 143),
        (libc::SIGHUP, 129),
        (libc::SIGINT, 130),
    ] {
        let sb = Sandbox::new().await;
        sb.server.push(bash_call(TWO_SLEEPERS));
        let mut child = sb
            .command(&["-p", "--no-session", "run it"])
            .spawn()
            .expect("spawn");
        drop(child.stdin.take());
        let bg = read_pid(&sb.cwd.join("bg.pid")).await;
        let fg = read_pid(&sb.cwd.join("fg.pid")).await;
        let pid = child.id().expect("pid") as i32;
        // SAFETY: signals the rho child this test started.
        unsafe { libc::kill(pid, signal) };
        let out = child.wait_with_output().await.expect("rho exits");
        assert_eq!(out.status.code(), Some(code), "signal {signal}");
        assert!(ends(fg).await, "signal {signal}: the command outlived rho");
        assert!(
            ends(bg).await,
            "signal {signal}: its background child outlived rho"
        );
    }
}

#[tokio::test]
async fn background_children_of_finished_commands_end_with_rho() {
    let sb = Sandbox::new().await;
    sb.server
        .push(bash_call("sleep 1000 >/dev/null 2>&1 & echo $! > bg.pid"));
    sb.server.push(reply("started it"));
    let out = sb
        .rho(&["-p", "--no-session", "start a server"], None)
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let bg = read_pid(&sb.cwd.join("bg.pid")).await;
    assert!(ends(bg).await, "a background child outlived rho");
}

#[tokio::test]
async fn stdin_eof_in_rpc_mode_ends_a_running_bash_command_and_its_children() {
    let sb = Sandbox::new().await;
    let mut child = sb
        .command(&["--mode", "rpc", "--no-session"])
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let line = json!({"id": "b", "type": "bash", "command": TWO_SLEEPERS}).to_string() + "\n";
    stdin.write_all(line.as_bytes()).await.expect("send");
    let bg = read_pid(&sb.cwd.join("bg.pid")).await;
    let fg = read_pid(&sb.cwd.join("fg.pid")).await;
    drop(stdin);
    let out = child.wait_with_output().await.expect("rho exits");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert!(ends(fg).await && ends(bg).await, "a command outlived rho");
}

/// The environment the bash tool saw, as sent back to the model.
async fn tool_env(sb: &Sandbox) -> String {
    sb.server.push(bash_call("env"));
    sb.server.push(reply("done"));
    let mut cmd = sb.command(&[
        "-p",
        "--no-session",
        "--model",
        "mock/mock-model",
        "show env",
    ]);
    cmd.env("OPENAI_API_KEY", "sk-secret-openai")
        .env("ANTHROPIC_API_KEY", "sk-secret-anthropic")
        .env("GH_TOKEN", "gh-kept");
    let out = cmd.output().await.expect("rho runs");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    chat_messages(&sb.server.last_body())
        .into_iter()
        .filter(|(role, _)| role == "tool")
        .map(|(_, text)| text)
        .collect()
}

#[tokio::test]
async fn provider_keys_stay_out_of_tool_processes_unless_the_settings_pass_them() {
    let sb = Sandbox::new().await;
    let env = tool_env(&sb).await;
    assert!(env.contains("GH_TOKEN=gh-kept"), "{env}");
    assert!(!env.contains("sk-secret-openai"), "{env}");
    assert!(!env.contains("sk-secret-anthropic"), "{env}");

    let sb = Sandbox::new().await;
    std::fs::write(
        sb.agent.path().join("settings.json"),
        json!({"passProviderKeysToTools": true}).to_string(),
    )
    .expect("settings");
    let env = tool_env(&sb).await;
    assert!(env.contains("OPENAI_API_KEY=sk-secret-openai"), "{env}");
}

/// models.json's mock provider reading its key from `MYCO_LLM_KEY`, a name no built-in
/// provider uses.
fn key_from_env(sb: &Sandbox) {
    let mut models: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(sb.agent.path().join("models.json")).expect("models"),
    )
    .expect("json");
    models["providers"]["mock"]["apiKey"] = json!("$MYCO_LLM_KEY");
    models["providers"]["mock"]["headers"] = json!({"X-Org": "${MYCO_ORG}"});
    sb.write_models(&models);
}

#[tokio::test]
async fn a_key_models_json_names_is_not_in_the_bash_tools_environment() {
    let sb = Sandbox::new().await;
    key_from_env(&sb);
    sb.server.push(bash_call("env"));
    sb.server.push(reply("done"));
    let mut cmd = sb.command(&["-p", "--no-session", "--model", "mock/mock-model", "env"]);
    cmd.env("MYCO_LLM_KEY", "sk-myco-secret")
        .env("MYCO_ORG", "org-secret")
        .env("KEEP_ME", "kept");
    let out = cmd.output().await.expect("rho runs");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let requests = sb.server.requests();
    let auth = requests[0].header("authorization").unwrap_or_default();
    assert_eq!(auth, "Bearer sk-myco-secret", "rho itself read the key");
    let env: String = chat_messages(&sb.server.last_body())
        .into_iter()
        .filter(|(role, _)| role == "tool")
        .map(|(_, text)| text)
        .collect();
    assert!(env.contains("KEEP_ME=kept"), "{env}");
    assert!(!env.contains("sk-myco-secret"), "{env}");
    assert!(!env.contains("org-secret"), "{env}");
}

/// Sends one RPC line and returns the response with that id.
async fn rpc_call(
    stdin: &mut tokio::process::ChildStdin,
    lines: &mut tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
    command: serde_json::Value,
) -> serde_json::Value {
    let id = command["id"].clone();
    let line = command.to_string() + "\n";
    stdin.write_all(line.as_bytes()).await.expect("send");
    while let Some(line) = lines.next_line().await.expect("read") {
        let v: serde_json::Value = serde_json::from_str(&line).expect("json line");
        if v["type"] == "response" && v["id"] == id {
            return v;
        }
    }
    panic!("rho ended before answering {id}");
}

#[tokio::test]
async fn rpc_bash_runs_under_the_sandbox_without_configured_keys() {
    use tokio::io::AsyncBufReadExt;
    let sb = Sandbox::new().await;
    key_from_env(&sb);
    let mut cmd = sb.command(&["--mode", "rpc", "--no-session", "--sandbox", "read-only"]);
    cmd.env("MYCO_LLM_KEY", "sk-myco-secret");
    let mut child = cmd.spawn().expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
    let r = rpc_call(
        &mut stdin,
        &mut lines,
        json!({"id": "w", "type": "bash", "command": "echo x > made.txt"}),
    )
    .await;
    assert_ne!(r["data"]["exitCode"], 0, "{r}");
    assert!(
        !sb.cwd.join("made.txt").exists(),
        "read-only: nothing written"
    );
    let r = rpc_call(
        &mut stdin,
        &mut lines,
        json!({"id": "e", "type": "bash", "command": "env"}),
    )
    .await;
    let env = r["data"]["output"].as_str().expect("output");
    assert!(env.contains("RHO_CODING_AGENT=true"), "{env}");
    assert!(!env.contains("sk-myco-secret"), "{env}");
    drop(stdin);
    let out = child.wait_with_output().await.expect("exits");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
}
