//! Issue 17 #8: when the session file cannot be written the entries stay in memory, the
//! failure is reported once, and every later append writes all that is missing as soon as
//! the folder is usable again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_protocol::agent::AgentMessage;
use rho_protocol::{AssistantMessage, ContentBlock, UserMessage};
use rho_session::SessionManager;

fn user(text: &str) -> AgentMessage {
    AgentMessage::User(UserMessage::text(text))
}

fn assistant(text: &str) -> AgentMessage {
    let mut a = AssistantMessage::empty("openai-completions", "mock", "m1");
    a.content = vec![ContentBlock::text(text)];
    AgentMessage::Assistant(a)
}

fn count_messages(path: &std::path::Path) -> usize {
    std::fs::read_to_string(path)
        .expect("session file")
        .lines()
        .filter(|l| l.contains("\"type\":\"message\""))
        .count()
}

/// A sessions folder whose path runs through a file (unwritable even for root).
#[test]
fn entries_survive_an_unwritable_folder_and_are_written_once_it_is_fixed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let blocker = tmp.path().join("blocker");
    std::fs::write(&blocker, "a file where a folder should be").expect("blocker");
    let mut session = SessionManager::create(&blocker.join("sessions"), "/work");
    let path = session.path().expect("path").to_path_buf();

    session
        .append_message(user("q1"))
        .expect("buffered: no file yet");
    let err = session
        .append_message(assistant("a1"))
        .expect_err("cannot write");
    assert!(err.to_string().contains("blocker"), "names the path: {err}");
    assert_eq!(session.entries().len(), 2, "kept in memory");
    let first = session.take_new_save_failure().expect("reported");
    assert!(first.contains("blocker"), "{first}");
    assert!(session.append_message(user("q2")).is_err());
    assert_eq!(session.take_new_save_failure(), None, "reported once");
    assert_eq!(session.build_context().messages.len(), 3);

    std::fs::remove_file(&blocker).expect("unblock");
    session
        .append_message(assistant("a2"))
        .expect("written now");
    assert_eq!(count_messages(&path), 4, "nothing lost");
    let reopened = SessionManager::open(&path).expect("opens");
    assert_eq!(reopened.build_context().messages.len(), 4);
}

/// An existing file that cannot be opened for appending: the same holds.
#[test]
fn appends_to_an_existing_file_are_retried() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut session = SessionManager::create(tmp.path(), "/work");
    session.append_message(user("q1")).expect("buffered");
    session.append_message(assistant("a1")).expect("written");
    let path = session.path().expect("path").to_path_buf();
    drop(session);

    let mut session = SessionManager::open(&path).expect("opens");
    let aside = tmp.path().join("aside.jsonl");
    std::fs::rename(&path, &aside).expect("move away");
    std::fs::create_dir(&path).expect("a folder in its place");
    assert!(session.append_message(user("q2")).is_err());
    assert!(session.take_new_save_failure().is_some());
    assert!(session.append_message(assistant("a2")).is_err());
    std::fs::remove_dir(&path).expect("remove folder");
    std::fs::rename(&aside, &path).expect("move back");
    session.append_message(user("q3")).expect("written now");
    assert_eq!(
        count_messages(&path),
        5,
        "both unsaved entries and the new one"
    );
    let reopened = SessionManager::open(&path).expect("opens");
    assert_eq!(reopened.build_context().messages.len(), 5);
}
