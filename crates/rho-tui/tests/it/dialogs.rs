//! Behaviour and snapshot tests of the selectors, prompts and settings dialogs. Snapshots show
//! the visible text with escapes stripped and a `|` at the right edge of full-width lines, at
//! 80 and 40 columns.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{feed, key, show};
use rho_tui::ansi::visible_width;
use rho_tui::dialogs::*;
use rho_tui::input::{KeyCode, KeyModifiers};
use rho_tui::Keymap;
use rho_tui::{Dialog, DialogAction, Input, Theme};

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
    assert_eq!(
        l.handle(&key(KeyCode::Enter), &Keymap::default()),
        DialogAction::Done(4)
    );
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
    assert_eq!(
        l.handle(&key(KeyCode::Enter), &Keymap::default()),
        DialogAction::Pending
    );
    assert!(show(&l.render(40, &Theme::dark()), 40).contains("No matches"));
    assert_eq!(
        l.handle(&key(KeyCode::Esc), &Keymap::default()),
        DialogAction::Cancelled
    );
    let mut l = SelectList::new("Fruit", fruits());
    assert_eq!(
        l.handle(&Input::ctrl('c'), &Keymap::default()),
        DialogAction::Cancelled
    );
}

#[test]
fn select_list_paste_filters() {
    let mut l = SelectList::new("Fruit", fruits());
    l.handle(&Input::Paste("cher\n".into()), &Keymap::default());
    assert_eq!(l.visible_indices(), &[2]);
}

#[test]
fn select_list_snapshots() {
    let l = SelectList::new("Pick a fruit", fruits())
        .with_selected(1)
        .with_current(2);
    both!("select_list", &l);
    let items = (0..40)
        .map(|i| SelectItem::new(format!("entry-{i:02}"), format!("description number {i}")))
        .collect();
    let mut l = SelectList::new("Scrolling", items).with_max_rows(5);
    feed(&mut l, &[key(KeyCode::PageDown), key(KeyCode::Down)]);
    both!("select_list_scrolled", &l);
    let mut l = SelectList::new("Pick a fruit", fruits());
    feed(&mut l, &Input::typed("zz"));
    both!("select_list_no_matches", &l);
}

#[test]
fn confirm_answers() {
    let mut c = ConfirmDialog::new("Delete?", "Remove the session file?");
    assert_eq!(
        c.handle(&Input::char('x'), &Keymap::default()),
        DialogAction::Pending
    );
    assert_eq!(
        c.handle(&Input::char('Y'), &Keymap::default()),
        DialogAction::Done(true)
    );
    assert_eq!(
        c.handle(&key(KeyCode::Enter), &Keymap::default()),
        DialogAction::Done(true)
    );
    assert_eq!(
        c.handle(&Input::char('n'), &Keymap::default()),
        DialogAction::Done(false)
    );
    assert_eq!(
        c.handle(&Input::char('N'), &Keymap::default()),
        DialogAction::Done(false)
    );
    assert_eq!(
        c.handle(&key(KeyCode::Esc), &Keymap::default()),
        DialogAction::Cancelled
    );
    both!(
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
        d.handle(&key(KeyCode::Enter), &Keymap::default()),
        DialogAction::Done("llo world".into())
    );
    assert_eq!(
        d.handle(&Input::ctrl('c'), &Keymap::default()),
        DialogAction::Cancelled
    );
}

#[test]
fn input_dialog_masks_secrets() {
    let mut d = InputDialog::new("API key for anthropic", "sk-...").masked();
    feed(&mut d, &[Input::Paste("sk-secret".into())]);
    let text = show(&d.render(40, &Theme::dark()), 40);
    assert!(!text.contains("secret"), "{text}");
    assert!(text.contains("•••••••••"), "{text}");
    assert_eq!(
        d.handle(&key(KeyCode::Enter), &Keymap::default()),
        DialogAction::Done("sk-secret".into())
    );
    both!("input_masked", &d);
    both!(
        "input_placeholder",
        &InputDialog::new("Session name", "type a name"),
    );
    let long = "a fairly long value that will not fit in forty columns at all";
    both!("input_long", &InputDialog::new("Name", "").with_value(long));
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
        d.handle(&Input::ctrl('s'), &Keymap::default()),
        DialogAction::Done("first!\na\nb\nsecond line".into())
    );
    assert_eq!(
        d.handle(&key(KeyCode::Esc), &Keymap::default()),
        DialogAction::Cancelled
    );
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
    both!("text_area", &TextAreaDialog::new(
        "Edit the commit message",
        "Fix the parser\n\nIt panicked on empty input; now it returns Error::Empty and a test covers the case.",
    ));
}

fn model(provider: &str, id: &str) -> rho_protocol::Model {
    serde_json::from_value(serde_json::json!({
        "id": id, "name": id, "api": "test", "provider": provider, "baseUrl": "http://x"
    }))
    .expect("valid model json")
}

fn models() -> Vec<rho_protocol::Model> {
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
    match s.handle(&key(KeyCode::Enter), &Keymap::default()) {
        DialogAction::Done((m, as_default)) => assert_eq!(
            (m.provider.as_str(), m.id.as_str(), as_default),
            ("google", "gemini-2.5-pro", false)
        ),
        other => panic!("expected a model, got {other:?}"),
    }
    // app.models.save (Ctrl+S) picks the selected model as the default.
    match s.handle(&Input::ctrl('s'), &Keymap::default()) {
        DialogAction::Done((m, as_default)) => {
            assert_eq!((m.id.as_str(), as_default), ("gemini-2.5-pro", true))
        }
        other => panic!("expected a default model, got {other:?}"),
    }
    let mut s = ModelSelector::new(models(), None);
    feed(&mut s, &Input::typed("openrouter sonnet"));
    assert_eq!(s.list().visible_indices(), &[4]);
    assert_eq!(
        s.handle(&key(KeyCode::Esc), &Keymap::default()),
        DialogAction::Cancelled
    );
}

#[test]
fn model_selector_snapshots() {
    both!(
        "model_selector",
        &ModelSelector::new(models(), Some(("anthropic", "claude-sonnet-4-5"))),
    );
}

#[test]
fn thinking_selector_picks_a_level() {
    use rho_protocol::ThinkingLevel as L;
    let levels = L::ALL.to_vec();
    let mut s = ThinkingSelector::new(levels.clone(), L::Medium);
    assert_eq!(
        s.handle(&key(KeyCode::Down), &Keymap::default()),
        DialogAction::Pending
    );
    assert_eq!(
        s.handle(&key(KeyCode::Enter), &Keymap::default()),
        DialogAction::Done((L::High, false))
    );
    let mut s = ThinkingSelector::new(levels, L::Off);
    feed(&mut s, &Input::typed("xh"));
    assert_eq!(
        s.handle(&key(KeyCode::Enter), &Keymap::default()),
        DialogAction::Done((L::Xhigh, false))
    );
    // app.thinking.save (Ctrl+S) picks it as the default.
    assert_eq!(
        s.handle(&Input::ctrl('s'), &Keymap::default()),
        DialogAction::Done((L::Xhigh, true))
    );
    both!(
        "thinking_selector",
        &ThinkingSelector::new(L::ALL[..5].to_vec(), L::Medium),
    );
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
        d.handle(&key(KeyCode::Esc), &Keymap::default()),
        DialogAction::Done(vec![
            ("defaultThinkingLevel".to_string(), "high".to_string()),
            ("theme".to_string(), "light".to_string()),
        ])
    );
    let mut untouched = SettingsDialog::new(settings());
    assert_eq!(
        untouched.handle(&Input::ctrl('c'), &Keymap::default()),
        DialogAction::Done(Vec::new())
    );
}

#[test]
fn settings_snapshots() {
    let mut d = SettingsDialog::new(settings());
    feed(&mut d, &[key(KeyCode::Down), key(KeyCode::Right)]);
    both!("settings", &d);
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
    assert_eq!(
        v.handle(&Input::Resize(80, 24), &Keymap::default()),
        DialogAction::Pending
    );
    assert_eq!(
        v.handle(&Input::char('q'), &Keymap::default()),
        DialogAction::Done(())
    );
    assert_eq!(
        v.handle(&key(KeyCode::Esc), &Keymap::default()),
        DialogAction::Done(())
    );
    both!("hotkeys", &v);
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
        rho_protocol::ThinkingLevel::ALL.to_vec(),
        rho_protocol::ThinkingLevel::Low,
    ));
    fits(&SettingsDialog::new(settings()));
    fits(&HotkeysView::new(vec![("ctrl+o".into(), "expand".into())]));
}

#[test]
fn scoped_models_toggle_a_provider_and_reorder_the_cycle() {
    let keys = Keymap::default();
    let mut d = ScopedModelsDialog::new(&models(), None);
    let done = |d: &mut ScopedModelsDialog| match d.handle(&Input::ctrl('s'), &Keymap::default()) {
        DialogAction::Done(choice) => choice.enabled,
        other => panic!("expected a choice, got {other:?}"),
    };
    // Ctrl+P on an Anthropic model: every Anthropic model off (all were on).
    d.handle(&Input::ctrl('p'), &keys);
    let without = done(&mut d.clone()).unwrap_or_default();
    assert!(
        without.iter().all(|id| !id.starts_with("anthropic/")),
        "{without:?}"
    );
    assert_eq!(without.len(), 4);
    // Enabled models come first, in cycle order: move gpt-4o-mini above gpt-5.
    feed(&mut d, &Input::typed("4o"));
    let alt_up = Input::with_mods(KeyCode::Up, KeyModifiers::ALT);
    d.handle(&alt_up, &keys);
    let order = done(&mut d.clone()).unwrap_or_default();
    assert_eq!(&order[..2], ["openai/gpt-4o-mini", "openai/gpt-5"]);
    // Ctrl+P again turns the provider back on (at the end of the cycle).
    feed(&mut d, &vec![key(KeyCode::Backspace); 2]);
    feed(&mut d, &Input::typed("opus"));
    d.handle(&Input::ctrl('p'), &keys);
    assert_eq!(done(&mut d), None, "every model on again is no scope");
}
