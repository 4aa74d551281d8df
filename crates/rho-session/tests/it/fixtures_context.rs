//! Hand-written pi-format session files (tests/fixtures) load, and the context rebuilt from them
//! matches the spec (interfaces §4.8) message by message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use rho_protocol::agent::AgentMessage;
use rho_session::{time::parse_iso, EntryData, ModelRef, SessionManager};
use serde_json::{json, Value};

/// Copies a fixture into a fresh temp dir (opening may rewrite it) and opens it.
fn open_fixture(name: &str) -> (tempfile::TempDir, PathBuf, SessionManager) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(name);
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::copy(&src, &path).expect("copy fixture");
    let session = SessionManager::open(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    (dir, path, session)
}

fn msg(v: Value) -> AgentMessage {
    serde_json::from_value(v).expect("expected message is valid")
}

fn ms(iso: &str) -> i64 {
    parse_iso(iso).expect("valid timestamp")
}

fn model(provider: &str, id: &str) -> Option<ModelRef> {
    Some(ModelRef {
        provider: provider.into(),
        model_id: id.into(),
    })
}

fn entry_message(session: &SessionManager, id: &str) -> AgentMessage {
    let entry = session.tree().get(id).expect("entry exists");
    (*entry.message().expect("a message entry")).clone()
}

#[test]
fn branched_fixture_context_follows_the_current_branch() {
    let (_dir, _, session) = open_fixture("branched.jsonl");
    let warnings: Vec<String> = session
        .warnings()
        .iter()
        .map(|w| w.message.clone())
        .collect();
    assert_eq!(
        warnings,
        ["unknown entry type \"future_marker\": kept as written and left out of the context"]
    );
    assert_eq!(session.entries().len(), 22);
    assert_eq!(session.leaf_id(), Some("a0000016"));
    let ctx = session.build_context();
    let got = ctx.owned_messages();
    let expected = vec![
        msg(
            json!({"role":"user","content":[{"type":"text","text":"List the files"}],"timestamp":1740820502481_i64}),
        ),
        entry_message(&session, "a0000004"),
        msg(
            json!({"role":"toolResult","toolCallId":"toolu_01","toolName":"ls","content":[{"type":"text","text":"a.txt\nb.txt"}],"isError":false,"timestamp":1740820504050_i64}),
        ),
        msg(
            json!({"role":"assistant","content":[{"type":"text","text":"There are two files."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":160,"output":8,"cacheRead":0,"cacheWrite":0,"totalTokens":168,"cost":{"input":0.0,"output":0.0,"cacheRead":0.0,"cacheWrite":0.0,"total":0.0}},"stopReason":"stop","timestamp":1740820505900_i64}),
        ),
        msg(
            json!({"role":"branchSummary","summary":"Tried deleting b.txt.","fromId":"a0000006","timestamp":ms("2025-03-01T09:16:00.000Z")}),
        ),
        msg(
            json!({"role":"custom","customType":"reminder","content":"Remember the tests","display":true,"details":{"k":1},"timestamp":ms("2025-03-01T09:16:02.000Z")}),
        ),
        msg(
            json!({"role":"bashExecution","command":"cat a.txt","output":"hello","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1740820563000_i64}),
        ),
        msg(
            json!({"role":"bashExecution","command":"top -n1","output":"load 0.1","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1740820564000_i64,"excludeFromContext":true}),
        ),
        msg(
            json!({"role":"custom","customType":"notice","content":[{"type":"text","text":"Extension notice"}],"display":false,"timestamp":1740820566000_i64}),
        ),
        msg(json!({"role":"user","content":"Now what?","timestamp":1740820569000_i64})),
    ];
    assert_eq!(got.len(), expected.len());
    for (i, (got, want)) in got.iter().zip(&expected).enumerate() {
        assert_eq!(got, want, "context message {i}");
    }
    let second = ctx.messages[1].get().expect("readable");
    let AgentMessage::Assistant(a) = &*second else {
        panic!("message 1 is the tool-calling assistant");
    };
    assert_eq!(a.tool_calls().next().map(|t| t.name.as_str()), Some("ls"));
    assert_eq!(a.response_id.as_deref(), Some("msg_01"));
    assert_eq!(ctx.thinking_level, "high");
    assert!(ctx.has_thinking_level_change);
    assert_eq!(ctx.model, model("openai", "gpt-5-mini"));
    // The model sees 9 messages: the `!!` bash run stays out.
    assert_eq!(ctx.to_llm().len(), 9);
    let converted: Vec<_> = got.iter().filter_map(AgentMessage::to_llm).collect();
    assert_eq!(converted, ctx.to_llm());
}

#[test]
fn branched_fixture_tree_labels_name_and_other_branch() {
    let (_dir, _, mut session) = open_fixture("branched.jsonl");
    assert_eq!(session.name(), Some("File chores"));
    assert_eq!(
        session.label("a0000004"),
        None,
        "cleared by a later label entry"
    );
    assert_eq!(session.label("a0000006"), Some("checkpoint"));
    let children: Vec<&str> = session
        .tree()
        .children(Some("a0000006"))
        .iter()
        .map(|e| e.id.as_str())
        .collect();
    assert_eq!(children, ["a0000007", "a000000a"]);
    let index = session.tree().child_index();
    let indexed: Vec<&str> = index[&Some("a0000006")]
        .iter()
        .map(|e| e.id.as_str())
        .collect();
    assert_eq!(indexed, children);
    assert_eq!(
        index.values().map(Vec::len).sum::<usize>(),
        22,
        "every entry has one parent slot"
    );
    let roots: Vec<&str> = session
        .tree()
        .children(None)
        .iter()
        .map(|e| e.id.as_str())
        .collect();
    assert_eq!(roots, ["a0000001"]);
    match &session
        .tree()
        .get("a0000016")
        .expect("unknown type kept")
        .data
    {
        EntryData::Unknown { entry_type, raw } => {
            assert_eq!(entry_type, "future_marker");
            assert_eq!(raw.to_value()["note"], "written by a newer version");
        }
        other => panic!("expected an unknown entry, got {other:?}"),
    }

    session.branch("a0000009").expect("entry exists");
    let ctx = session.build_context();
    let roles: Vec<&str> = ctx.messages.iter().map(|m| m.role()).collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "toolResult",
            "assistant",
            "user",
            "assistant"
        ]
    );
    assert_eq!(
        *ctx.messages[4].get().expect("readable"),
        entry_message(&session, "a0000008")
    );
    assert_eq!(
        *ctx.messages[5].get().expect("readable"),
        entry_message(&session, "a0000009")
    );
    assert_eq!(ctx.thinking_level, "medium");
    assert_eq!(
        ctx.model,
        model("openai", "gpt-5"),
        "the assistant message comes after the model_change"
    );

    session.reset_leaf();
    let ctx = session.build_context();
    assert!(ctx.messages.is_empty());
    assert_eq!(ctx.thinking_level, "off");
    assert!(!ctx.has_thinking_level_change);
    assert_eq!(ctx.model, None);
}

#[test]
fn compacted_fixture_uses_the_last_compaction_and_its_kept_tail() {
    let (_dir, _, mut session) = open_fixture("compacted.jsonl");
    let ctx = session.build_context();
    let expected = vec![
        msg(
            json!({"role":"compactionSummary","summary":"Three questions were answered.","tokensBefore":15000,"timestamp":ms("2025-03-02T10:00:08.000Z")}),
        ),
        entry_message(&session, "c0000008"),
        entry_message(&session, "c0000009"),
        msg(
            json!({"role":"user","content":[{"type":"text","text":"fourth question"}],"timestamp":1740909609000_i64}),
        ),
    ];
    assert_eq!(ctx.owned_messages(), expected);
    assert_eq!(ctx.thinking_level, "low");
    assert_eq!(ctx.model, model("openai", "gpt-5"));
    let llm = ctx.to_llm();
    let rho_protocol::Message::User(first) = &llm[0] else {
        panic!("the summary reaches the model as a user message");
    };
    assert_eq!(
        first.content.text(),
        "The conversation history before this point was compacted into the following summary:\n\n<summary>\nThree questions were answered.\n</summary>"
    );

    // Before the second compaction only the first one applies, keeping c5 onwards.
    session.branch("c0000009").expect("entry exists");
    let ctx = session.build_context();
    let expected = vec![
        msg(
            json!({"role":"compactionSummary","summary":"The user asked a first question.","tokensBefore":12000,"timestamp":ms("2025-03-02T10:00:05.000Z")}),
        ),
        entry_message(&session, "c0000005"),
        entry_message(&session, "c0000006"),
        entry_message(&session, "c0000008"),
        entry_message(&session, "c0000009"),
    ];
    assert_eq!(ctx.owned_messages(), expected);
}

#[test]
fn v1_fixture_is_migrated_rewritten_and_stable() {
    let (_dir, path, session) = open_fixture("v1_legacy.jsonl");
    let text = std::fs::read_to_string(&path).expect("read rewritten file");
    let first_line = text.lines().next().expect("header");
    assert_eq!(
        first_line,
        r#"{"type":"session","id":"legacy-0001","timestamp":"2024-11-02T08:00:00.000Z","cwd":"/home/ana/old","version":3}"#,
        "header keys keep their order, version appended"
    );
    assert_eq!(text.lines().count(), 8);
    assert!(!text.contains("firstKeptEntryIndex") && !text.contains("hookMessage"));

    let ids: Vec<&str> = session.entries().iter().map(|e| e.id.as_str()).collect();
    for (i, entry) in session.entries().iter().enumerate() {
        assert_eq!(entry.id.len(), 8);
        assert_eq!(
            entry.parent_id.as_deref(),
            i.checked_sub(1).map(|p| ids[p]),
            "linear chain"
        );
    }
    let EntryData::Compaction(c) = &session.entries()[4].data else {
        panic!("entry 5 is the compaction");
    };
    assert_eq!(
        c.first_kept_entry_id, ids[2],
        "index 3 (header = 0) is the third entry"
    );

    let ctx = session.build_context();
    let expected = vec![
        msg(
            json!({"role":"compactionSummary","summary":"Greetings were exchanged.","tokensBefore":500,"timestamp":ms("2024-11-02T08:00:05.000Z")}),
        ),
        msg(json!({"role":"user","content":"again","timestamp":1730534403000_i64})),
        entry_message(&session, ids[3]),
        msg(
            json!({"role":"custom","customType":"notice","content":"a hook said hi","display":true,"timestamp":1730534406000_i64}),
        ),
    ];
    assert_eq!(ctx.owned_messages(), expected);
    assert_eq!(ctx.thinking_level, "minimal");
    assert_eq!(ctx.model, model("anthropic", "claude-3-5-sonnet"));

    let again = SessionManager::open(&path).expect("rewritten file loads");
    let ids_again: Vec<&str> = again.entries().iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ids_again, "the migration was written, not redone");
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        text,
        "a v3 file is not rewritten"
    );
}

/// Start-up's `branch_state` says what `build_context` would, at every leaf of every fixture
/// that opens (compactions, branch summaries, context edits, custom messages, model and
/// thinking changes) and with the leaf reset.
#[test]
fn branch_state_agrees_with_the_built_context_at_every_leaf() {
    let fixtures = [
        "branched.jsonl",
        "compacted.jsonl",
        "corrupt_middle.jsonl",
        "pi16_session.jsonl",
        "torn_tail.jsonl",
        "v1_legacy.jsonl",
    ];
    for name in fixtures {
        let (_dir, _, mut session) = open_fixture(name);
        let ids: Vec<String> = session.entries().iter().map(|e| e.id.clone()).collect();
        let mut checked = 0;
        for id in ids.iter().map(Some).chain([None]) {
            match id {
                Some(id) => session.branch(id).expect("a known entry"),
                None => session.reset_leaf(),
            }
            let (state, ctx) = (session.branch_state(), session.build_context());
            let at = format!("{name} at {id:?}");
            assert_eq!(state.has_messages, !ctx.messages.is_empty(), "{at}");
            assert_eq!(state.model, ctx.model, "{at}");
            assert_eq!(state.thinking_level, ctx.thinking_level, "{at}");
            assert_eq!(
                state.has_thinking_level_change, ctx.has_thinking_level_change,
                "{at}"
            );
            checked += 1;
        }
        assert!(checked > 1, "{name} has entries");
    }
}
