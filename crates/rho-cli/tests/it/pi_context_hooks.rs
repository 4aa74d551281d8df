//! pi 1.6's two request-rewriting events from a pi extension in `rho --mode rpc`: `context`
//! sees the conversation without system messages, `context_with_system` sees the prompt and
//! tools as the leading system message and what it returns is the request.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::pi_support;
use crate::support;

use pi_support::notified;
use serde_json::Value;
use support::{reply, user_texts, Start};

/// Tells the roles each hook saw; `context_with_system` replaces the prompt, keeps only the
/// `read` tool and drops the oldest user message.
const REWRITE: &str = r#"
export default function (pi) {
  pi.on("context", (e, ctx) => {
    ctx.ui.notify(`context saw ${e.messages.map((m) => m.role).join(",")}`, "info");
  });
  pi.on("context_with_system", (e, ctx) => {
    const [head, ...rest] = e.messages;
    const tools = (head.toolsAdded ?? []).map((t) => t.name).sort().join(",");
    ctx.ui.notify(`with_system saw ${e.messages.map((m) => m.role).join(",")} tools=${tools}`, "info");
    const kept = (head.toolsAdded ?? []).filter((t) => t.name === "read");
    const users = rest.filter((m) => m.role === "user");
    const dropped = users.length > 1 ? rest.filter((m) => m !== users[0]) : rest;
    return { messages: [{ ...head, content: "REWRITTEN PROMPT", sections: undefined, toolsAdded: kept }, ...dropped] };
  });
}
"#;

fn system_text(body: &Value) -> String {
    let first = &body["messages"][0];
    assert!(
        first["role"] == "system" || first["role"] == "developer",
        "{body}"
    );
    match &first["content"] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn tool_names(body: &Value) -> Vec<String> {
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    tools
        .iter()
        .filter_map(|t| t["function"]["name"].as_str().or(t["name"].as_str()))
        .map(str::to_string)
        .collect()
}

/// The request is what `context_with_system` returned: its prompt, its tools, its messages;
/// `context` never saw a system message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn context_with_system_owns_the_request_s_prompt_tools_and_messages() {
    let files = [("rewrite.ts", REWRITE)];
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, Start::default()).await else {
        return;
    };
    rpc.server.push(reply("One."));
    rpc.prompt_ok("p1", "first question").await;
    notified(&mut rpc, "context saw user").await;
    let saw = rpc
        .wait(|v| {
            v["method"] == "notify"
                && v["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("with_system saw"))
        })
        .await;
    let saw = saw["message"].as_str().unwrap_or_default().to_string();
    assert!(saw.starts_with("with_system saw system,"), "{saw}");
    assert!(saw.contains("read") && saw.contains("bash"), "{saw}");
    let body = rpc.server.last_body();
    assert_eq!(system_text(&body), "REWRITTEN PROMPT");
    assert_eq!(tool_names(&body), ["read"]);

    rpc.server.push(reply("Two."));
    rpc.prompt_ok("p2", "second question").await;
    notified(&mut rpc, "context saw user,assistant,user").await;
    let body = rpc.server.last_body();
    assert_eq!(user_texts(&body), ["second question"]);
    assert_eq!(system_text(&body), "REWRITTEN PROMPT");
    assert_eq!(tool_names(&body), ["read"]);
    assert_eq!(rpc.close().await, Some(0));
}

/// Drops the system message.
const HEADLESS: &str = r#"
export default function (pi) {
  pi.on("context_with_system", (e) => ({ messages: e.messages.filter((m) => m.role !== "system") }));
}
"#;

/// Dropping the leading system message is reported with pi's text, and the request goes
/// without a prompt or tools, as in pi.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_leading_system_message_is_reported() {
    let files = [("headless.ts", HEADLESS)];
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, Start::default()).await else {
        return;
    };
    rpc.server.push(reply("Bare."));
    assert_eq!(rpc.prompt_ok("p", "hello").await, "Bare.");
    let error = rpc.event("extension_error").await;
    assert_eq!(error["event"], "context_with_system", "{error}");
    assert!(
        error["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("Handler removed the leading system message")),
        "{error}"
    );
    let body = rpc.server.last_body();
    assert_ne!(body["messages"][0]["role"], "system", "{body}");
    assert!(tool_names(&body).is_empty(), "{body}");
    assert_eq!(user_texts(&body), ["hello"]);
    assert_eq!(rpc.close().await, Some(0));
}

/// Without handlers for either event, nothing of the request changes (the prompt is rho's).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unhandled_the_request_keeps_rho_s_prompt_and_tools() {
    let files = [("none.ts", "export default function (pi) {}\n")];
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, Start::default()).await else {
        return;
    };
    rpc.server.push(reply("Plain."));
    rpc.prompt_ok("p", "hello").await;
    let body = rpc.server.last_body();
    assert!(system_text(&body).len() > 100, "{body}");
    assert!(tool_names(&body).len() >= 4, "{body}");
    assert_eq!(rpc.close().await, Some(0));
}

/// A `context` handler that fails, then one that edits the last message in place.
const FAIL_THEN_EDIT: &str = r#"
export default function (pi) {
  pi.on("context", () => { throw new Error("boom in context"); });
  pi.on("context", (e) => {
    e.messages[e.messages.length - 1].content = [{ type: "text", text: "EDITED IN PLACE" }];
  });
}
"#;

/// As in pi, a failing `context` handler is reported and the next one still runs, and a
/// message changed in place is what the request carries, with rho's prompt and tools.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_context_handler_is_reported_and_an_in_place_edit_is_sent() {
    let files = [("fail-then-edit.ts", FAIL_THEN_EDIT)];
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, Start::default()).await else {
        return;
    };
    rpc.server.push(reply("Edited."));
    assert_eq!(rpc.prompt_ok("p", "original words").await, "Edited.");
    let error = rpc.event("extension_error").await;
    assert_eq!(error["event"], "context", "{error}");
    assert!(
        error["error"]
            .as_str()
            .is_some_and(|e| e.contains("boom in context")),
        "{error}"
    );
    let body = rpc.server.last_body();
    assert_eq!(user_texts(&body), ["EDITED IN PLACE"]);
    assert!(system_text(&body).len() > 100, "{body}");
    assert!(tool_names(&body).len() >= 4, "{body}");
    assert_eq!(rpc.close().await, Some(0));
}
