//! `edit` against real files: line endings, BOM, matching errors, big files, concurrency.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;

use common::{run, text, TempDir};
use rho_agent::AgentTool;
use rho_tools::EditTool;
use serde_json::json;

fn one(path: &str, old: &str, new: &str) -> serde_json::Value {
    json!({"path": path, "edits": [{"oldText": old, "newText": new}]})
}

#[tokio::test]
async fn replaces_text_and_reports_a_diff() {
    let dir = TempDir::new();
    dir.write("f.txt", "alpha\nbeta\ngamma\n");
    let out = run(&EditTool::new(dir.path()), one("f.txt", "beta", "BETA"))
        .await
        .expect("ok");
    assert_eq!(text(&out), "Successfully replaced 1 block(s) in f.txt.");
    assert_eq!(dir.read("f.txt"), b"alpha\nBETA\ngamma\n");
    insta::assert_json_snapshot!("edit_single_details", out.details);
}

#[tokio::test]
async fn several_edits_in_one_call() {
    let dir = TempDir::new();
    let body: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    dir.write("f.txt", body);
    let args = json!({"path": "f.txt", "edits": [
        {"oldText": "line 25\n", "newText": "line twenty-five\n"},
        {"oldText": "line 3\n", "newText": ""}
    ]});
    let out = run(&EditTool::new(dir.path()), args).await.expect("ok");
    assert_eq!(text(&out), "Successfully replaced 2 block(s) in f.txt.");
    let after = String::from_utf8(dir.read("f.txt")).expect("utf8");
    assert!(!after.contains("line 3\n") && after.contains("line twenty-five\n"));
    insta::assert_json_snapshot!("edit_multi_details", out.details);
}

#[tokio::test]
async fn keeps_crlf_line_endings() {
    let dir = TempDir::new();
    dir.write("win.txt", "one\r\ntwo\r\nthree\r\n");
    let out = run(
        &EditTool::new(dir.path()),
        one("win.txt", "two\nthree", "2\n3"),
    )
    .await
    .expect("ok");
    assert_eq!(text(&out), "Successfully replaced 1 block(s) in win.txt.");
    assert_eq!(dir.read("win.txt"), b"one\r\n2\r\n3\r\n");
}

#[tokio::test]
async fn keeps_a_utf8_bom() {
    let dir = TempDir::new();
    dir.write("bom.txt", "\u{FEFF}first\nsecond\n");
    run(&EditTool::new(dir.path()), one("bom.txt", "first", "1st"))
        .await
        .expect("ok");
    assert_eq!(dir.read("bom.txt"), "\u{FEFF}1st\nsecond\n".as_bytes());
}

#[tokio::test]
async fn keeps_bom_and_crlf_together() {
    let dir = TempDir::new();
    dir.write("both.txt", "\u{FEFF}a\r\nb\r\n");
    run(&EditTool::new(dir.path()), one("both.txt", "b", "c"))
        .await
        .expect("ok");
    assert_eq!(dir.read("both.txt"), "\u{FEFF}a\r\nc\r\n".as_bytes());
}

#[tokio::test]
async fn a_match_that_occurs_twice_is_refused_and_the_file_kept() {
    let dir = TempDir::new();
    dir.write("dup.txt", "x = 1\ny = 2\nx = 1\n");
    let err = run(&EditTool::new(dir.path()), one("dup.txt", "x = 1", "x = 9"))
        .await
        .expect_err("dup");
    assert_eq!(
        err.message,
        "Found 2 occurrences of the text in dup.txt. The text must be unique. Please provide more context to make it unique."
    );
    assert_eq!(dir.read("dup.txt"), b"x = 1\ny = 2\nx = 1\n");
}

#[tokio::test]
async fn an_absent_match_is_refused() {
    let dir = TempDir::new();
    dir.write("f.txt", "hello\n");
    let err = run(&EditTool::new(dir.path()), one("f.txt", "goodbye", "x"))
        .await
        .expect_err("absent");
    assert_eq!(
        err.message,
        "Could not find the exact text in f.txt. The old text must match exactly including all whitespace and newlines."
    );
}

#[tokio::test]
async fn other_errors_use_pi_wording() {
    let dir = TempDir::new();
    dir.write("f.txt", "same\n");
    let tool = EditTool::new(dir.path());
    let err = run(&tool, one("nope.txt", "a", "b"))
        .await
        .expect_err("missing");
    assert_eq!(
        err.message,
        "Could not edit file: nope.txt. Error code: ENOENT."
    );
    let err = run(&tool, json!({"path": "f.txt", "edits": []}))
        .await
        .expect_err("empty");
    assert_eq!(
        err.message,
        "Edit tool input is invalid. edits must contain at least one replacement."
    );
    let err = run(&tool, one("f.txt", "", "b"))
        .await
        .expect_err("empty old");
    assert_eq!(err.message, "oldText must not be empty in f.txt.");
    let err = run(&tool, one("f.txt", "same", "same"))
        .await
        .expect_err("no change");
    assert!(err
        .message
        .starts_with("No changes made to f.txt. The replacement produced identical content."));
    let args = json!({"path": "f.txt", "edits": [{"oldText": "sa", "newText": "x"}, {"oldText": "am", "newText": "y"}]});
    let err = run(&tool, args).await.expect_err("overlap");
    assert_eq!(err.message, "edits[0] and edits[1] overlap in f.txt. Merge them into one edit or target disjoint regions.");
}

#[tokio::test]
async fn accepts_legacy_and_string_encoded_arguments() {
    let dir = TempDir::new();
    dir.write("f.txt", "a b c\n");
    let tool = EditTool::new(dir.path());
    run(
        &tool,
        json!({"path": "f.txt", "oldText": "a", "newText": "A"}),
    )
    .await
    .expect("legacy");
    let encoded = r#"[{"oldText":"b","newText":"B"}]"#;
    run(&tool, json!({"path": "f.txt", "edits": encoded}))
        .await
        .expect("string edits");
    assert_eq!(dir.read("f.txt"), b"A B c\n");
}

#[tokio::test]
async fn fuzzy_matching_tolerates_curly_quotes() {
    let dir = TempDir::new();
    dir.write("q.txt", "print(\u{201C}hi\u{201D})\n");
    run(
        &EditTool::new(dir.path()),
        one("q.txt", "print(\"hi\")", "print(\"bye\")"),
    )
    .await
    .expect("ok");
    assert_eq!(dir.read("q.txt"), b"print(\"bye\")\n");
}

#[tokio::test]
async fn edits_a_large_file() {
    let dir = TempDir::new();
    let body: String = (0..200_000)
        .map(|i| format!("row {i:07} some filler text here\n"))
        .collect();
    assert!(body.len() > 6_000_000);
    dir.write("big.txt", &body);
    let out = run(
        &EditTool::new(dir.path()),
        one("big.txt", "row 0150000 some", "ROW changed"),
    )
    .await
    .expect("ok");
    let after = String::from_utf8(dir.read("big.txt")).expect("utf8");
    assert_eq!(
        after.len(),
        body.len() - "row 0150000 some".len() + "ROW changed".len()
    );
    assert!(after.contains("\nROW changed filler text here\nrow 0150001"));
    let details = out.details.expect("details");
    assert_eq!(details["firstChangedLine"], 150_001);
    assert!(details["diff"]
        .as_str()
        .expect("diff")
        .contains("+150001 ROW changed filler text here"));
}

#[tokio::test]
async fn concurrent_edits_to_one_file_are_serialized() {
    let dir = TempDir::new();
    let body: String = (0..50).map(|i| format!("item {i}\n")).collect();
    dir.write("c.txt", body);
    let tool: Arc<dyn AgentTool> = Arc::new(EditTool::new(dir.path()));
    let mut handles = Vec::new();
    for i in 0..50 {
        let tool = tool.clone();
        handles.push(tokio::spawn(async move {
            run(
                tool.as_ref(),
                one("c.txt", &format!("item {i}\n"), &format!("done {i}\n")),
            )
            .await
        }));
    }
    for h in handles {
        h.await.expect("join").expect("edit ok");
    }
    let expected: String = (0..50).map(|i| format!("done {i}\n")).collect();
    assert_eq!(
        String::from_utf8(dir.read("c.txt")).expect("utf8"),
        expected
    );
}

/// Runs one `edit` call through the agent loop (schema validation included) and returns the
/// tool result's text and error flag.
async fn edit_through_agent(dir: &TempDir, args: serde_json::Value) -> (String, bool) {
    use rho_agent::{Agent, AgentMessage, AgentOptions};
    use rho_testkit::scripted::{scripted_model, ScriptedProvider, ScriptedReply};
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[("c1", "edit", args)]));
    provider.push(ScriptedReply::text("done"));
    let agent = Agent::new(AgentOptions::with_stream_fn(provider.stream_fn()));
    agent.set_model(scripted_model());
    agent.set_tools(vec![Arc::new(EditTool::new(dir.path()))]);
    agent.prompt("go").await.expect("run");
    let result = agent
        .messages()
        .into_iter()
        .find_map(|m| match m {
            AgentMessage::ToolResult(r) => Some(r),
            _ => None,
        })
        .expect("a tool result");
    (
        rho_protocol::message::join_text(&result.content),
        result.is_error,
    )
}

#[tokio::test]
async fn agent_accepts_the_classic_single_edit_shape() {
    let dir = TempDir::new();
    dir.write("f.txt", "a b c\n");
    let (text, is_error) = edit_through_agent(
        &dir,
        json!({"path": "f.txt", "oldText": "a", "newText": "A"}),
    )
    .await;
    assert!(!is_error, "{text}");
    assert_eq!(dir.read("f.txt"), b"A b c\n");
}

#[tokio::test]
async fn agent_accepts_edits_sent_as_a_json_string() {
    let dir = TempDir::new();
    dir.write("f.txt", "a b c\n");
    let encoded = r#"[{"oldText":"b","newText":"B"}]"#;
    let (text, is_error) =
        edit_through_agent(&dir, json!({"path": "f.txt", "edits": encoded})).await;
    assert!(!is_error, "{text}");
    assert_eq!(dir.read("f.txt"), b"a B c\n");
}
