//! More of pi's example extensions (see pi_extensions.rs) running unchanged in `rho --mode rpc`,
//! each checked for the behaviour it exists for. Skipped, with the reason printed, without
//! node ≥ 22.18.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::pi_support;
use crate::support;

use pi_support::{notified, tool_call, tool_result_text, ui};
use serde_json::json;
use support::{reply, user_texts, Start};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_status_announces_a_model_change_and_shows_it_in_the_status() {
    let Some(mut rpc) = pi_support::start(&["model-status.ts"], Start::default()).await else {
        return;
    };
    let r = rpc
        .call(json!({"id": "s", "type": "set_model", "provider": "mock", "modelId": "m2"}))
        .await;
    assert_eq!(r["success"], true, "{r}");
    notified(&mut rpc, "Model: mock/m2").await;
    let status = ui(&mut rpc, "setStatus").await;
    assert_eq!(status["statusKey"], "model");
    assert!(
        status["statusText"]
            .as_str()
            .is_some_and(|t| t.ends_with("m2")),
        "{status}"
    );
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inline_bash_expands_commands_in_the_prompt_before_the_model_sees_it() {
    let Some(mut rpc) = pi_support::start(&["inline-bash.ts"], Start::default()).await else {
        return;
    };
    rpc.server.push(reply("Noted."));
    rpc.prompt_ok("p", "the answer is !{echo $((6*7))} here")
        .await;
    assert_eq!(
        user_texts(&rpc.server.last_body()),
        ["the answer is 42 here"]
    );
    let note = rpc
        .wait(|v| {
            v["method"] == "notify"
                && v["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("Expanded 1"))
        })
        .await;
    assert!(
        note["message"]
            .as_str()
            .unwrap_or_default()
            .contains("\"42\""),
        "{note}"
    );
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bash_spawn_hook_runs_bash_with_the_hooked_environment() {
    let Some(mut rpc) = pi_support::start(&["bash-spawn-hook.ts"], Start::default()).await else {
        return;
    };
    rpc.server.push(tool_call(
        "bash",
        json!({"command": "echo hooked=$PI_SPAWN_HOOK"}),
    ));
    rpc.server.push(reply("Ran."));
    rpc.prompt_ok("p", "run it").await;
    let end = rpc.event("tool_execution_end").await;
    let text = tool_result_text(&end);
    assert!(text.contains("hooked=1"), "{end}");
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timed_confirm_answers_confirmed_or_cancels_when_time_runs_out() {
    let Some(mut rpc) = pi_support::start(&["timed-confirm.ts"], Start::default()).await else {
        return;
    };
    rpc.send(json!({"id": "t1", "type": "prompt", "message": "/timed"}))
        .await;
    let ask = ui(&mut rpc, "confirm").await;
    assert_eq!(ask["title"], "Timed Confirmation");
    rpc.send(json!({"type": "extension_ui_response", "id": ask["id"], "confirmed": true}))
        .await;
    notified(&mut rpc, "Confirmed by user!").await;
    // Unanswered, the dialog gives up after its 5 s as in pi.
    rpc.send(json!({"id": "t2", "type": "prompt", "message": "/timed"}))
        .await;
    ui(&mut rpc, "confirm").await;
    notified(&mut rpc, "Cancelled or timed out").await;
    rpc.send(json!({"id": "t3", "type": "prompt", "message": "/timed-signal"}))
        .await;
    notified(&mut rpc, "Dialog timed out (auto-cancelled)").await;
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_trigger_starts_a_turn_when_its_file_is_written() {
    // The example watches this fixed path; it must exist before the session starts.
    let trigger = std::path::Path::new("/tmp/agent-trigger.txt");
    std::fs::write(trigger, "").expect("trigger file");
    let Some(mut rpc) = pi_support::start(&["file-trigger.ts"], Start::default()).await else {
        return;
    };
    rpc.server.push(reply("Reacting."));
    notified(&mut rpc, "Watching /tmp/agent-trigger.txt").await;
    std::fs::write(trigger, "build finished\n").expect("write trigger");
    rpc.event("agent_end").await;
    let texts = user_texts(&rpc.server.last_body());
    assert_eq!(texts, ["External trigger: build finished"]);
    assert_eq!(rpc.close().await, Some(0));
}

/// The session file's entries of `kind`.
fn entries_of(file: &str, kind: &str) -> Vec<serde_json::Value> {
    support::read(std::path::Path::new(file))
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["type"] == kind)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bookmark_labels_the_last_assistant_message_and_removes_the_label() {
    let opts = Start {
        with_sessions: true,
        ..Start::default()
    };
    let Some(mut rpc) = pi_support::start(&["bookmark.ts"], opts).await else {
        return;
    };
    rpc.server.push(reply("Worth keeping."));
    rpc.prompt_ok("p", "hello").await;
    rpc.call(json!({"id": "b", "type": "prompt", "message": "/bookmark keeper"}))
        .await;
    notified(&mut rpc, "Bookmarked as: keeper").await;
    let state = rpc.call(json!({"id": "s", "type": "get_state"})).await;
    let file = state["data"]["sessionFile"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let assistant = entries_of(&file, "message")
        .into_iter()
        .find(|e| e["message"]["role"] == "assistant")
        .expect("assistant entry");
    let labels = entries_of(&file, "label");
    assert_eq!(labels.len(), 1, "{labels:?}");
    assert_eq!(labels[0]["targetId"], assistant["id"]);
    assert_eq!(labels[0]["label"], "keeper");
    rpc.call(json!({"id": "u", "type": "prompt", "message": "/unbookmark"}))
        .await;
    notified(&mut rpc, "Removed bookmark: keeper").await;
    let labels = entries_of(&file, "label");
    assert_eq!(labels.len(), 2, "{labels:?}");
    assert_eq!(labels[1]["targetId"], assistant["id"]);
    assert!(labels[1].get("label").is_none(), "{labels:?}");
    assert_eq!(rpc.close().await, Some(0));
}

/// Waits for rho to exit on its own (stdin stays open).
async fn exits_by_itself(rpc: &mut support::Rpc) -> Option<i32> {
    tokio::time::timeout(std::time::Duration::from_secs(30), rpc.child.wait())
        .await
        .unwrap_or_else(|_| panic!("rho quits without end of input; lines: {:#?}", rpc.seen))
        .expect("exit status")
        .code()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_command_quits_rho_from_a_command_and_after_a_tool_s_turn() {
    let Some(mut rpc) = pi_support::start(&["shutdown-command.ts"], Start::default()).await else {
        return;
    };
    rpc.send(json!({"id": "q", "type": "prompt", "message": "/quit"}))
        .await;
    assert_eq!(exits_by_itself(&mut rpc).await, Some(0));

    let Some(mut rpc) = pi_support::start(&["shutdown-command.ts"], Start::default()).await else {
        return;
    };
    rpc.server.push(tool_call("finish_and_exit", json!({})));
    rpc.server.push(reply("All done."));
    rpc.send(json!({"id": "p", "type": "prompt", "message": "finish"}))
        .await;
    let end = rpc.event("tool_execution_end").await;
    assert!(
        tool_result_text(&end).starts_with("Shutdown requested"),
        "{end}"
    );
    rpc.event("agent_end").await;
    assert_eq!(exits_by_itself(&mut rpc).await, Some(0));
    assert_eq!(
        rpc.server.requests().len(),
        2,
        "the turn ended before rho quit"
    );
}

/// debug-provider.ts records the provider's raw stream events (`provider_stream_event`, each
/// chunk's JSON before rho folds it) of a reply and appends them as a custom entry, which an
/// RPC client hears of as `entry_appended`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn debug_provider_records_the_raw_stream_events_of_a_reply() {
    // pi 1.x's RPC, which has `entry_appended`.
    let start = Start {
        args: vec!["--rpc-dialect".into(), "1.x".into()],
        ..Start::default()
    };
    let Some(mut rpc) = pi_support::start(&["debug-provider.ts"], start).await else {
        return;
    };
    let r = rpc
        .call(json!({"id": "on", "type": "prompt", "message": "/debug-provider on"}))
        .await;
    assert_eq!(r["success"], true, "{r}");
    notified(&mut rpc, "Provider event capture enabled").await;
    rpc.server.push(reply("Noted."));
    rpc.prompt_ok("p", "hello").await;
    let appended = rpc
        .wait(|v| {
            v["type"] == "entry_appended" && v["entry"]["customType"] == "debug-provider-events"
        })
        .await;
    let data = &appended["entry"]["data"];
    assert_eq!(data["provider"], "mock", "{data}");
    assert_eq!(data["model"], "m1", "{data}");
    assert_eq!(data["api"], "openai-completions", "{data}");
    let events = data["events"].as_array().expect("events");
    let text: String = events
        .iter()
        .filter_map(|e| e["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(text, "Noted.", "{data}");
    assert!(
        events
            .iter()
            .all(|e| e["object"] == "chat.completion.chunk"),
        "every event is a chunk as the provider sent it: {data}"
    );
    assert_eq!(rpc.close().await, Some(0));
}

/// Records every `ui_prompt_start`/`ui_prompt_end` it hears; `/ask` opens a confirm, `/nest`
/// an input while a select is still open, `/seen` tells what was heard.
const PROMPT_EVENTS: &str = r#"
export default function (pi) {
  const heard = [];
  pi.on("ui_prompt_start", (e) => void heard.push(`start ${e.reason} ${e.kind} ${e.title}`));
  pi.on("ui_prompt_end", (e) => void heard.push(`end ${e.reason} ${e.kind} ${e.title}`));
  pi.registerCommand("ask", {
    description: "One confirm",
    handler: async (_args, ctx) => void (await ctx.ui.confirm("Sure?", "Really")),
  });
  pi.registerCommand("nest", {
    description: "An input inside a select",
    handler: async (_args, ctx) => {
      const outer = ctx.ui.select("Outer", ["a", "b"]);
      await ctx.ui.input("Inner");
      await outer;
    },
  });
  pi.registerCommand("seen", {
    description: "Tells what was heard",
    handler: async (_args, ctx) => ctx.ui.notify(heard.splice(0).join(" | "), "info"),
  });
}
"#;

/// pi announces its blocking UI prompts to every extension (`ui_prompt_start` when the first
/// opens, `ui_prompt_end` when the last closes: a prompt opened inside another counts once);
/// so does rho.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocking_prompts_are_announced_to_extensions() {
    let files = [("prompt-events.ts", PROMPT_EVENTS)];
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, Start::default()).await else {
        return;
    };
    rpc.send(json!({"id": "a", "type": "prompt", "message": "/ask"}))
        .await;
    let confirm = ui(&mut rpc, "confirm").await;
    rpc.send(json!({"type": "extension_ui_response", "id": confirm["id"], "confirmed": true}))
        .await;
    assert_eq!(rpc.response(&json!("a")).await["success"], true);
    let seen = rpc.call(json!({"id": "s1", "type": "prompt", "message": "/seen"}));
    assert_eq!(seen.await["success"], true);
    notified(
        &mut rpc,
        "start ui_prompt confirm Sure? | end ui_prompt confirm Sure?",
    )
    .await;

    rpc.send(json!({"id": "n", "type": "prompt", "message": "/nest"}))
        .await;
    let select = ui(&mut rpc, "select").await;
    let input = ui(&mut rpc, "input").await;
    rpc.send(json!({"type": "extension_ui_response", "id": input["id"], "value": "x"}))
        .await;
    rpc.send(json!({"type": "extension_ui_response", "id": select["id"], "value": "a"}))
        .await;
    assert_eq!(rpc.response(&json!("n")).await["success"], true);
    let seen = rpc.call(json!({"id": "s2", "type": "prompt", "message": "/seen"}));
    assert_eq!(seen.await["success"], true);
    notified(
        &mut rpc,
        "start ui_prompt select Outer | end ui_prompt select Outer",
    )
    .await;
    assert_eq!(rpc.close().await, Some(0));
}

/// Tells what a failed compaction's `session_compact_failed` said.
const COMPACT_FAILED: &str = r#"
export default function (pi) {
  pi.on("session_compact_failed", (e, ctx) => ctx.ui.notify(
    `failed ${e.reason} aborted=${e.aborted} retry=${e.willRetry} extension=${e.fromExtension}: ${e.errorMessage}`,
    "info",
  ));
}
"#;

/// A compaction that fails (here: nothing to compact yet) reaches pi extensions as
/// `session_compact_failed` with pi's fields, as pi emits it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_compaction_reaches_pi_extensions() {
    let files = [("compact-failed.ts", COMPACT_FAILED)];
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, Start::default()).await else {
        return;
    };
    let r = rpc.call(json!({"id": "c", "type": "compact"})).await;
    assert_eq!(r["success"], false, "{r}");
    let told = rpc
        .wait(|v| {
            v["method"] == "notify"
                && v["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("failed "))
        })
        .await;
    let text = told["message"].as_str().unwrap_or_default();
    assert!(
        text.starts_with(
            "failed manual aborted=false retry=false extension=false: Compaction failed: "
        ),
        "{text}"
    );
    assert_eq!(rpc.close().await, Some(0));
}

/// Tells each session name it hears of.
const NAME_CHANGED: &str = r#"
export default function (pi) {
  pi.on("session_info_changed", (e, ctx) => ctx.ui.notify(`named ${e.name}`, "info"));
}
"#;

/// Naming the session reaches pi extensions as `session_info_changed` with the name, as pi
/// emits it from `setSessionName`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn naming_the_session_reaches_pi_extensions() {
    let files = [("name-changed.ts", NAME_CHANGED)];
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, Start::default()).await else {
        return;
    };
    let set = json!({"id": "n", "type": "set_session_name", "name": "  Refactor  "});
    assert_eq!(rpc.call(set).await["success"], true);
    notified(&mut rpc, "named Refactor").await;
    assert_eq!(rpc.close().await, Some(0));
}

/// Two `before_provider_request` handlers, the second seeing the first's payload, and two
/// `before_provider_headers` handlers changing the headers in place.
const PROVIDER_HOOKS: &str = r#"
export default function (pi) {
  pi.on("before_provider_request", (e) => ({ ...e.payload, temperature: 0.25 }));
  pi.on("before_provider_request", (e) => ({ ...e.payload, top_p: e.payload.temperature }));
  pi.on("before_provider_headers", (e) => {
    e.headers["x-one"] = "1";
    e.headers["x-two"] = "2";
    e.headers["x-saw-key"] = String("authorization" in e.headers || "Authorization" in e.headers);
  });
  pi.on("before_provider_headers", (e) => {
    e.headers["x-two"] = null;
    e.headers["authorization"] = null;
  });
}
"#;

/// pi's provider hooks from a pi extension: a returned payload replaces it for later handlers
/// and for the request; headers changed in place are added or removed (credentials are not
/// shown, but can be removed by name).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_hooks_replace_the_payload_and_change_the_headers() {
    let files = [("provider-hooks.ts", PROVIDER_HOOKS)];
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, Start::default()).await else {
        return;
    };
    rpc.server.push(reply("Hooked."));
    rpc.prompt_ok("p", "hello").await;
    let request = &rpc.server.requests()[0];
    let body = request.json();
    assert_eq!(body["temperature"], 0.25, "{body}");
    assert_eq!(body["top_p"], 0.25, "{body}");
    assert_eq!(request.header("x-one"), Some("1"));
    assert_eq!(request.header("x-two"), None);
    assert_eq!(request.header("x-saw-key"), Some("false"));
    assert_eq!(request.header("authorization"), None);
    assert_eq!(rpc.close().await, Some(0));
}
