//! Behaviour and snapshot tests of the modal dialogs. Snapshots show the visible text with
//! escapes stripped and a `|` at the right edge of full-width lines, at 80 and 40 columns.

use insta::assert_snapshot;
use rho_tui::ansi::{strip_ansi, visible_width};
use rho_tui::dialogs::*;
use rho_tui::input::KeyCode;
use rho_tui::{Dialog, DialogAction, Input, Theme};

/// Visible text of each line; lines are checked to fit `width`.
fn show(lines: &[String], width: usize) -> String {
    for l in lines {
        assert!(visible_width(l) <= width, "line wider than {width}: {l:?}");
    }
    lines
        .iter()
        .map(|l| {
            let plain = strip_ansi(l);
            if visible_width(&plain) == width {
                format!("{}|", plain.trim_end())
            } else {
                plain.trim_end().to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn both<D: Dialog>(name: &str, d: &D) {
    let t = Theme::dark();
    for width in [80, 40] {
        assert_snapshot!(format!("{name}_{width}"), show(&d.render(width, &t), width));
    }
}

/// Feeds every input, returning the last action.
fn feed<D: Dialog>(d: &mut D, inputs: &[Input]) -> DialogAction<D::Output> {
    let mut last = DialogAction::Pending;
    for i in inputs {
        last = d.handle(i);
    }
    last
}

fn key(code: KeyCode) -> Input {
    Input::key(code)
}

fn fruits() -> Vec<SelectItem> {
    [
        ("apple", "red and round"),
        ("banana", "long and yellow"),
        ("cherry", "small, dark red, with a stone"),
        ("grape", ""),
        ("pineapple", "spiky"),
    ]
    .into_iter()
    .map(|(l, d)| SelectItem::new(l, d))
    .collect()
}

#[test]
fn select_list_enter_returns_the_original_index_after_filtering() {
    let mut l = SelectList::new("Fruit", fruits());
    assert_eq!(feed(&mut l, &Input::typed("apl")), DialogAction::Pending);
    // "apple" is a prefix match and ranks before "pineapple".
    assert_eq!(l.visible_indices(), &[0, 4]);
    assert_eq!(feed(&mut l, &[key(KeyCode::Down)]), DialogAction::Pending);
    assert_eq!(l.handle(&key(KeyCode::Enter)), DialogAction::Done(4));
}

#[test]
fn select_list_filter_is_case_insensitive_and_backspace_widens_it() {
    let mut l = SelectList::new("Fruit", fruits()).with_selected(2);
    feed(&mut l, &Input::typed("GRA"));
    assert_eq!(l.visible_indices(), &[3]);
    feed(&mut l, &[key(KeyCode::Backspace), key(KeyCode::Backspace)]);
    assert_eq!(l.query(), "G");
    assert_eq!(l.visible_indices(), &[3]);
    feed(&mut l, &[key(KeyCode::Backspace)]);
    assert_eq!(l.visible_indices().len(), 5);
    // An empty filter brings the initial selection back.
    assert_eq!(l.selected_index(), Some(2));
}

#[test]
fn select_list_navigation_wraps_and_pages() {
    let items = (0..25)
        .map(|i| SelectItem::new(format!("item {i}"), ""))
        .collect();
    let mut l = SelectList::new("Many", items).with_max_rows(10);
    feed(&mut l, &[key(KeyCode::Up)]);
    assert_eq!(l.selected_index(), Some(24));
    feed(&mut l, &[key(KeyCode::Down)]);
    assert_eq!(l.selected_index(), Some(0));
    feed(&mut l, &[key(KeyCode::PageDown), key(KeyCode::PageDown)]);
    assert_eq!(l.selected_index(), Some(20));
    feed(&mut l, &[key(KeyCode::PageDown)]);
    assert_eq!(l.selected_index(), Some(24));
    feed(&mut l, &[key(KeyCode::PageUp)]);
    assert_eq!(l.selected_index(), Some(14));
    let text = show(&l.render(40, &Theme::dark()), 40);
    assert!(text.contains("(15/25)"), "{text}");
    assert!(text.contains("→ item 14"), "{text}");
}

#[test]
fn select_list_cancels_and_reports_no_matches() {
    let mut l = SelectList::new("Fruit", fruits());
    feed(&mut l, &Input::typed("xyz"));
    assert!(l.selected_index().is_none());
    assert_eq!(l.handle(&key(KeyCode::Enter)), DialogAction::Pending);
    assert!(show(&l.render(40, &Theme::dark()), 40).contains("No matches"));
    assert_eq!(l.handle(&key(KeyCode::Esc)), DialogAction::Cancelled);
    let mut l = SelectList::new("Fruit", fruits());
    assert_eq!(l.handle(&Input::ctrl('c')), DialogAction::Cancelled);
}

#[test]
fn select_list_paste_filters() {
    let mut l = SelectList::new("Fruit", fruits());
    l.handle(&Input::Paste("cher\n".into()));
    assert_eq!(l.visible_indices(), &[2]);
}

#[test]
fn select_list_snapshots() {
    let l = SelectList::new("Pick a fruit", fruits())
        .with_selected(1)
        .with_current(2);
    both("select_list", &l);
    let items = (0..40)
        .map(|i| SelectItem::new(format!("entry-{i:02}"), format!("description number {i}")))
        .collect();
    let mut l = SelectList::new("Scrolling", items).with_max_rows(5);
    feed(&mut l, &[key(KeyCode::PageDown), key(KeyCode::Down)]);
    both("select_list_scrolled", &l);
    let mut l = SelectList::new("Pick a fruit", fruits());
    feed(&mut l, &Input::typed("zz"));
    both("select_list_no_matches", &l);
}

#[test]
fn confirm_answers() {
    let mut c = ConfirmDialog::new("Delete?", "Remove the session file?");
    assert_eq!(c.handle(&Input::char('x')), DialogAction::Pending);
    assert_eq!(c.handle(&Input::char('Y')), DialogAction::Done(true));
    assert_eq!(c.handle(&key(KeyCode::Enter)), DialogAction::Done(true));
    assert_eq!(c.handle(&Input::char('n')), DialogAction::Done(false));
    assert_eq!(c.handle(&Input::char('N')), DialogAction::Done(false));
    assert_eq!(c.handle(&key(KeyCode::Esc)), DialogAction::Cancelled);
    both(
        "confirm",
        &ConfirmDialog::new(
            "Delete session?",
            "This removes the session file from disk; the conversation cannot be recovered.",
        ),
    );
}

#[test]
fn input_dialog_edits_one_line() {
    let mut d = InputDialog::new("Name", "session name").with_value("helo");
    feed(
        &mut d,
        &[key(KeyCode::Left), Input::char('l'), key(KeyCode::End)],
    );
    feed(&mut d, &[Input::Paste(" world\n".into())]);
    feed(&mut d, &[key(KeyCode::Home), key(KeyCode::Delete)]);
    assert_eq!(d.value(), "ello world");
    feed(&mut d, &[key(KeyCode::Right), key(KeyCode::Backspace)]);
    assert_eq!(
        d.handle(&key(KeyCode::Enter)),
        DialogAction::Done("llo world".into())
    );
    assert_eq!(d.handle(&Input::ctrl('c')), DialogAction::Cancelled);
}

#[test]
fn input_dialog_masks_secrets() {
    let mut d = InputDialog::new("API key for anthropic", "sk-...").masked();
    feed(&mut d, &[Input::Paste("sk-secret".into())]);
    let text = show(&d.render(40, &Theme::dark()), 40);
    assert!(!text.contains("secret"), "{text}");
    assert!(text.contains("•••••••••"), "{text}");
    assert_eq!(
        d.handle(&key(KeyCode::Enter)),
        DialogAction::Done("sk-secret".into())
    );
    both("input_masked", &d);
    both(
        "input_placeholder",
        &InputDialog::new("Session name", "type a name"),
    );
    let long = "a fairly long value that will not fit in forty columns at all";
    both("input_long", &InputDialog::new("Name", "").with_value(long));
}

#[test]
fn text_area_edits_lines_and_submits_with_ctrl_s() {
    let mut d = TextAreaDialog::new("Edit", "first\nsecond line");
    feed(&mut d, &[key(KeyCode::Up), Input::char('!')]);
    assert_eq!(d.text(), "first!\nsecond line");
    feed(&mut d, &[key(KeyCode::Home), key(KeyCode::Backspace)]);
    assert_eq!(
        d.text(),
        "first!\nsecond line",
        "backspace at the very start is a no-op"
    );
    feed(
        &mut d,
        &[
            key(KeyCode::Down),
            key(KeyCode::Home),
            key(KeyCode::Backspace),
        ],
    );
    assert_eq!(d.text(), "first!second line");
    feed(&mut d, &[key(KeyCode::Enter)]);
    feed(&mut d, &[Input::Paste("a\r\nb\n".into())]);
    assert_eq!(d.text(), "first!\na\nb\nsecond line");
    assert_eq!(
        d.handle(&Input::ctrl('s')),
        DialogAction::Done("first!\na\nb\nsecond line".into())
    );
    assert_eq!(d.handle(&key(KeyCode::Esc)), DialogAction::Cancelled);
}

#[test]
fn text_area_scrolls_to_the_cursor() {
    let text: String = (0..30).map(|i| format!("line {i}\n")).collect();
    let d = TextAreaDialog::new("Long", text).with_max_rows(4);
    let shown = show(&d.render(40, &Theme::dark()), 40);
    assert!(
        shown.contains("line 29") && !shown.contains("line 25"),
        "{shown}"
    );
    both("text_area", &TextAreaDialog::new(
        "Edit the commit message",
        "Fix the parser\n\nIt panicked on empty input; now it returns Error::Empty and a test covers the case.",
    ));
}

fn model(provider: &str, id: &str) -> rho_ai::Model {
    serde_json::from_value(serde_json::json!({
        "id": id, "name": id, "api": "test", "provider": provider, "baseUrl": "http://x"
    }))
    .expect("valid model json")
}

fn models() -> Vec<rho_ai::Model> {
    vec![
        model("anthropic", "claude-opus-4-1"),
        model("anthropic", "claude-sonnet-4-5"),
        model("openai", "gpt-5"),
        model("openai", "gpt-4o-mini"),
        model("openrouter", "anthropic/claude-sonnet-4.5"),
        model("google", "gemini-2.5-pro"),
    ]
}

#[test]
fn model_selector_starts_on_the_current_model_and_searches_providers() {
    let mut s = ModelSelector::new(models(), Some(("openai", "gpt-5")));
    assert_eq!(s.list().selected_index(), Some(2));
    feed(&mut s, &Input::typed("google"));
    assert_eq!(s.list().visible_indices(), &[5]);
    match s.handle(&key(KeyCode::Enter)) {
        DialogAction::Done(m) => assert_eq!(
            (m.provider.as_str(), m.id.as_str()),
            ("google", "gemini-2.5-pro")
        ),
        other => panic!("expected a model, got {other:?}"),
    }
    let mut s = ModelSelector::new(models(), None);
    feed(&mut s, &Input::typed("openrouter sonnet"));
    assert_eq!(s.list().visible_indices(), &[4]);
    assert_eq!(s.handle(&key(KeyCode::Esc)), DialogAction::Cancelled);
}

#[test]
fn model_selector_snapshots() {
    both(
        "model_selector",
        &ModelSelector::new(models(), Some(("anthropic", "claude-sonnet-4-5"))),
    );
}

#[test]
fn thinking_selector_picks_a_level() {
    use rho_ai::ThinkingLevel as L;
    let levels = L::ALL.to_vec();
    let mut s = ThinkingSelector::new(levels.clone(), L::Medium);
    assert_eq!(s.handle(&key(KeyCode::Down)), DialogAction::Pending);
    assert_eq!(s.handle(&key(KeyCode::Enter)), DialogAction::Done(L::High));
    let mut s = ThinkingSelector::new(levels, L::Off);
    feed(&mut s, &Input::typed("xh"));
    assert_eq!(s.handle(&key(KeyCode::Enter)), DialogAction::Done(L::Xhigh));
    both(
        "thinking_selector",
        &ThinkingSelector::new(L::ALL[..5].to_vec(), L::Medium),
    );
}

const NOW: i64 = 1_800_000_000_000;

fn session(
    file: &str,
    cwd: &str,
    name: Option<&str>,
    first: Option<&str>,
    ago_ms: i64,
    count: usize,
) -> rho_core::session::listing::SessionSummary {
    rho_core::session::listing::SessionSummary {
        path: std::path::PathBuf::from(format!("/sessions/{file}.jsonl")),
        header: rho_core::session::SessionHeader {
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
    p.handle(&key(KeyCode::Tab));
    assert_eq!(p.scope(), SessionScope::All);
    feed(&mut p, &Input::typed("website"));
    assert_eq!(
        p.handle(&key(KeyCode::Enter)),
        DialogAction::Done(std::path::PathBuf::from("/sessions/c.jsonl"))
    );
    p.handle(&key(KeyCode::Tab));
    assert_eq!(p.scope(), SessionScope::CurrentFolder);
    assert!(
        p.list().visible_indices().is_empty(),
        "the query survives the toggle"
    );
    assert_eq!(p.handle(&key(KeyCode::Esc)), DialogAction::Cancelled);
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
    both("session_picker_current", &p);
    p.handle(&key(KeyCode::Tab));
    both("session_picker_all", &p);
}

mod tree {
    use super::*;
    use rho_agent::AgentMessage;
    use rho_ai::{
        AssistantMessage, ContentBlock, ToolCall, ToolResultMessage, UserContent, UserMessage,
    };
    use rho_core::session::{CompactionData, EntryData, SessionEntry};
    use std::sync::Arc;

    fn entry(id: &str, parent: Option<&str>, data: EntryData) -> SessionEntry {
        SessionEntry {
            id: id.into(),
            parent_id: parent.map(str::to_string),
            timestamp: String::new(),
            data,
        }
    }

    fn msg(m: AgentMessage) -> EntryData {
        EntryData::Message(Arc::new(m))
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
            id: "c1".into(),
            name: name.into(),
            arguments: serde_json::json!({}),
            thought_signature: None,
        })
    }

    fn result() -> EntryData {
        msg(AgentMessage::ToolResult(ToolResultMessage {
            tool_call_id: "c1".into(),
            tool_name: "read".into(),
            content: vec![ContentBlock::text("file text")],
            details: None,
            is_error: false,
            timestamp: 0,
        }))
    }

    pub fn session() -> Vec<SessionEntry> {
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
        let s = TreeSelector::new(&session(), Some("l1"));
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
        let mut s = TreeSelector::new(&session(), Some("a3"));
        assert_eq!(s.selected_id(), Some("a3"));
        s.handle(&key(KeyCode::Up));
        assert_eq!(s.selected_id(), Some("u2"));
        s.handle(&key(KeyCode::Up));
        s.handle(&key(KeyCode::Up));
        s.handle(&key(KeyCode::Up));
        assert_eq!(s.selected_id(), Some("u1"));
        s.handle(&key(KeyCode::Up));
        assert_eq!(s.selected_id(), Some("b1"), "wraps to the last row");
        feed(&mut s, &Input::typed("GUARD"));
        let ids: Vec<&str> = s.visible_rows().iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, vec!["a4"]);
        assert_eq!(
            s.handle(&key(KeyCode::Enter)),
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
        assert_eq!(s.handle(&key(KeyCode::Esc)), DialogAction::Cancelled);
    }

    #[test]
    fn tree_snapshots() {
        both("tree_selector", &TreeSelector::new(&session(), Some("l1")));
        let mut s = TreeSelector::new(&session(), Some("l1")).with_max_rows(4);
        feed(&mut s, &Input::typed("user"));
        both("tree_selector_filtered", &s);
    }
}

fn settings() -> Vec<SettingItem> {
    let item = |key: &str, label: &str, description: &str, values: &[&str], current| SettingItem {
        key: key.into(),
        label: label.into(),
        description: description.into(),
        values: values.iter().map(|v| v.to_string()).collect(),
        current,
    };
    vec![
        item(
            "autoCompact",
            "Auto-compact",
            "Compact the context automatically when it nears the window.",
            &["true", "false"],
            0,
        ),
        item(
            "defaultThinkingLevel",
            "Thinking level",
            "Reasoning budget for new sessions.",
            &["off", "minimal", "low", "medium", "high"],
            3,
        ),
        item("theme", "Theme", "", &["dark", "light"], 0),
        item(
            "queueMode",
            "Steering mode",
            "How queued messages are delivered while the agent works.",
            &["one-at-a-time", "all"],
            0,
        ),
    ]
}

#[test]
fn settings_cycle_values_and_return_only_changes() {
    let mut d = SettingsDialog::new(settings());
    // Auto-compact: true -> false -> true (back where it started: not a change).
    feed(&mut d, &[key(KeyCode::Enter), Input::char(' ')]);
    // Thinking level: medium -> high -> off (wraps) -> high (Left goes back).
    feed(
        &mut d,
        &[
            key(KeyCode::Down),
            key(KeyCode::Right),
            key(KeyCode::Right),
            key(KeyCode::Left),
        ],
    );
    // Theme: Up from the top wraps to the last row; then Up once more.
    feed(
        &mut d,
        &[
            key(KeyCode::Up),
            key(KeyCode::Up),
            key(KeyCode::Up),
            key(KeyCode::Left),
        ],
    );
    assert_eq!(d.items()[2].values[d.items()[2].current], "light");
    assert_eq!(
        d.handle(&key(KeyCode::Esc)),
        DialogAction::Done(vec![
            ("defaultThinkingLevel".to_string(), "high".to_string()),
            ("theme".to_string(), "light".to_string()),
        ])
    );
    let mut untouched = SettingsDialog::new(settings());
    assert_eq!(
        untouched.handle(&Input::ctrl('c')),
        DialogAction::Done(Vec::new())
    );
}

#[test]
fn settings_snapshots() {
    let mut d = SettingsDialog::new(settings());
    feed(&mut d, &[key(KeyCode::Down), key(KeyCode::Right)]);
    both("settings", &d);
}

#[test]
fn hotkeys_close_on_any_key() {
    let rows = [
        ("esc", "interrupt the agent / close a dialog"),
        ("ctrl+c", "clear the editor; twice to exit"),
        ("ctrl+o", "expand or collapse tool output"),
        ("shift+tab", "cycle the thinking level"),
        ("ctrl+p", "cycle models"),
    ];
    let mut v = HotkeysView::new(
        rows.iter()
            .map(|(k, a)| (k.to_string(), a.to_string()))
            .collect(),
    );
    assert_eq!(v.handle(&Input::Resize(80, 24)), DialogAction::Pending);
    assert_eq!(v.handle(&Input::char('q')), DialogAction::Done(()));
    assert_eq!(v.handle(&key(KeyCode::Esc)), DialogAction::Done(()));
    both("hotkeys", &v);
}

mod extension_ui {
    use super::*;
    use rho_tui::components::Component;

    fn show_c(c: &dyn Component, width: usize) -> String {
        show(&c.render(width, &Theme::dark()), width)
    }

    #[test]
    fn status_bar_joins_by_key_and_clears() {
        let mut s = StatusBar::new();
        assert!(s.render(80, &Theme::dark()).is_empty());
        s.set("zeta", Some("tests: 12 passed".into()));
        s.set("alpha", Some("git: clean\n".into()));
        s.set("mid", Some("lint: 0 warnings".into()));
        assert_eq!(
            show_c(&s, 80),
            "git: clean  ·  lint: 0 warnings  ·  tests: 12 passed"
        );
        s.set("mid", None);
        s.set("zeta", Some(String::new()));
        assert_eq!(show_c(&s, 80), "git: clean");
        s.set("mid", Some("lint: 0 warnings".into()));
        s.set("zeta", Some("tests: 12 passed".into()));
        assert_snapshot!("status_bar_40", show_c(&s, 40));
    }

    #[test]
    fn widget_area_keeps_first_set_order_and_replaces_in_place() {
        let mut w = WidgetArea::new();
        w.set(
            "todo",
            Some(vec!["☐ write tests".into(), "☑ write code".into()]),
        );
        w.set("timer", Some(vec!["⏱ 00:12".into()]));
        w.set("todo", Some(vec!["☑ write tests".into()]));
        assert_eq!(show_c(&w, 80), "☑ write tests\n⏱ 00:12");
        w.set("todo", None);
        assert_eq!(show_c(&w, 80), "⏱ 00:12");
        w.set("long", Some(vec!["x".repeat(100)]));
        assert_eq!(w.render(40, &Theme::dark())[1], "x".repeat(40));
        assert_eq!(WidgetPlacement::default(), WidgetPlacement::AboveEditor);
    }

    #[test]
    fn notifications_label_and_wrap_by_kind() {
        for kind in ["info", "warning", "error"] {
            let n = Notification {
                kind: NotificationKind::parse(kind),
                text: "The extension could not reach the server; results may be stale.".into(),
            };
            for width in [80, 40] {
                assert_snapshot!(format!("notification_{kind}_{width}"), show_c(&n, width));
            }
        }
        let err = Notification {
            kind: NotificationKind::Error,
            text: "boom".into(),
        };
        let line = &err.render(80, &Theme::dark())[0];
        assert!(
            line.contains(&Theme::dark().colors.error.fg_code()),
            "{line:?}"
        );
    }
}

#[test]
fn every_dialog_fits_tiny_widths() {
    fn fits<D: Dialog>(d: &D) {
        for width in [1, 2, 3, 5, 9] {
            let lines = d.render(width, &Theme::dark());
            for l in &lines {
                assert!(visible_width(l) <= width, "{width}: {l:?}");
            }
        }
    }
    let mut l = SelectList::new("Fruit", fruits()).with_current(0);
    fits(&l);
    feed(&mut l, &Input::typed("an"));
    fits(&l);
    fits(&ConfirmDialog::new("Delete?", "Really?"));
    fits(&InputDialog::new("Key", "sk-").masked().with_value("secret"));
    fits(&TextAreaDialog::new("Edit", "a\nbc"));
    fits(&ModelSelector::new(models(), Some(("openai", "gpt-5"))));
    fits(&ThinkingSelector::new(
        rho_ai::ThinkingLevel::ALL.to_vec(),
        rho_ai::ThinkingLevel::Low,
    ));
    fits(&picker());
    fits(&TreeSelector::new(&tree::session(), Some("a3")));
    fits(&SettingsDialog::new(settings()));
    fits(&HotkeysView::new(vec![("ctrl+o".into(), "expand".into())]));
}
