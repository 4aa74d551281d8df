//! Behaviour and snapshot tests of the session picker and the `/tree` navigator.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{feed, key, show};
use rho_tui::ansi::visible_width;
use rho_tui::dialogs::*;
use rho_tui::input::KeyCode;
use rho_tui::Keymap;
use rho_tui::{Dialog, DialogAction, Input, Theme};

const NOW: i64 = 1_800_000_000_000;

fn session(
    file: &str,
    cwd: &str,
    name: Option<&str>,
    first: Option<&str>,
    ago_ms: i64,
    count: usize,
) -> rho_protocol::session::SessionSummary {
    rho_protocol::session::SessionSummary {
        path: std::path::PathBuf::from(format!("/sessions/{file}.jsonl")),
        header: rho_protocol::session::SessionHeader {
            version: 3,
            id: file.to_string(),
            timestamp: String::new(),
            cwd: cwd.to_string(),
            parent_session: None,
        },
        name: name.map(str::to_string),
        modified_ms: NOW - ago_ms,
        size: 100,
        message_count: count,
        first_message: first.map(str::to_string),
    }
}

fn picker() -> SessionPicker {
    let here = vec![
        session(
            "a",
            "/home/me/rho",
            None,
            Some("Fix the parser\npanic on empty input"),
            5 * 60_000,
            12,
        ),
        session(
            "b",
            "/home/me/rho",
            Some("release notes"),
            Some("Draft notes"),
            2 * 3_600_000,
            1,
        ),
    ];
    let mut all = here.clone();
    all.push(session(
        "c",
        "/home/me/website",
        None,
        Some("Make the header sticky on scroll for mobile layouts"),
        3 * 86_400_000,
        40,
    ));
    all.push(session("d", "/tmp/scratch", None, None, 30_000, 0));
    SessionPicker::new(here, all, NOW)
}

#[test]
fn session_picker_tab_toggles_scope_and_enter_yields_the_path() {
    let mut p = picker();
    assert_eq!(p.scope(), SessionScope::CurrentFolder);
    assert_eq!(p.list().visible_indices().len(), 2);
    let text = show(&p.render(80, &Theme::dark()), 80);
    assert!(
        text.contains("Fix the parser panic on empty input") && text.contains("5m ago · 12 msgs"),
        "{text}"
    );
    assert!(
        !text.contains("/home/me/rho"),
        "cwd is only shown in All: {text}"
    );
    p.handle(&key(KeyCode::Tab), &Keymap::default());
    assert_eq!(p.scope(), SessionScope::All);
    feed(&mut p, &Input::typed("website"));
    assert_eq!(
        p.handle(&key(KeyCode::Enter), &Keymap::default()),
        DialogAction::Done(std::path::PathBuf::from("/sessions/c.jsonl"))
    );
    p.handle(&key(KeyCode::Tab), &Keymap::default());
    assert_eq!(p.scope(), SessionScope::CurrentFolder);
    assert!(
        p.list().visible_indices().is_empty(),
        "the query survives the toggle"
    );
    assert_eq!(
        p.handle(&key(KeyCode::Esc), &Keymap::default()),
        DialogAction::Cancelled
    );
}

#[test]
fn session_picker_starts_on_all_when_the_folder_has_none() {
    let p = SessionPicker::new(
        Vec::new(),
        vec![session("x", "/x", Some("n"), None, 0, 2)],
        NOW,
    );
    assert_eq!(p.scope(), SessionScope::All);
}

#[test]
fn session_picker_snapshots() {
    let mut p = picker();
    both!("session_picker_current", &p);
    p.handle(&key(KeyCode::Tab), &Keymap::default());
    both!("session_picker_all", &p);
}

use rho_protocol::agent::AgentMessage;
use rho_protocol::session::{CompactionData, EntryData, SessionEntry};
use rho_protocol::{
    AssistantMessage, ContentBlock, ToolCall, ToolResultMessage, UserContent, UserMessage,
};

fn entry(id: &str, parent: Option<&str>, data: EntryData) -> SessionEntry {
    SessionEntry {
        id: id.into(),
        parent_id: parent.map(str::to_string),
        timestamp: String::new(),
        data,
    }
}

fn msg(m: AgentMessage) -> EntryData {
    EntryData::Message(m.into())
}

fn user(text: &str) -> EntryData {
    msg(AgentMessage::User(UserMessage {
        content: UserContent::Text(text.into()),
        timestamp: 0,
    }))
}

fn assistant(blocks: Vec<ContentBlock>) -> EntryData {
    let mut a = AssistantMessage::empty("test", "test", "m");
    a.content = blocks;
    msg(AgentMessage::Assistant(a))
}

fn call(name: &str) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall {
        namespace: None,
        id: "c1".into(),
        name: name.into(),
        arguments: serde_json::json!({}),
        thought_signature: None,
    })
}

fn result() -> EntryData {
    msg(AgentMessage::ToolResult(ToolResultMessage {
        duration_ms: None,
        usage: None,
        nested_calls: None,
        tool_call_id: "c1".into(),
        tool_name: "read".into(),
        content: vec![ContentBlock::text("file text")],
        details: None,
        is_error: false,
        timestamp: 0,
    }))
}

fn tree_session() -> Vec<SessionEntry> {
    vec![
        entry("u1", None, user("Fix the parser\nit panics on empty input")),
        entry(
            "a1",
            Some("u1"),
            assistant(vec![call("read"), call("grep")]),
        ),
        entry("t1", Some("a1"), result()),
        entry(
            "a2",
            Some("t1"),
            assistant(vec![ContentBlock::text("Found it; patching now.")]),
        ),
        entry("u2", Some("a2"), user("Also add tests")),
        entry(
            "a3",
            Some("u2"),
            assistant(vec![ContentBlock::text("Done: two tests added.")]),
        ),
        entry(
            "l1",
            Some("a3"),
            EntryData::Label {
                target_id: "u2".into(),
                label: Some("tests".into()),
            },
        ),
        entry("u3", Some("a2"), user("Instead, explain the bug in detail")),
        entry(
            "m1",
            Some("u3"),
            EntryData::ModelChange {
                provider: "openai".into(),
                model_id: "gpt-5".into(),
            },
        ),
        entry(
            "h1",
            Some("m1"),
            EntryData::ThinkingLevelChange {
                thinking_level: "high".into(),
            },
        ),
        entry(
            "a4",
            Some("h1"),
            assistant(vec![ContentBlock::text("The guard was missing.")]),
        ),
        entry(
            "c1",
            Some("a4"),
            EntryData::Compaction(CompactionData {
                usage: None,
                system_message: None,
                summary: "s".into(),
                first_kept_entry_id: "a4".into(),
                tokens_before: 1000,
                details: None,
                from_hook: None,
            }),
        ),
        entry(
            "b1",
            Some("u1"),
            EntryData::BranchSummary {
                usage: None,
                from_id: "a4".into(),
                summary: "Tried another approach".into(),
                details: None,
                from_hook: None,
            },
        ),
    ]
}

#[test]
fn rows_follow_the_tree_and_indent_only_at_forks() {
    let s = TreeSelector::new(&tree_session(), Some("l1"));
    let rows: Vec<String> = s
        .rows()
        .iter()
        .map(|r| format!("{}{}", r.prefix, r.text))
        .collect();
    assert_eq!(
        rows,
        vec![
            "user: Fix the parser it panics on empty input",
            "├─ assistant: [tool calls: read, grep]",
            "│  assistant: Found it; patching now.",
            "│  ├─ user: Also add tests",
            "│  │  assistant: Done: two tests added.",
            "│  └─ user: Instead, explain the bug in detail",
            "│     [model: gpt-5]",
            "│     [thinking: high]",
            "│     assistant: The guard was missing.",
            "│     [compaction]",
            "└─ [branch summary] Tried another approach",
        ]
    );
    let leaf: Vec<&str> = s
        .rows()
        .iter()
        .filter(|r| r.is_leaf)
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(
        leaf,
        vec!["a3"],
        "a hidden leaf (the label) marks its shown parent"
    );
    let path: Vec<&str> = s
        .rows()
        .iter()
        .filter(|r| r.on_path)
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(path, vec!["u1", "a1", "a2", "u2", "a3"]);
    assert_eq!(s.rows()[3].label.as_deref(), Some("tests"));
}

#[test]
fn starts_on_the_leaf_moves_filters_and_picks() {
    let mut s = TreeSelector::new(&tree_session(), Some("a3"));
    assert_eq!(s.selected_id(), Some("a3"));
    s.handle(&key(KeyCode::Up), &Keymap::default());
    assert_eq!(s.selected_id(), Some("u2"));
    s.handle(&key(KeyCode::Up), &Keymap::default());
    s.handle(&key(KeyCode::Up), &Keymap::default());
    s.handle(&key(KeyCode::Up), &Keymap::default());
    assert_eq!(s.selected_id(), Some("u1"));
    s.handle(&key(KeyCode::Up), &Keymap::default());
    assert_eq!(s.selected_id(), Some("b1"), "wraps to the last row");
    feed(&mut s, &Input::typed("GUARD"));
    let ids: Vec<&str> = s.visible_rows().iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, vec!["a4"]);
    assert_eq!(
        s.handle(&key(KeyCode::Enter), &Keymap::default()),
        DialogAction::Done("a4".into())
    );
    feed(&mut s, &vec![key(KeyCode::Backspace); 5]);
    assert_eq!(s.visible_rows().len(), 11);
    assert_eq!(
        s.selected_id(),
        Some("a4"),
        "the selection survives clearing the filter"
    );
    feed(&mut s, &Input::typed("tests"));
    assert_eq!(s.selected_id(), Some("u2"), "labels are searched too");
    assert_eq!(
        s.handle(&key(KeyCode::Esc), &Keymap::default()),
        DialogAction::Cancelled
    );
}

#[test]
fn tree_snapshots() {
    both!(
        "tree_selector",
        &TreeSelector::new(&tree_session(), Some("l1"))
    );
    let mut s = TreeSelector::new(&tree_session(), Some("l1")).with_max_rows(4);
    feed(&mut s, &Input::typed("user"));
    both!("tree_selector_filtered", &s);
}

#[test]
fn session_dialogs_fit_tiny_widths() {
    for width in [1, 2, 3, 5, 9] {
        let t = Theme::dark();
        let lines = picker().render(width, &t);
        let tree = TreeSelector::new(&tree_session(), Some("a3")).render(width, &t);
        for l in lines.iter().chain(&tree) {
            assert!(visible_width(l) <= width, "{width}: {l:?}");
        }
    }
}
