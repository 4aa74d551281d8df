//! Tree navigation through AgentSession (pi's `navigateTree`; EXT-3/EXT-4 for
//! `session_before_tree` and `session_tree`; COMP-22 and AB-7 for the branch summary).
//! Every test runs on a real session file in a temp dir with this tree:
//!
//! ```text
//! u1 ─ a1 ─┬─ u2 ─ a2          (branch A)
//!          └─ u3 ─ a3  ← leaf  (branch B)
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::session_common as common;

use std::sync::Arc;

use common::*;
use rho_agent::AgentMessage;
use rho_ai::UserMessage;
use rho_core::agent_session::{AgentSession, NavigateTreeOptions, PromptOptions, SessionError};
use rho_extension_host::Extension;
use rho_session::{EntryData, SessionManager};
use rho_testkit::scripted::{ScriptedProvider, ScriptedReply, Step};
use serde_json::{json, Value};

/// Entry ids of the tree above.
struct Ids {
    u1: String,
    a1: String,
    u2: String,
    a2: String,
    u3: String,
    a3: String,
}

fn assistant(text: &str) -> AgentMessage {
    let mut a = rho_ai::AssistantMessage::empty("scripted", "scripted", "scripted-model");
    a.content = vec![rho_ai::ContentBlock::text(text)];
    AgentMessage::Assistant(a)
}

fn user(text: &str) -> AgentMessage {
    AgentMessage::User(UserMessage::text(text))
}

/// Writes the two-branch tree into a new session file in `dir`.
fn two_branches(dir: &std::path::Path) -> (SessionManager, Ids) {
    let mut s = SessionManager::create(dir, "/work");
    let add =
        |s: &mut SessionManager, m: AgentMessage| s.append_message(m).expect("append").id.clone();
    let u1 = add(&mut s, user("first question"));
    let a1 = add(&mut s, assistant("first answer"));
    let u2 = add(&mut s, user("branch A question"));
    let a2 = add(&mut s, assistant("branch A answer"));
    s.branch(&a1).expect("branch");
    let u3 = add(&mut s, user("branch B question"));
    let a3 = add(&mut s, assistant("branch B answer"));
    assert!(s.is_persisted());
    (
        s,
        Ids {
            u1,
            a1,
            u2,
            a2,
            u3,
            a3,
        },
    )
}

/// A session over the tree, with `extensions`.
fn tree_session(
    dir: &std::path::Path,
    provider: &ScriptedProvider,
    extensions: Vec<Extension>,
) -> (AgentSession, Ids) {
    let (store, ids) = two_branches(dir);
    let mut c = config(provider);
    c.session = store;
    c.extensions = extensions;
    (AgentSession::new(c), ids)
}

fn leaf(s: &AgentSession) -> Option<String> {
    s.with_session(|m| m.leaf_id().map(str::to_string))
}

/// `role:text` of the agent's messages.
fn conversation(s: &AgentSession) -> Vec<String> {
    s.messages()
        .iter()
        .map(|m| match m {
            AgentMessage::User(u) => format!("user:{}", u.content.text()),
            AgentMessage::Assistant(a) => format!("assistant:{}", a.text()),
            AgentMessage::BranchSummary(b) => format!("branchSummary:{}", b.summary),
            other => other.role().to_string(),
        })
        .collect()
}

/// The entries of the file on disk (what a reopened session sees).
fn reopened(s: &AgentSession) -> SessionManager {
    let path = s.with_session(|m| m.path().map(|p| p.to_path_buf()));
    SessionManager::open(&path.expect("a file")).expect("reopens")
}

fn summarize() -> NavigateTreeOptions {
    NavigateTreeOptions {
        summarize: true,
        ..Default::default()
    }
}

#[tokio::test]
async fn navigating_to_an_assistant_entry_moves_the_leaf_and_the_conversation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let provider = ScriptedProvider::new();
    let (s, ids) = tree_session(dir.path(), &provider, vec![]);
    let outcome = s
        .navigate_tree(&ids.a2, NavigateTreeOptions::default())
        .await
        .expect("navigates");
    assert!(!outcome.cancelled);
    assert_eq!(outcome.editor_text, None);
    assert_eq!(outcome.summary_entry_id, None);
    assert_eq!(leaf(&s).as_deref(), Some(ids.a2.as_str()));
    assert_eq!(
        conversation(&s),
        [
            "user:first question",
            "assistant:first answer",
            "user:branch A question",
            "assistant:branch A answer"
        ]
    );
    assert_eq!(provider.call_count(), 0, "no summary was asked for");
}

#[tokio::test]
async fn a_user_message_target_puts_the_leaf_on_its_parent_and_returns_its_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let provider = ScriptedProvider::new();
    let (s, ids) = tree_session(dir.path(), &provider, vec![]);
    let outcome = s
        .navigate_tree(&ids.u2, NavigateTreeOptions::default())
        .await
        .expect("navigates");
    assert_eq!(outcome.editor_text.as_deref(), Some("branch A question"));
    assert_eq!(leaf(&s).as_deref(), Some(ids.a1.as_str()));
    assert_eq!(
        conversation(&s),
        ["user:first question", "assistant:first answer"]
    );
    let root = s
        .navigate_tree(&ids.u1, NavigateTreeOptions::default())
        .await
        .expect("navigates to the root message");
    assert_eq!(root.editor_text.as_deref(), Some("first question"));
    assert_eq!(leaf(&s), None, "the root's parent: before the first entry");
    assert!(s.messages().is_empty());
}

#[tokio::test]
async fn a_custom_message_target_is_re_editable_like_a_user_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let provider = ScriptedProvider::new();
    let (store, ids) = two_branches(dir.path());
    let mut store = store;
    let custom = store
        .append_custom_message(
            "note",
            rho_ai::UserContent::Blocks(vec![
                rho_ai::ContentBlock::text("part one, "),
                rho_ai::ContentBlock::text("part two"),
            ]),
            true,
            None,
        )
        .expect("append")
        .id
        .clone();
    store
        .append_message(assistant("after note"))
        .expect("append");
    let mut c = config(&provider);
    c.session = store;
    let s = AgentSession::new(c);
    let outcome = s
        .navigate_tree(&custom, NavigateTreeOptions::default())
        .await
        .expect("navigates");
    assert_eq!(outcome.editor_text.as_deref(), Some("part one, part two"));
    assert_eq!(leaf(&s).as_deref(), Some(ids.a3.as_str()));
}

#[tokio::test]
async fn the_current_leaf_is_a_no_op_and_an_unknown_id_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let provider = ScriptedProvider::new();
    let (s, ids) = tree_session(dir.path(), &provider, vec![]);
    let entries_before = s.with_session(|m| m.entries().len());
    let same = s.navigate_tree(&ids.a3, summarize()).await.expect("no-op");
    assert!(!same.cancelled);
    assert_eq!(same.summary_entry_id, None);
    assert_eq!(s.with_session(|m| m.entries().len()), entries_before);
    assert_eq!(provider.call_count(), 0);
    let err = s
        .navigate_tree("deadbeef", NavigateTreeOptions::default())
        .await
        .expect_err("unknown");
    assert!(
        matches!(&err, SessionError::EntryNotFound(id) if id == "deadbeef"),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "Entry deadbeef not found");
    assert_eq!(leaf(&s).as_deref(), Some(ids.a3.as_str()));
}

#[tokio::test]
async fn a_summary_of_the_abandoned_branch_is_written_and_enters_the_context() {
    let dir = tempfile::tempdir().expect("tempdir");
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("B TRIED SOMETHING"));
    provider.push(ScriptedReply::text("next answer"));
    let (s, ids) = tree_session(dir.path(), &provider, vec![]);
    let outcome = s
        .navigate_tree(&ids.a2, summarize())
        .await
        .expect("navigates");
    let summary_id = outcome.summary_entry_id.expect("a summary entry");
    assert_eq!(leaf(&s).as_deref(), Some(summary_id.as_str()));
    // The summariser saw branch B (after the common ancestor a1) and nothing of branch A.
    let request = request_texts(&provider.requests()[0]).join("\n");
    assert!(request.contains("branch B question") && request.contains("branch B answer"));
    assert!(!request.contains("branch A") && !request.contains("first question"));
    // Written to disk: the parent is the target, fromId the leaf left behind (a3, pi 1.6),
    // fromHook false, details are file lists.
    let file = reopened(&s);
    let entry = file.tree().get(&summary_id).expect("on disk").clone();
    assert_eq!(entry.parent_id.as_deref(), Some(ids.a2.as_str()));
    let EntryData::BranchSummary {
        from_id,
        summary,
        details,
        from_hook,
        ..
    } = &entry.data
    else {
        panic!("not a branch summary: {entry:?}");
    };
    assert_eq!(from_id, &ids.a3);
    assert!(summary.contains("B TRIED SOMETHING"));
    assert_eq!(*from_hook, Some(false));
    assert_eq!(
        details.as_deref().cloned(),
        Some(json!({"readFiles": [], "modifiedFiles": []}))
    );
    // The rebuilt context ends with the summary; the next request carries it.
    let convo = conversation(&s);
    assert_eq!(convo.len(), 5);
    assert!(convo[4].starts_with("branchSummary:") && convo[4].contains("B TRIED SOMETHING"));
    s.prompt("go on", PromptOptions::default())
        .await
        .expect("runs");
    let next = request_texts(&provider.requests()[1]);
    assert!(next[4].starts_with(
        "user:The following is a summary of a branch that this conversation came back from:"
    ));
    assert!(next[4].contains("B TRIED SOMETHING"));
    assert_eq!(next[5], "user:go on");
}

#[tokio::test]
async fn custom_instructions_and_a_label_go_with_the_summary() {
    let dir = tempfile::tempdir().expect("tempdir");
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("S"));
    let (s, ids) = tree_session(dir.path(), &provider, vec![]);
    let outcome = s
        .navigate_tree(
            &ids.u2,
            NavigateTreeOptions {
                summarize: true,
                custom_instructions: Some("the parser bug".into()),
                replace_instructions: false,
                label: Some("checkpoint".into()),
            },
        )
        .await
        .expect("navigates");
    let request = request_texts(&provider.requests()[0]).join("\n");
    assert!(request.contains("Additional focus: the parser bug"));
    let summary_id = outcome.summary_entry_id.expect("summary");
    assert_eq!(outcome.editor_text.as_deref(), Some("branch A question"));
    let file = reopened(&s);
    assert_eq!(file.label(&summary_id), Some("checkpoint"));
    assert_eq!(
        file.tree()
            .get(&summary_id)
            .expect("entry")
            .parent_id
            .as_deref(),
        Some(ids.a1.as_str()),
        "a user target attaches the summary at its parent"
    );
}

#[tokio::test]
async fn without_a_summary_the_label_goes_on_the_target() {
    let dir = tempfile::tempdir().expect("tempdir");
    let provider = ScriptedProvider::new();
    let (s, ids) = tree_session(dir.path(), &provider, vec![]);
    s.navigate_tree(
        &ids.a2,
        NavigateTreeOptions {
            label: Some("A done".into()),
            ..Default::default()
        },
    )
    .await
    .expect("navigates");
    assert_eq!(
        s.with_session(|m| m.label(&ids.a2).map(str::to_string)),
        Some("A done".into())
    );
    assert_eq!(reopened(&s).label(&ids.a2), Some("A done"));
    // The label entry is the new leaf; the conversation is branch A's.
    assert_eq!(
        conversation(&s).last().map(String::as_str),
        Some("assistant:branch A answer")
    );
}

#[tokio::test]
async fn ext_3_session_before_tree_and_session_tree_payloads() {
    let dir = tempfile::tempdir().expect("tempdir");
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("S"));
    let seen: Arc<std::sync::Mutex<Vec<Value>>> = Default::default();
    let mut ext = Extension::new("t.ext");
    for name in ["session_before_tree", "session_tree"] {
        let seen = seen.clone();
        ext.on(
            name,
            handler(move |e, _| {
                seen.lock()
                    .expect("lock")
                    .push(serde_json::to_value(&e).expect("json"));
                Ok(None)
            }),
        );
    }
    let (s, ids) = tree_session(dir.path(), &provider, vec![ext]);
    let outcome = s
        .navigate_tree(
            &ids.a2,
            NavigateTreeOptions {
                summarize: true,
                label: Some("L".into()),
                ..Default::default()
            },
        )
        .await
        .expect("navigates");
    let seen = seen.lock().expect("lock").clone();
    assert_eq!(seen.len(), 2);
    let before = &seen[0];
    assert_eq!(before["type"], "session_before_tree");
    let prep = &before["preparation"];
    let mut keys: Vec<&str> = prep
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "commonAncestorId",
            "entriesToSummarize",
            "label",
            "oldLeafId",
            "targetId",
            "userWantsSummary"
        ]
    );
    assert_eq!(prep["targetId"], json!(ids.a2));
    assert_eq!(prep["oldLeafId"], json!(ids.a3));
    assert_eq!(prep["commonAncestorId"], json!(ids.a1));
    assert_eq!(prep["userWantsSummary"], true);
    let abandoned: Vec<&Value> = prep["entriesToSummarize"]
        .as_array()
        .expect("array")
        .iter()
        .map(|e| &e["id"])
        .collect();
    assert_eq!(abandoned, [&json!(ids.u3), &json!(ids.a3)]);
    assert_eq!(
        prep["entriesToSummarize"][0]["message"]["content"][0]["text"],
        "branch B question"
    );
    let after = &seen[1];
    let summary_id = outcome.summary_entry_id.expect("summary");
    assert_eq!(after["type"], "session_tree");
    assert_eq!(after["oldLeafId"], json!(ids.a3));
    assert_eq!(
        after["newLeafId"],
        json!(leaf(&s)),
        "the label entry is the leaf"
    );
    assert_eq!(after["summaryEntry"]["id"], json!(summary_id));
    assert_eq!(after["summaryEntry"]["type"], "branch_summary");
    assert_eq!(after["fromExtension"], false);
}

#[tokio::test]
async fn ext_3_session_tree_without_a_summary_leaves_the_summary_fields_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    let provider = ScriptedProvider::new();
    let seen: Arc<std::sync::Mutex<Vec<Value>>> = Default::default();
    let seen2 = seen.clone();
    let ext = extension_on("t.ext", "session_tree", move |e, _| {
        seen2
            .lock()
            .expect("lock")
            .push(serde_json::to_value(&e).expect("json"));
        Ok(None)
    });
    let (s, ids) = tree_session(dir.path(), &provider, vec![ext]);
    s.navigate_tree(&ids.u1, NavigateTreeOptions::default())
        .await
        .expect("navigates");
    assert_eq!(
        seen.lock().expect("lock").clone(),
        [json!({"type": "session_tree", "newLeafId": null, "oldLeafId": ids.a3})]
    );
}

#[tokio::test]
async fn ext_4_session_before_tree_cancel_changes_nothing_and_skips_later_handlers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let provider = ScriptedProvider::new();
    let log: Log = Default::default();
    let l1 = log.clone();
    let a = extension_on("a", "session_before_tree", move |_, _| {
        l1.lock().expect("lock").push("a".into());
        Ok(Some(json!({"cancel": true})))
    });
    let l2 = log.clone();
    let mut b = extension_on("b", "session_before_tree", move |_, _| {
        l2.lock().expect("lock").push("b".into());
        Ok(None)
    });
    let l3 = log.clone();
    b.on(
        "session_tree",
        handler(move |_, _| {
            l3.lock().expect("lock").push("tree".into());
            Ok(None)
        }),
    );
    let (s, ids) = tree_session(dir.path(), &provider, vec![a, b]);
    let before = conversation(&s);
    let entries = s.with_session(|m| m.entries().len());
    let outcome = s
        .navigate_tree(&ids.u2, summarize())
        .await
        .expect("resolves");
    assert!(outcome.cancelled && !outcome.aborted);
    assert_eq!(outcome.editor_text, None);
    assert_eq!(*log.lock().expect("lock"), ["a"]);
    assert_eq!(leaf(&s).as_deref(), Some(ids.a3.as_str()));
    assert_eq!(conversation(&s), before);
    assert_eq!(s.with_session(|m| m.entries().len()), entries);
    assert_eq!(provider.call_count(), 0);
}

#[tokio::test]
async fn ext_4_an_extension_summary_replaces_the_model_and_its_overrides_apply() {
    let dir = tempfile::tempdir().expect("tempdir");
    let provider = ScriptedProvider::new();
    let a = extension_on("a", "session_before_tree", |_, _| {
        Ok(Some(
            json!({"summary": {"summary": "first", "details": {"k": 0}}}),
        ))
    });
    let b = extension_on("b", "session_before_tree", |_, _| {
        Ok(Some(json!({
            "summary": {"summary": "EXT SUMMARY", "details": {"k": 1}},
            "label": "from ext"
        })))
    });
    let (s, ids) = tree_session(dir.path(), &provider, vec![a, b]);
    let outcome = s
        .navigate_tree(&ids.a2, summarize())
        .await
        .expect("navigates");
    assert_eq!(provider.call_count(), 0, "no model call");
    let id = outcome.summary_entry_id.expect("summary");
    let file = reopened(&s);
    let EntryData::BranchSummary {
        summary,
        details,
        from_hook,
        ..
    } = &file.tree().get(&id).expect("entry").data
    else {
        panic!("not a branch summary");
    };
    assert_eq!(summary, "EXT SUMMARY", "the last result wins");
    assert_eq!(details.as_deref().cloned(), Some(json!({"k": 1})));
    assert_eq!(*from_hook, Some(true));
    assert_eq!(file.label(&id), Some("from ext"));
}

#[tokio::test]
async fn ext_4_an_extension_summary_is_ignored_when_no_summary_was_asked_for() {
    let dir = tempfile::tempdir().expect("tempdir");
    let provider = ScriptedProvider::new();
    let a = extension_on("a", "session_before_tree", |_, _| {
        Ok(Some(json!({
            "summary": {"summary": "unwanted"},
            "customInstructions": "ignored too"
        })))
    });
    let (s, ids) = tree_session(dir.path(), &provider, vec![a]);
    let outcome = s
        .navigate_tree(&ids.a2, NavigateTreeOptions::default())
        .await
        .expect("navigates");
    assert_eq!(outcome.summary_entry_id, None);
    assert_eq!(leaf(&s).as_deref(), Some(ids.a2.as_str()));
}

#[tokio::test]
async fn ext_4_extension_instructions_override_the_users() {
    let dir = tempfile::tempdir().expect("tempdir");
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("S"));
    let a = extension_on("a", "session_before_tree", |_, _| {
        Ok(Some(json!({
            "customInstructions": "ONLY THIS",
            "replaceInstructions": true
        })))
    });
    let (s, ids) = tree_session(dir.path(), &provider, vec![a]);
    s.navigate_tree(
        &ids.a2,
        NavigateTreeOptions {
            summarize: true,
            custom_instructions: Some("user focus".into()),
            ..Default::default()
        },
    )
    .await
    .expect("navigates");
    let request = request_texts(&provider.requests()[0]).join("\n");
    assert!(request.contains("ONLY THIS"));
    assert!(!request.contains("user focus"));
    assert!(!request.contains("Additional focus"));
}

#[tokio::test]
async fn navigating_while_streaming_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let provider = ScriptedProvider::new();
    let gate = Arc::new(tokio::sync::Notify::new());
    provider.push(
        ScriptedReply::new()
            .step(Step::Gate(gate.clone()))
            .with_text(&["done"]),
    );
    let (s, ids) = tree_session(dir.path(), &provider, vec![]);
    let run = {
        let s = s.clone();
        tokio::spawn(async move { s.prompt("q", PromptOptions::default()).await })
    };
    provider.wait_for_calls(1).await;
    let err = s
        .navigate_tree(&ids.a2, NavigateTreeOptions::default())
        .await
        .expect_err("refused");
    assert!(matches!(err, SessionError::TreeWhileStreaming), "{err:?}");
    gate.notify_one();
    run.await.expect("join").expect("runs");
    assert_ne!(leaf(&s).as_deref(), Some(ids.a2.as_str()));
}

#[tokio::test]
async fn a_summary_needs_a_model() {
    let dir = tempfile::tempdir().expect("tempdir");
    let provider = ScriptedProvider::new();
    let (store, ids) = two_branches(dir.path());
    let mut c = config(&provider);
    c.session = store;
    c.model = None;
    let s = AgentSession::new(c);
    let err = s
        .navigate_tree(&ids.a2, summarize())
        .await
        .expect_err("no model");
    assert_eq!(err.to_string(), "No model available for summarization");
    assert_eq!(leaf(&s).as_deref(), Some(ids.a3.as_str()));
}

#[tokio::test]
async fn a_failed_summary_is_an_error_and_changes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().fail("upstream broke"));
    let (s, ids) = tree_session(dir.path(), &provider, vec![]);
    let err = s
        .navigate_tree(&ids.a2, summarize())
        .await
        .expect_err("fails");
    assert!(matches!(&err, SessionError::BranchSummary(m) if m.contains("upstream broke")));
    assert_eq!(leaf(&s).as_deref(), Some(ids.a3.as_str()));
    assert!(!s.is_compacting());
}

#[tokio::test]
async fn comp_22_and_ab_7_branch_summary_is_compacting_and_abortable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().step(Step::Hang));
    let (s, ids) = tree_session(dir.path(), &provider, vec![]);
    let nav = {
        let s = s.clone();
        let target = ids.a2.clone();
        tokio::spawn(async move { s.navigate_tree(&target, summarize()).await })
    };
    provider.wait_for_calls(1).await;
    assert!(s.is_compacting());
    s.abort().await;
    assert!(
        s.is_compacting(),
        "AB-7: abort() leaves the branch summary running"
    );
    s.abort_branch_summary();
    let outcome = nav.await.expect("join").expect("resolves");
    assert!(outcome.cancelled && outcome.aborted);
    assert!(!s.is_compacting());
    assert_eq!(leaf(&s).as_deref(), Some(ids.a3.as_str()));
}
