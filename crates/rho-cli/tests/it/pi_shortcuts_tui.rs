//! pi's `registerShortcut` in the interactive mode, in a tmux pane: pi's plan-mode example
//! binds ctrl+alt+p; pressing it runs the extension's handler, and /hotkeys lists it. Skipped
//! (with a notice) without tmux or node ≥ 22.18.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::pi_support;
use crate::tui;

use common::Sandbox;
use tui::{skip_without_tmux, Tmux};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_modes_shortcut_toggles_plan_mode_and_is_listed_in_hotkeys() {
    let sb = Sandbox::new().await;
    if skip_without_tmux("plan-mode") {
        return;
    }
    let Some(copies) = pi_support::prepare_agent(sb.agent.path(), &["plan-mode"]) else {
        return;
    };
    let ext = copies[0].display().to_string();
    let tmux = Tmux::start(&sb, &["--model", "mock-model", "-e", &ext]);
    tmux.wait_for("the footer", |s| s.contains("mock-model"))
        .await;
    // ctrl+alt+p as a terminal sends it: Esc, then Ctrl+P.
    tmux.send_keys(&["C-M-p"]);
    tmux.wait_for_text("Plan mode enabled. Built-in write tools disabled.")
        .await;
    tmux.send_keys(&["C-M-p"]);
    tmux.wait_for_text("Plan mode disabled. Full access restored.")
        .await;
    tmux.submit("/hotkeys");
    let screen = tmux.wait_for_text("Toggle plan mode").await;
    let row = screen
        .lines()
        .find(|l| l.contains("Toggle plan mode"))
        .unwrap_or_default();
    assert!(row.contains("ctrl+alt+p"), "{screen}");
}
