//! The prompt editor driven by inputs, as the interactive loop drives it: editing, history,
//! pastes and completion, and snapshots of how it draws at 80 and 40 columns.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_tui::ansi::strip_ansi;
use rho_tui::editor::{CompletionItem, Editor, EditorAction};
use rho_tui::input::{Input, KeyCode, KeyModifiers};
use rho_tui::theme::Color;
use rho_tui::Keymap;
use rho_tui::Theme;

fn editor() -> Editor {
    Editor::new(std::env::temp_dir())
}

fn feed(ed: &mut Editor, inputs: &[Input]) -> Vec<EditorAction> {
    inputs
        .iter()
        .map(|i| ed.handle(i, &Keymap::default()))
        .collect()
}

fn key(code: KeyCode) -> Input {
    Input::key(code)
}

#[test]
fn typing_editing_and_submitting() {
    let mut ed = editor();
    feed(&mut ed, &Input::typed("helo"));
    feed(
        &mut ed,
        &[key(KeyCode::Left), Input::char('l'), key(KeyCode::Right)],
    );
    assert_eq!(ed.text(), "hello");
    feed(&mut ed, &[key(KeyCode::Backspace)]);
    let shift_enter = Input::with_mods(KeyCode::Enter, KeyModifiers::SHIFT);
    feed(&mut ed, &[shift_enter, Input::char('x')]);
    assert_eq!(ed.text(), "hell\nx");
    assert_eq!(
        ed.handle(&key(KeyCode::Enter), &Keymap::default()),
        EditorAction::Submit("hell\nx".into())
    );
    assert!(ed.is_empty());
    assert_eq!(
        ed.handle(&key(KeyCode::Enter), &Keymap::default()),
        EditorAction::Handled
    );
}

fn shift_enter() -> Input {
    Input::with_mods(KeyCode::Enter, KeyModifiers::SHIFT)
}

#[test]
fn keys_the_loop_binds_are_ignored() {
    let mut ed = editor();
    feed(&mut ed, &Input::typed("abc"));
    let ignored = [
        key(KeyCode::Esc),
        Input::ctrl('c'),
        Input::alt(KeyCode::Enter),
        Input::ctrl('o'),
        Input::ctrl('t'),
        Input::ctrl('l'),
        Input::ctrl('p'),
        Input::with_mods(KeyCode::BackTab, KeyModifiers::SHIFT),
        Input::Resize(80, 24),
    ];
    for input in &ignored {
        assert_eq!(
            ed.handle(input, &Keymap::default()),
            EditorAction::Ignored,
            "{input:?}"
        );
    }
    assert_eq!(ed.text(), "abc");
    ed.clear();
    assert_eq!(
        ed.handle(&Input::ctrl('d'), &Keymap::default()),
        EditorAction::Ignored
    );
}

#[test]
fn newlines_from_shift_enter_ctrl_j_and_a_trailing_backslash() {
    let mut ed = editor();
    feed(
        &mut ed,
        &[Input::char('a'), shift_enter(), Input::char('b')],
    );
    feed(
        &mut ed,
        &[Input::ctrl('j'), Input::char('c'), Input::char('\\')],
    );
    assert_eq!(
        ed.handle(&key(KeyCode::Enter), &Keymap::default()),
        EditorAction::Handled
    );
    feed(&mut ed, &Input::typed("d"));
    assert_eq!(ed.text(), "a\nb\nc\nd");
}

#[test]
fn blank_text_is_not_submitted_and_submissions_are_trimmed() {
    let mut ed = editor();
    feed(&mut ed, &Input::typed("   "));
    assert_eq!(
        ed.handle(&key(KeyCode::Enter), &Keymap::default()),
        EditorAction::Handled
    );
    assert_eq!(ed.text(), "   ");
    feed(&mut ed, &Input::typed("hi  "));
    assert_eq!(
        ed.handle(&key(KeyCode::Enter), &Keymap::default()),
        EditorAction::Submit("hi".into())
    );
}

#[test]
fn line_and_word_keys() {
    let mut ed = editor();
    ed.set_text("one two.three\nfour five");
    feed(&mut ed, &[Input::ctrl('w')]);
    assert_eq!(ed.text(), "one two.three\nfour ");
    feed(&mut ed, &[Input::alt(KeyCode::Backspace)]);
    assert_eq!(ed.text(), "one two.three\n");
    feed(&mut ed, &[key(KeyCode::Backspace)]);
    assert_eq!(ed.text(), "one two.three");
    let ctrl_left = Input::with_mods(KeyCode::Left, KeyModifiers::CONTROL);
    feed(&mut ed, &[ctrl_left.clone(), ctrl_left, Input::char('X')]);
    assert_eq!(ed.text(), "one twoX.three");
    feed(&mut ed, &[Input::ctrl('k')]);
    assert_eq!(ed.text(), "one twoX");
    feed(&mut ed, &[Input::alt(KeyCode::Left), Input::ctrl('u')]);
    assert_eq!(ed.text(), "twoX");
    feed(
        &mut ed,
        &[key(KeyCode::Delete), Input::ctrl('e'), Input::char('!')],
    );
    feed(&mut ed, &[key(KeyCode::Home), Input::char('>')]);
    assert_eq!(ed.text(), ">woX!");
    feed(
        &mut ed,
        &[
            Input::alt(KeyCode::Right),
            key(KeyCode::End),
            Input::char('?'),
        ],
    );
    assert_eq!(ed.text(), ">woX!?");
    feed(&mut ed, &[Input::ctrl('a'), Input::ctrl('k')]);
    assert!(ed.is_empty());
}

#[test]
fn delete_at_a_line_end_joins_lines() {
    let mut ed = editor();
    ed.set_text("ab\ncd");
    feed(
        &mut ed,
        &[key(KeyCode::Up), key(KeyCode::End), key(KeyCode::Delete)],
    );
    assert_eq!(ed.text(), "abcd");
}

#[test]
fn up_and_down_move_by_visual_position() {
    let t = Theme::dark();
    let mut ed = editor();
    ed.set_text("abcdef\n日本x");
    ed.render(4, &t, Color::Default);
    // Rows at 4 columns: "abcd" | "ef" | "日本" | "x". Column 1 falls inside 日: before it.
    feed(&mut ed, &[key(KeyCode::Up), Input::char('1')]);
    assert_eq!(ed.text(), "abcdef\n1日本x");
    // Rows: "abcd" | "ef" | "1日" | "本x"; the cursor is at column 1.
    feed(&mut ed, &[key(KeyCode::Up), Input::char('2')]);
    assert_eq!(ed.text(), "abcde2f\n1日本x");
    // On the first row, Up goes to the start.
    feed(
        &mut ed,
        &[key(KeyCode::Up), key(KeyCode::Up), Input::char('3')],
    );
    assert_eq!(ed.text(), "3abcde2f\n1日本x");
    feed(
        &mut ed,
        &[key(KeyCode::Down), key(KeyCode::Down), Input::char('4')],
    );
    assert_eq!(ed.text(), "3abcde2f\n14日本x");
    // On the last row, Down goes to the end.
    feed(
        &mut ed,
        &[key(KeyCode::Down), key(KeyCode::Down), Input::char('5')],
    );
    assert_eq!(ed.text(), "3abcde2f\n14日本x5");
}

#[test]
fn history_recall_on_the_first_line_and_back_to_the_draft() {
    let mut ed = editor();
    for text in ["first", "second\nline"] {
        ed.set_text(text);
        assert!(matches!(
            ed.handle(&key(KeyCode::Enter), &Keymap::default()),
            EditorAction::Submit(_)
        ));
    }
    feed(&mut ed, &[key(KeyCode::Up)]);
    assert_eq!(ed.text(), "second\nline");
    feed(&mut ed, &[key(KeyCode::Up), key(KeyCode::Up)]);
    assert_eq!(ed.text(), "first");
    feed(&mut ed, &[key(KeyCode::Up)]);
    assert_eq!(ed.text(), "first");
    feed(&mut ed, &[key(KeyCode::Down)]);
    assert_eq!(ed.text(), "second\nline");
    feed(&mut ed, &[key(KeyCode::Down)]);
    assert!(ed.is_empty());
}

#[test]
fn up_with_a_draft_goes_to_its_start_instead_of_history() {
    let mut ed = editor();
    ed.add_to_history("old");
    ed.set_text("draft");
    feed(&mut ed, &[key(KeyCode::Up), Input::char('>')]);
    assert_eq!(ed.text(), ">draft");
}

#[test]
fn small_pastes_are_inserted_whole_and_normalized() {
    let mut ed = editor();
    let actions = feed(&mut ed, &[Input::Paste("a\r\n\tb\rc".into())]);
    assert_eq!(actions, vec![EditorAction::Handled]);
    assert_eq!(ed.text(), "a\n    b\nc");
}

#[test]
fn large_pastes_show_as_markers_and_expand_on_submit() {
    let mut ed = editor();
    let body = (1..=42)
        .map(|i| format!("line {i}"))
        .collect::<Vec<_>>()
        .join("\n");
    feed(&mut ed, &Input::typed("see "));
    feed(
        &mut ed,
        &[Input::Paste(body.clone()), Input::Paste("x".repeat(1234))],
    );
    assert_eq!(ed.text(), "see [paste #1 +42 lines][paste #2 1234 chars]");
    let expected = format!("see {body}{}", "x".repeat(1234));
    assert_eq!(
        ed.handle(&key(KeyCode::Enter), &Keymap::default()),
        EditorAction::Submit(expected.clone())
    );
    feed(&mut ed, &[key(KeyCode::Up)]);
    assert_eq!(ed.text(), expected);
}

#[test]
fn a_marker_is_deleted_and_stepped_over_as_a_whole() {
    let mut ed = editor();
    let body = "y\n".repeat(20);
    feed(&mut ed, &[Input::Paste(body.clone()), Input::char('!')]);
    feed(
        &mut ed,
        &[key(KeyCode::Left), key(KeyCode::Left), Input::char('<')],
    );
    assert_eq!(ed.text(), "<[paste #1 +21 lines]!");
    feed(&mut ed, &[key(KeyCode::Right), key(KeyCode::Backspace)]);
    assert_eq!(ed.text(), "<!");
    ed.set_text("");
    feed(
        &mut ed,
        &[
            Input::Paste(body.clone()),
            key(KeyCode::Home),
            key(KeyCode::Delete),
        ],
    );
    assert!(ed.is_empty());
    feed(&mut ed, &[Input::Paste(body)]);
    // The raw text is trimmed before the markers are expanded: the paste stays as it was.
    assert_eq!(ed.take_submission(), "y\n".repeat(20));
}

#[test]
fn take_submission_expands_records_and_clears() {
    let mut ed = editor();
    ed.set_text("follow up");
    assert_eq!(ed.take_submission(), "follow up");
    assert!(ed.is_empty());
    feed(&mut ed, &[key(KeyCode::Up)]);
    assert_eq!(ed.text(), "follow up");
}

fn commands() -> Vec<CompletionItem> {
    [
        ("settings", "Open settings menu"),
        ("model", "Select model (opens selector UI)"),
        ("export", "Export session to HTML file"),
        ("share", "Share session as a secret GitHub gist"),
        ("copy", "Copy last agent message to clipboard"),
        ("session", "Show session info and stats"),
        ("compact", "Manually compact the session context"),
        ("resume", "Resume a different session"),
        ("skill:review", "Review the current diff"),
        ("tree", "Navigate the session tree"),
    ]
    .into_iter()
    .map(|(name, description)| CompletionItem {
        value: name.into(),
        label: format!("/{name}"),
        description: description.into(),
    })
    .collect()
}

fn with_commands() -> Editor {
    let mut ed = editor();
    ed.set_commands(commands());
    ed
}

/// The popup's rows as plain text.
fn popup(ed: &Editor) -> Vec<String> {
    let lines = ed.render(80, &Theme::dark(), Color::Default);
    let box_rows = 2 + ed.text().split('\n').count();
    lines[box_rows..]
        .iter()
        .map(|l| strip_ansi(l).trim_end().to_string())
        .collect()
}

/// A popup row without the selection mark.
fn entry(row: &str) -> &str {
    row.trim_start_matches(['→', ' '])
}

#[test]
fn slash_opens_command_completion_filtered_fuzzily() {
    let mut ed = with_commands();
    feed(&mut ed, &[Input::char('/')]);
    assert!(ed.is_completing());
    assert_eq!(popup(&ed).len(), 8 + 1);
    feed(&mut ed, &Input::typed("se"));
    let rows = popup(&ed);
    let names: Vec<&str> = rows
        .iter()
        .map(|r| entry(r).split(' ').next().unwrap_or(""))
        .collect();
    assert_eq!(names[..2], ["/session", "/settings"]);
    assert!(names.contains(&"/resume") || names.contains(&"/share"));
    assert!(!names.contains(&"/tree"));
    feed(&mut ed, &Input::typed("zzz"));
    assert!(!ed.is_completing());
}

#[test]
fn tab_accepts_and_arrows_select() {
    let mut ed = with_commands();
    feed(&mut ed, &Input::typed("/se"));
    assert!(popup(&ed)[0].starts_with("→ /session"));
    feed(&mut ed, &[key(KeyCode::Down)]);
    assert!(popup(&ed)[1].starts_with("→ /settings"));
    feed(&mut ed, &[key(KeyCode::Up), key(KeyCode::Up)]);
    assert!(popup(&ed).iter().any(|r| r.starts_with("→ ")));
    assert!(!popup(&ed)[0].starts_with("→ "));
    feed(
        &mut ed,
        &[key(KeyCode::Down), key(KeyCode::Down), key(KeyCode::Tab)],
    );
    assert_eq!(ed.text(), "/settings ");
    assert!(!ed.is_completing());
}

#[test]
fn enter_accepts_a_partial_command_and_submits_a_complete_one() {
    let mut ed = with_commands();
    feed(&mut ed, &Input::typed("/mod"));
    assert_eq!(
        ed.handle(&key(KeyCode::Enter), &Keymap::default()),
        EditorAction::Handled
    );
    assert_eq!(ed.text(), "/model ");
    assert_eq!(
        ed.handle(&key(KeyCode::Enter), &Keymap::default()),
        EditorAction::Submit("/model".into())
    );
    feed(&mut ed, &Input::typed("/tree"));
    assert!(ed.is_completing());
    assert_eq!(
        ed.handle(&key(KeyCode::Enter), &Keymap::default()),
        EditorAction::Submit("/tree".into())
    );
}

#[test]
fn esc_closes_the_popup_until_the_text_changes() {
    let mut ed = with_commands();
    feed(&mut ed, &Input::typed("/co"));
    assert_eq!(
        ed.handle(&key(KeyCode::Esc), &Keymap::default()),
        EditorAction::Handled
    );
    assert!(!ed.is_completing());
    feed(&mut ed, &[key(KeyCode::Left)]);
    assert!(!ed.is_completing());
    feed(&mut ed, &[key(KeyCode::End), Input::char('p')]);
    assert!(ed.is_completing());
    assert!(popup(&ed)[0].starts_with("→ /copy"));
    assert_eq!(
        ed.handle(&key(KeyCode::Esc), &Keymap::default()),
        EditorAction::Handled
    );
    assert_eq!(
        ed.handle(&key(KeyCode::Esc), &Keymap::default()),
        EditorAction::Ignored
    );
}

#[test]
fn slash_later_in_the_text_is_not_a_command() {
    let mut ed = with_commands();
    feed(&mut ed, &Input::typed("a /mo"));
    assert!(!ed.is_completing());
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for d in ["src/editor", "docs", ".git", "target", "my dir"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    let files = [
        ".gitignore",
        "Cargo.toml",
        "README.md",
        "src/lib.rs",
        "src/main.rs",
        "src/editor/mod.rs",
        "docs/guide.md",
        "target/build.log",
        ".git/HEAD",
        "my dir/notes one.txt",
    ];
    for f in files {
        std::fs::write(root.join(f), "").unwrap();
    }
    std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
    dir
}

#[test]
fn at_completes_paths_under_cwd_respecting_gitignore() {
    let dir = project();
    let mut ed = Editor::new(dir.path().to_path_buf());
    feed(&mut ed, &Input::typed("look at @"));
    assert!(ed.is_completing());
    let all = popup(&ed);
    assert!(
        all.iter()
            .all(|r| !r.contains("target") && !r.contains(".git/")),
        "{all:?}"
    );
    feed(&mut ed, &Input::typed("main"));
    assert!(popup(&ed)[0].starts_with("→ main.rs"));
    assert!(popup(&ed)[0].ends_with(" src/main.rs"));
    feed(&mut ed, &[key(KeyCode::Enter)]);
    assert_eq!(ed.text(), "look at @src/main.rs ");
    assert!(!ed.is_completing());
}

#[test]
fn accepting_a_directory_keeps_completing_inside_it() {
    let dir = project();
    let mut ed = Editor::new(dir.path().to_path_buf());
    feed(&mut ed, &Input::typed("@sr"));
    assert!(popup(&ed)[0].starts_with("→ src/ "));
    feed(&mut ed, &[key(KeyCode::Tab)]);
    assert_eq!(ed.text(), "@src/");
    assert!(ed.is_completing());
    let inside = popup(&ed);
    assert!(inside.iter().all(|r| r.contains(" src/")), "{inside:?}");
    feed(&mut ed, &Input::typed("mod"));
    feed(&mut ed, &[key(KeyCode::Tab)]);
    assert_eq!(ed.text(), "@src/editor/mod.rs ");
}

#[test]
fn paths_with_spaces_are_quoted() {
    let dir = project();
    let mut ed = Editor::new(dir.path().to_path_buf());
    feed(&mut ed, &Input::typed("@notes"));
    feed(&mut ed, &[key(KeyCode::Tab)]);
    assert_eq!(ed.text(), "@\"my dir/notes one.txt\" ");
}

#[test]
fn an_at_inside_a_word_does_not_complete() {
    let dir = project();
    let mut ed = Editor::new(dir.path().to_path_buf());
    feed(&mut ed, &Input::typed("me@src"));
    assert!(!ed.is_completing());
}

#[test]
fn tab_completes_a_path_like_word() {
    let dir = project();
    let mut ed = Editor::new(dir.path().to_path_buf());
    feed(&mut ed, &Input::typed("see src/ma"));
    assert_eq!(
        ed.handle(&key(KeyCode::Tab), &Keymap::default()),
        EditorAction::Handled
    );
    assert_eq!(ed.text(), "see src/main.rs ");
    feed(&mut ed, &Input::typed("and ./docs/"));
    assert_eq!(
        ed.handle(&key(KeyCode::Tab), &Keymap::default()),
        EditorAction::Handled
    );
    assert_eq!(ed.text(), "see src/main.rs and ./docs/guide.md ");
    feed(&mut ed, &Input::typed("src/"));
    assert_eq!(
        ed.handle(&key(KeyCode::Tab), &Keymap::default()),
        EditorAction::Handled
    );
    assert!(ed.is_completing());
    feed(&mut ed, &Input::typed("lib"));
    assert!(popup(&ed)[0].starts_with("→ lib.rs"));
    feed(&mut ed, &[key(KeyCode::Tab)]);
    assert!(ed.text().ends_with(" src/lib.rs "));
}

#[test]
fn tab_on_a_plain_word_is_left_to_the_loop() {
    let dir = project();
    let mut ed = Editor::new(dir.path().to_path_buf());
    feed(&mut ed, &Input::typed("hello"));
    assert_eq!(
        ed.handle(&key(KeyCode::Tab), &Keymap::default()),
        EditorAction::Ignored
    );
    feed(&mut ed, &Input::typed(" /usr/li"));
    assert_eq!(
        ed.handle(&key(KeyCode::Tab), &Keymap::default()),
        EditorAction::Ignored
    );
    assert_eq!(ed.text(), "hello /usr/li");
    // A path-like word without matches: nothing opens, and typing on does not open it later.
    feed(&mut ed, &Input::typed(" src/zz"));
    assert_eq!(
        ed.handle(&key(KeyCode::Tab), &Keymap::default()),
        EditorAction::Ignored
    );
    feed(&mut ed, &[key(KeyCode::Backspace), key(KeyCode::Backspace)]);
    assert!(!ed.is_completing());
}

#[test]
fn a_path_pasted_after_a_word_gets_a_space() {
    let mut ed = editor();
    feed(&mut ed, &Input::typed("see"));
    feed(&mut ed, &[Input::Paste("/tmp/x.log".into())]);
    assert_eq!(ed.text(), "see /tmp/x.log");
    feed(&mut ed, &[Input::Paste("\x1b[31mred".into())]);
    assert_eq!(ed.text(), "see /tmp/x.log[31mred");
}

#[test]
fn a_paste_does_not_open_completion() {
    let mut ed = with_commands();
    feed(&mut ed, &[Input::Paste("/mo".into())]);
    assert!(!ed.is_completing());
    feed(&mut ed, &[Input::char('d')]);
    assert!(ed.is_completing());
}

#[test]
fn moving_the_cursor_closes_the_popup_and_editing_reopens_it() {
    let mut ed = with_commands();
    feed(&mut ed, &Input::typed("/co"));
    feed(&mut ed, &[key(KeyCode::Left)]);
    assert!(!ed.is_completing());
    feed(&mut ed, &[key(KeyCode::Backspace)]);
    assert!(ed.is_completing());
    assert_eq!(ed.text(), "/o");
}

#[test]
fn popup_rows_follow_the_max_visible_setting() {
    let mut ed = with_commands();
    ed.set_autocomplete_max_visible(5);
    feed(&mut ed, &[Input::char('/')]);
    assert_eq!(popup(&ed).len(), 5 + 1);
    ed.set_autocomplete_max_visible(1);
    assert_eq!(popup(&ed).len(), 3 + 1);
}

#[test]
fn padding_narrows_the_text_and_moves_by_its_rows() {
    let mut ed = editor();
    ed.set_padding_x(2);
    ed.set_text("abcdefgh");
    let lines = ed.render(8, &Theme::dark(), Color::Default);
    assert_eq!(strip_ansi(&lines[1]), "  abcd");
    feed(
        &mut ed,
        &[key(KeyCode::Left), key(KeyCode::Up), Input::char('^')],
    );
    assert_eq!(ed.text(), "abc^defgh");
}

fn undo_key() -> Input {
    // What a terminal without keyboard enhancements sends for Ctrl+- (0x1F).
    Input::ctrl('7')
}

#[test]
fn undo_takes_back_a_word_at_a_time_and_other_edits_one_by_one() {
    let mut ed = editor();
    feed(&mut ed, &Input::typed("hello big world"));
    feed(&mut ed, &[undo_key()]);
    assert_eq!(ed.text(), "hello big");
    feed(&mut ed, &[undo_key()]);
    assert_eq!(ed.text(), "hello");
    feed(&mut ed, &[Input::ctrl('w'), key(KeyCode::Backspace)]);
    assert!(ed.is_empty());
    feed(
        &mut ed,
        &[Input::with_mods(KeyCode::Char('-'), KeyModifiers::CONTROL)],
    );
    assert_eq!(ed.text(), "hello");
    feed(&mut ed, &[undo_key()]);
    assert!(ed.is_empty());
    assert_eq!(
        ed.handle(&undo_key(), &Keymap::default()),
        EditorAction::Handled
    );
    assert!(ed.is_empty());
}

#[test]
fn clear_can_be_undone_with_its_paste_markers_intact() {
    let mut ed = editor();
    let body = "p\n".repeat(15);
    feed(&mut ed, &[Input::Paste(body.clone())]);
    ed.clear();
    assert!(ed.is_empty());
    feed(&mut ed, &[undo_key()]);
    assert_eq!(ed.text(), "[paste #1 +16 lines]");
    assert_eq!(
        ed.take_submission(),
        body.trim_end_matches('\n').to_string() + "\n"
    );
}

#[test]
fn kills_accumulate_and_yank_puts_them_back() {
    let mut ed = editor();
    ed.set_text("one two three");
    feed(&mut ed, &[Input::ctrl('w'), Input::ctrl('w')]);
    assert_eq!(ed.text(), "one ");
    feed(&mut ed, &[Input::ctrl('a'), Input::ctrl('y')]);
    assert_eq!(ed.text(), "two threeone ");
    feed(&mut ed, &[Input::ctrl('k')]);
    assert_eq!(ed.text(), "two three");
    feed(&mut ed, &[Input::ctrl('e'), Input::ctrl('y')]);
    assert_eq!(ed.text(), "two threeone ");
    feed(&mut ed, &[Input::alt(KeyCode::Char('y'))]);
    assert_eq!(ed.text(), "two threetwo three");
    feed(&mut ed, &[Input::char('!'), Input::alt(KeyCode::Char('y'))]);
    assert_eq!(ed.text(), "two threetwo three!");
}

#[test]
fn page_keys_move_the_popup_selection_by_a_screenful() {
    let mut ed = with_commands();
    feed(&mut ed, &[Input::char('/'), key(KeyCode::PageDown)]);
    let selected = |ed: &Editor| popup(ed).into_iter().find(|r| r.starts_with("→ "));
    assert!(selected(&ed).unwrap().starts_with("→ /skill:review"));
    feed(&mut ed, &[key(KeyCode::PageDown)]);
    assert!(selected(&ed).unwrap().starts_with("→ /tree"));
    feed(&mut ed, &[key(KeyCode::PageUp)]);
    assert!(selected(&ed).unwrap().starts_with("→ /model"));
    feed(&mut ed, &[key(KeyCode::PageUp)]);
    assert!(selected(&ed).unwrap().starts_with("→ /settings"));
}

#[test]
fn up_and_down_keep_their_column_across_short_lines() {
    let mut ed = editor();
    ed.set_text("abcdef\nab\nabcdef");
    feed(
        &mut ed,
        &[key(KeyCode::Up), key(KeyCode::Up), Input::char('|')],
    );
    assert_eq!(ed.text(), "abcdef|\nab\nabcdef");
    feed(
        &mut ed,
        &[key(KeyCode::Left), key(KeyCode::Down), key(KeyCode::Down)],
    );
    feed(&mut ed, &[Input::char('|')]);
    assert_eq!(ed.text(), "abcdef|\nab\nabcdef|");
}

#[test]
fn page_keys_move_by_the_box_height() {
    let mut ed = editor();
    ed.set_terminal_rows(10);
    let text = (0..20)
        .map(|i| format!("line {i}"))
        .collect::<Vec<_>>()
        .join("\n");
    ed.set_text(&text);
    feed(&mut ed, &[key(KeyCode::PageUp), Input::char('<')]);
    assert!(ed.text().contains("line 14<"), "{}", ed.text());
    feed(
        &mut ed,
        &[
            key(KeyCode::PageUp),
            key(KeyCode::PageUp),
            key(KeyCode::PageUp),
        ],
    );
    feed(&mut ed, &[key(KeyCode::PageUp), Input::char('^')]);
    assert!(ed.text().starts_with("line 0^\n"), "{}", ed.text());
}

#[test]
fn a_resize_sets_the_height_and_is_left_to_the_loop() {
    let mut ed = editor();
    ed.set_text(&"x\n".repeat(30));
    assert_eq!(ed.render(20, &Theme::dark(), Color::Default).len(), 33);
    assert_eq!(
        ed.handle(&Input::Resize(20, 24), &Keymap::default()),
        EditorAction::Ignored
    );
    let lines = ed.render(20, &Theme::dark(), Color::Default);
    assert_eq!(lines.len(), 7 + 2);
    assert!(strip_ansi(&lines[0]).starts_with("─── ↑ 24 more"));
}

#[test]
fn jump_keys_move_to_the_next_or_previous_character_typed() {
    let mut ed = editor();
    feed(&mut ed, &Input::typed("alpha beta"));
    feed(&mut ed, &[shift_enter()]);
    feed(&mut ed, &Input::typed("gamma"));
    let ctrl_bracket = Input::ctrl(']');
    let ctrl_alt_bracket = Input::with_mods(
        KeyCode::Char(']'),
        KeyModifiers::CONTROL | KeyModifiers::ALT,
    );
    // Backward to the `b` of beta, across the line break, then type there.
    feed(
        &mut ed,
        &[ctrl_alt_bracket.clone(), Input::char('b'), Input::char('>')],
    );
    assert_eq!(ed.text(), "alpha >beta\ngamma");
    // Forward to the next `m` (in gamma), on the next line.
    feed(
        &mut ed,
        &[ctrl_bracket.clone(), Input::char('m'), Input::char('|')],
    );
    assert_eq!(ed.text(), "alpha >beta\nga|mma");
    // No such character: the cursor stays; the jump key twice cancels, and the character
    // after is typed.
    feed(
        &mut ed,
        &[ctrl_bracket.clone(), Input::char('z'), Input::char('1')],
    );
    assert_eq!(ed.text(), "alpha >beta\nga|1mma");
    feed(
        &mut ed,
        &[ctrl_bracket.clone(), ctrl_bracket, Input::char('x')],
    );
    assert_eq!(ed.text(), "alpha >beta\nga|1xmma");
}
