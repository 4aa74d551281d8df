//! `--tui-mode fullscreen` with the real binary in tmux: the transcript scrolls in the
//! alternate screen above the editor and footer (page keys, the mouse wheel, Ctrl+End back to
//! the end), and on exit the whole transcript is left on the normal screen with the command
//! that resumes the session. Skipped (with a notice) where tmux is not installed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::tui;

use common::Sandbox;
use tui::{footer, skip_without_tmux, streamed, until, Tmux};

/// A reply of 120 list items, several screens of a 40-row terminal.
fn many_rows() -> String {
    (1..=120).map(|i| format!("- Row {i:03}\n")).collect()
}

/// The rows of the transcript visible above the editor, in order.
fn visible_rows(screen: &str) -> Vec<String> {
    screen
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("• Row ")
                .or(l.trim().strip_prefix("- Row "))
        })
        .map(|n| n.chars().take(3).collect())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_transcript_scrolls_above_a_fixed_editor_and_stays_on_screen_after_exit() {
    if skip_without_tmux("fullscreen") {
        return;
    }
    let sb = Sandbox::new().await;
    sb.server.push(streamed(&[&many_rows()]));
    let tmux = Tmux::start(&sb, &["--model", "mock-model", "--tui-mode", "fullscreen"]);
    tmux.wait_for("the footer", |s| footer(s).contains("mock-model"))
        .await;
    tmux.submit("count to 120");
    let end = tmux.wait_for_text("Row 120").await;
    assert!(
        !end.contains("Row 001"),
        "the start scrolled out of view:\n{end}"
    );
    let last = end
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    assert!(
        last.contains("mock-model"),
        "the footer is the last row:\n{end}"
    );

    tmux.send_keys(&["PPage"]);
    let up = tmux.wait_for_text("Jump to latest message").await;
    assert!(!up.contains("Row 120"), "{up}");
    let first_shown = visible_rows(&up).first().cloned().unwrap_or_default();
    // Three wheel notches up (SGR mouse reports, button 64) move the view further.
    for _ in 0..3 {
        tmux.send_bytes(b"\x1b[<64;10;10M");
    }
    tmux.wait_for("the wheel to scroll", |s| {
        visible_rows(s).first().is_some_and(|r| *r < first_shown)
    })
    .await;
    tmux.send_keys(&["C-End"]);
    tmux.wait_for_gone("Jump to latest message").await;
    tmux.wait_for_text("Row 120").await;

    tmux.send_keys(&["C-d"]);
    until("rho to exit", || tmux.exited()).await;
    let after = tmux.history();
    for text in [
        "count to 120",
        "Row 001",
        "Row 120",
        "To resume this session:",
    ] {
        assert!(after.contains(text), "{text} missing after exit:\n{after}");
    }
    let resume = after
        .lines()
        .find(|l| l.starts_with("rho --session "))
        .unwrap_or_else(|| panic!("no resume command:\n{after}"));
    let id = resume.trim_start_matches("rho --session ").trim();
    assert!(
        sb.session_files()
            .iter()
            .any(|f| f.to_string_lossy().contains(id)),
        "{id} names the session file"
    );
}
