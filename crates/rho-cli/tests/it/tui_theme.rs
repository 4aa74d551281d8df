//! Switching the theme in `/settings` with the real binary in tmux: the screen is redrawn in
//! the new theme's colours at once, the choice is saved to the global settings, and the next
//! start uses it. Skipped (with a notice) where tmux is not installed.

use serde_json::Value;

use crate::common::Sandbox;
use crate::tui::{footer, skip_without_tmux, start, Tmux};

/// The `dim` token's foreground (the footer's colour) in the dark and light themes, as tmux
/// reports styled cells.
const DARK_DIM: &str = "38;2;102;102;102m";
const LIGHT_DIM: &str = "38;2;138;138;138m";

/// The styled footer rows (the last non-empty lines) of the screen.
fn styled_footer(tmux: &Tmux) -> String {
    let styled = tmux.styled_screen();
    let lines: Vec<&str> = styled.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(2)..].join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_theme_chosen_in_settings_redraws_at_once_and_is_the_next_starts() {
    if skip_without_tmux("theme switch") {
        return;
    }
    let sb = Sandbox::new().await;
    let tmux = start(&sb).await;
    let before = styled_footer(&tmux);
    assert!(before.contains(DARK_DIM), "{before:?}");
    assert!(!before.contains(LIGHT_DIM), "{before:?}");

    tmux.submit("/settings");
    let row = tmux
        .wait_for("the settings", |s| {
            s.lines().any(|l| l.contains("Theme") && l.contains("dark"))
        })
        .await;
    let theme_row = row
        .lines()
        .position(|l| l.contains("Theme") && l.contains("dark"))
        .expect("the theme row");
    let first_row = row
        .lines()
        .position(|l| l.contains("Auto-compact"))
        .expect("the first row");
    for _ in first_row..theme_row {
        tmux.send_keys(&["Down"]);
    }
    tmux.send_keys(&["Enter"]);
    tmux.wait_for("the light value", |s| {
        s.lines()
            .any(|l| l.contains("Theme") && l.contains("light"))
    })
    .await;
    tmux.send_keys(&["Escape"]);
    tmux.wait_for_gone("Auto-compact").await;
    crate::tui::until("the footer in light colours", || {
        styled_footer(&tmux).contains(LIGHT_DIM)
    })
    .await;
    assert!(!styled_footer(&tmux).contains(DARK_DIM));

    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(sb.agent.path().join("settings.json")).expect("settings"),
    )
    .expect("json");
    assert_eq!(settings["theme"], "light", "{settings}");
    drop(tmux);

    let tmux = Tmux::start(&sb, &["--model", "mock-model"]);
    tmux.wait_for("the footer", |s| footer(s).contains("mock-model"))
        .await;
    let again = styled_footer(&tmux);
    assert!(again.contains(LIGHT_DIM), "{again:?}");
}
