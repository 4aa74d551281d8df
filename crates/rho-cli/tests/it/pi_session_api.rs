//! pi's example extensions that change the session (active tools, tools registered after
//! loading, model and thinking level, compaction, session control, flags) running unchanged
//! in `rho --mode rpc`, each checked for the behaviour it exists for. Skipped, with the
//! reason printed, without node ≥ 22.18.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::pi_support;
use crate::support;

use pi_support::{notified, tool_call, tool_result_text, ui};
use rho_testkit::json::tool_names;
use serde_json::{json, Value};
use support::{hanging_reply, reply, Rpc, Start};

async fn command(rpc: &mut Rpc, id: &str, text: &str) {
    let r = rpc
        .call(json!({"id": id, "type": "prompt", "message": text}))
        .await;
    assert_eq!(r["success"], true, "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dynamic_tools_registers_tools_at_session_start_and_from_a_command() {
    let Some(mut rpc) = pi_support::start(&["dynamic-tools.ts"], Start::default()).await else {
        return;
    };
    notified(&mut rpc, "Registered dynamic tool: echo_session").await;
    command(&mut rpc, "c1", "/add-echo-tool shout").await;
    notified(&mut rpc, "Registered dynamic tool: shout").await;
    rpc.server
        .push(tool_call("shout", json!({"message": "hello there"})));
    rpc.server.push(reply("Done."));
    rpc.prompt_ok("p", "shout it").await;
    let first = &rpc.server.requests()[0];
    let tools = tool_names(&first.json());
    for name in ["read", "bash", "echo_session", "shout"] {
        assert!(tools.iter().any(|t| t == name), "{name} offered: {tools:?}");
    }
    let end = rpc
        .wait(|v| v["type"] == "tool_execution_end" && v["toolName"] == "shout")
        .await;
    assert_eq!(tool_result_text(&end), "[shout] hello there", "{end}");
    command(&mut rpc, "c2", "/add-echo-tool shout").await;
    notified(&mut rpc, "Tool already registered: shout").await;
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_mode_takes_write_tools_away_and_gives_them_back() {
    let Some(mut rpc) = pi_support::start(&["plan-mode"], Start::default()).await else {
        return;
    };
    command(&mut rpc, "c1", "/plan").await;
    notified(
        &mut rpc,
        "Plan mode enabled. Built-in write tools disabled.",
    )
    .await;
    rpc.server
        .push(tool_call("bash", json!({"command": "rm -rf x"})));
    rpc.server.push(reply("Plan:\n1. Look around"));
    command(&mut rpc, "p1", "make a plan").await;
    // With a UI, the extension asks what to do with the plan it found.
    let ask = ui(&mut rpc, "select").await;
    assert_eq!(ask["title"], "Plan mode - what next?");
    rpc.send(
        json!({"type": "extension_ui_response", "id": ask["id"], "value": "Stay in plan mode"}),
    )
    .await;
    rpc.event("agent_end").await;
    rpc.idle().await;
    let planning = tool_names(&rpc.server.requests()[0].json());
    assert_eq!(
        planning,
        ["read", "bash", "grep", "find", "ls"],
        "plan-mode tools"
    );
    let blocked = rpc.event("tool_execution_end").await;
    assert!(
        tool_result_text(&blocked).starts_with("Plan mode: command blocked"),
        "{blocked}"
    );
    command(&mut rpc, "c2", "/plan").await;
    notified(&mut rpc, "Plan mode disabled. Full access restored.").await;
    rpc.server.push(reply("Writing now."));
    rpc.prompt_ok("p2", "now do it").await;
    let normal = tool_names(&rpc.server.last_body());
    assert_eq!(normal, ["read", "bash", "edit", "write"], "tools restored");
    assert_eq!(rpc.close().await, Some(0));
}

/// Switches model and thinking level the way pi extensions do.
const SWITCHER: &str = r#"
export default function (pi) {
  pi.registerCommand("switch", {
    handler: async (args, ctx) => {
      const [provider, id] = args.trim().split("/");
      const model = ctx.modelRegistry.find(provider, id);
      const ok = await pi.setModel(model);
      pi.setThinkingLevel("high");
      ctx.ui.notify(`switched=${ok} thinking=${pi.getThinkingLevel()}`, "info");
    },
  });
  pi.registerCommand("no-key", {
    handler: async (_args, ctx) => {
      const other = ctx.modelRegistry.getAll().find((m) => m.provider === "anthropic");
      ctx.ui.notify(`no key: ${await pi.setModel(other)}`, "info");
    },
  });
  pi.on("thinking_level_select", (event, ctx) => ctx.ui.notify(`level ${event.level}`, "info"));
}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_extension_sets_model_and_thinking_level_and_model_status_shows_it() {
    let files = [("switcher.ts", SWITCHER)];
    let Some(mut rpc) =
        pi_support::start_with_files(&["model-status.ts"], &files, Start::default()).await
    else {
        return;
    };
    command(&mut rpc, "c1", "/switch mock/r1").await;
    notified(&mut rpc, "Model: mock/r1").await;
    notified(&mut rpc, "level high").await;
    notified(&mut rpc, "switched=true thinking=high").await;
    let state = rpc.call(json!({"id": "s", "type": "get_state"})).await;
    assert_eq!(state["data"]["model"]["id"], "r1", "{state}");
    assert_eq!(state["data"]["thinkingLevel"], "high", "{state}");
    rpc.server.push(reply("Thinking hard."));
    rpc.prompt_ok("p", "go").await;
    assert_eq!(rpc.server.last_body()["model"], "r1");
    command(&mut rpc, "c2", "/no-key").await;
    notified(&mut rpc, "no key: false").await;
    let state = rpc.call(json!({"id": "s2", "type": "get_state"})).await;
    assert_eq!(state["data"]["model"]["id"], "r1", "unchanged: {state}");
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trigger_compact_compacts_with_the_commands_instructions() {
    // Only the second exchange (about 7 tokens) kept, so the first is summarised.
    let opts = Start {
        settings: Some(json!({"compaction": {"keepRecentTokens": 5}})),
        ..Start::default()
    };
    let Some(mut rpc) = pi_support::start(&["trigger-compact.ts"], opts).await else {
        return;
    };
    for (i, text) in ["first question", "second question"].iter().enumerate() {
        rpc.server.push(reply("An answer."));
        rpc.prompt_ok(&format!("p{i}"), text).await;
    }
    rpc.server.push(reply("## Goal\nSummary of the talk."));
    command(&mut rpc, "c", "/trigger-compact Focus on bananas").await;
    notified(&mut rpc, "Compaction started").await;
    notified(&mut rpc, "Compaction completed").await;
    let summary_request = rpc.server.last_body().to_string();
    assert!(
        summary_request.contains("Focus on bananas"),
        "{summary_request}"
    );
    let messages = rpc.call(json!({"id": "m", "type": "get_messages"})).await;
    let first = &messages["data"]["messages"][0];
    assert_eq!(first["role"], "compactionSummary", "{messages}");
    assert!(
        first["summary"]
            .as_str()
            .is_some_and(|s| s.contains("Summary of the talk.")),
        "{first}"
    );
    assert_eq!(rpc.close().await, Some(0));
}

/// Reads pi's model registry on `/models`.
const REGISTRY: &str = r#"
export default function (pi) {
  pi.registerCommand("models", {
    handler: async (_args, ctx) => {
      const r = ctx.modelRegistry;
      const m1 = r.find("mock", "m1");
      const claude = r.getAll().find((m) => m.provider === "anthropic");
      const available = [...new Set(r.getAvailable().map((m) => m.provider))];
      const seen = { m1: m1?.id, m1Auth: r.hasConfiguredAuth(m1), claude: !!claude, claudeAuth: r.hasConfiguredAuth(claude), available };
      ctx.ui.notify(`registry ${JSON.stringify(seen)}`, "info");
    },
  });
}
"#;

/// `ctx.modelRegistry` (fetched from rho when first read): every model of the catalog and
/// models.json, `hasConfiguredAuth` and `getAvailable` as the session's credentials say.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_registry_knows_every_model_and_which_have_credentials() {
    let files = [("registry.ts", REGISTRY)];
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, Start::default()).await else {
        return;
    };
    command(&mut rpc, "c", "/models").await;
    let seen = notified_json(&mut rpc, "registry ").await;
    assert_eq!(
        seen,
        json!({"m1": "m1", "m1Auth": true, "claude": true, "claudeAuth": false, "available": ["mock"]})
    );
    assert_eq!(rpc.close().await, Some(0));
}

/// pi 1.6: a one-exchange session that fits in `keepRecentTokens` has nothing to summarise,
/// so no summary request is made and the extension's `onError` hears pi's text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trigger_compact_on_one_exchange_has_nothing_to_compact() {
    let Some(mut rpc) = pi_support::start(&["trigger-compact.ts"], Start::default()).await else {
        return;
    };
    rpc.server.push(reply("An answer."));
    rpc.prompt_ok("p", "only question").await;
    command(&mut rpc, "c", "/trigger-compact").await;
    notified(&mut rpc, "Compaction started").await;
    notified(
        &mut rpc,
        "Compaction failed: Nothing to compact (session too small)",
    )
    .await;
    assert_eq!(rpc.server.requests().len(), 1, "no summary request");
    assert_eq!(rpc.close().await, Some(0));
}

/// Shows what `ctx.getContextUsage()` answers, at each turn's end and on `/usage`.
const USAGE: &str = r#"
export default function (pi) {
  const show = (ctx, when) => ctx.ui.notify(`${when} ${JSON.stringify(ctx.getContextUsage() ?? null)}`, "info");
  pi.on("turn_end", (_event, ctx) => show(ctx, "turn_end"));
  pi.registerCommand("usage", { handler: async (_args, ctx) => show(ctx, "usage") });
}
"#;

/// The text after `prefix` of the next notification starting with it, as JSON.
async fn notified_json(rpc: &mut Rpc, prefix: &str) -> Value {
    let text = pi_support::notified_starting(rpc, prefix).await;
    serde_json::from_str(&text[prefix.len()..]).expect("JSON after the prefix")
}

/// pi's `ctx.getContextUsage()`: `{tokens, contextWindow, percent}` of the session's model,
/// the numbers `get_session_stats` reports.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_extension_reads_the_context_usage_the_session_counts() {
    let files = [("usage.ts", USAGE)];
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, Start::default()).await else {
        return;
    };
    rpc.server.push(reply("An answer."));
    rpc.prompt_ok("p", "a question").await;
    let at_turn_end = notified_json(&mut rpc, "turn_end ").await;
    command(&mut rpc, "c", "/usage").await;
    let usage = notified_json(&mut rpc, "usage ").await;
    let stats = rpc
        .call(json!({"id": "s", "type": "get_session_stats"}))
        .await;
    let expected = &stats["data"]["contextUsage"];
    assert!(
        expected["contextWindow"].as_u64().is_some_and(|w| w > 0),
        "{stats}"
    );
    assert_eq!(usage, *expected, "the session's figures");
    // The reply's usage (20 in, 5 out) is the context once it ended.
    assert_eq!(usage["tokens"], 25, "{usage}");
    assert_eq!(at_turn_end, usage, "the same at the turn's end");
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_compaction_writes_the_summary_with_its_own_model() {
    let opts = Start {
        // The example asks google/gemini-2.5-flash for the summary: point google here.
        providers: Some(
            |url| json!({"google": {"baseUrl": format!("{url}/v1beta"), "apiKey": "gemini-test-key"}}),
        ),
        // Keep only the last turn, so the first one is summarised.
        settings: Some(json!({"compaction": {"keepRecentTokens": 10}})),
        ..Start::default()
    };
    let Some(mut rpc) = pi_support::start(&["custom-compaction.ts"], opts).await else {
        return;
    };
    for (i, text) in ["first question", "second question"].iter().enumerate() {
        rpc.server.push(reply("An answer."));
        rpc.prompt_ok(&format!("p{i}"), text).await;
    }
    let gemini = rho_testkit::google::GeminiStream::new("resp-1", "gemini-2.5-flash").finish(
        vec![rho_testkit::google::text(
            "## Goals\nEverything, summarised by Gemini.",
        )],
        "STOP",
        rho_testkit::google::usage(40, 12, 0, 0),
    );
    rpc.server
        .push(rho_testkit::server::MockResponse::sse(gemini));
    let r = rpc.call(json!({"id": "c", "type": "compact"})).await;
    assert_eq!(r["success"], true, "{r}");
    notified(&mut rpc, "Custom compaction extension triggered").await;
    let request = rpc.server.requests().last().cloned().expect("a request");
    assert!(
        request.path.contains("gemini-2.5-flash"),
        "{}",
        request.path
    );
    assert!(request.body.contains("first question"), "{}", request.body);
    assert_eq!(
        r["data"]["summary"], "## Goals\nEverything, summarised by Gemini.",
        "{r}"
    );
    let messages = rpc.call(json!({"id": "m", "type": "get_messages"})).await;
    let first = &messages["data"]["messages"][0];
    assert_eq!(first["role"], "compactionSummary", "{messages}");
    assert_eq!(first["summary"], r["data"]["summary"]);
    assert_eq!(rpc.close().await, Some(0));
}

/// Forks at the model's first tool call, as a user going back to that point would; tells
/// when a turn started (after git-checkpoint, loaded first, handled it).
const FORK_BACK: &str = r#"
export default function (pi) {
  pi.on("turn_start", (event, ctx) => ctx.ui.notify(`turn ${event.turnIndex} started`, "info"));
  pi.registerCommand("fork-back", {
    handler: async (_args, ctx) => {
      const call = ctx.sessionManager.getEntries().find(
        (e) => e.type === "message" && e.message.role === "assistant" && e.message.content.some((c) => c.type === "toolCall"),
      );
      const r = await ctx.fork(call.id, { position: "at" });
      ctx.ui.notify(`forked cancelled=${r.cancelled}`, "info");
    },
  });
}
"#;

fn git(dir: &std::path::Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .status()
        .expect("git runs")
        .success();
    assert!(ok, "git {args:?}");
}

async fn session_file(rpc: &mut Rpc) -> String {
    let state = rpc.call(json!({"id": "st", "type": "get_state"})).await;
    state["data"]["sessionFile"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn git_checkpoint_restores_the_code_of_the_entry_a_fork_goes_back_to() {
    let home = tempfile::tempdir().expect("home");
    let work = home.path().join("work");
    std::fs::create_dir_all(&work).expect("work");
    git(&work, &["init", "-q"]);
    git(&work, &["config", "user.email", "t@example.com"]);
    git(&work, &["config", "user.name", "t"]);
    std::fs::write(work.join("a.txt"), "v1\n").expect("a.txt");
    git(&work, &["add", "a.txt"]);
    git(&work, &["commit", "-qm", "v1"]);
    let opts = Start {
        with_sessions: true,
        home: Some(home),
        ..Start::default()
    };
    let files = [("fork-back.ts", FORK_BACK)];
    let Some(mut rpc) = pi_support::start_with_files(&["git-checkpoint.ts"], &files, opts).await
    else {
        return;
    };
    rpc.server.push(tool_call(
        "write",
        json!({"path": "a.txt", "content": "v2\n"}),
    ));
    // The second turn keeps streaming: git-checkpoint keeps its checkpoints until the run
    // settles (pi's agent_settled), so the user goes back while it runs.
    rpc.server.push(hanging_reply("Thinking about"));
    rpc.send(json!({"id": "p", "type": "prompt", "message": "change a.txt"}))
        .await;
    notified(&mut rpc, "turn 1 started").await;
    let before = session_file(&mut rpc).await;
    // The code moves on (here: back to the commit) before the user returns to that point.
    git(&work, &["checkout", "-q", "--", "a.txt"]);
    assert_eq!(std::fs::read_to_string(work.join("a.txt")).unwrap(), "v1\n");
    // The command's response comes once its handler is done, after the dialog.
    rpc.send(json!({"id": "f", "type": "prompt", "message": "/fork-back"}))
        .await;
    let ask = ui(&mut rpc, "select").await;
    assert_eq!(ask["title"], "Restore code state?");
    let yes = "Yes, restore code to that point";
    rpc.send(json!({"type": "extension_ui_response", "id": ask["id"], "value": yes}))
        .await;
    notified(&mut rpc, "Code restored to checkpoint").await;
    notified(&mut rpc, "forked cancelled=false").await;
    assert_eq!(std::fs::read_to_string(work.join("a.txt")).unwrap(), "v2\n");
    let after = session_file(&mut rpc).await;
    assert_ne!(before, after, "the fork is a new session file");
    assert_eq!(rpc.close().await, Some(0));
}

/// ExtensionCommandContext's session control, each reported back.
const SESSION_CONTROL: &str = r#"
export default function (pi) {
  const done = (ctx, what, r) => ctx.ui.notify(`${what} cancelled=${r.cancelled}`, "info");
  pi.registerCommand("fresh", { handler: async (_a, ctx) => done(ctx, "new", await ctx.newSession()) });
  pi.registerCommand("open", { handler: async (path, ctx) => done(ctx, "switch", await ctx.switchSession(path.trim())) });
  pi.registerCommand("back", {
    handler: async (_a, ctx) => {
      const first = ctx.sessionManager.getEntries().find((e) => e.type === "message");
      done(ctx, "navigate", await ctx.navigateTree(first.id));
    },
  });
}
"#;

async fn message_count(rpc: &mut Rpc) -> usize {
    let m = rpc.call(json!({"id": "gm", "type": "get_messages"})).await;
    m["data"]["messages"].as_array().map_or(0, Vec::len)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_start_switch_and_navigate_sessions() {
    let opts = Start {
        with_sessions: true,
        ..Start::default()
    };
    let files = [("session-control.ts", SESSION_CONTROL)];
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, opts).await else {
        return;
    };
    rpc.server.push(reply("Hi."));
    rpc.prompt_ok("p", "hello").await;
    let first = session_file(&mut rpc).await;
    assert_eq!(message_count(&mut rpc).await, 2);
    command(&mut rpc, "n", "/fresh").await;
    notified(&mut rpc, "new cancelled=false").await;
    assert_ne!(session_file(&mut rpc).await, first);
    assert_eq!(message_count(&mut rpc).await, 0);
    command(&mut rpc, "o", &format!("/open {first}")).await;
    notified(&mut rpc, "switch cancelled=false").await;
    assert_eq!(session_file(&mut rpc).await, first);
    assert_eq!(message_count(&mut rpc).await, 2);
    command(&mut rpc, "b", "/back").await;
    notified(&mut rpc, "navigate cancelled=false").await;
    assert_eq!(
        message_count(&mut rpc).await,
        0,
        "back before the first message"
    );
    assert_eq!(rpc.close().await, Some(0));
}

/// `ctx.newSession({ withSession })`: pi's hand-off, run once the new session is in place.
const HANDOFF: &str = r#"
export default function (pi) {
  pi.registerCommand("handoff", {
    handler: async (_a, ctx) => {
      await ctx.newSession({
        withSession: async (next) => {
          next.ui.notify(`file=${next.sessionManager.getSessionFile()}`, "info");
          await next.sendUserMessage("kickoff from the old session");
        },
      });
    },
  });
}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_session_runs_in_the_new_session_and_can_prompt_it() {
    let opts = Start {
        with_sessions: true,
        ..Start::default()
    };
    let files = [("handoff.ts", HANDOFF)];
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, opts).await else {
        return;
    };
    rpc.server.push(reply("Hi."));
    rpc.prompt_ok("p", "hello").await;
    let first = session_file(&mut rpc).await;
    rpc.server.push(reply("Kicked off."));
    command(&mut rpc, "h", "/handoff").await;
    let seen = rpc
        .wait(|v| v["type"] == "extension_ui_request" && v["method"] == "notify")
        .await;
    let seen_file = seen["message"].as_str().unwrap_or_default().to_string();
    rpc.event("agent_end").await;
    rpc.idle().await;
    let now = session_file(&mut rpc).await;
    assert_ne!(now, first, "a new session");
    assert_eq!(
        seen_file,
        format!("file={now}"),
        "withSession saw the new session"
    );
    let m = rpc.call(json!({"id": "gm", "type": "get_messages"})).await;
    let roles: Vec<&str> = m["data"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["role"].as_str())
        .filter(|r| *r != "system")
        .collect();
    assert_eq!(roles, ["user", "assistant"], "{m}");
    let kickoff = rpc.server.requests().last().cloned().expect("a request");
    let texts = support::user_texts(&kickoff.json());
    assert_eq!(
        texts,
        ["kickoff from the old session"],
        "only the new session's message"
    );
    assert_eq!(rpc.close().await, Some(0));
}

/// Reports the value of its string flag `--greeting`.
const GREETER: &str = r#"
export default function (pi) {
  pi.registerFlag("greeting", { type: "string", default: "hello", description: "How to greet" });
  pi.on("session_start", (_e, ctx) => ctx.ui.notify(`greeting=${pi.getFlag("greeting")}`, "info"));
}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flags_from_the_command_line_reach_the_extensions_that_declared_them() {
    let opts = Start {
        args: vec!["--plan".into(), "--greeting".into(), "hola".into()],
        ..Start::default()
    };
    let files = [("greeter.ts", GREETER)];
    let Some(mut rpc) = pi_support::start_with_files(&["plan-mode"], &files, opts).await else {
        return;
    };
    notified(&mut rpc, "greeting=hola").await;
    // --plan: plan mode from the start, without /plan.
    rpc.server.push(reply("Plan:\n1. Look around"));
    command(&mut rpc, "p", "look").await;
    let ask = ui(&mut rpc, "select").await;
    rpc.send(json!({"type": "extension_ui_response", "id": ask["id"], "cancelled": true}))
        .await;
    rpc.event("agent_end").await;
    let tools = tool_names(&rpc.server.last_body());
    assert_eq!(tools, ["read", "bash", "grep", "find", "ls"], "plan mode");
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flag_no_extension_declares_is_an_unknown_option() {
    let dir = tempfile::tempdir().expect("dir");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rho"))
        .args(["--no-session", "-p", "--greeting", "hola", "hi"])
        .env("RHO_CODING_AGENT_DIR", dir.path())
        .env("HOME", dir.path())
        .current_dir(dir.path())
        .output()
        .expect("rho runs");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Error: Unknown option: --greeting"),
        "{stderr}"
    );
}

/// Tells the client the session settled (loaded after notify.ts, so it runs after it).
const SETTLED: &str = r#"
export default function (pi) {
  pi.on("agent_settled", (event, ctx) => ctx.ui.notify(`settled aborted=${event.aborted}`, "info"));
}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notify_sends_a_terminal_notification_when_the_agent_settles() {
    let stderr = tempfile::NamedTempFile::new().expect("stderr file");
    let opts = Start {
        stderr_to: Some(stderr.path().to_path_buf()),
        ..Start::default()
    };
    let files = [("settled.ts", SETTLED)];
    let Some(mut rpc) = pi_support::start_with_files(&["notify.ts"], &files, opts).await else {
        return;
    };
    rpc.server.push(reply("All done."));
    rpc.prompt_ok("p", "work").await;
    notified(&mut rpc, "settled aborted=false").await;
    assert_eq!(rpc.close().await, Some(0));
    // What an extension prints goes to rho's stderr (stdout is the protocol's): the terminal.
    let written = std::fs::read_to_string(stderr.path()).expect("stderr");
    assert!(
        written.contains("\u{1b}]777;notify;Pi;Ready for input\u{7}"),
        "{written:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompt_customizer_adds_a_tool_guidance_section_for_the_active_tools() {
    let Some(mut rpc) = pi_support::start(&["prompt-customizer.ts"], Start::default()).await else {
        return;
    };
    rpc.server.push(reply("Understood."));
    rpc.prompt_ok("p", "hi").await;
    let body = rpc.server.last_body();
    let system = body["messages"][0]["content"].as_str().unwrap_or_default();
    assert!(
        system.contains("<tool_guidance>\n- Use `read` for file contents"),
        "{system}"
    );
    assert!(
        system.contains("- Use `write` to create new files"),
        "{system}"
    );
    assert!(system.trim_end().ends_with("</tool_guidance>"), "{system}");
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn truncated_tool_cuts_long_ripgrep_output_and_keeps_all_of_it_in_a_file() {
    if std::process::Command::new("rg")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: no rg (ripgrep) on PATH; .ci/run installs it");
        return;
    }
    let home = tempfile::tempdir().expect("home");
    let work = home.path().join("work");
    std::fs::create_dir_all(&work).expect("work");
    let lines: String = (0..3000).map(|i| format!("needle {i}\n")).collect();
    std::fs::write(work.join("hay.txt"), lines).expect("hay");
    let opts = Start {
        home: Some(home),
        ..Start::default()
    };
    let Some(mut rpc) = pi_support::start(&["truncated-tool.ts"], opts).await else {
        return;
    };
    rpc.server.push(tool_call(
        "rg",
        json!({"pattern": "needle", "path": "hay.txt"}),
    ));
    rpc.server.push(reply("Found many."));
    rpc.prompt_ok("p", "find needles").await;
    let end = rpc
        .wait(|v| v["type"] == "tool_execution_end" && v["toolName"] == "rg")
        .await;
    let text = tool_result_text(&end);
    assert!(text.starts_with("1:needle 0\n"), "{text:.200}");
    assert!(
        text.contains("[Output truncated: showing 2000 of 3000 lines"),
        "{}",
        &text[text.len().saturating_sub(300)..]
    );
    let details = &end["result"]["details"];
    assert_eq!(details["matchCount"], 3000, "{details}");
    let full = details["fullOutputPath"]
        .as_str()
        .expect("full output path");
    let saved = std::fs::read_to_string(full).expect("full output");
    assert_eq!(saved.lines().count(), 3000);
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subagent_runs_an_agent_in_a_child_process_and_returns_its_answer() {
    let home = tempfile::tempdir().expect("home");
    // The example starts `pi` from PATH; here a `pi` that is this rho.
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let shim = bin.join("pi");
    let rho = env!("CARGO_BIN_EXE_rho");
    std::fs::write(&shim, format!("#!/bin/sh\nexec {rho} \"$@\"\n")).expect("shim");
    std::fs::set_permissions(&shim, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let agent = "---\nname: echoer\ndescription: Repeats what it finds\n---\n\nYou repeat.\n";
    std::fs::create_dir_all(home.path().join("agent/agents")).expect("agents");
    std::fs::write(home.path().join("agent/agents/echoer.md"), agent).expect("agent file");
    let opts = Start {
        home: Some(home),
        path_prefix: Some(bin),
        ..Start::default()
    };
    // `-e subagent` is a package (its prompts/ folder), as in pi: its tool is loaded through
    // an entry file, as its README has users link index.ts into their extensions.
    let entry = (
        "subagent-entry.ts",
        "export { default } from \"./subagent/index.ts\";\n",
    );
    let Some(mut rpc) = pi_support::start_with_files(&["subagent"], &[entry], opts).await else {
        return;
    };
    rpc.server.push(tool_call(
        "subagent",
        json!({"agent": "echoer", "task": "say the magic word"}),
    ));
    // The child rho's one request, then the parent's second.
    rpc.server.push(reply("The magic word is xyzzy."));
    rpc.server.push(reply("The subagent said xyzzy."));
    rpc.prompt_ok("p", "ask the echoer").await;
    let end = rpc
        .wait(|v| v["type"] == "tool_execution_end" && v["toolName"] == "subagent")
        .await;
    assert_eq!(end["isError"], false, "{end}");
    assert!(
        tool_result_text(&end).contains("The magic word is xyzzy."),
        "{end}"
    );
    let requests = rpc.server.requests();
    assert_eq!(requests.len(), 3);
    let child = requests[1].body.clone();
    assert!(child.contains("Task: say the magic word"), "{child}");
    assert!(child.contains("You repeat."), "the agent's prompt: {child}");
    assert_eq!(rpc.close().await, Some(0));
}

/// The usage of the Anthropic replies below.
fn small_usage() -> rho_testkit::anthropic::Usage {
    rho_testkit::anthropic::Usage {
        input: 12,
        output: 4,
        cache_read: 0,
        cache_write: 0,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_provider_anthropic_streams_replies_through_its_own_client() {
    let opts = Start {
        // The user's models.json points the extension's provider at the loopback server.
        providers: Some(
            |url| json!({"custom-anthropic": {"baseUrl": url, "apiKey": "sk-ant-api-test"}}),
        ),
        ..Start::default()
    };
    let Some(mut rpc) = pi_support::start(&["custom-provider-anthropic"], opts).await else {
        return;
    };
    let r = rpc
        .call(json!({"id": "m", "type": "set_model", "provider": "custom-anthropic", "modelId": "claude-sonnet-4-5"}))
        .await;
    assert_eq!(r["success"], true, "{r}");
    let usage = small_usage();
    rpc.server.push(rho_testkit::server::MockResponse::sse(
        rho_testkit::anthropic::text_reply(
            "msg_1",
            "claude-sonnet-4-5",
            &["Hello from ", "the custom provider."],
            usage,
        ),
    ));
    let text = rpc.prompt_ok("p", "hi").await;
    assert_eq!(text, "Hello from the custom provider.");
    let request = rpc.server.requests().last().cloned().expect("request");
    assert_eq!(request.path, "/v1/messages", "{request:?}");
    let key = request.headers.iter().find(|(k, _)| k == "x-api-key");
    assert_eq!(key.map(|(_, v)| v.as_str()), Some("sk-ant-api-test"));
    let body = request.json();
    assert_eq!(body["model"], "claude-sonnet-4-5");
    assert!(body.to_string().contains("\"hi\""), "{body}");
    assert_eq!(rpc.close().await, Some(0));
}

/// A provider pi's `custom-provider-anthropic` example registers is chosen from the command
/// line (`--provider`/`--model`) and from the settings' `defaultProvider`/`defaultModel`:
/// the model is resolved after extensions registered theirs, as in pi.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_extension_provider_is_chosen_by_flags_and_by_settings() {
    let choices: [(Vec<&str>, Option<Value>, &str); 2] = [
        (
            vec![
                "--provider",
                "custom-anthropic",
                "--model",
                "claude-sonnet-4-5",
            ],
            None,
            "claude-sonnet-4-5",
        ),
        (
            Vec::new(),
            Some(json!({"defaultProvider": "custom-anthropic", "defaultModel": "claude-opus-4-5"})),
            "claude-opus-4-5",
        ),
    ];
    for (args, settings, model) in choices {
        let opts = Start {
            providers: Some(
                |url| json!({"custom-anthropic": {"baseUrl": url, "apiKey": "sk-ant-api-test"}}),
            ),
            args: args.into_iter().map(String::from).collect(),
            settings,
            own_model: true,
            ..Start::default()
        };
        let Some(mut rpc) = pi_support::start(&["custom-provider-anthropic"], opts).await else {
            return;
        };
        let state = rpc.call(json!({"id": "s", "type": "get_state"})).await;
        assert_eq!(
            state["data"]["model"]["provider"], "custom-anthropic",
            "{state}"
        );
        assert_eq!(state["data"]["model"]["id"], model, "{state}");
        let usage = small_usage();
        rpc.server.push(rho_testkit::server::MockResponse::sse(
            rho_testkit::anthropic::text_reply("msg_1", model, &["chosen"], usage),
        ));
        assert_eq!(rpc.prompt_ok("p", "hi").await, "chosen");
        let request = rpc.server.requests().last().cloned().expect("request");
        assert_eq!(request.path, "/v1/messages", "{request:?}");
        assert_eq!(request.json()["model"], model);
        assert_eq!(rpc.close().await, Some(0));
    }
}

/// Reports `ctx.sessionManager.getTree()`: the roots, the user messages under the node where
/// the conversation branched (in order), and the label of the first user message.
const TREE_REPORT: &str = r#"
export default function (pi) {
  const text = (n) => n.entry.message?.content?.[0]?.text ?? n.entry.message?.content;
  pi.registerCommand("label-first", {
    handler: async (_a, ctx) => {
      const first = ctx.sessionManager.getEntries().find((e) => e.message?.role === "user");
      pi.setLabel(first.id, "start");
    },
  });
  pi.registerCommand("back", {
    handler: async (_a, ctx) => {
      const first = ctx.sessionManager.getEntries().find((e) => e.type === "message");
      await ctx.navigateTree(first.id);
    },
  });
  pi.registerCommand("tree", {
    handler: async (_a, ctx) => {
      const roots = ctx.sessionManager.getTree();
      let fork = [], label = null, stack = [...roots];
      while (stack.length) {
        const n = stack.pop();
        if (n.children.length > 1) fork = n.children.map(text);
        if (n.label) label = `${text(n)}=${n.label}@${!!n.labelTimestamp}`;
        stack.push(...n.children);
      }
      ctx.ui.notify(`tree roots=${roots.length} fork=${fork.join("|")} label=${label}`, "info");
    },
  });
}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_manager_get_tree_shows_branches_and_labels_as_pi() {
    let files = [("tree-report.ts", TREE_REPORT)];
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, Start::default()).await else {
        return;
    };
    rpc.server.push(reply("Hi."));
    rpc.prompt_ok("p1", "hello").await;
    command(&mut rpc, "b", "/back").await;
    rpc.server.push(reply("Yo."));
    rpc.prompt_ok("p2", "again").await;
    command(&mut rpc, "l", "/label-first").await;
    command(&mut rpc, "t", "/tree").await;
    notified(
        &mut rpc,
        "tree roots=1 fork=hello|again label=hello=start@true",
    )
    .await;
    assert_eq!(rpc.close().await, Some(0));
}
