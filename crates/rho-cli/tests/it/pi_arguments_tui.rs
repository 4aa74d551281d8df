//! Argument completion of extension commands (pi's `getArgumentCompletions`) in the
//! interactive mode, in a tmux pane: typing `/commands ` with pi's `commands.ts` example
//! loaded lists what the extension offers for the prefix typed, and Tab takes the selected
//! one. Skipped (with a notice) without tmux or node ≥ 22.18.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::pi_support;
use crate::tui;

use common::Sandbox;
use tui::{editor, skip_without_tmux, Tmux};

/// The completion popup's rows below the editor, by their first word (`→` marks the selected).
fn offered(screen: &str) -> Vec<String> {
    let rows: Vec<&str> = screen.lines().collect();
    let is_rule = |l: &str| l.trim_start().starts_with("───");
    let Some(bottom) = (0..rows.len()).rev().find(|&i| is_rule(rows[i])) else {
        return Vec::new();
    };
    rows[bottom + 1..]
        .iter()
        .filter_map(|l| {
            l.trim_start()
                .trim_start_matches('→')
                .split_whitespace()
                .next()
        })
        .filter(|w| ["extension", "prompt", "skill"].contains(w))
        .map(str::to_string)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_example_completes_its_argument() {
    if skip_without_tmux("argument completion") {
        return;
    }
    let sb = Sandbox::new().await;
    let Some(copies) = pi_support::prepare_agent(sb.agent.path(), &["commands.ts"]) else {
        return;
    };
    let path = copies[0].display().to_string();
    let tmux = Tmux::start(&sb, &["--model", "mock-model", "-e", &path]);
    tmux.wait_for("the footer", |s| s.contains("mock-model"))
        .await;
    tmux.type_text("/commands ");
    let screen = tmux
        .wait_for("every source offered", |s| offered(s).len() == 3)
        .await;
    assert_eq!(
        offered(&screen),
        ["extension", "prompt", "skill"],
        "{screen}"
    );
    tmux.type_text("s");
    let screen = tmux
        .wait_for("only skill offered", |s| offered(s) == ["skill"])
        .await;
    assert_eq!(editor(&screen), ["/commands s"], "{screen}");
    tmux.send_keys(&["Tab"]);
    let screen = tmux
        .wait_for("the completion taken", |s| editor(s) == ["/commands skill"])
        .await;
    assert!(offered(&screen).is_empty(), "{screen}");
}
