//! The session manager against real files: lazy first write, every append type surviving a
//! reload, branching, forking, in-memory sessions, and finding sessions (interfaces spec §4).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, SystemTime};

use rho_protocol::agent::{AgentMessage, BashExecutionMessage};
use rho_protocol::{AssistantMessage, ContentBlock, UserContent, UserMessage};
use rho_session::{
    find_session, list_all_sessions, list_sessions, most_recent_session, paths, CompactionData,
    Durability, EntryData, ForkScope, SessionManager, StoreError,
};
use serde_json::json;

fn user(text: &str, ts: i64) -> AgentMessage {
    AgentMessage::User(UserMessage {
        content: UserContent::Blocks(vec![ContentBlock::text(text)]),
        timestamp: ts,
    })
}

fn assistant(text: &str, ts: i64) -> AgentMessage {
    let mut a = AssistantMessage::empty("openai-responses", "openai", "gpt-5");
    a.content = vec![ContentBlock::text(text)];
    a.timestamp = ts;
    AgentMessage::Assistant(a)
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .expect("read session")
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn new_session_is_written_at_the_first_assistant_message() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut s =
        SessionManager::create(dir.path(), "/home/ana/app").with_parent_session("/prev.jsonl");
    let path = s.path().expect("file session").to_path_buf();
    let name = path.file_name().and_then(|n| n.to_str()).expect("name");
    assert!(
        name.ends_with(&format!("_{}.jsonl", s.session_id())),
        "{name}"
    );
    assert_eq!(&s.session_id()[14..15], "7", "UUIDv7");
    s.append_model_change("openai", "gpt-5").expect("append");
    s.append_thinking_level_change("off").expect("append");
    s.append_message(user("hi", 1)).expect("append");
    assert!(
        !path.exists() && !s.is_persisted(),
        "nothing written before an assistant message"
    );
    s.append_message(assistant("hello", 2)).expect("append");
    assert!(s.is_persisted());
    let written = lines(&path);
    assert_eq!(written.len(), 5);
    let header: serde_json::Value = serde_json::from_str(&written[0]).expect("json");
    assert_eq!(header["type"], "session");
    assert_eq!(header["version"], 3);
    assert_eq!(header["cwd"], "/home/ana/app");
    assert!(written[0].starts_with(r#"{"type":"session","version":3,"id":""#));
    assert!(written[0].ends_with(r#","cwd":"/home/ana/app","parentSession":"/prev.jsonl"}"#));
    s.append_message(user("more", 3)).expect("append");
    assert_eq!(lines(&path).len(), 6, "each later append is one line");
}

/// pi writes a compaction that keeps nothing with its own id as `firstKeptEntryId`; rho's
/// callers leave it empty and the store names it, and the context keeps only what follows.
#[test]
fn a_compaction_keeping_nothing_names_itself() {
    let mut s = SessionManager::in_memory("/w");
    s.append_message(user("old question", 1)).expect("append");
    s.append_message(assistant("old answer", 2))
        .expect("append");
    let compaction = s
        .append_compaction(CompactionData {
            usage: None,
            system_message: None,
            summary: "all of it".into(),
            first_kept_entry_id: String::new(),
            tokens_before: 10,
            details: None,
            from_hook: Some(true),
        })
        .expect("append")
        .clone();
    let EntryData::Compaction(c) = &compaction.data else {
        panic!("not a compaction: {compaction:?}");
    };
    assert_eq!(c.first_kept_entry_id, compaction.id);
    s.append_message(user("new question", 3)).expect("append");
    let roles: Vec<String> = s
        .build_context()
        .messages
        .iter()
        .map(|m| m.role().to_string())
        .collect();
    assert_eq!(roles, ["compactionSummary", "user"]);
}

#[test]
fn every_entry_type_survives_a_reload_unchanged() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut s = SessionManager::create(dir.path(), "/w");
    s.set_durability(Durability::Sync);
    s.append_model_change("anthropic", "claude-sonnet-4-5")
        .expect("append");
    s.append_thinking_level_change("high").expect("append");
    let first = s.append_message(user("q", 1)).expect("append").id.clone();
    s.append_message(assistant("a", 2)).expect("append");
    s.append_message(AgentMessage::BashExecution(BashExecutionMessage {
        command: "ls".into(),
        output: String::new(),
        exit_code: Some(2),
        cancelled: false,
        truncated: false,
        full_output_path: None,
        timestamp: 3,
        exclude_from_context: None,
    }))
    .expect("append");
    s.append_compaction(CompactionData {
        usage: None,
        system_message: None,
        summary: "sum".into(),
        first_kept_entry_id: first.clone(),
        tokens_before: 42,
        details: Some(json!({"readFiles": ["x"], "modifiedFiles": []})),
        from_hook: None,
    })
    .expect("append");
    s.append_custom("ext-state", Some(json!({"n": 1})))
        .expect("append");
    s.append_custom_message("note", UserContent::Text("seen".into()), true, None)
        .expect("append");
    s.append_label(&first, Some("start")).expect("append");
    s.append_session_info("  My session  ").expect("append");
    let left = s.leaf_id().expect("a leaf").to_string();
    s.branch_with_summary(Some(&first), "went elsewhere", None, Some(true))
        .expect("append");
    let reloaded = SessionManager::open(s.path().expect("path")).expect("reload");
    assert_eq!(reloaded.entries(), s.entries());
    assert_eq!(reloaded.header(), s.header());
    assert_eq!(reloaded.name(), Some("My session"), "trimmed");
    assert_eq!(reloaded.label(&first), Some("start"));
    let summary = reloaded.entries().last().expect("entry");
    assert_eq!(summary.parent_id.as_deref(), Some(first.as_str()));
    assert!(
        matches!(&summary.data, EntryData::BranchSummary { from_id, .. } if *from_id == left),
        "fromId is the leaf the branch was left from (pi 1.6)"
    );
    assert_eq!(reloaded.build_context(), s.build_context());
    let types: Vec<&str> = reloaded
        .entries()
        .iter()
        .map(|e| e.data.type_name())
        .collect();
    assert_eq!(
        types,
        [
            "model_change",
            "thinking_level_change",
            "message",
            "message",
            "message",
            "compaction",
            "custom",
            "custom_message",
            "label",
            "session_info",
            "branch_summary"
        ]
    );
}

#[test]
fn branching_moves_the_leaf_and_the_next_append_makes_it_durable() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut s = SessionManager::create(dir.path(), "/w");
    let q1 = s.append_message(user("q1", 1)).expect("append").id.clone();
    let a1 = s
        .append_message(assistant("a1", 2))
        .expect("append")
        .id
        .clone();
    s.append_message(user("q2", 3)).expect("append");
    s.branch(&a1).expect("branch");
    assert_eq!(s.build_context().messages.len(), 2);
    let alt = s
        .append_message(user("q2 alt", 4))
        .expect("append")
        .id
        .clone();
    assert_eq!(s.tree().children(Some(&a1)).len(), 2);
    let reloaded = SessionManager::open(s.path().expect("path")).expect("reload");
    assert_eq!(reloaded.leaf_id(), Some(alt.as_str()));
    let texts: Vec<String> = reloaded
        .build_context()
        .to_llm()
        .into_iter()
        .map(|m| match m {
            rho_protocol::Message::User(u) => u.content.text(),
            rho_protocol::Message::Assistant(a) => a.text(),
            rho_protocol::Message::ToolResult(_) => String::new(),
        })
        .collect();
    assert_eq!(texts, ["q1", "a1", "q2 alt"]);

    s.reset_leaf();
    let root_summary = s.branch_with_summary(None, "", None, None).expect("append");
    assert_eq!(root_summary.parent_id, None);
    assert!(
        matches!(&root_summary.data, EntryData::BranchSummary { from_id, .. } if from_id == "root")
    );
    assert!(
        s.build_context().messages.is_empty(),
        "an empty summary is not in context"
    );
    assert_eq!(s.tree().children(None).len(), 2);
    assert_eq!(s.tree().path_to(&q1).len(), 1);
}

#[test]
fn in_memory_session_never_touches_the_disk() {
    let mut s = SessionManager::in_memory("/w");
    s.append_message(user("q", 1)).expect("append");
    s.append_message(assistant("a", 2)).expect("append");
    assert_eq!(s.path(), None);
    assert!(!s.is_persisted());
    assert_eq!(s.build_context().messages.len(), 2);
}

#[test]
fn forks_copy_entries_and_name_their_parent() {
    let dir = tempfile::tempdir().expect("temp dir");
    let other = tempfile::tempdir().expect("temp dir");
    let mut s = SessionManager::create(dir.path(), "/w");
    let q1 = s.append_message(user("q1", 1)).expect("append").id.clone();
    let a1 = s
        .append_message(assistant("a1", 2))
        .expect("append")
        .id
        .clone();
    s.append_message(user("q2", 3)).expect("append");
    let source = s.path().expect("path").to_path_buf();

    let all = s
        .fork(other.path(), "/elsewhere", ForkScope::All)
        .expect("fork");
    assert!(
        all.is_persisted(),
        "holds an assistant message, so written at once"
    );
    assert_ne!(all.session_id(), s.session_id());
    assert_eq!(all.cwd(), "/elsewhere");
    assert_eq!(all.header().parent_session.as_deref(), source.to_str());
    assert_eq!(all.entries(), s.entries());
    let reloaded = SessionManager::open(all.path().expect("path")).expect("reload fork");
    assert_eq!(reloaded.entries(), s.entries());

    let branch = s
        .fork(other.path(), "/w", ForkScope::Branch(&a1))
        .expect("fork");
    assert_eq!(branch.entries().len(), 2);
    assert_eq!(branch.leaf_id(), Some(a1.as_str()));
    let early = s
        .fork(other.path(), "/w", ForkScope::Branch(&q1))
        .expect("fork");
    assert!(
        !early.is_persisted(),
        "no assistant message yet: written lazily"
    );
    assert!(matches!(
        s.fork(other.path(), "/w", ForkScope::Branch("nope")),
        Err(StoreError::UnknownEntry { .. })
    ));
}

#[test]
fn creating_over_an_existing_file_refuses_and_keeps_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("taken.jsonl");
    let mut s = SessionManager::open_or_create(&path, "/w").expect("missing → new");
    std::fs::write(&path, "precious\n").expect("write");
    s.append_message(user("q", 1)).expect("buffered");
    let err = s
        .append_message(assistant("a", 2))
        .expect_err("must not overwrite");
    assert!(matches!(err, StoreError::AlreadyExists { .. }), "{err:?}");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "precious\n");
}

fn session_with(dir: &Path, first: &str, ts: i64, name: Option<&str>) -> SessionManager {
    let mut s = SessionManager::create(dir, "/proj");
    s.append_message(user(first, ts)).expect("append");
    s.append_message(assistant("ok", ts + 1)).expect("append");
    if let Some(n) = name {
        s.append_session_info(n).expect("append");
    }
    s
}

#[test]
fn listing_finding_and_continuing() {
    let agent = tempfile::tempdir().expect("temp dir");
    let project = paths::default_session_dir(agent.path(), "/proj");
    let elsewhere = paths::default_session_dir(agent.path(), "/other");
    let old = session_with(&project, "old question", 1_000, None);
    let new = session_with(&project, "new question", 5_000, Some("Newest"));
    let far = session_with(&elsewhere, "far question", 3_000, None);
    std::fs::write(project.join("junk.jsonl"), "not json\n").expect("write");

    let listed = list_sessions(&project);
    assert_eq!(listed.len(), 2, "junk skipped");
    assert_eq!(listed[0].header.id, new.session_id());
    assert_eq!(
        listed[0].modified_ms, 5_001,
        "latest user/assistant timestamp"
    );
    assert_eq!(listed[0].name.as_deref(), Some("Newest"));
    assert_eq!(listed[0].first_message.as_deref(), Some("new question"));
    assert_eq!(listed[0].message_count, 2);
    assert_eq!(
        listed[0].size,
        std::fs::metadata(new.path().expect("p"))
            .expect("stat")
            .len()
    );
    assert_eq!(listed[1].header.id, old.session_id());
    let all: Vec<String> = list_all_sessions(agent.path())
        .into_iter()
        .map(|s| s.header.id)
        .collect();
    assert_eq!(all, [new.session_id(), far.session_id(), old.session_id()]);

    let set_mtime = |p: &Path, secs: u64| {
        let f = std::fs::File::options().append(true).open(p).expect("open");
        f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(secs))
            .expect("mtime");
    };
    set_mtime(old.path().expect("p"), 2_000_000_000);
    set_mtime(new.path().expect("p"), 1_000_000_000);
    set_mtime(&project.join("junk.jsonl"), 2_100_000_000);
    assert_eq!(
        most_recent_session(&project).as_deref(),
        old.path(),
        "newest mtime with a header"
    );
    assert_eq!(most_recent_session(&agent.path().join("none")), None);

    let found = find_session(&new.session_id()[..12], &project, agent.path()).expect("found");
    assert_eq!(Some(found.path.as_path()), new.path());
    assert!(found.in_current_project);
    let found = find_session(far.session_id(), &project, agent.path()).expect("found");
    assert_eq!(Some(found.path.as_path()), far.path());
    assert!(
        !found.in_current_project,
        "another project: the CLI offers a fork"
    );
    assert!(rho_session::is_path_argument("./x.jsonl"));
    assert!(rho_session::is_path_argument("abc.jsonl"));
    assert!(!rho_session::is_path_argument("0195508c"));
}

#[test]
fn initial_state_and_thinking_level_on_open() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut s = SessionManager::create(dir.path(), dir.path().to_str().expect("utf-8"));
    let model = rho_session::ModelRef {
        provider: "openai".into(),
        model_id: "gpt-5".into(),
    };
    s.append_initial_state(Some(&model), "medium")
        .expect("append");
    let types: Vec<&str> = s.entries().iter().map(|e| e.data.type_name()).collect();
    assert_eq!(types, ["model_change", "thinking_level_change"]);
    assert!(
        !s.ensure_thinking_level("low").expect("check"),
        "already has one"
    );
    assert!(s.check_cwd_exists().is_ok());

    // A branch with messages but no thinking level change gets the default appended.
    let mut bare = SessionManager::in_memory("/definitely/not/here");
    assert!(
        !bare.ensure_thinking_level("low").expect("check"),
        "no messages: nothing to do"
    );
    bare.append_message(user("q", 1)).expect("append");
    assert!(bare.ensure_thinking_level("low").expect("check"));
    assert_eq!(bare.build_context().thinking_level, "low");
    assert_eq!(
        bare.check_cwd_exists().expect_err("missing").to_string(),
        "Stored session working directory does not exist: /definitely/not/here"
    );
}

#[test]
fn context_shares_messages_with_the_entries() {
    let mut s = SessionManager::in_memory("/w");
    s.append_message(user("q", 1)).expect("append");
    let ctx = s.build_context();
    let EntryData::Message(stored) = &s.entries()[0].data else {
        panic!("a message entry");
    };
    assert!(
        stored.ptr_eq(&ctx.messages[0]),
        "no copy of the conversation"
    );
}

/// pi 1.x's `--session-id`: a new, in-memory or forked session takes the id the user chose,
/// and a pending file is named after it.
#[test]
fn sessions_can_take_a_chosen_id() {
    let dir = tempfile::tempdir().expect("dir");
    let created = SessionManager::create_with_id(dir.path(), "/w", "task-1");
    assert_eq!(created.session_id(), "task-1");
    let name = created.path().expect("a path").file_name().expect("name");
    assert!(
        name.to_string_lossy().ends_with("_task-1.jsonl"),
        "{name:?}"
    );
    let memory = SessionManager::in_memory("/w").renamed_to_id("mem-2");
    assert_eq!((memory.session_id(), memory.path()), ("mem-2", None));
    let mut source = SessionManager::create(dir.path(), "/w");
    source.append_message(user("q", 1)).expect("append");
    source.append_message(assistant("a", 2)).expect("append");
    let fork = source
        .fork_as(dir.path(), "/w", ForkScope::All, Some("fork-3"))
        .expect("forks");
    assert_eq!(fork.session_id(), "fork-3");
    let written = fork.path().expect("a path");
    let header: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(written)
            .expect("written at once: it has a reply")
            .lines()
            .next()
            .expect("header"),
    )
    .expect("json");
    assert_eq!(header["id"], "fork-3");
}

/// A resumed branch names both the model that answered last and its last `model_change`: a
/// virtual model's selection is only in the latter (start-up asks the registry which holds).
#[test]
fn branch_state_keeps_the_last_model_change_beside_the_last_response() {
    let mut session = SessionManager::in_memory("/work");
    session
        .append_model_change("router", "auto")
        .expect("change");
    session.append_message(user("hi", 1)).expect("user");
    session
        .append_message(assistant("hello", 2))
        .expect("reply");
    let state = session.branch_state();
    let named = |m: Option<&rho_session::context::ModelRef>| {
        m.map(|m| format!("{}/{}", m.provider, m.model_id))
    };
    assert_eq!(named(state.model.as_ref()).as_deref(), Some("openai/gpt-5"));
    assert_eq!(
        named(state.model_change.as_ref()).as_deref(),
        Some("router/auto")
    );
}
