//! Every load error path: not a session, a corrupt middle line (skipped, named by number), a
//! parent cycle (broken, reported), a torn last line (skipped with a warning, kept in the file
//! and closed by the next append's newline), and that a failed load never changes the file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use rho_protocol::agent::AgentMessage;
use rho_protocol::UserMessage;
use rho_session::{load_file, SessionManager, StoreError};

fn fixture_copy(name: &str, dir: &Path) -> PathBuf {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let path = dir.join(name);
    std::fs::copy(src, &path).expect("copy fixture");
    path
}

fn user(text: &str) -> AgentMessage {
    AgentMessage::User(UserMessage::text(text))
}

#[test]
fn not_a_session_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = fixture_copy("not_a_session.jsonl", dir.path());
    let before = std::fs::read(&path).expect("read");
    let err = SessionManager::open(&path).expect_err("must refuse");
    assert!(matches!(err, StoreError::NotASession { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains(&path.display().to_string()) && text.contains("line 1"),
        "{text}"
    );
    assert_eq!(std::fs::read(&path).expect("read"), before);

    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "\n\n").expect("write");
    let err = load_file(&empty).expect_err("empty is not a session");
    assert!(err.to_string().contains("empty"), "{err}");

    let garbage = dir.path().join("garbage.jsonl");
    std::fs::write(&garbage, "PK\u{3}\u{4} zip bytes\n").expect("write");
    assert!(matches!(
        load_file(&garbage),
        Err(StoreError::NotASession { .. })
    ));
}

#[test]
fn corrupt_middle_line_is_skipped_with_a_warning_and_kept_verbatim() {
    // Issue 17 #4: one bad line in the middle used to make the whole session unopenable.
    let dir = tempfile::tempdir().expect("temp dir");
    let path = fixture_copy("corrupt_middle.jsonl", dir.path());
    let before = std::fs::read_to_string(&path).expect("read");
    let bad_line = before.lines().nth(5).expect("line 6").to_string();
    let mut session = SessionManager::open(&path).expect("the rest of the file loads");
    let warnings = session.warnings().to_vec();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(
        (warnings[0].path.as_path(), warnings[0].line),
        (path.as_path(), 6)
    );
    assert!(
        warnings[0].to_string().starts_with(&format!(
            "{}:6: skipped a line that is not a valid session entry",
            path.display()
        )),
        "{}",
        warnings[0]
    );
    let valid = before.lines().count() - 2; // the header and the bad line
    assert_eq!(session.entries().len(), valid);
    assert_eq!(std::fs::read_to_string(&path).expect("read"), before);
    session
        .append_message(user("after the damage"))
        .expect("append");
    let after = std::fs::read_to_string(&path).expect("read");
    assert!(
        after.starts_with(&before),
        "nothing before the append changed"
    );
    assert_eq!(after.lines().nth(5), Some(bad_line.as_str()));
    let reopened = SessionManager::open(&path).expect("reopen");
    assert_eq!(reopened.entries().len(), valid + 1);
}

#[test]
fn invalid_complete_last_line_is_skipped_not_cut_like_a_torn_write() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = fixture_copy("compacted.jsonl", dir.path());
    let mut text = std::fs::read_to_string(&path).expect("read");
    text.push_str("{\"type\":\"label\",\"id\":\"zz\",\"parentId\":null}\n");
    std::fs::write(&path, &text).expect("write");
    let mut session = SessionManager::open(&path).expect("loads");
    let warnings = session.warnings();
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].line, 13);
    assert!(
        warnings[0]
            .to_string()
            .contains("label entry lacks \"targetId\""),
        "{}",
        warnings[0]
    );
    session.append_message(user("next")).expect("append");
    let after = std::fs::read_to_string(&path).expect("read");
    assert!(after.starts_with(&text), "the whole bad line stays");
}

#[test]
fn parent_cycle_is_broken_at_the_oldest_edge_and_reported() {
    // Issue 17 #4: a cycle used to send duplicated messages to the model.
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("cycle.jsonl");
    let msg = |id: &str, parent: &str, ts: u64, text: &str| {
        serde_json::json!({"type": "message", "id": id, "parentId": parent,
            "timestamp": "2026-01-01T00:00:00.000Z",
            "message": {"role": "user", "content": text, "timestamp": ts}})
        .to_string()
    };
    let header = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;
    // a1 (oldest) names a3 as its parent: a1 -> a3 -> a2 -> a1.
    let text = [
        header.to_string(),
        msg("a1", "a3", 1, "one"),
        msg("a2", "a1", 2, "two"),
        msg("a3", "a2", 3, "three"),
    ]
    .join("\n")
        + "\n";
    std::fs::write(&path, &text).expect("write");
    let session = SessionManager::open(&path).expect("loads");
    let warnings = session.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].line, 2);
    assert!(
        warnings[0]
            .message
            .contains("parent cycle of 3 entries: ignored the parent a3 of entry a1"),
        "{}",
        warnings[0]
    );
    let texts: Vec<String> = session
        .build_context()
        .messages
        .iter()
        .map(|m| serde_json::to_value(m).expect("json")["content"].to_string())
        .collect();
    assert_eq!(texts, ["\"one\"", "\"two\"", "\"three\""]);
    assert_eq!(std::fs::read_to_string(&path).expect("read"), text);
}

#[test]
fn old_version_file_with_corrupt_line_is_not_rewritten() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = fixture_copy("v1_legacy.jsonl", dir.path());
    let mut text = std::fs::read_to_string(&path).expect("read");
    text = text.replacen("\"summary\":\"Greetings", "\"summary\":Greetings", 1);
    std::fs::write(&path, &text).expect("write");
    let err = SessionManager::open(&path).expect_err("must fail");
    assert!(
        matches!(err, StoreError::Corrupt { line: 6, .. }),
        "{err:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        text,
        "no migration written"
    );
}

#[test]
fn torn_last_line_is_skipped_with_a_warning_and_kept_when_appending() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = fixture_copy("torn_tail.jsonl", dir.path());
    let before = std::fs::read(&path).expect("read");
    let mut session = SessionManager::open(&path).expect("a torn tail still loads");
    assert_eq!(session.entries().len(), 5);
    let warnings = session.warnings();
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].line, 7);
    assert!(warnings[0]
        .to_string()
        .contains("torn_tail.jsonl:7: incomplete last line (interrupted write?) not loaded"));
    assert_eq!(session.leaf_id(), Some("c0000005"));

    let id = session
        .append_message(user("after the crash"))
        .expect("append")
        .id
        .clone();
    let after = std::fs::read(&path).expect("read");
    assert!(
        after.starts_with(&before),
        "every byte written before stays"
    );
    assert_eq!(after[before.len()], b'\n', "the torn line is closed first");
    assert!(after.ends_with(b"}\n"));
    let again = SessionManager::open(&path).expect("reload");
    assert_eq!(
        again.warnings().len(),
        1,
        "the torn line is now a whole bad line"
    );
    assert_eq!(again.warnings()[0].line, 7);
    assert_eq!(again.entries().len(), 6);
    assert_eq!(again.leaf_id(), Some(id.as_str()));
    assert_eq!(again.entries()[5].parent_id.as_deref(), Some("c0000005"));
}

#[test]
fn valid_last_line_without_newline_gets_one_before_the_next_append() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = fixture_copy("compacted.jsonl", dir.path());
    let text = std::fs::read_to_string(&path).expect("read");
    std::fs::write(&path, text.trim_end()).expect("write");
    let mut session = SessionManager::open(&path).expect("loads");
    assert!(session.warnings().is_empty());
    assert_eq!(session.entries().len(), 11);
    session.append_message(user("next")).expect("append");
    let again = SessionManager::open(&path).expect("reload");
    assert_eq!(again.entries().len(), 12);
}

#[test]
fn operations_on_missing_entries_and_sessions_say_so() {
    let mut session = SessionManager::in_memory("/w");
    let err = session.branch("nope").expect_err("unknown");
    assert_eq!(err.to_string(), "entry 'nope' not found in this session");
    assert!(matches!(
        session.append_label("nope", Some("x")),
        Err(StoreError::UnknownEntry { .. })
    ));
    let dir = tempfile::tempdir().expect("temp dir");
    let err = rho_session::find_session("zzz", dir.path(), dir.path()).expect_err("no match");
    assert_eq!(err.to_string(), "No session found matching 'zzz'");
    let err = load_file(&dir.path().join("missing.jsonl")).expect_err("missing file");
    assert!(matches!(err, StoreError::Io { .. }));
}

#[test]
fn bytes_another_writer_added_after_loading_are_kept() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = fixture_copy("compacted.jsonl", dir.path());
    let mut session = SessionManager::open(&path).expect("loads");
    let mut other = std::fs::read(&path).expect("read");
    other.extend_from_slice(b"{\"type\":\"label\",\"id\":\"half");
    std::fs::write(&path, &other).expect("another writer appends");
    session.append_message(user("mine")).expect("append");
    let after = std::fs::read(&path).expect("read");
    assert!(after.starts_with(&other), "the other writer's bytes stay");
    assert_eq!(after[other.len()], b'\n', "and their line is closed first");
}
