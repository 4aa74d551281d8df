//! Behaviour and snapshot tests of the `/tree` navigator, against pi 1.6's layout of the same
//! session: the active branch first, tool-only replies hidden, `⊟` on branches that fold,
//! filters, folding, labels and search.

use crate::common::{self, feed, key, show};
use rho_tui::ansi::visible_width;
use rho_tui::dialogs::*;
use rho_tui::input::{KeyCode, KeyModifiers};
use rho_tui::Keymap;
use rho_tui::{Dialog, DialogAction, Input, Theme};

use rho_protocol::agent::AgentMessage;
use rho_protocol::session::{CompactionData, EntryData, SessionEntry};
use rho_protocol::{
    AssistantMessage, ContentBlock, ToolCall, ToolResultMessage, UserContent, UserMessage,
};

fn entry(id: &str, parent: Option<&str>, data: EntryData) -> SessionEntry {
    SessionEntry {
        id: id.into(),
        parent_id: parent.map(str::to_string),
        timestamp: "2026-03-09T14:05:00.000Z".into(),
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

fn call(id: &str, name: &str, arguments: serde_json::Value) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall {
        namespace: None,
        id: id.into(),
        name: name.into(),
        arguments,
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
            assistant(vec![call(
                "c1",
                "read",
                serde_json::json!({"path": "/home/me/rho/src/parse.rs", "offset": 10, "limit": 5}),
            )]),
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
            EntryData::Compaction(Box::new(CompactionData {
                usage: None,
                system_message: None,
                summary: "s".into(),
                first_kept_entry_id: "a4".into(),
                tokens_before: 1000,
                details: None,
                from_hook: None,
            })),
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

fn selector(leaf: &str) -> TreeSelector {
    TreeSelector::new(
        &tree_session(),
        Some(leaf),
        TreeFilter::Default,
        &Keymap::default(),
    )
    .with_home(Some("/home/me".into()))
}

/// The rows as drawn (no colours), without the frame.
fn rows(s: &TreeSelector) -> Vec<String> {
    let text = show(&s.render(100, &Theme::dark()), 100);
    let lines: Vec<&str> = text.lines().collect();
    let rules: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("───"))
        .collect();
    lines[rules[1] + 2..rules[2] - 1]
        .iter()
        .map(|l| l.trim_end().to_string())
        .collect()
}

fn with(mods: KeyModifiers, code: KeyCode) -> Input {
    Input::with_mods(code, mods)
}

#[test]
fn rows_are_laid_out_as_pi_lays_them_out() {
    let s = selector("l1");
    assert_eq!(
        rows(&s),
        [
            "  • user: Fix the parser it panics on empty input",
            "  ├⊟ • [read: ~/rho/src/parse.rs:10-14]",
            "  │     • assistant: Found it; patching now.",
            "  │     ├⊟ • [tests] user: Also add tests",
            "› │     │     • assistant: Done: two tests added.",
            "  │     └⊟ user: Instead, explain the bug in detail",
            "  │           assistant: The guard was missing.",
            "  │           [compaction: 1k tokens]",
            "  └─ [branch summary]: Tried another approach",
            "  (5/9)",
        ]
    );
    assert_eq!(
        s.selected_id(),
        Some("a3"),
        "a hidden leaf selects its shown parent"
    );
}

#[test]
fn filters_switch_and_cycle() {
    let mut s = selector("a3");
    feed(&mut s, &[Input::ctrl('u')]);
    assert_eq!(s.filter(), TreeFilter::UserOnly);
    assert_eq!(s.shown_ids(), ["u1", "u2", "u3"]);
    assert_eq!(rows(&s).last().map(String::as_str), Some("  (2/3) [user]"));
    feed(&mut s, &[Input::ctrl('u')]);
    assert_eq!(s.filter(), TreeFilter::Default, "the same key toggles back");
    feed(&mut s, &[Input::ctrl('a')]);
    assert!(s.shown_ids().contains(&"m1") && s.shown_ids().contains(&"l1"));
    feed(&mut s, &[Input::ctrl('t')]);
    assert_eq!(s.filter(), TreeFilter::NoTools);
    assert!(!s.shown_ids().contains(&"t1"));
    feed(&mut s, &[Input::ctrl('l')]);
    assert_eq!(s.shown_ids(), ["u2"]);
    feed(&mut s, &[Input::ctrl('o')]);
    assert_eq!(s.filter(), TreeFilter::All);
    feed(
        &mut s,
        &[with(
            KeyModifiers::CONTROL | KeyModifiers::SHIFT,
            KeyCode::Char('O'),
        )],
    );
    assert_eq!(s.filter(), TreeFilter::LabeledOnly);
    feed(&mut s, &[Input::ctrl('d')]);
    assert_eq!(s.filter(), TreeFilter::Default);
    let from_setting = TreeSelector::new(
        &tree_session(),
        Some("a3"),
        TreeFilter::from_setting("user-only"),
        &Keymap::default(),
    );
    assert_eq!(from_setting.shown_ids(), ["u1", "u2", "u3"]);
}

#[test]
fn folding_a_branch_and_jumping_between_branch_starts() {
    let mut s = selector("a3");
    // Up to u2 (the start of the active branch), fold it: its reply goes.
    feed(&mut s, &[key(KeyCode::Up)]);
    assert_eq!(s.selected_id(), Some("u2"));
    let ctrl_left = with(KeyModifiers::CONTROL, KeyCode::Left);
    let ctrl_right = with(KeyModifiers::CONTROL, KeyCode::Right);
    feed(&mut s, std::slice::from_ref(&ctrl_left));
    assert!(!s.shown_ids().contains(&"a3"));
    assert!(rows(&s)
        .iter()
        .any(|r| r.contains("├⊞ • [tests] user: Also add tests")));
    feed(&mut s, std::slice::from_ref(&ctrl_right));
    assert!(s.shown_ids().contains(&"a3"), "unfolded");
    // Nothing to fold on a3: Ctrl+Left goes up to the branch's start.
    feed(&mut s, &[key(KeyCode::Down), ctrl_left]);
    assert_eq!(s.selected_id(), Some("u2"));
    // Ctrl+Right from the root follows first children to the first fork's first branch.
    feed(
        &mut s,
        &[key(KeyCode::Up), key(KeyCode::Up), key(KeyCode::Up)],
    );
    assert_eq!(s.selected_id(), Some("u1"));
    feed(&mut s, &[ctrl_right]);
    assert_eq!(s.selected_id(), Some("t1"));
}

#[test]
fn search_picks_and_escape_clears_the_search_first() {
    let mut s = selector("a3");
    feed(&mut s, &Input::typed("GUARD"));
    assert_eq!(s.shown_ids(), ["a4"]);
    assert_eq!(
        s.handle(&key(KeyCode::Enter), &Keymap::default()),
        DialogAction::Done(TreePick::Go("a4".into()))
    );
    feed(&mut s, &[key(KeyCode::Esc)]);
    assert_eq!(s.shown_ids().len(), 9, "escape cleared the search");
    assert_eq!(s.selected_id(), Some("a4"), "the selection stays");
    feed(&mut s, &Input::typed("tests"));
    assert!(s.shown_ids().contains(&"u2"), "labels are searched");
    feed(&mut s, &[key(KeyCode::Esc)]);
    assert_eq!(
        s.handle(&key(KeyCode::Esc), &Keymap::default()),
        DialogAction::Cancelled
    );
}

#[test]
fn labels_are_edited_and_shown_with_their_time() {
    let mut s = selector("a3");
    feed(&mut s, &[key(KeyCode::Up), key(KeyCode::Up)]);
    assert_eq!(s.selected_id(), Some("a2"));
    let shift_l = with(KeyModifiers::SHIFT, KeyCode::Char('L'));
    feed(&mut s, std::slice::from_ref(&shift_l));
    both!("tree_label_prompt", &s);
    feed(&mut s, &Input::typed("patch"));
    assert_eq!(
        s.handle(&key(KeyCode::Enter), &Keymap::default()),
        DialogAction::Done(TreePick::Label("a2".into(), Some("patch".into())))
    );
    s.labelled("a2", Some("patch".into()), "2026-03-09T14:05:00.000Z");
    assert!(rows(&s)
        .iter()
        .any(|r| r.contains("[patch] assistant: Found it")));
    // Shift+T shows when labels were set (local time).
    feed(&mut s, &[with(KeyModifiers::SHIFT, KeyCode::Char('T'))]);
    let shown = rows(&s);
    assert!(
        shown.last().is_some_and(|r| r.ends_with("[+label time]")),
        "{shown:?}"
    );
    let patched = shown
        .iter()
        .find(|r| r.contains("[patch]"))
        .cloned()
        .unwrap_or_default();
    assert!(patched.contains(":05 assistant:"), "{patched}");
    // An empty label removes it.
    feed(&mut s, &[shift_l]);
    feed(&mut s, &vec![key(KeyCode::Backspace); 5]);
    assert_eq!(
        s.handle(&key(KeyCode::Enter), &Keymap::default()),
        DialogAction::Done(TreePick::Label("a2".into(), None))
    );
}

#[test]
fn copy_hands_over_the_selected_entry_text() {
    let mut s = selector("a3");
    assert_eq!(
        s.handle(&Input::ctrl('x'), &Keymap::default()),
        DialogAction::Done(TreePick::Copy(Some("Done: two tests added.".into())))
    );
}

#[test]
fn tree_snapshots() {
    both!("tree_selector", &selector("l1"));
    let mut s = selector("l1").with_max_rows(4);
    feed(&mut s, &Input::typed("user"));
    both!("tree_selector_filtered", &s);
}

#[test]
fn the_tree_fits_tiny_widths() {
    for width in [1, 2, 3, 5, 9] {
        let t = Theme::dark();
        for l in selector("a3").render(width, &t) {
            assert!(visible_width(&l) <= width, "{width}: {l:?}");
        }
    }
}
