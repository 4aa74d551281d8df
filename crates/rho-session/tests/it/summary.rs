//! The leaf summary beside a session file (`.<name>.sum`): a session reopened from it answers
//! start-up (branch state, context, name, leaf) exactly as the session loaded whole does,
//! without making its entry tree; appends keep it current where they can, and anything it
//! cannot follow (another writer, a moved leaf, a compaction, a cut file, a lost or damaged
//! sidecar) means a whole load, as before.

use std::io::Write;
use std::path::{Path, PathBuf};

use rho_protocol::agent::AgentMessage;
use rho_protocol::{AssistantMessage, ContentBlock, UserContent, UserMessage};
use rho_session::{CompactionData, SessionManager};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn summary_of(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap().to_string_lossy();
    path.with_file_name(format!(".{name}.sum"))
}

/// The fixtures' lines that load without a warning (the branched fixture's unknown entry is
/// left out: a warning means no summary).
fn clean_lines(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(fixture(name)).unwrap();
    text.lines()
        .filter(|l| !l.contains("future_marker"))
        .map(str::to_string)
        .collect()
}

/// Everything start-up and `get_state` ask of a session, messages decoded.
fn answers(session: &SessionManager) -> String {
    let context = session.build_context();
    let roles: Vec<&str> = context.messages.iter().map(|m| m.role()).collect();
    format!(
        "{:?}\n{:?}\n{:?} {:?}\n{:?}\n{roles:?}\n{:?} {:?} {}",
        session.branch_state(),
        context.owned_messages(),
        context.thinking_level,
        context.has_thinking_level_change,
        context.model,
        session.name(),
        session.leaf_id(),
        session.header().id,
    )
}

/// What a session opened whole from `path`'s bytes answers (a copy with no sidecar).
fn answers_loaded_whole(path: &Path) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.jsonl");
    std::fs::copy(path, &copy).unwrap();
    let session = SessionManager::open(&copy).unwrap();
    assert!(session.is_tree_made(), "a first open loads the file whole");
    (answers(&session), entries_of(&session))
}

fn entries_of(session: &SessionManager) -> String {
    serde_json::to_string(session.entries()).unwrap()
}

/// Reopens `path` and checks that it came from the summary (no tree made for the answers)
/// and answers as a whole load of the same bytes; then that the tree made on demand holds
/// the same entries, its message cells shared with the context.
fn reopens_from_summary(path: &Path, at: &str) {
    let (expected, entries) = answers_loaded_whole(path);
    let session = SessionManager::open(path).unwrap();
    let found = answers(&session);
    assert!(!session.is_tree_made(), "{at}: opened from the summary");
    assert_eq!(found, expected, "{at}");
    let context = session.build_context();
    assert_eq!(entries_of(&session), entries, "{at}: the tree made later");
    assert!(session.is_tree_made());
    for cell in &context.messages {
        let Some(origin) = cell.origin() else {
            continue;
        };
        let shared = session.entries().iter().any(|e| {
            e.stored_message().is_some_and(|m| {
                m.ptr_eq(cell) && m.origin().map(|o| o.offset()) == Some(origin.offset())
            })
        });
        assert!(
            shared,
            "{at}: the context's cell at {} is its entry's",
            origin.offset()
        );
    }
}

/// At every entry of the fixtures as the file's last (the leaf a reopened session starts
/// at), the summary answers what the whole load answers: compactions, branch summaries,
/// custom messages, context edits (an omitting one; a replacing one means no summary), model
/// and thinking changes, names.
#[test]
fn the_summary_answers_as_the_whole_load_at_every_leaf_of_the_fixtures() {
    let mut summarized = 0;
    for name in ["pi16_session.jsonl", "compacted.jsonl", "branched.jsonl"] {
        let lines = clean_lines(name);
        for end in 1..=lines.len() {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("s.jsonl");
            std::fs::write(&path, lines[..end].join("\n") + "\n").unwrap();
            SessionManager::open(&path).unwrap();
            let at = format!("{name} up to line {end}");
            if !summary_of(&path).exists() {
                let (expected, _) = answers_loaded_whole(&path);
                assert_eq!(
                    answers(&SessionManager::open(&path).unwrap()),
                    expected,
                    "{at}"
                );
                continue;
            }
            reopens_from_summary(&path, &at);
            summarized += 1;
        }
    }
    assert!(summarized > 40, "most leaves have a summary ({summarized})");
}

fn user(text: &str) -> AgentMessage {
    AgentMessage::User(UserMessage {
        content: UserContent::Text(text.into()),
        timestamp: 1,
    })
}

fn assistant(text: &str, model: &str) -> AgentMessage {
    let mut a = AssistantMessage::empty("anthropic-messages", "anthropic", model);
    a.content = vec![ContentBlock::text(text)];
    AgentMessage::Assistant(a)
}

/// A fixture copied to a folder of its own and opened once (which writes index and summary).
fn opened_once(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::copy(fixture(name), &path).unwrap();
    SessionManager::open(&path).unwrap();
    assert!(summary_of(&path).exists(), "{name} gets a summary");
    (dir, path)
}

/// Every kind of entry a session appends at its leaf keeps the summary current, from a
/// session opened whole and from one opened from the summary (whose appends make the tree
/// first).
#[test]
fn appends_at_the_leaf_keep_the_summary_current() {
    let (_dir, path) = opened_once("compacted.jsonl");
    for round in 0..2 {
        if round == 0 {
            std::fs::remove_file(summary_of(&path)).unwrap();
        }
        let mut session = SessionManager::open(&path).unwrap();
        assert_eq!(session.is_tree_made(), round == 0, "round {round}");
        session.append_message(user("more")).unwrap();
        session
            .append_message(assistant("done", "claude-opus"))
            .unwrap();
        session.append_thinking_level_change("high").unwrap();
        session.append_model_change("openai", "gpt-5").unwrap();
        session.append_session_info("renamed").unwrap();
        let leaf = session.leaf_id().unwrap().to_string();
        session.append_label(&leaf, Some("here")).unwrap();
        session
            .append_custom_message("note", UserContent::Text("remember".into()), true, None)
            .unwrap();
        session.append_custom("state", None).unwrap();
        let leaf = session.leaf_id().unwrap().to_string();
        session
            .branch_with_summary(Some(&leaf), "what happened", None, None)
            .unwrap();
        drop(session);
        reopens_from_summary(&path, &format!("after round {round}"));
    }
}

/// Appends the summary cannot follow leave it describing older bytes: the next open loads
/// the session whole (answering right), writes it again, and the open after that uses it.
#[test]
fn a_moved_leaf_a_compaction_or_an_edit_means_one_whole_load() {
    type Change = fn(&mut SessionManager);
    let changes: [(&str, Change); 3] = [
        ("a moved leaf", |s| {
            let first = s.entries()[2].id.clone();
            s.branch(&first).unwrap();
            s.append_message(user("elsewhere")).unwrap();
        }),
        ("a compaction", |s| {
            let kept = s.entries()[3].id.clone();
            s.append_compaction(CompactionData {
                summary: "so far".into(),
                first_kept_entry_id: kept,
                tokens_before: 10,
                details: None,
                from_hook: None,
                usage: None,
                system_message: None,
            })
            .unwrap();
            s.append_message(user("after")).unwrap();
        }),
        ("a replacing edit", |s| {
            let target = s.entries()[3].id.clone();
            s.append_context_edit(&target, Some(UserContent::Text("edited".into())))
                .unwrap();
        }),
    ];
    for (what, change) in changes {
        let (_dir, path) = opened_once("compacted.jsonl");
        let mut session = SessionManager::open(&path).unwrap();
        change(&mut session);
        drop(session);
        let (expected, _) = answers_loaded_whole(&path);
        let session = SessionManager::open(&path).unwrap();
        assert_eq!(answers(&session), expected, "{what}");
        assert!(session.is_tree_made(), "{what}: loaded whole");
        if what != "a replacing edit" {
            reopens_from_summary(&path, &format!("{what}, opened again"));
        }
    }
}

/// Lines another writer appends, a file cut short or a torn last line, a lost or damaged
/// summary, an old index: each is a whole load that finds what a load without sidecars finds.
#[test]
fn another_writer_a_cut_file_or_damaged_sidecars_mean_a_whole_load() {
    type Change = fn(&Path);
    let changes: [(&str, Change); 5] = [
        ("another writer's append", |p| {
            let mut file = std::fs::OpenOptions::new().append(true).open(p).unwrap();
            writeln!(
                file,
                r#"{{"type":"session_info","id":"e0000001","parentId":"c0000011","timestamp":"2025-03-02T11:00:00.000Z","name":"theirs"}}"#
            )
            .unwrap();
        }),
        ("a torn last line", |p| {
            let mut file = std::fs::OpenOptions::new().append(true).open(p).unwrap();
            write!(file, r#"{{"type":"message","id":"e0"#).unwrap();
        }),
        ("a file cut short", |p| {
            let text = std::fs::read_to_string(p).unwrap();
            let cut = text.trim_end().rfind('\n').unwrap() + 1;
            std::fs::write(p, &text[..cut]).unwrap();
        }),
        ("a damaged summary", |p| {
            let sum = summary_of(p);
            let mut bytes = std::fs::read(&sum).unwrap();
            let last = bytes.len() - 1;
            bytes[last] ^= 1;
            std::fs::write(&sum, bytes).unwrap();
        }),
        ("an index of another format", |p| {
            let name = p.file_name().unwrap().to_string_lossy();
            let idx = p.with_file_name(format!(".{name}.idx"));
            let mut bytes = std::fs::read(&idx).unwrap();
            bytes[18] = b'1';
            std::fs::write(&idx, bytes).unwrap();
        }),
    ];
    for (what, change) in changes {
        let (_dir, path) = opened_once("compacted.jsonl");
        change(&path);
        let (expected, entries) = answers_loaded_whole(&path);
        let session = SessionManager::open(&path).unwrap();
        assert_eq!(answers(&session), expected, "{what}");
        assert!(session.is_tree_made(), "{what}: loaded whole");
        assert_eq!(entries_of(&session), entries, "{what}");
    }
}

/// A session opened from its summary and appended to before anything read its entries: the
/// new entry's parent is the summary's leaf, and the file then loads as it should.
#[test]
fn an_append_right_after_opening_from_the_summary_continues_the_leaf() {
    let (_dir, path) = opened_once("pi16_session.jsonl");
    let mut session = SessionManager::open(&path).unwrap();
    assert!(!session.is_tree_made());
    let leaf = session.leaf_id().map(str::to_string);
    let parent = session
        .append_message(user("go on"))
        .unwrap()
        .parent_id
        .clone();
    assert_eq!(parent, leaf);
    drop(session);
    let (expected, _) = answers_loaded_whole(&path);
    assert_eq!(answers(&SessionManager::open(&path).unwrap()), expected);
}

/// A long context from the summary is the one a whole load makes, its cells shared with the
/// tree made later; made before anyone asks for the context, the tree answers as the whole
/// load too.
#[test]
fn a_long_context_answers_as_the_whole_load_with_the_tree_made_before_or_after() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.jsonl");
    let mut session = SessionManager::create_at(&path, "/work");
    for i in 0..2_500 {
        session
            .append_message(user(&format!("question {i}")))
            .unwrap();
        let answer = assistant(&format!("answer {i}"), "claude-opus");
        session.append_message(answer).unwrap();
    }
    drop(session);
    SessionManager::open(&path).unwrap();
    reopens_from_summary(&path, "5,000 messages");
    let (expected, entries) = answers_loaded_whole(&path);
    let session = SessionManager::open(&path).unwrap();
    assert!(!session.is_tree_made());
    assert_eq!(entries_of(&session), entries, "the tree made first");
    assert_eq!(answers(&session), expected, "then the answers");

    // The context's cells are made together, yet each is its own message.
    let context = SessionManager::open(&path)
        .unwrap()
        .build_context()
        .messages;
    assert_eq!(context.len(), 5_000);
    for pair in context.windows(2) {
        assert!(!pair[0].ptr_eq(&pair[1]));
        assert!(pair[0].ptr_eq(&pair[0].clone()));
        assert_ne!(pair[0], pair[1]);
    }
}
