//! pi's own example extensions (from `@earendil-works/pi-coding-agent@1.6.0`, fetched with npm
//! at test time) running unchanged in `rho --mode rpc` through the pi extension host, each
//! checked for the behaviour it exists for. Skipped, with the reason printed, without node ≥
//! 22.18.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::pi_support;
use crate::support;

use pi_support::{notified, tool_call, tool_result_text, ui};
use rho_testkit::git::git;
use serde_json::{json, Value};
use support::{reply, user_texts, Start};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hello_registers_a_typebox_tool_the_model_calls() {
    let Some(mut rpc) = pi_support::start(&["hello.ts"], Start::default()).await else {
        return;
    };
    rpc.server.push(tool_call("hello", json!({"name": "Ann"})));
    rpc.server.push(reply("Greeted."));
    rpc.prompt_ok("p", "greet Ann").await;
    let tools = &rpc.server.requests()[0].json()["tools"];
    let hello = tools
        .as_array()
        .and_then(|t| t.iter().find(|t| t["function"]["name"] == "hello"))
        .expect("hello offered to the model");
    assert_eq!(
        hello["function"]["parameters"]["properties"]["name"]["type"],
        "string"
    );
    let end = rpc.event("tool_execution_end").await;
    assert_eq!(tool_result_text(&end), "Hello, Ann!");
    assert_eq!(end["result"]["details"]["greeted"], "Ann");
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_gate_asks_before_a_dangerous_bash_command_and_blocks_on_no() {
    let Some(mut rpc) = pi_support::start(&["permission-gate.ts"], Start::default()).await else {
        return;
    };
    let victim = rpc.work_dir().join("victim");
    std::fs::create_dir_all(&victim).expect("victim dir");
    rpc.server
        .push(tool_call("bash", json!({"command": "rm -rf victim"})));
    rpc.server.push(reply("Understood."));
    rpc.call(json!({"id": "p", "type": "prompt", "message": "clean up"}))
        .await;
    let ask = ui(&mut rpc, "select").await;
    assert!(ask["title"]
        .as_str()
        .unwrap_or_default()
        .contains("rm -rf victim"));
    assert_eq!(ask["options"], json!(["Yes", "No"]));
    rpc.send(json!({"type": "extension_ui_response", "id": ask["id"], "value": "No"}))
        .await;
    let end = rpc.event("tool_execution_end").await;
    assert_eq!(tool_result_text(&end), "Blocked by user");
    assert_eq!(end["isError"], true);
    rpc.event("agent_end").await;
    assert!(victim.exists(), "the blocked command did not run");
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protected_paths_blocks_writes_to_dot_env() {
    let Some(mut rpc) = pi_support::start(&["protected-paths.ts"], Start::default()).await else {
        return;
    };
    rpc.server.push(tool_call(
        "write",
        json!({"path": ".env", "content": "KEY=1"}),
    ));
    rpc.server.push(reply("Ok."));
    rpc.prompt_ok("p", "write the env").await;
    notified(&mut rpc, "Blocked write to protected path: .env").await;
    let end = rpc.event("tool_execution_end").await;
    assert_eq!(tool_result_text(&end), "Path \".env\" is protected");
    assert!(!rpc.work_dir().join(".env").exists());
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_transform_rewrites_quick_questions_and_answers_ping_itself() {
    let Some(mut rpc) = pi_support::start(&["input-transform.ts"], Start::default()).await else {
        return;
    };
    rpc.server.push(reply("Short."));
    rpc.prompt_ok("p1", "?quick what is rust").await;
    assert_eq!(
        user_texts(&rpc.server.last_body()),
        ["Respond briefly in 1-2 sentences: what is rust"]
    );
    rpc.call(json!({"id": "p2", "type": "prompt", "message": "ping"}))
        .await;
    notified(&mut rpc, "pong").await;
    assert_eq!(
        rpc.server.requests().len(),
        1,
        "ping never reached the model"
    );
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_name_sets_and_shows_the_name() {
    let Some(mut rpc) = pi_support::start(&["session-name.ts"], Start::default()).await else {
        return;
    };
    rpc.call(json!({"id": "c1", "type": "prompt", "message": "/session-name Big refactor"}))
        .await;
    notified(&mut rpc, "Session named: Big refactor").await;
    let state = rpc.call(json!({"id": "s", "type": "get_state"})).await;
    assert_eq!(state["data"]["sessionName"], "Big refactor");
    rpc.call(json!({"id": "c2", "type": "prompt", "message": "/session-name"}))
        .await;
    notified(&mut rpc, "Session: Big refactor").await;
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pirate_mode_extends_the_system_prompt_after_the_command() {
    let Some(mut rpc) = pi_support::start(&["pirate.ts"], Start::default()).await else {
        return;
    };
    rpc.server.push(reply("Hello."));
    rpc.prompt_ok("p1", "hi").await;
    let system = |body: &Value| body["messages"][0]["content"].to_string();
    assert!(!system(&rpc.server.last_body()).contains("PIRATE MODE"));
    rpc.call(json!({"id": "c", "type": "prompt", "message": "/pirate"}))
        .await;
    notified(&mut rpc, "Arrr! Pirate mode enabled!").await;
    rpc.server.push(reply("Arrr."));
    rpc.prompt_ok("p2", "hi again").await;
    assert!(system(&rpc.server.last_body()).contains("PIRATE MODE"));
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_user_message_ask_starts_a_turn_with_the_text() {
    let Some(mut rpc) = pi_support::start(&["send-user-message.ts"], Start::default()).await else {
        return;
    };
    rpc.server.push(reply("Answer."));
    rpc.call(json!({"id": "c", "type": "prompt", "message": "/ask why is the sky blue"}))
        .await;
    rpc.event("agent_end").await;
    assert_eq!(user_texts(&rpc.server.last_body()), ["why is the sky blue"]);
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_bus_delivers_events_between_handlers() {
    let Some(mut rpc) = pi_support::start(&["event-bus.ts"], Start::default()).await else {
        return;
    };
    notified(&mut rpc, "Event from event-bus-example: Session started").await;
    rpc.call(json!({"id": "c", "type": "prompt", "message": "/emit hi there"}))
        .await;
    notified(&mut rpc, "Event from /emit command: hi there").await;
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn system_prompt_header_shows_the_prompt_length_in_the_status() {
    let Some(mut rpc) = pi_support::start(&["system-prompt-header.ts"], Start::default()).await
    else {
        return;
    };
    rpc.server.push(reply("Hi."));
    rpc.prompt_ok("p", "hello").await;
    let status = ui(&mut rpc, "setStatus").await;
    assert_eq!(status["statusKey"], "system-prompt");
    let system = rpc.server.last_body()["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .chars()
        .count();
    assert_eq!(status["statusText"], format!("System: {system} chars"));
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_lists_extension_commands_in_a_select() {
    let Some(mut rpc) = pi_support::start(&["commands.ts"], Start::default()).await else {
        return;
    };
    rpc.send(json!({"id": "c", "type": "prompt", "message": "/commands"}))
        .await;
    let ask = ui(&mut rpc, "select").await;
    assert_eq!(ask["title"], "Available Commands");
    let line = "/commands - List available slash commands";
    assert!(ask["options"]
        .as_array()
        .is_some_and(|o| o.iter().any(|o| o == line)));
    rpc.send(json!({"type": "extension_ui_response", "id": ask["id"], "value": line}))
        .await;
    let confirm = ui(&mut rpc, "confirm").await;
    assert_eq!(confirm["title"], "commands");
    assert!(confirm["message"]
        .as_str()
        .unwrap_or_default()
        .ends_with("commands.ts"));
    rpc.send(json!({"type": "extension_ui_response", "id": confirm["id"], "confirmed": false}))
        .await;
    let done = rpc.response(&json!("c")).await;
    assert_eq!(done["success"], true, "{done}");
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn confirm_destructive_can_cancel_a_new_session() {
    let Some(mut rpc) = pi_support::start(&["confirm-destructive.ts"], Start::default()).await
    else {
        return;
    };
    rpc.send(json!({"id": "n", "type": "new_session"})).await;
    let ask = ui(&mut rpc, "confirm").await;
    assert_eq!(ask["title"], "Clear session?");
    rpc.send(json!({"type": "extension_ui_response", "id": ask["id"], "confirmed": false}))
        .await;
    let r = rpc.response(&json!("n")).await;
    assert_eq!(r["data"]["cancelled"], true, "{r}");
    notified(&mut rpc, "Clear cancelled").await;
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_override_replaces_the_built_in_read_and_blocks_secrets() {
    let Some(mut rpc) = pi_support::start(&["tool-override.ts"], Start::default()).await else {
        return;
    };
    std::fs::write(rpc.work_dir().join(".env"), "SECRET=1").expect(".env");
    std::fs::write(rpc.work_dir().join("notes.txt"), "line one\nline two").expect("notes");
    rpc.server.push(tool_call("read", json!({"path": ".env"})));
    rpc.server
        .push(tool_call("read", json!({"path": "notes.txt"})));
    rpc.server.push(reply("Read."));
    rpc.prompt_ok("p", "read things").await;
    let tools = rpc.server.requests()[0].json()["tools"].clone();
    let reads: Vec<&Value> = tools
        .as_array()
        .map(|t| {
            t.iter()
                .filter(|t| t["function"]["name"] == "read")
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(reads.len(), 1, "one read tool offered: {tools}");
    assert!(reads[0]["function"]["description"]
        .as_str()
        .unwrap_or_default()
        .contains("access logging"));
    let blocked = rpc.event("tool_execution_end").await;
    assert!(tool_result_text(&blocked).starts_with("Access denied: \".env\""));
    let read = rpc.event("tool_execution_end").await;
    assert_eq!(tool_result_text(&read), "line one\nline two");
    let log = support::read(&rpc.agent_dir().join("read-access.log"));
    assert!(log.contains("BLOCKED") && log.contains("ALLOWED"), "{log}");
    assert_eq!(rpc.close().await, Some(0));
}

/// A repository in the work dir with one committed file, then changed.
fn dirty_repo(work: &std::path::Path) {
    git(work, &["init", "-q"]);
    std::fs::write(work.join("a.txt"), "one\n").expect("a.txt");
    git(work, &["add", "a.txt"]);
    git(work, &["commit", "-q", "-m", "first"]);
    std::fs::write(work.join("a.txt"), "one\ntwo\n").expect("a.txt changed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dirty_repo_guard_asks_before_a_new_session_over_uncommitted_changes() {
    let Some(mut rpc) = pi_support::start(&["dirty-repo-guard.ts"], Start::default()).await else {
        return;
    };
    dirty_repo(&rpc.work_dir());
    rpc.send(json!({"id": "n", "type": "new_session"})).await;
    let ask = ui(&mut rpc, "select").await;
    assert_eq!(
        ask["title"],
        "You have 1 uncommitted file(s). new session anyway?"
    );
    rpc.send(json!({"type": "extension_ui_response", "id": ask["id"], "value": "No, let me commit first"}))
        .await;
    let r = rpc.response(&json!("n")).await;
    assert_eq!(r["data"]["cancelled"], true, "{r}");
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_transform_streaming_appends_the_diff_stat_to_questions_about_changes() {
    let Some(mut rpc) =
        pi_support::start(&["input-transform-streaming.ts"], Start::default()).await
    else {
        return;
    };
    dirty_repo(&rpc.work_dir());
    rpc.server.push(reply("Seen."));
    rpc.prompt_ok("p", "review my changes").await;
    let texts = user_texts(&rpc.server.last_body());
    assert!(
        texts[0].starts_with(
            "review my changes\n\nCurrent uncommitted changes:\n```\na.txt | 1 +\n 1 file changed"
        ),
        "{texts:?}"
    );
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_rules_lists_rule_files_in_the_system_prompt() {
    let home = tempfile::tempdir().expect("home");
    let rules = home.path().join("work/.claude/rules");
    std::fs::create_dir_all(&rules).expect("rules dir");
    std::fs::write(rules.join("style.md"), "Use tabs.").expect("rule");
    let Some(mut rpc) = pi_support::start(
        &["claude-rules.ts"],
        Start {
            home: Some(home),
            ..Start::default()
        },
    )
    .await
    else {
        return;
    };
    notified(&mut rpc, "Found 1 rule(s) in .claude/rules/").await;
    rpc.server.push(reply("Ok."));
    rpc.prompt_ok("p", "hi").await;
    let system = rpc.server.last_body()["messages"][0]["content"].to_string();
    assert!(system.contains("- .claude/rules/style.md"), "{system}");
    assert_eq!(rpc.close().await, Some(0));
}

/// Written as for pi 0.73.1: `@mariozechner/*` and `@sinclair/typebox` imports with values.
const PI_073_TOOL: &str = r#"
import { StringEnum } from "@mariozechner/pi-ai";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Text } from "@mariozechner/pi-tui";
import { Type } from "@sinclair/typebox";

export default function (pi: ExtensionAPI) {
  pi.registerTool({
    name: "shout",
    label: "Shout",
    description: "Shouts a word.",
    parameters: Type.Object({ word: Type.String(), mood: StringEnum(["calm", "loud"] as const) }),
    async execute(_id, params) {
      const lines = new Text(params.word.toUpperCase(), 0, 0).render(80);
      return { content: [{ type: "text", text: `${lines[0].trim()} (${params.mood})` }], details: {} };
    },
  });
}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_extension_written_for_pi_0_73_loads_with_its_old_package_names() {
    let Some(mut rpc) =
        pi_support::start_with_files(&[], &[("shout.ts", PI_073_TOOL)], Start::default()).await
    else {
        return;
    };
    rpc.server
        .push(tool_call("shout", json!({"word": "ahoy", "mood": "loud"})));
    rpc.server.push(reply("Done."));
    rpc.prompt_ok("p", "shout").await;
    let tools = rpc.server.requests()[0].json()["tools"].to_string();
    assert!(tools.contains(r#""enum":["calm","loud"]"#), "{tools}");
    let end = rpc.event("tool_execution_end").await;
    assert_eq!(tool_result_text(&end), "AHOY (loud)");
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_line_shows_the_turn_in_the_status() {
    let Some(mut rpc) = pi_support::start(&["status-line.ts"], Start::default()).await else {
        return;
    };
    rpc.server.push(reply("Hi."));
    rpc.prompt_ok("p", "hello").await;
    let mut texts = Vec::new();
    for _ in 0..3 {
        let status = ui(&mut rpc, "setStatus").await;
        assert_eq!(status["statusKey"], "status-demo");
        texts.push(
            status["statusText"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        );
    }
    // Styled with pi's own theme, as pi's RPC mode sends them.
    let expected = [
        "\u{1b}[39m\u{1b}[2mReady\u{1b}[22;39m",
        "\u{1b}[38;5;5m●\u{1b}[39m\u{1b}[39m\u{1b}[2m Turn 1...\u{1b}[22;39m",
        "\u{1b}[38;5;2m✓\u{1b}[39m\u{1b}[39m\u{1b}[2m Turn 1 complete\u{1b}[22;39m",
    ];
    assert_eq!(texts, expected);
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_commit_on_exit_commits_with_the_last_reply_as_message() {
    let home = tempfile::tempdir().expect("home");
    std::fs::write(
        home.path().join(".gitconfig"),
        "[user]\n\tname = t\n\temail = t@t\n",
    )
    .expect("gitconfig");
    let work = home.path().join("work");
    std::fs::create_dir_all(&work).expect("work");
    dirty_repo(&work);
    let Some(mut rpc) = pi_support::start(
        &["auto-commit-on-exit.ts"],
        Start {
            home: Some(home),
            ..Start::default()
        },
    )
    .await
    else {
        return;
    };
    rpc.server.push(reply("Fixed the bug.\nDetails follow."));
    rpc.prompt_ok("p", "fix it").await;
    // Keep the home (and its repository) alive past close().
    let _home = std::mem::replace(&mut rpc.home, tempfile::tempdir().expect("tempdir"));
    assert_eq!(rpc.close().await, Some(0));
    let log = std::process::Command::new("git")
        .args(["log", "-1", "--format=%s"])
        .current_dir(&work)
        .output()
        .expect("git log");
    assert_eq!(
        String::from_utf8_lossy(&log.stdout).trim(),
        "[pi] Fixed the bug."
    );
}
