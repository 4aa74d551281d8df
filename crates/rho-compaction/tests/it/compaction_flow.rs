//! The compaction engine end to end through a scripted stream function: the threshold
//! triggers, the summariser request is built as the spec says, the result rebuilds a
//! smaller context, a second compaction updates the first summary, files are tracked, and
//! extensions can cancel or replace.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use rho_compaction::{
    context_messages, estimate_tokens, prepare_compaction, prompts, run_compaction,
    threshold_check, CheckPoint, CompactionError, CompactionRecord, CompactionResult,
    CompactionSettings, EntryKind, HookDecision, PathEntry,
};
use serde_json::json;

const WINDOW: u64 = 40_000;

fn settings() -> CompactionSettings {
    CompactionSettings {
        keep_recent_tokens: 8_000,
        ..Default::default()
    }
}

/// 14 turns of ~2000 tokens each; the last reply reports 29000 context tokens.
fn long_session() -> Vec<PathEntry> {
    let mut path = vec![PathEntry {
        id: "model0".into(),
        kind: EntryKind::Other,
    }];
    for n in 1..=14 {
        let file = format!("src/f{n}.rs");
        push_turn(
            &mut path,
            n,
            &file,
            n % 3 == 0,
            8_000,
            2_000 * n as u64 + 1_000,
        );
    }
    path
}

/// Appends the compaction entry the session store would write.
fn apply(path: &mut Vec<PathEntry>, result: &CompactionResult, timestamp: i64) {
    path.push(PathEntry {
        id: format!("cmp{timestamp}"),
        kind: EntryKind::Compaction(CompactionRecord {
            summary: result.summary.clone(),
            first_kept_entry_id: result.first_kept_entry_id.clone(),
            tokens_before: result.tokens_before,
            details: result.details.clone(),
            from_hook: false,
            timestamp,
        }),
    });
}

fn chars_estimate(path: &[PathEntry]) -> u64 {
    context_messages(path)
        .iter()
        .map(|m| estimate_tokens(m))
        .sum()
}

#[tokio::test]
async fn threshold_reached_compacts_to_summary_plus_kept_tail_below_threshold() {
    let mut path = long_session();
    let s = settings();
    let state: Vec<_> = context_messages(&path)
        .into_iter()
        .map(|m| m.into_owned())
        .collect();
    let last = state
        .last()
        .and_then(|m| m.as_assistant())
        .expect("last reply");
    assert_eq!(last.usage.total_tokens, 29_000);
    assert!(threshold_check(
        last,
        &state,
        None,
        &s,
        &model("http://x", WINDOW),
        CheckPoint::PostRun
    ));

    let script = Script::answering("## Goal\nShip it");
    let prep = prepare_compaction(&path, &s).expect("prepares");
    assert_eq!(prep.tokens_before, 29_000);
    let done = run_compaction(
        &prep,
        &script.summarizer(model("http://x", WINDOW)),
        None,
        HookDecision::Proceed,
    )
    .await
    .expect("compacts");
    assert!(!done.from_extension);
    let result = done.result;
    assert!(result.summary.starts_with("## Goal\nShip it"));
    assert_eq!(result.tokens_before, 29_000);

    // Walking back 8000 tokens ends inside turn 11 (at its tool result), so the cut is
    // its final answer and the turn's beginning is summarised apart.
    assert_eq!(result.first_kept_entry_id, "f11");
    assert!(prep.is_split_turn);
    let calls = script.calls();
    assert_eq!(calls.len(), 2);
    // The history request: system prompt, serialized conversation, structured prompt,
    // 0.8 × reserve.
    let req = calls
        .iter()
        .find(|c| !c.user_text().contains("BEGINNING of a turn"))
        .expect("history request");
    assert_eq!(
        req.context.system_prompt.as_deref(),
        Some(prompts::SYSTEM_PROMPT)
    );
    assert_eq!(req.max_tokens, Some(13_107));
    assert_eq!(req.reasoning, None);
    let text = req.user_text();
    assert!(text.starts_with("<conversation>\n[User]: turn 1: look at src/f1.rs"));
    assert!(text.ends_with(prompts::SUMMARY_PROMPT));
    assert!(text.contains("[Assistant tool calls]: read(path=\"src/f1.rs\")"));
    assert!(!text.contains("<previous-summary>"));

    // The rebuilt context: summary, then the path from the first kept entry on.
    let kept_at = path
        .iter()
        .position(|e| e.id == result.first_kept_entry_id)
        .expect("first kept entry is on the path");
    let before_chars = chars_estimate(&path);
    apply(&mut path, &result, 1_000);
    let ctx = context_messages(&path);
    assert_eq!(ctx[0].role(), "compactionSummary");
    let expected_tail: Vec<_> = path[kept_at..path.len() - 1]
        .iter()
        .filter_map(|e| e.as_message())
        .collect();
    let tail: Vec<_> = ctx[1..].iter().map(|m| m.as_ref()).collect();
    assert_eq!(tail, expected_tail);

    // Smaller, below the threshold, and still holding about keepRecentTokens.
    let after = chars_estimate(&path);
    let threshold = s.threshold(WINDOW) as u64;
    assert!(before_chars > threshold, "before {before_chars}");
    assert!(after < threshold, "after {after} ≥ threshold {threshold}");
    // The walk reached 8000 tokens at turn 11's tool result; the kept part starts right
    // after it, so turns 12-14 survive whole.
    for id in ["u12", "t12", "f12", "u13", "f13", "u14", "f14"] {
        assert!(path[kept_at..].iter().any(|e| e.id == id), "{id} kept");
    }

    // The stale reply cannot trigger again (COMP-5).
    assert!(!threshold_check(
        last,
        &state,
        Some(1_000),
        &s,
        &model("http://x", WINDOW),
        CheckPoint::PostRun
    ));
}

#[tokio::test]
async fn second_compaction_updates_the_previous_summary_and_carries_files() {
    let mut path = long_session();
    let s = settings();
    let first = Script::answering("FIRST SUMMARY");
    let prep = prepare_compaction(&path, &s).expect("prepares");
    let r1 = run_compaction(
        &prep,
        &first.summarizer(model("http://x", WINDOW)),
        None,
        HookDecision::Proceed,
    )
    .await
    .expect("first compaction")
    .result;
    let first_read = r1.details.as_ref().expect("details")["readFiles"].clone();
    assert!(first_read
        .as_array()
        .expect("array")
        .contains(&json!("src/f1.rs")));
    apply(&mut path, &r1, 1_000);

    for n in 15..=20 {
        push_turn(
            &mut path,
            n,
            &format!("src/g{n}.rs"),
            n == 15,
            8_000,
            30_000,
        );
    }
    let second = Script::answering("SECOND SUMMARY");
    let prep2 = prepare_compaction(&path, &s).expect("prepares again");
    assert_eq!(prep2.previous_summary.as_deref(), Some(r1.summary.as_str()));
    let r2 = run_compaction(
        &prep2,
        &second.summarizer(model("http://x", WINDOW)),
        Some("keep the test names"),
        HookDecision::Proceed,
    )
    .await
    .expect("second compaction")
    .result;

    let text = second.calls()[0].user_text();
    let previous_block = format!(
        "<previous-summary>\n{}\n</previous-summary>\n\n",
        r1.summary
    );
    assert!(
        text.contains(&previous_block),
        "previous summary missing:\n{text}"
    );
    assert!(text.contains(prompts::UPDATE_PROMPT));
    assert!(text.ends_with("\n\nAdditional focus: keep the test names"));
    // The part the first compaction kept (from f11 on) is summarised now.
    assert_eq!(r1.first_kept_entry_id, "f11");
    assert!(text.starts_with("<conversation>\n[Assistant]: done with turn 11\n\n[User]: turn 12"));

    let details = r2.details.expect("details");
    let read: Vec<&str> = details["readFiles"]
        .as_array()
        .expect("readFiles")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    let modified: Vec<&str> = details["modifiedFiles"]
        .as_array()
        .expect("modifiedFiles")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert!(
        read.contains(&"src/f1.rs"),
        "carried from the first compaction: {read:?}"
    );
    assert!(
        modified.contains(&"src/g15.rs"),
        "edited in turn 15: {modified:?}"
    );
    assert!(
        modified.contains(&"src/f3.rs"),
        "edited in turn 3: {modified:?}"
    );
    assert!(
        !read.contains(&"src/f3.rs"),
        "modified files are not listed as read"
    );
    assert!(r2.summary.starts_with("SECOND SUMMARY"));
    assert!(r2
        .summary
        .contains("\n\n<read-files>\nsrc/f1.rs\nsrc/f10.rs\n"));
    assert!(r2
        .summary
        .contains("\n\n<modified-files>\nsrc/f12.rs\nsrc/f3.rs\n"));
    assert!(r2.summary.ends_with("src/g15.rs\n</modified-files>"));
}

#[tokio::test]
async fn file_operations_are_listed_in_summary_and_details() {
    let mut path = Vec::new();
    push_turn(&mut path, 1, "README.md", false, 40_000, 10_000);
    push_turn(&mut path, 2, "src/lib.rs", true, 40_000, 20_000);
    push_turn(&mut path, 3, "src/main.rs", false, 40, 20_100);
    let script = Script::answering("S");
    let s = CompactionSettings {
        keep_recent_tokens: 25,
        ..Default::default()
    };
    let prep = prepare_compaction(&path, &s).expect("prepares");
    assert_eq!(prep.first_kept_entry_id, "u3");
    assert!(!prep.is_split_turn);
    let r = run_compaction(
        &prep,
        &script.summarizer(model("http://x", WINDOW)),
        None,
        HookDecision::Proceed,
    )
    .await
    .expect("compacts")
    .result;
    assert_eq!(
        r.details,
        Some(json!({"readFiles": ["README.md"], "modifiedFiles": ["src/lib.rs"]}))
    );
    assert_eq!(
        r.summary,
        "S\n\n<read-files>\nREADME.md\n</read-files>\n\n<modified-files>\nsrc/lib.rs\n</modified-files>"
    );
    assert_eq!(
        serde_json::to_value(&r).expect("serializes")["firstKeptEntryId"],
        json!("u3")
    );
}

#[tokio::test]
async fn extension_cancel_and_replace_skip_the_model() {
    let path = long_session();
    let prep = prepare_compaction(&path, &settings()).expect("prepares");
    let script = Script::answering("never");
    let summarizer = script.summarizer(model("http://x", WINDOW));

    let cancelled = run_compaction(&prep, &summarizer, None, HookDecision::Cancel).await;
    assert_eq!(cancelled, Err(CompactionError::Cancelled));
    assert!(cancelled.expect_err("cancelled").is_aborted());

    let own = CompactionResult {
        summary: "S".into(),
        first_kept_entry_id: prep.first_kept_entry_id.clone(),
        tokens_before: 7,
        details: Some(json!({"ext": 1})),
    };
    let replaced = run_compaction(&prep, &summarizer, None, HookDecision::Replace(own.clone()))
        .await
        .expect("replaced");
    assert!(replaced.from_extension);
    assert_eq!(replaced.result, own);
    assert!(script.calls().is_empty(), "no summariser request");
}

#[tokio::test]
async fn split_turn_summarises_the_prefix_separately() {
    let mut path = Vec::new();
    push_turn(&mut path, 1, "a.rs", false, 400, 500);
    path.push(PathEntry::message("big", user("refactor everything", 100)));
    for i in 0..12 {
        let id = format!("c{i}");
        path.push(PathEntry::message(
            format!("x{i}"),
            assistant(
                vec![call(&id, "read", json!({"path": format!("m{i}.rs")}))],
                0,
                101 + i,
            ),
        ));
        path.push(PathEntry::message(
            format!("y{i}"),
            result(&id, "read", &"z".repeat(4_000), 101 + i),
        ));
    }
    let script = Script::new(|text| {
        if text.contains("BEGINNING of a turn") {
            Reply::Text("PREFIX".into())
        } else {
            Reply::Text("HISTORY".into())
        }
    });
    let s = CompactionSettings {
        keep_recent_tokens: 3_000,
        ..Default::default()
    };
    let prep = prepare_compaction(&path, &s).expect("prepares");
    assert!(prep.is_split_turn);
    let r = run_compaction(
        &prep,
        &script.summarizer(model("http://x", WINDOW)),
        None,
        HookDecision::Proceed,
    )
    .await
    .expect("compacts")
    .result;
    assert!(
        r.summary
            .starts_with("HISTORY\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX"),
        "{}",
        r.summary
    );
    let calls = script.calls();
    assert_eq!(calls.len(), 2);
    let prefix = calls
        .iter()
        .find(|c| c.user_text().contains("BEGINNING of a turn"))
        .expect("prefix request");
    assert_eq!(prefix.max_tokens, Some(8_192));
    assert!(prefix
        .user_text()
        .starts_with("<conversation>\n[User]: refactor everything"));
    let history = calls
        .iter()
        .find(|c| !c.user_text().contains("BEGINNING of a turn"))
        .expect("history request");
    assert!(!history.user_text().contains("refactor everything"));
    assert!(r.details.expect("details")["readFiles"]
        .as_array()
        .expect("array")
        .contains(&json!("m0.rs")));
}

#[tokio::test]
async fn split_turn_without_history_says_no_prior_history() {
    let mut path = vec![PathEntry::message("u", user("one giant turn", 1))];
    for i in 0..6 {
        let id = format!("c{i}");
        path.push(PathEntry::message(
            format!("x{i}"),
            assistant(vec![call(&id, "bash", json!({"command": "ls"}))], 0, 2),
        ));
        path.push(PathEntry::message(
            format!("y{i}"),
            result(&id, "bash", &"z".repeat(4_000), 3),
        ));
    }
    let script = Script::answering("P");
    let s = CompactionSettings {
        keep_recent_tokens: 1_500,
        ..Default::default()
    };
    let prep = prepare_compaction(&path, &s).expect("prepares");
    assert!(prep.is_split_turn && prep.messages_to_summarize.is_empty());
    let r = run_compaction(
        &prep,
        &script.summarizer(model("http://x", WINDOW)),
        None,
        HookDecision::Proceed,
    )
    .await
    .expect("compacts")
    .result;
    assert_eq!(
        r.summary,
        "No prior history.\n\n---\n\n**Turn Context (split turn):**\n\nP"
    );
    assert_eq!(script.calls().len(), 1);
}

#[tokio::test]
async fn summariser_errors_and_aborts() {
    let path = long_session();
    let prep = prepare_compaction(&path, &settings()).expect("prepares");
    let failing = Script::new(|_| Reply::Error("500 Internal server error".into()));
    let err = run_compaction(
        &prep,
        &failing.summarizer(model("http://x", WINDOW)),
        None,
        HookDecision::Proceed,
    )
    .await
    .expect_err("fails");
    assert_eq!(
        err.to_string(),
        "Summarization failed: 500 Internal server error"
    );
    assert!(!err.is_aborted());

    let empty = Script::new(|_| Reply::Error(String::new()));
    let err = run_compaction(
        &prep,
        &empty.summarizer(model("http://x", WINDOW)),
        None,
        HookDecision::Proceed,
    )
    .await
    .expect_err("fails");
    assert_eq!(err.to_string(), "Summarization failed: Unknown error");

    let script = Script::answering("never used");
    let summarizer = script.summarizer(model("http://x", WINDOW));
    summarizer.cancel.cancel();
    let err = run_compaction(&prep, &summarizer, None, HookDecision::Proceed)
        .await
        .expect_err("aborted");
    assert_eq!(err, CompactionError::Cancelled);
    assert_eq!(err.to_string(), "Compaction cancelled");
}

#[tokio::test]
async fn a_call_that_cannot_start_reports_the_provider_error() {
    let path = long_session();
    let prep = prepare_compaction(&path, &settings()).expect("prepares");
    let mut m = model("http://127.0.0.1:1", WINDOW);
    m.api = "carrier-pigeon".into();
    let summarizer = rho_compaction::Summarizer::new(m);
    let err = run_compaction(&prep, &summarizer, None, HookDecision::Proceed)
        .await
        .expect_err("no such api");
    assert!(
        err.to_string()
            .starts_with("Unsupported API \"carrier-pigeon\""),
        "{err}"
    );
}

#[test]
fn summary_request_text_snapshot() {
    let mut path = Vec::new();
    push_turn(&mut path, 1, "src/a.rs", true, 30, 100);
    push_turn(&mut path, 2, "src/b.rs", false, 30, 200);
    let prep = prepare_compaction(
        &path,
        &CompactionSettings {
            keep_recent_tokens: 10,
            ..Default::default()
        },
    )
    .expect("prepares");
    let text = rho_compaction::summarize::history_prompt(
        &prep.messages_to_summarize,
        Some("## Goal\nEarlier goal"),
        Some("focus on errors"),
    );
    insta::assert_snapshot!(text);
}
