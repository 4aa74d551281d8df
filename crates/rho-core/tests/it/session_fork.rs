//! Forking and cloning through AgentSession (interfaces §1.4 `fork`, `clone`,
//! `get_fork_messages`; EXT-4 for the `session_before_fork` veto), on real files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::session_common as common;

use common::*;
use rho_agent::AgentMessage;
use rho_ai::{ContentBlock, UserContent, UserMessage};
use rho_core::agent_session::{AgentSession, ForkCandidate, SessionError};
use rho_session::SessionManager;
use rho_testkit::scripted::ScriptedProvider;
use serde_json::json;

fn assistant(text: &str) -> AgentMessage {
    let mut a = rho_ai::AssistantMessage::empty("scripted", "scripted", "scripted-model");
    a.content = vec![rho_ai::ContentBlock::text(text)];
    AgentMessage::Assistant(a)
}

/// `u1 a1 u2 a2` in a file in `dir`, plus an abandoned branch `u3` off `a1` (file order
/// u1 a1 u2 a2 u3, leaf back on a2). Returns the store and the ids.
fn store(dir: &std::path::Path) -> (SessionManager, Vec<String>) {
    let mut s = SessionManager::create(dir, "/work");
    let mut ids = Vec::new();
    for m in [
        AgentMessage::User(UserMessage::text("first")),
        assistant("one"),
        AgentMessage::User(UserMessage {
            content: UserContent::Blocks(vec![
                ContentBlock::text("sec"),
                ContentBlock::text("ond"),
            ]),
            timestamp: 1,
        }),
        assistant("two"),
    ] {
        ids.push(s.append_message(m).expect("append").id.clone());
    }
    s.branch(&ids[1]).expect("branch");
    let u3 = s
        .append_message(AgentMessage::User(UserMessage::text("abandoned")))
        .expect("append")
        .id
        .clone();
    ids.push(u3);
    s.branch(&ids[3]).expect("back to a2");
    (s, ids)
}

fn session_on(
    store: SessionManager,
    extensions: Vec<rho_extension_host::Extension>,
) -> AgentSession {
    let provider = ScriptedProvider::new();
    let mut c = config(&provider);
    c.session = store;
    c.extensions = extensions;
    AgentSession::new(c)
}

fn roles_and_texts(s: &AgentSession) -> Vec<String> {
    s.messages()
        .iter()
        .map(|m| match m {
            AgentMessage::User(u) => format!("user:{}", u.content.text()),
            AgentMessage::Assistant(a) => format!("assistant:{}", a.text()),
            other => other.role().to_string(),
        })
        .collect()
}

#[tokio::test]
async fn fork_candidates_are_every_user_message_of_the_file_in_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, ids) = store(dir.path());
    let s = session_on(store, vec![]);
    assert_eq!(
        s.fork_candidates(),
        [
            ForkCandidate {
                entry_id: ids[0].clone(),
                text: "first".into()
            },
            ForkCandidate {
                entry_id: ids[2].clone(),
                text: "second".into()
            },
            ForkCandidate {
                entry_id: ids[4].clone(),
                text: "abandoned".into()
            },
        ]
    );
}

#[tokio::test]
async fn fork_switches_to_a_new_file_holding_the_path_before_the_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, ids) = store(dir.path());
    let s = session_on(store, vec![]);
    let original = s.with_session(|m| m.path().map(|p| p.to_path_buf()).expect("file"));
    let outcome = s.fork(&ids[2]).await.expect("forks");
    assert!(!outcome.cancelled);
    assert_eq!(outcome.selected_text, "second");
    let path = outcome.path.expect("new file");
    assert_ne!(path, original);
    assert_eq!(
        s.with_session(|m| m.path().map(|p| p.to_path_buf())),
        Some(path.clone())
    );
    assert_eq!(roles_and_texts(&s), ["user:first", "assistant:one"]);
    let file = SessionManager::open(&path).expect("written");
    assert_eq!(
        file.header().parent_session.as_deref(),
        Some(original.to_string_lossy().as_ref())
    );
    let kept: Vec<&str> = file.entries().iter().map(|e| e.id.as_str()).collect();
    assert_eq!(kept, [ids[0].as_str(), ids[1].as_str()]);
}

#[tokio::test]
async fn forking_a_root_message_starts_an_empty_session_naming_its_parent() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, ids) = store(dir.path());
    let s = session_on(store, vec![]);
    let original = s.with_session(|m| m.path().map(|p| p.to_string_lossy().into_owned()));
    let outcome = s.fork(&ids[0]).await.expect("forks");
    assert_eq!(outcome.selected_text, "first");
    assert!(s.messages().is_empty());
    assert!(s.with_session(|m| m.entries().is_empty()));
    assert_eq!(
        s.with_session(|m| m.header().parent_session.clone()),
        original
    );
}

#[tokio::test]
async fn fork_refuses_non_user_entries_and_in_memory_sessions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, ids) = store(dir.path());
    let s = session_on(store, vec![]);
    for entry in [ids[1].as_str(), "nope"] {
        let refused = s.fork(entry).await;
        assert!(
            matches!(refused, Err(SessionError::InvalidForkEntry)),
            "{refused:?}"
        );
    }
    let mut memory = SessionManager::in_memory("/work");
    let u = memory
        .append_message(AgentMessage::User(UserMessage::text("x")))
        .expect("append")
        .id
        .clone();
    let m = session_on(memory, vec![]);
    let err = m.fork(&u).await.expect_err("in memory");
    assert_eq!(
        err.to_string(),
        "Cannot fork an in-memory session (started with --no-session)"
    );
}

#[tokio::test]
async fn ext_4_session_before_fork_cancel_keeps_the_session() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, ids) = store(dir.path());
    let seen: Log = Default::default();
    let seen2 = seen.clone();
    let ext = extension_on("a", "session_before_fork", move |e, _| {
        seen2
            .lock()
            .expect("lock")
            .push(serde_json::to_value(&e).expect("json").to_string());
        Ok(Some(json!({"cancel": true})))
    });
    let s = session_on(store, vec![ext]);
    let before = s.with_session(|m| m.path().map(|p| p.to_path_buf()));
    let outcome = s.fork(&ids[2]).await.expect("resolves");
    assert!(outcome.cancelled);
    assert_eq!(outcome.path, None);
    assert_eq!(
        s.with_session(|m| m.path().map(|p| p.to_path_buf())),
        before
    );
    assert_eq!(roles_and_texts(&s).len(), 4);
    let clone = s.clone_session().await.expect("resolves");
    assert!(clone.cancelled);
    let seen = seen.lock().expect("lock").clone();
    let seen: Vec<serde_json::Value> = seen
        .iter()
        .map(|t| serde_json::from_str(t).expect("json"))
        .collect();
    assert_eq!(
        seen,
        [
            json!({"type": "session_before_fork", "entryId": ids[2], "position": "before"}),
            json!({"type": "session_before_fork", "entryId": ids[3], "position": "at"}),
        ]
    );
}

#[tokio::test]
async fn clone_copies_the_current_branch_into_a_new_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, ids) = store(dir.path());
    let s = session_on(store, vec![]);
    let outcome = s.clone_session().await.expect("clones");
    assert!(!outcome.cancelled);
    assert_eq!(outcome.selected_text, "");
    let file = SessionManager::open(&outcome.path.expect("file")).expect("written");
    let kept: Vec<&str> = file.entries().iter().map(|e| e.id.as_str()).collect();
    assert_eq!(
        kept,
        ids[..4].iter().map(String::as_str).collect::<Vec<_>>()
    );
    assert_eq!(roles_and_texts(&s).len(), 4);
    let empty = session_on(SessionManager::create(dir.path(), "/work"), vec![]);
    let refused = empty.clone_session().await;
    assert!(
        matches!(refused, Err(SessionError::NothingToClone)),
        "{refused:?}"
    );
}
