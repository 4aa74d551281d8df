//! Snapshot tests of the prompt editor at 80 and 40 columns. Snapshots show the visible text
//! with escapes stripped, the cursor as `⟦x⟧` around the character drawn in reverse video, and
//! a `|` at the right edge of lines that fill the width.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use insta::assert_snapshot;
use rho_tui::ansi::{strip_ansi, visible_width};
use rho_tui::editor::{CompletionItem, Editor};
use rho_tui::input::{Input, KeyCode};
use rho_tui::theme::Color;
use rho_tui::Keymap;
use rho_tui::Theme;

/// Visible text of each line with the cursor marked; lines are checked to fit `width`.
fn show(lines: &[String], width: usize) -> String {
    for l in lines {
        assert!(visible_width(l) <= width, "line wider than {width}: {l:?}");
    }
    lines
        .iter()
        .map(|l| {
            let full = visible_width(l) == width;
            let marked = l.replace("\x1b[7m", "⟦").replace("\x1b[27m", "⟧");
            let plain = strip_ansi(&marked);
            if full {
                format!("{}|", plain.trim_end())
            } else {
                plain.trim_end().to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn both(name: &str, ed: &Editor) {
    let t = Theme::dark();
    let border = t.colors.thinking_medium;
    for width in [80, 40] {
        let lines = ed.render(width, &t, border);
        assert_snapshot!(format!("{name}_{width}"), show(&lines, width));
    }
}

fn feed(ed: &mut Editor, inputs: &[Input]) {
    for i in inputs {
        ed.handle(i, &Keymap::default());
    }
}

fn editor() -> Editor {
    Editor::new(std::env::temp_dir())
}

#[test]
fn empty() {
    both("editor_empty", &editor());
}

#[test]
fn multi_line_with_cursor_mid_text() {
    let mut ed = editor();
    ed.set_text("Refactor the parser:\n- keep the public API\n- add tests for empty input");
    feed(&mut ed, &[Input::key(KeyCode::Up), Input::ctrl('a')]);
    feed(
        &mut ed,
        &[Input::alt(KeyCode::Right), Input::alt(KeyCode::Right)],
    );
    both("editor_multi_line", &ed);
}

#[test]
fn wide_chars_and_emoji_wrap() {
    let mut ed = editor();
    let text = "日本語のテキストと絵文字🎉🚀が混ざった長い行は、幅に合わせて正しく折り返されるべきです。emoji 🎉🎉🎉 end";
    ed.set_text(text);
    feed(&mut ed, &[Input::ctrl('a')]);
    feed(&mut ed, &vec![Input::key(KeyCode::Right); 12]);
    both("editor_wide", &ed);
}

#[test]
fn paste_marker() {
    let mut ed = editor();
    let body = (1..=42)
        .map(|i| format!("log line {i}"))
        .collect::<Vec<_>>()
        .join("\n");
    feed(&mut ed, &Input::typed("Why does this fail? "));
    feed(
        &mut ed,
        &[Input::Paste(body), Input::Paste("x".repeat(1500))],
    );
    both("editor_paste_marker", &ed);
}

#[test]
fn command_popup() {
    let mut ed = editor();
    let commands = [
        ("settings", "Open settings menu"),
        ("model", "Select model (opens selector UI)"),
        ("export", "Export session to HTML file"),
        ("share", "Share session as a secret GitHub gist"),
        ("copy", "Copy last agent message to clipboard"),
        ("session", "Show session info and stats"),
        (
            "compact",
            "Manually compact the session context to free up space",
        ),
        ("resume", "Resume a different session"),
        ("skill:review", "Review the current diff"),
        ("tree", "Navigate the session tree"),
    ];
    ed.set_commands(
        commands
            .into_iter()
            .map(|(name, description)| CompletionItem {
                value: name.into(),
                label: format!("/{name}"),
                description: description.into(),
            })
            .collect(),
    );
    feed(&mut ed, &[Input::char('/')]);
    feed(
        &mut ed,
        &[Input::key(KeyCode::Down), Input::key(KeyCode::Down)],
    );
    both("editor_command_popup", &ed);
    feed(&mut ed, &Input::typed("co"));
    both("editor_command_popup_filtered", &ed);
}

#[test]
fn file_popup() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src/editor")).unwrap();
    std::fs::create_dir_all(root.join("target")).unwrap();
    for f in [
        "Cargo.toml",
        "src/lib.rs",
        "src/main.rs",
        "src/editor/mod.rs",
        "target/x",
    ] {
        std::fs::write(root.join(f), "").unwrap();
    }
    std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
    let mut ed = Editor::new(root.to_path_buf());
    feed(&mut ed, &Input::typed("Explain @src/"));
    feed(&mut ed, &[Input::key(KeyCode::Down)]);
    both("editor_file_popup", &ed);
}

#[test]
fn tall_text_scrolls() {
    let mut ed = editor();
    ed.set_terminal_rows(20);
    let text = (1..=12)
        .map(|i| format!("step {i}: do the thing"))
        .collect::<Vec<_>>()
        .join("\n");
    ed.set_text(&text);
    // Drawn with the cursor at the end first: the window then follows it up.
    ed.render(80, &Theme::dark(), Color::Default);
    for _ in 0..8 {
        ed.handle(&Input::key(KeyCode::Up), &Keymap::default());
    }
    both("editor_scrolled", &ed);
}
