//! pi's `ctx.newSession({ setup })` over RPC: the setup appends to the new session (messages,
//! custom entries, labels, its name) after the old session shut down and before the new one
//! starts, so `session_start` handlers, `withSession` and the next prompt see what it wrote;
//! pi 1.6, when installed, reports the same order and entries. Skipped, with the reason
//! printed, without node ≥ 22.18.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Mutex;

use crate::pi_support;
use crate::support::{self, reply, Start};

use serde_json::{json, Value};

/// `/seed` starts a new session that its setup fills; what happened, in order, is told from
/// `withSession`. The entries pi 1.6 starts a new session with (`model_change`,
/// `thinking_level_change`) are left out of the counts.
const SEED: &str = r#"
export default function (pi) {
  const order = (globalThis.__seedOrder ??= []);
  const own = (sm) => sm.getEntries().filter((e) => !/^(model|thinking_level)_change$/.test(e.type));
  pi.on("session_shutdown", () => order.push("shutdown"));
  pi.on("session_start", (event, ctx) => {
    if (event.reason === "new") order.push(`start:${own(ctx.sessionManager).map((e) => e.type).join("+")}`);
  });
  pi.registerCommand("seed", {
    handler: async (_args, ctx) => {
      const parent = ctx.sessionManager.getSessionFile();
      await ctx.newSession({
        parentSession: parent,
        setup: async (sm) => {
          const asked = sm.appendMessage({ role: "user", content: [{ type: "text", text: "seeded question" }], timestamp: Date.now() });
          sm.appendCustomEntry("seed-state", { n: 1 });
          sm.appendLabelChange(asked, "seeded");
          sm.appendSessionInfo("Seeded");
          const parentOk = sm.getHeader()?.parentSession === parent;
          order.push(`setup:${own(sm).length}:${sm.getLeafEntry()?.type}:${sm.getLabel(asked)}:${parentOk}`);
        },
        withSession: async (next) => {
          const sm = next.sessionManager;
          order.push(`with:${own(sm).length}:${sm.getSessionName()}`);
          next.ui.notify(`order ${order.join(",")}`, "info");
        },
      });
      order.length = 0;
    },
  });
  pi.registerCommand("bad-seed", {
    handler: async (_args, ctx) => {
      try {
        await ctx.newSession({
          setup: async (sm) => {
            sm.appendCustomEntry("before-failing", {});
            sm.appendLabelChange("no-such-entry", "x");
          },
          withSession: async (next) => next.ui.notify("withSession ran", "info"),
        });
        ctx.ui.notify("newSession resolved", "info");
      } catch (e) {
        ctx.ui.notify(`newSession failed: ${e.message}`, "info");
      }
    },
  });
}
"#;

const ORDER: &str = "order shutdown,setup:4:session_info:seeded:true,\
                     start:message+custom+label+session_info,with:4:Seeded";

/// What pi 1.6 tells (a notice starting with `prefix`) on `command` with `extension`
/// loaded, when it is installed.
async fn pi_told(extension: &str, command: &str, prefix: &str) -> Option<String> {
    let home = tempfile::tempdir().expect("home");
    let mut pi = pi_support::start_pi(&home, extension, &[])?;
    let told = Mutex::new(None);
    let seen = |v: &Value| {
        let text = v["message"].as_str().filter(|m| m.starts_with(prefix));
        if let Some(text) = text {
            *told.lock().unwrap() = Some(text.to_string());
        }
        text.is_some()
    };
    pi.call_and_see(json!({"type": "prompt", "message": command}), seen)
        .await;
    pi.stop().await;
    told.into_inner().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_session_setup_fills_the_new_session_before_it_starts() {
    let opts = Start {
        with_sessions: true,
        ..Start::default()
    };
    let Some(mut rpc) = pi_support::start_with_files(&[], &[("seed.ts", SEED)], opts).await else {
        return;
    };
    rpc.server.push(reply("Hi."));
    rpc.prompt_ok("p", "hello").await;
    let state = rpc.call(json!({"id": "s0", "type": "get_state"})).await;
    let first = state["data"]["sessionFile"].as_str().unwrap().to_string();
    let r = rpc
        .call(json!({"id": "c", "type": "prompt", "message": "/seed"}))
        .await;
    assert_eq!(r["success"], true, "{r}");
    let order = pi_support::notified_starting(&mut rpc, "order ").await;
    assert_eq!(order, ORDER);

    // The new session holds what the setup wrote, and the model gets it.
    let state = rpc.call(json!({"id": "s1", "type": "get_state"})).await;
    let now = state["data"]["sessionFile"].as_str().unwrap().to_string();
    assert_ne!(now, first, "a new session");
    assert_eq!(state["data"]["sessionName"], "Seeded", "{state}");
    rpc.server.push(reply("Going on."));
    rpc.prompt_ok("p2", "go on").await;
    let body = rpc.server.last_body();
    assert_eq!(support::user_texts(&body), ["seeded question", "go on"]);

    // Written once, by the session's own rules (with the first assistant message).
    let text = std::fs::read_to_string(&now).expect("the new session's file");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["parentSession"], json!(first), "{}", lines[0]);
    // Each entry's type, a message's role (the system message of the first prompt left out).
    let kinds: Vec<&str> = lines[1..]
        .iter()
        .filter_map(|e| e["message"]["role"].as_str().or(e["type"].as_str()))
        .filter(|k| *k != "system")
        .collect();
    assert_eq!(
        kinds,
        [
            "model_change",
            "thinking_level_change",
            "user",
            "custom",
            "label",
            "session_info",
            "user",
            "assistant"
        ],
        "{text}"
    );
    assert_eq!(lines[5]["targetId"], lines[3]["id"], "the label's target");
    assert_eq!(lines[5]["label"], "seeded");
    assert_eq!(rpc.close().await, Some(0));

    if let Some(pi) = pi_told(SEED, "/seed", "order ").await {
        assert_eq!(pi, ORDER, "pi 1.6 tells the same");
    }
}

/// A setup that throws: `newSession` rejects with its error and `withSession` does not run
/// (as in pi); what it appended before failing stays in the new session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_setup_rejects_new_session_without_running_with_session() {
    let Some(mut rpc) =
        pi_support::start_with_files(&[], &[("seed.ts", SEED)], Start::default()).await
    else {
        return;
    };
    let r = rpc
        .call(json!({"id": "c", "type": "prompt", "message": "/bad-seed"}))
        .await;
    assert_eq!(r["success"], true, "{r}");
    let told = pi_support::notified_starting(&mut rpc, "newSession ").await;
    assert!(told.starts_with("newSession failed: "), "{told}");
    assert!(told.contains("no-such-entry"), "{told}");
    assert!(
        !rpc.seen.iter().any(|v| v["message"] == "withSession ran"),
        "withSession did not run"
    );
    let m = rpc.call(json!({"id": "m", "type": "get_messages"})).await;
    assert_eq!(m["data"]["messages"], json!([]), "{m}");
    assert_eq!(rpc.close().await, Some(0));
}

/// `/shape` fills a new session with pi 1.6's other setup calls: a context edit, a usage
/// entry, a message left on a side branch by `branch`, `resetLeaf`, and `branchWithSummary`.
const SHAPE: &str = r#"
export default function (pi) {
  pi.registerCommand("shape", {
    handler: async (_args, ctx) => {
      let told = "";
      await ctx.newSession({
        setup: async (sm) => {
          const text = (t) => ({ role: "user", content: [{ type: "text", text: t }], timestamp: Date.now() });
          const first = sm.appendMessage(text("first"));
          sm.appendContextEdit(first, { content: [{ type: "text", text: "edited first" }] });
          const cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
          const usage = sm.appendUsage("cache_warm", "mock", "m1", { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3, cost }, "warmed");
          sm.appendMessage(text("dropped"));
          sm.branch(usage.id);
          const moved = sm.getLeafId() === usage.id;
          sm.resetLeaf();
          const reset = sm.getLeafId();
          sm.branchWithSummary(usage.id, "the side branch asked about dropped things");
          told = `${usage.type}:${usage.note}:${moved}:${reset}:${sm.getLeafEntry()?.type}`;
        },
        withSession: async (next) => {
          const { messages } = next.sessionManager.buildSessionContext();
          const first = messages[0]?.content?.[0]?.text;
          const kinds = next.sessionManager.buildContextEntries().filter((e) => e.type !== "thinking_level_change").map((e) => e.type);
          next.ui.notify(`shaped ${told} ${messages.map((m) => m.role).join("+")}:${first}:${kinds.join("+")}`, "info");
        },
      });
    },
  });
}
"#;

/// The other setup calls write what pi writes, and the model gets the branch they leave.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_session_setup_edits_branches_and_records_usage() {
    let opts = Start {
        with_sessions: true,
        ..Start::default()
    };
    let Some(mut rpc) = pi_support::start_with_files(&[], &[("shape.ts", SHAPE)], opts).await
    else {
        return;
    };
    let r = rpc
        .call(json!({"id": "c", "type": "prompt", "message": "/shape"}))
        .await;
    assert_eq!(r["success"], true, "{r}");
    let told = pi_support::notified_starting(&mut rpc, "shaped ").await;
    assert_eq!(
        told,
        "shaped usage:warmed:true:null:branch_summary user+branchSummary:edited first:\
         model_change+message+context_edit+usage+branch_summary"
    );
    if let Some(pi) = pi_told(SHAPE, "/shape", "shaped ").await {
        assert_eq!(pi, told, "pi 1.6 tells the same");
    }
    rpc.server.push(reply("Shaped."));
    rpc.prompt_ok("p", "go on").await;
    let texts = support::user_texts(&rpc.server.last_body());
    assert_eq!(
        texts.first().map(String::as_str),
        Some("edited first"),
        "{texts:?}"
    );
    assert_eq!(texts.last().map(String::as_str), Some("go on"), "{texts:?}");
    assert!(
        !texts
            .iter()
            .any(|t| t.contains("dropped") && !t.contains("side branch")),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t.contains("the side branch asked")),
        "{texts:?}"
    );
    assert_eq!(rpc.close().await, Some(0));
}

/// `/restart` has its setup branch the new session into another file, refuse an id pi refuses,
/// then start over under a chosen id and write there, from a compaction that keeps nothing.
const RESTART: &str = r#"
export default function (pi) {
  pi.registerCommand("restart", {
    handler: async (_args, ctx) => {
      let told = "";
      await ctx.newSession({
        setup: async (sm) => {
          const text = (t) => ({ role: "user", content: [{ type: "text", text: t }], timestamp: Date.now() });
          const kept = sm.appendMessage(text("kept"));
          sm.appendMessage(text("dropped"));
          const before = sm.getSessionFile();
          const branched = sm.createBranchedSession(kept);
          const messages = sm.getEntries().filter((e) => e.type === "message").length;
          let refused = "";
          try {
            sm.newSession({ id: "bad id!" });
          } catch (e) {
            refused = e.message;
          }
          const fresh = sm.newSession({ id: "chosen-id" });
          told = `${branched !== before}:${messages}:${refused}:${fresh.endsWith("_chosen-id.jsonl")}:${sm.getSessionId()}:${sm.getEntries().length}`;
          const compaction = sm.appendCompaction("nothing before this", null, 5);
          told += `:${sm.getEntry(compaction)?.firstKeptEntryId === compaction}`;
          sm.appendMessage(text("fresh start"));
        },
        withSession: async (next) => next.ui.notify(`restarted ${told}`, "info"),
      });
    },
  });
}
"#;

/// pi's `createBranchedSession` and `newSession` inside a setup: the setup goes on in the
/// session they make, and that session is the one that starts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_session_setup_branches_into_a_file_and_starts_over_under_a_chosen_id() {
    let opts = Start {
        with_sessions: true,
        ..Start::default()
    };
    let Some(mut rpc) = pi_support::start_with_files(&[], &[("restart.ts", RESTART)], opts).await
    else {
        return;
    };
    let r = rpc
        .call(json!({"id": "c", "type": "prompt", "message": "/restart"}))
        .await;
    assert_eq!(r["success"], true, "{r}");
    let told = pi_support::notified_starting(&mut rpc, "restarted ").await;
    assert_eq!(
        told,
        "restarted true:1:Session id must be non-empty, contain only alphanumeric characters, \
         '-', '_', and '.', and start and end with an alphanumeric character:true:chosen-id:0:true"
    );
    if let Some(pi) = pi_told(RESTART, "/restart", "restarted ").await {
        assert_eq!(pi, told, "pi 1.6 tells the same");
    }
    let state = rpc.call(json!({"id": "s", "type": "get_state"})).await;
    assert_eq!(state["data"]["sessionId"], "chosen-id", "{state}");
    rpc.server.push(reply("Restarted."));
    rpc.prompt_ok("p", "go on").await;
    let texts = support::user_texts(&rpc.server.last_body());
    assert_eq!(texts.len(), 3, "{texts:?}");
    assert!(texts[0].contains("nothing before this"), "{texts:?}");
    assert_eq!(texts[1..], ["fresh start", "go on"]);
    assert_eq!(rpc.close().await, Some(0));
}
