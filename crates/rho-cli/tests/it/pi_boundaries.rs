//! pi 1.6's actionable boundaries in `rho --mode rpc` with handwritten pi extensions:
//! `turn_end` and `agent_before_settle` handlers append entries and ask for one more
//! provider request, chained across extensions, checked before anything is appended.
//! Skipped, with the reason printed, without node ≥ 22.18.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::pi_support;
use crate::support;

use pi_support::{notified_starting, tool_call};
use serde_json::{json, Value};
use support::{reply, user_texts, Rpc, Start};

/// pi 1.x's RPC, which has `agent_settled` and `entry_appended`.
async fn start(files: &[(&str, &str)]) -> Option<Rpc> {
    let start = Start {
        args: vec!["--rpc-dialect".into(), "1.x".into()],
        ..Start::default()
    };
    pi_support::start_with_files(&[], files, start).await
}

/// Sends a prompt and waits until the session has settled; returns `agent_settled`.
async fn prompt_settled(rpc: &mut Rpc, text: &str) -> Value {
    let r = rpc
        .call(json!({"id": "p", "type": "prompt", "message": text}))
        .await;
    assert_eq!(r["success"], true, "{r}");
    rpc.event("agent_settled").await
}

/// The texts of the assistant messages in a request body.
fn assistant_texts(body: &Value) -> Vec<String> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    messages
        .iter()
        .filter(|m| m["role"] == "assistant")
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

fn count(rpc: &Rpc, kind: &str) -> usize {
    rpc.seen.iter().filter(|v| v["type"] == kind).count()
}

const NUDGE: &str = r#"export default function (pi) {
  let nudged = false;
  pi.on("turn_end", (event) => {
    if (nudged || event.outcome !== "completed" || event.toolResults.length > 0) return;
    nudged = true;
    return {
      entries: [...event.entries, { type: "custom_message", customType: "nudge", content: "Check your answer.", display: false }],
      continue: true,
    };
  });
}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turn_end_custom_message_and_continue_make_exactly_one_more_request_carrying_it() {
    let Some(mut rpc) = start(&[("nudge.ts", NUDGE)]).await else {
        return;
    };
    rpc.server.push(reply("First answer."));
    rpc.server.push(reply("Checked answer."));
    let settled = prompt_settled(&mut rpc, "question").await;
    assert_eq!(settled["aborted"], false);
    let requests = rpc.server.requests();
    assert_eq!(requests.len(), 2, "one extra request");
    let body = requests[1].json();
    assert_eq!(user_texts(&body), ["question", "Check your answer."]);
    assert!(
        assistant_texts(&body)[0].contains("First answer."),
        "{body}"
    );
    // The continuation is a turn of the same low-level run, as pi's finishTurn continues.
    assert_eq!(count(&rpc, "agent_start"), 1);
    let appended = rpc.event("entry_appended").await;
    assert_eq!(appended["entry"]["customType"], "nudge");
    assert_eq!(rpc.close().await, Some(0));
}

const REPLACE: &str = r#"export default function (pi) {
  let replaced = false;
  pi.on("turn_end", (event) => {
    if (replaced || event.outcome !== "completed" || event.toolResults.length > 0) return;
    replaced = true;
    return {
      entries: [
        ...event.entries,
        { type: "context_edit", targetId: event.messageEntryId, replacement: null },
        { type: "custom_message", customType: "replacement-instruction", content: "Answer again using the persisted user request.", display: false },
      ],
      continue: true,
    };
  });
}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_context_edit_draft_removes_the_reply_from_the_next_request() {
    let Some(mut rpc) = start(&[("replace.ts", REPLACE)]).await else {
        return;
    };
    rpc.server.push(reply("A wrong answer."));
    rpc.server.push(reply("A better answer."));
    prompt_settled(&mut rpc, "question").await;
    let requests = rpc.server.requests();
    assert_eq!(requests.len(), 2);
    let body = requests[1].json();
    assert_eq!(assistant_texts(&body), Vec::<String>::new(), "{body}");
    assert_eq!(
        user_texts(&body),
        ["question", "Answer again using the persisted user request."]
    );
    // The file keeps the replaced reply; a later request still leaves it out.
    rpc.server.push(reply("Third."));
    rpc.call(json!({"id": "p2", "type": "prompt", "message": "again"}))
        .await;
    rpc.event("agent_settled").await;
    let body = rpc.server.last_body();
    let assistants = assistant_texts(&body);
    assert!(
        !assistants.iter().any(|t| t.contains("wrong")) && assistants.len() == 1,
        "{assistants:?}"
    );
    assert_eq!(rpc.close().await, Some(0));
}

const FIRST: &str = r#"export default function (pi) {
  pi.on("turn_end", (event) => {
    if (event.turnIndex > 0) return;
    return {
      entries: [...event.entries, { type: "custom_message", customType: "a", content: "from A", display: false }],
      continue: true,
    };
  });
}
"#;

const SECOND: &str = r#"export default function (pi) {
  pi.on("turn_end", (event, ctx) => {
    if (event.turnIndex > 0) return;
    const last = event.context.llmMessages.at(-1);
    const text = typeof last.content === "string" ? last.content : last.content.map((c) => c.text).join("");
    ctx.ui.notify(`second saw: ${event.entries.length} ${event.continue} ${text} ${event.messageEntryId === event.context.contextEntries.find((e) => e.type === "message" && e.message.role === "assistant")?.id}`, "info");
    return { entries: [...event.entries, { type: "custom", customType: "b", data: { saw: event.entries.length } }] };
  });
}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boundary_proposals_chain_across_extensions_in_load_order() {
    let Some(mut rpc) = start(&[("first.ts", FIRST), ("second.ts", SECOND)]).await else {
        return;
    };
    rpc.server.push(reply("One."));
    rpc.server.push(reply("Two."));
    prompt_settled(&mut rpc, "question").await;
    let saw = notified_starting(&mut rpc, "second saw:").await;
    assert_eq!(saw, "second saw: 1 true from A true");
    let requests = rpc.server.requests();
    assert_eq!(requests.len(), 2, "the first extension's continue stands");
    assert_eq!(user_texts(&requests[1].json()), ["question", "from A"]);
    let a = rpc.event("entry_appended").await;
    let b = rpc.event("entry_appended").await;
    assert_eq!(
        (&a["entry"]["customType"], &b["entry"]["customType"]),
        (&json!("a"), &json!("b"))
    );
    assert_eq!(b["entry"]["data"]["saw"], 1);
    assert_eq!(rpc.close().await, Some(0));
}

const INVALID: &str = r#"export default function (pi) {
  pi.on("turn_end", (event) => {
    return {
      entries: [
        { type: "custom_message", customType: "ok", content: "fine", display: false },
        { type: "context_edit", targetId: "no-such-entry", replacement: null },
      ],
      continue: true,
    };
  });
}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invalid_proposal_is_reported_and_nothing_is_appended_or_continued() {
    let Some(mut rpc) = start(&[("invalid.ts", INVALID)]).await else {
        return;
    };
    rpc.server.push(reply("Only."));
    prompt_settled(&mut rpc, "question").await;
    let error = rpc.event("extension_error").await;
    assert_eq!(error["event"], "turn_end");
    assert_eq!(
        error["error"],
        "Invalid boundary entries: entries[1]: Entry no-such-entry is not on the active branch"
    );
    assert_eq!(rpc.server.requests().len(), 1);
    assert_eq!(count(&rpc, "entry_appended"), 0);
    let messages = rpc.call(json!({"id": "m", "type": "get_messages"})).await;
    let roles: Vec<&str> = messages["data"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["role"].as_str())
        .collect();
    // pi 1.x's RPC shows the recorded prompt as a `system` message.
    assert_eq!(roles, ["system", "user", "assistant"]);
    assert_eq!(rpc.close().await, Some(0));
}

const SETTLE: &str = r#"export default function (pi) {
  let reminded = false;
  pi.on("agent_before_settle", (event) => {
    if (reminded) return;
    reminded = true;
    return {
      entries: [...event.entries, { type: "custom_message", customType: "review-reminder", content: "Review the final diff before replying.", display: false }],
      continue: true,
    };
  });
}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_before_settle_with_continue_runs_once_more_then_settles() {
    let Some(mut rpc) = start(&[("settle.ts", SETTLE)]).await else {
        return;
    };
    rpc.server.push(reply("Done."));
    rpc.server.push(reply("Reviewed."));
    prompt_settled(&mut rpc, "work").await;
    let requests = rpc.server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        user_texts(&requests[1].json()),
        ["work", "Review the final diff before replying."]
    );
    // agent_end → (before settle) → agent_start … agent_end → agent_settled, once.
    assert_eq!(count(&rpc, "agent_start"), 2);
    assert_eq!(count(&rpc, "agent_end"), 2);
    assert_eq!(count(&rpc, "agent_settled"), 1);
    let last_end = rpc
        .seen
        .iter()
        .rposition(|v| v["type"] == "agent_end")
        .unwrap();
    let settled = rpc.position(|v| v["type"] == "agent_settled").unwrap();
    assert!(last_end < settled);
    assert_eq!(rpc.close().await, Some(0));
}

const ABORTING: &str = r#"export default function (pi) {
  pi.on("agent_before_settle", (event, ctx) => {
    ctx.abort();
    return {
      entries: [...event.entries, { type: "custom_message", customType: "kept", content: "Kept after abort.", display: false }],
      continue: true,
    };
  });
}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abort_during_agent_before_settle_keeps_the_entries_but_not_the_continuation() {
    let Some(mut rpc) = start(&[("aborting.ts", ABORTING)]).await else {
        return;
    };
    rpc.server.push(reply("Done."));
    rpc.server.push(reply("Must not be asked for."));
    prompt_settled(&mut rpc, "work").await;
    assert_eq!(rpc.server.requests().len(), 1);
    let appended = rpc.event("entry_appended").await;
    assert_eq!(appended["entry"]["customType"], "kept");
    assert_eq!(count(&rpc, "agent_start"), 1);
    assert_eq!(rpc.close().await, Some(0));
}

const ALWAYS_ON_TOOLS: &str = r#"export default function (pi) {
  pi.on("turn_end", (event) => {
    if (event.toolResults.length > 0) return { continue: true };
  });
}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn continue_with_tool_results_pending_makes_no_extra_request() {
    let Some(mut rpc) = start(&[("tools.ts", ALWAYS_ON_TOOLS)]).await else {
        return;
    };
    rpc.server
        .push(tool_call("bash", json!({"command": "echo hi"})));
    rpc.server.push(reply("Ran it."));
    prompt_settled(&mut rpc, "run").await;
    assert_eq!(rpc.server.requests().len(), 2);
    assert_eq!(count(&rpc, "extension_error"), 0, "{:#?}", rpc.seen);
    assert_eq!(rpc.close().await, Some(0));
}

/// What a run did, as comparable between rho and pi 1.6: the lifecycle events in order and
/// the user texts of each provider request.
#[derive(Debug, PartialEq)]
struct Trace {
    lifecycle: Vec<String>,
    requests: Vec<Vec<String>>,
}

const LIFECYCLE: [&str; 6] = [
    "agent_start",
    "turn_start",
    "turn_end",
    "agent_end",
    "agent_settled",
    "entry_appended",
];

fn trace(lines: &[Value], server: &rho_testkit::server::MockServer) -> Trace {
    let lifecycle = lines
        .iter()
        .filter_map(|v| v["type"].as_str())
        .filter(|t| LIFECYCLE.contains(t))
        .map(str::to_string)
        .collect();
    let requests = server
        .requests()
        .iter()
        .map(|r| user_texts(&r.json()))
        .collect();
    Trace {
        lifecycle,
        requests,
    }
}

/// pi 1.6 in RPC mode with `source` against a loopback server giving `replies`; `None`
/// (said on stderr) without pi 1.6.
async fn pi_trace(source: &str, replies: &[&str], prompt: &str) -> Option<Trace> {
    let home = tempfile::tempdir().expect("home");
    let server = rho_testkit::server::MockServer::start().await;
    let work = home.path().join("work");
    std::fs::create_dir_all(&work).expect("work");
    let agent = home.path().join("agent");
    rho_testkit::pi16::write_agent_dir(&agent, &format!("{}/v1", server.url()));
    std::fs::remove_file(agent.join("extensions/fixture.ts")).expect("fixture");
    let file = home.path().join("extension.ts");
    std::fs::write(&file, source).expect("extension");
    let path = file.display().to_string();
    let args = ["--model", "loop/loop-model", "--no-session", "-e", &path];
    let mut pi = match rho_testkit::pi16::Pi::start(home.path(), &work, &args) {
        Ok(pi) => pi,
        Err(why) => {
            eprintln!("not compared with pi: {why}");
            return None;
        }
    };
    for text in replies {
        server.push(reply(text));
    }
    pi.call(json!({"type": "prompt", "message": prompt})).await;
    let lines = pi.lines_until("agent_settled").await;
    pi.stop().await;
    Some(trace(&lines, &server))
}

async fn rho_trace(source: &str, replies: &[&str], prompt: &str) -> Option<Trace> {
    let mut rpc = start(&[("ext.ts", source)]).await?;
    for text in replies {
        rpc.server.push(reply(text));
    }
    prompt_settled(&mut rpc, prompt).await;
    // `entry_appended` may trail the settle by nothing: what was seen up to it counts.
    let upto = rpc.position(|v| v["type"] == "agent_settled").unwrap();
    let lines: Vec<Value> = rpc.seen[..=upto]
        .iter()
        .filter(|v| v["type"] != "response")
        .cloned()
        .collect();
    let t = trace(&lines, &rpc.server);
    assert_eq!(rpc.close().await, Some(0));
    Some(t)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_boundaries_run_as_in_pi_1_6() {
    for (name, source) in [("turn_end", NUDGE), ("agent_before_settle", SETTLE)] {
        let replies = ["First.", "Second."];
        let Some(rho) = rho_trace(source, &replies, "question").await else {
            return;
        };
        let Some(pi) = pi_trace(source, &replies, "question").await else {
            return;
        };
        assert_eq!(rho, pi, "{name}: rho runs as pi 1.6 does");
    }
}
