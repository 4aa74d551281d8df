//! Every load error path: not a session, a corrupt middle line (named by number), a torn last
//! line (dropped with a warning, then cut off before the next append), and that a failed load
//! never changes the file.

use std::path::{Path, PathBuf};

use rho_agent::AgentMessage;
use rho_ai::UserMessage;
use rho_core::session::{load_file, SessionError, SessionManager};

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
    assert!(matches!(err, SessionError::NotASession { .. }), "{err:?}");
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
        Err(SessionError::NotASession { .. })
    ));
}

#[test]
fn corrupt_middle_line_names_file_and_line_and_changes_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = fixture_copy("corrupt_middle.jsonl", dir.path());
    let before = std::fs::read(&path).expect("read");
    let err = SessionManager::open(&path).expect_err("must fail");
    match &err {
        SessionError::Corrupt { path: p, line, .. } => {
            assert_eq!(p, &path);
            assert_eq!(*line, 6);
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
    assert!(
        err.to_string()
            .starts_with(&format!("{}:6: corrupt session entry", path.display())),
        "{err}"
    );
    assert_eq!(std::fs::read(&path).expect("read"), before);
}

#[test]
fn invalid_complete_last_line_is_corruption_not_a_torn_write() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = fixture_copy("compacted.jsonl", dir.path());
    let mut text = std::fs::read_to_string(&path).expect("read");
    text.push_str("{\"type\":\"label\",\"id\":\"zz\",\"parentId\":null}\n");
    std::fs::write(&path, &text).expect("write");
    let err = load_file(&path).expect_err("a whole bad line is not torn");
    assert!(
        matches!(err, SessionError::Corrupt { line: 13, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("label entry lacks \"targetId\""),
        "{err}"
    );
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
        matches!(err, SessionError::Corrupt { line: 6, .. }),
        "{err:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        text,
        "no migration written"
    );
}

#[test]
fn torn_last_line_is_dropped_with_a_warning_then_cut_before_appending() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = fixture_copy("torn_tail.jsonl", dir.path());
    let mut session = SessionManager::open(&path).expect("a torn tail still loads");
    assert_eq!(session.entries().len(), 5);
    let warnings = session.warnings();
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].line, 7);
    assert!(warnings[0]
        .to_string()
        .contains("torn_tail.jsonl:7: dropped an incomplete last line"));
    assert_eq!(session.leaf_id(), Some("c0000005"));

    let id = session
        .append_message(user("after the crash"))
        .expect("append")
        .id
        .clone();
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(!text.contains("\"tor"), "the torn bytes are gone");
    assert!(text.ends_with("}\n"));
    let again = SessionManager::open(&path).expect("reload");
    assert!(again.warnings().is_empty());
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
        Err(SessionError::UnknownEntry { .. })
    ));
    let dir = tempfile::tempdir().expect("temp dir");
    let err = rho_core::session::find_session("zzz", dir.path(), dir.path()).expect_err("no match");
    assert_eq!(err.to_string(), "No session found matching 'zzz'");
    let err = load_file(&dir.path().join("missing.jsonl")).expect_err("missing file");
    assert!(matches!(err, SessionError::Io { .. }));
}
