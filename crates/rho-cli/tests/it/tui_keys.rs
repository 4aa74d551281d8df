//! keybindings.json with the real binary in tmux: a remapped key does its action and the
//! old key no longer does, an empty list disables an action, and a malformed file is a
//! warning on screen while pi's default keys keep working. Skipped (with a notice) where
//! tmux is not installed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::tui;

use common::Sandbox;
use tui::{editor, skip_without_tmux, start};

fn write_keybindings(sb: &Sandbox, text: &str) {
    std::fs::write(sb.agent.path().join("keybindings.json"), text).expect("keybindings.json");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remapped_key_works_and_an_empty_list_disables_an_action() {
    if skip_without_tmux("remapped keys") {
        return;
    }
    let sb = Sandbox::new().await;
    write_keybindings(
        &sb,
        r#"{"$schema": "https://pi.dev/schemas/keybindings.schema.json",
            "app.model.select": "f5", "app.exit": []}"#,
    );
    let tmux = start(&sb).await;
    // Ctrl+L, the default, no longer opens the selector: the next key lands in the editor.
    tmux.send_keys(&["C-l"]);
    tmux.type_text("x");
    let screen = tmux
        .wait_for("x in the editor", |s| editor(s) == ["x"])
        .await;
    assert!(!screen.contains("Select model"), "{screen}");
    tmux.send_keys(&["BSpace", "F5"]);
    tmux.wait_for_text("Select model").await;
    tmux.send_keys(&["Escape"]);
    tmux.wait_for_gone("Select model").await;
    // app.exit is unbound: Ctrl+D on the empty editor does nothing, rho keeps running.
    tmux.send_keys(&["C-d"]);
    tmux.type_text("still here");
    tmux.wait_for_text("still here").await;
    assert!(!tmux.exited(), "ctrl+d quit although app.exit is []");
    tmux.send_keys(&["C-c"]);
    tmux.wait_for_gone("still here").await;
    tmux.submit("/hotkeys");
    let screen = tmux.wait_for_text("Open the model selector").await;
    let row = screen
        .lines()
        .find(|l| l.contains("Open the model selector"))
        .unwrap_or_default();
    assert!(row.contains("f5") && !row.contains("ctrl+l"), "{screen}");
    assert!(!screen.contains("Exit (empty editor)"), "{screen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_file_is_a_warning_and_the_default_keys_stay() {
    if skip_without_tmux("malformed keybindings") {
        return;
    }
    let sb = Sandbox::new().await;
    write_keybindings(&sb, r#"{"app.model.select": "f5","#);
    let tmux = start(&sb).await;
    let screen = tmux
        .wait_for_text("keybindings.json: it is not valid JSON")
        .await;
    assert!(screen.contains("using the default keys"), "{screen}");
    tmux.send_keys(&["C-l"]);
    tmux.wait_for_text("Select model").await;
}
