//! The entry index beside a session file (`.<name>.idx`): a load after the first takes the
//! entries from it and finds exactly what a full load of the same bytes finds; a file changed
//! in any way other than an append is read whole, and a damaged index is ignored.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use rho_protocol::agent::AgentMessage;
use rho_protocol::{AssistantMessage, ContentBlock, UserContent, UserMessage};
use rho_session::{load_file, load_file_and_index, LoadedFile, SessionManager};

const FIXTURES: [&str; 3] = ["pi16_session.jsonl", "branched.jsonl", "compacted.jsonl"];

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn sidecar(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap().to_string_lossy();
    path.with_file_name(format!(".{name}.idx"))
}

/// Everything a load found, messages read back from the file included (paths left out).
fn found(loaded: &LoadedFile) -> String {
    let warnings: Vec<_> = loaded
        .warnings
        .iter()
        .map(|w| (w.line, w.message.clone()))
        .collect();
    format!(
        "{}\n{}\n{warnings:?} {} {}",
        serde_json::to_string(&loaded.header).unwrap(),
        serde_json::to_string(&loaded.entries).unwrap(),
        loaded.valid_len,
        loaded.needs_newline
    )
}

/// What a load of `path`'s bytes finds with no index: a copy in a folder of its own.
fn found_without_index(path: &Path) -> String {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.jsonl");
    std::fs::copy(path, &copy).unwrap();
    let loaded = load_file(&copy).unwrap();
    assert_eq!(loaded.indexed, 0);
    assert!(!sidecar(&copy).exists(), "a plain load writes nothing");
    found(&loaded)
}

fn session_in(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::copy(fixture(name), &path).unwrap();
    path
}

/// Appends `lines` to `path` as another writer would.
fn append_lines(path: &Path, lines: &[&str]) {
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    for line in lines {
        writeln!(file, "{line}").unwrap();
    }
}

fn set_modified(path: &Path, time: SystemTime) {
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.set_modified(time).unwrap();
}

#[test]
fn a_reopened_session_comes_from_its_index_and_finds_the_same() {
    let dir = tempfile::tempdir().unwrap();
    for name in FIXTURES {
        let path = session_in(dir.path(), name);
        let first = load_file_and_index(&path).unwrap();
        assert_eq!(first.indexed, 0, "{name}: nothing indexed yet");
        assert!(sidecar(&path).is_file(), "{name}: the index is written");
        let again = load_file_and_index(&path).unwrap();
        let len = std::fs::metadata(&path).unwrap().len();
        assert_eq!(again.indexed, len, "{name}: every entry from the index");
        assert_eq!(found(&again), found(&first), "{name}");
        assert_eq!(found(&again), found_without_index(&path), "{name}");
    }
}

#[cfg(unix)]
#[test]
fn the_index_is_private_as_the_session_is() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = session_in(dir.path(), FIXTURES[0]);
    load_file_and_index(&path).unwrap();
    let mode = std::fs::metadata(sidecar(&path))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}

/// A touched file (or a copy: another inode) is checked by its bytes and still uses the
/// index; lines appended after it are parsed and join the index for the next load.
#[test]
fn a_touched_file_is_checked_by_content_and_appended_lines_are_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let path = session_in(dir.path(), "compacted.jsonl");
    load_file_and_index(&path).unwrap();
    let indexed_len = std::fs::metadata(&path).unwrap().len();
    set_modified(
        &path,
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000),
    );
    assert_eq!(load_file_and_index(&path).unwrap().indexed, indexed_len);

    let loaded = load_file_and_index(&path).unwrap();
    let last = loaded.entries.last().unwrap().id.clone();
    append_lines(
        &path,
        &[
            &format!(
                r#"{{"type":"message","id":"d0000001","parentId":"{last}","timestamp":"2025-03-02T11:00:00.000Z","message":{{"role":"user","content":[{{"type":"text","text":"appended"}}],"timestamp":1}}}}"#
            ),
            r#"{"type":"label","id":"d0000002","parentId":"d0000001","timestamp":"2025-03-02T11:00:01.000Z","targetId":"d0000001","label":"later"}"#,
        ],
    );

    let appended = load_file_and_index(&path).unwrap();
    assert_eq!(appended.indexed, indexed_len, "only the new lines parsed");
    assert_eq!(appended.entries.len(), loaded.entries.len() + 2);
    assert_eq!(found(&appended), found_without_index(&path));
    let len = std::fs::metadata(&path).unwrap().len();
    assert_eq!(
        load_file_and_index(&path).unwrap().indexed,
        len,
        "the index grew"
    );
}

/// Lines appended since are added to the index where it is, not by writing it again: it keeps
/// its inode, and holds exactly what an index written from scratch for the grown file holds.
/// Appending twice in a row works from the extended index.
#[cfg(unix)]
#[test]
fn appended_lines_extend_the_index_in_place() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let path = session_in(dir.path(), "branched.jsonl");
    let loaded = load_file_and_index(&path).unwrap();
    let inode = std::fs::metadata(sidecar(&path)).unwrap().ino();
    let mut parent = loaded.entries.last().unwrap().id.clone();
    for round in 0..2 {
        for n in 0..3 {
            let id = format!("e{round}{n:06}");
            append_lines(
                &path,
                &[&format!(
                    r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2025-03-02T11:00:00.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"more {n}"}}],"api":"anthropic-messages","provider":"anthropic","model":"m","usage":{{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}},"stopReason":"stop","timestamp":1}}}}"#
                )],
            );
            parent = id;
        }
        let before = std::fs::metadata(&path).unwrap().len();
        assert!(load_file_and_index(&path).unwrap().indexed < before);
        assert_eq!(
            std::fs::metadata(sidecar(&path)).unwrap().ino(),
            inode,
            "round {round}: extended, not replaced"
        );
        let reloaded = load_file_and_index(&path).unwrap();
        assert_eq!(
            reloaded.indexed, before,
            "round {round}: all from the index"
        );
        assert_eq!(found(&reloaded), found_without_index(&path));
    }
    let extended = std::fs::read(sidecar(&path)).unwrap();
    std::fs::remove_file(sidecar(&path)).unwrap();
    load_file_and_index(&path).unwrap();
    let fresh = std::fs::read(sidecar(&path)).unwrap();
    let stamp = 20..44;
    assert_eq!(extended.len(), fresh.len());
    assert_eq!(extended[..stamp.start], fresh[..stamp.start]);
    assert_eq!(extended[stamp.end..], fresh[stamp.end..]);
}

fn user(text: &str) -> AgentMessage {
    AgentMessage::User(UserMessage {
        content: UserContent::Blocks(vec![ContentBlock::text(text)]),
        timestamp: 1,
    })
}

fn assistant(text: &str) -> AgentMessage {
    let mut a = AssistantMessage::empty("openai-responses", "openai", "gpt-5");
    a.content = vec![ContentBlock::text(text)];
    AgentMessage::Assistant(a)
}

/// Appends a label of `target` to `path` as another process would, past the session's back.
fn label_from_another_writer(path: &Path, target: &str) {
    append_lines(
        path,
        &[&format!(
            r#"{{"type":"label","id":"f0000001","parentId":"{target}","timestamp":"2025-03-02T11:00:01.000Z","targetId":"{target}","label":"elsewhere"}}"#
        )],
    );
}

/// What a session appends to its own file it also adds to the index, so the next open takes
/// every entry from the index (nothing parsed) and finds what a full load finds, messages
/// read back included. Once another process has appended too, the session stops keeping the
/// index, and the next open parses what the index does not cover.
#[test]
fn a_session_keeps_its_index_current_as_it_appends() {
    let dir = tempfile::tempdir().unwrap();
    let path = session_in(dir.path(), "compacted.jsonl");
    let mut session = SessionManager::open(&path).unwrap();
    session.append_message(user("kept in the index")).unwrap();
    session.append_message(assistant("also kept")).unwrap();
    session.append_session_info("renamed").unwrap();
    drop(session);
    let meta = std::fs::metadata(&path).unwrap();
    let len = meta.len();
    let index = std::fs::read(sidecar(&path)).unwrap();
    assert_eq!(
        index[20..28],
        len.to_le_bytes(),
        "stamped with the grown length"
    );
    let modified = meta
        .modified()
        .unwrap()
        .duration_since(SystemTime::UNIX_EPOCH);
    let modified = modified.unwrap().as_nanos() as u64;
    assert_eq!(
        index[28..36],
        modified.to_le_bytes(),
        "and modification time"
    );
    let reopened = load_file_and_index(&path).unwrap();
    assert_eq!(reopened.indexed, len, "every entry from the index");
    assert_eq!(found(&reopened), found_without_index(&path));

    let mut session = SessionManager::open(&path).unwrap();
    label_from_another_writer(&path, session.leaf_id().unwrap());
    session
        .append_message(user("after the other writer"))
        .unwrap();
    drop(session);
    let reopened = load_file_and_index(&path).unwrap();
    assert_eq!(
        reopened.indexed, len,
        "the other writer's line and after: parsed"
    );
    assert_eq!(found(&reopened), found_without_index(&path));
    let len = std::fs::metadata(&path).unwrap().len();
    assert_eq!(load_file_and_index(&path).unwrap().indexed, len);
}

/// Another writer appending between two of the session's own appends: the session's next
/// line lands after the other's, the index stops at what it knew, and the next open parses
/// the rest and finds what a full load finds.
#[test]
fn a_line_appended_by_another_writer_between_the_sessions_own_is_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let path = session_in(dir.path(), "compacted.jsonl");
    let mut session = SessionManager::open(&path).unwrap();
    session.append_message(user("first")).unwrap();
    label_from_another_writer(&path, session.leaf_id().unwrap());
    session
        .append_message(assistant("after the other writer"))
        .unwrap();
    let message = session.build_context().messages.pop().unwrap();
    assert!(message.release());
    assert!(message.get().is_ok(), "read back from where it landed");
    drop(session);
    let reopened = load_file_and_index(&path).unwrap();
    assert!(reopened.indexed < std::fs::metadata(&path).unwrap().len());
    assert_eq!(found(&reopened), found_without_index(&path));
}

/// A file rewritten in place (one parent id changed, same length, another modification
/// time) no longer starts with the indexed bytes: it is read whole.
#[test]
fn a_file_rewritten_in_place_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = session_in(dir.path(), "branched.jsonl");
    let before = load_file_and_index(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let child = &before.entries[3];
    let old = format!(r#""parentId":"{}""#, child.parent_id.as_deref().unwrap());
    let new = format!(r#""parentId":"{}""#, before.entries[0].id);
    assert_eq!(old.len(), new.len());
    let at = text.find(&format!(r#""id":"{}""#, child.id)).unwrap();
    let rewritten = format!("{}{}", &text[..at], text[at..].replacen(&old, &new, 1));
    std::fs::write(&path, rewritten).unwrap();
    set_modified(
        &path,
        SystemTime::UNIX_EPOCH + Duration::from_secs(2_000_000),
    );

    let after = load_file_and_index(&path).unwrap();
    assert_eq!(after.indexed, 0);
    assert_eq!(
        after.entries[3].parent_id.as_deref(),
        Some(before.entries[0].id.as_str())
    );
    assert_eq!(found(&after), found_without_index(&path));
}

#[test]
fn a_damaged_index_is_ignored_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let path = session_in(dir.path(), FIXTURES[0]);
    let first = load_file_and_index(&path).unwrap();
    let mut index = std::fs::read(sidecar(&path)).unwrap();
    let middle = index.len() / 2;
    index[middle] ^= 0x01;
    std::fs::write(sidecar(&path), &index).unwrap();
    let damaged = load_file_and_index(&path).unwrap();
    assert_eq!(damaged.indexed, 0);
    assert_eq!(found(&damaged), found(&first));
    assert!(
        load_file_and_index(&path).unwrap().indexed > 0,
        "written anew"
    );
}

/// A load with warnings (here a torn last line) leaves no index: the next load reports them
/// again exactly.
#[test]
fn a_file_with_warnings_gets_no_index() {
    let dir = tempfile::tempdir().unwrap();
    let path = session_in(dir.path(), "torn_tail.jsonl");
    let first = load_file_and_index(&path).unwrap();
    assert!(!first.warnings.is_empty());
    assert!(!sidecar(&path).exists());
    assert_eq!(found(&load_file_and_index(&path).unwrap()), found(&first));
}

#[test]
fn deleting_the_index_of_a_session_leaves_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let path = session_in(dir.path(), FIXTURES[0]);
    load_file_and_index(&path).unwrap();
    rho_session::remove_index(&path);
    assert!(!sidecar(&path).exists());
    assert!(path.is_file());
}

/// A session of no entries yet (blank lines before its header) is indexed too, and entries
/// appended later get their own line numbers.
#[test]
fn a_session_of_no_entries_grows_from_its_index() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.jsonl");
    let header = r#"{"type":"session","version":3,"id":"e","timestamp":"2025-03-02T10:00:00.000Z","cwd":"/tmp"}"#;
    std::fs::write(&path, format!("\n\n{header}\n")).unwrap();
    assert!(load_file_and_index(&path).unwrap().entries.is_empty());
    let len = std::fs::metadata(&path).unwrap().len();
    assert_eq!(load_file_and_index(&path).unwrap().indexed, len);
    append_lines(
        &path,
        &[
            r#"{"type":"message","#,
            r#"{"type":"label","id":"l1","parentId":null,"timestamp":"t","targetId":"x","label":"a"}"#,
        ],
    );
    let grown = load_file_and_index(&path).unwrap();
    assert_eq!(grown.indexed, len);
    assert_eq!(grown.warnings.len(), 1);
    assert_eq!(grown.warnings[0].line, 4, "{:?}", grown.warnings);
    assert_eq!(found(&grown), found_without_index(&path));
}

/// An appended entry can close a parent cycle with indexed ones (an indexed entry whose
/// parent was missing): it is found and broken as a full load does.
#[test]
fn a_cycle_closed_by_an_appended_entry_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cycle.jsonl");
    let header = r#"{"type":"session","version":3,"id":"c","timestamp":"2025-03-02T10:00:00.000Z","cwd":"/tmp"}"#;
    let dangling =
        r#"{"type":"label","id":"a1","parentId":"z9","timestamp":"t","targetId":"a1","label":"x"}"#;
    std::fs::write(&path, format!("{header}\n{dangling}\n")).unwrap();
    assert!(load_file_and_index(&path).unwrap().warnings.is_empty());
    append_lines(
        &path,
        &[
            r#"{"type":"label","id":"z9","parentId":"a1","timestamp":"t","targetId":"a1","label":"y"}"#,
        ],
    );
    let loaded = load_file_and_index(&path).unwrap();
    assert!(loaded.indexed > 0);
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    assert!(loaded.warnings[0].message.starts_with("parent cycle"));
    assert_eq!(found(&loaded), found_without_index(&path));
}
