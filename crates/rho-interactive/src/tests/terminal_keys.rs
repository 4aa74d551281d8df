//! pi 1.6's keys that rho lacked: Escape twice on an empty editor opens what
//! `doubleEscapeAction` names, Escape clears a `!` command being typed, Ctrl+G hands the
//! editor's text to `$VISUAL` and takes back what it saved, Ctrl+V inserts the clipboard.

use rho_testkit::scripted::ScriptedProvider;
use rho_tui::input::KeyCode;
use rho_tui::Input;

use super::Harness;

#[tokio::test]
async fn escape_twice_on_an_empty_editor_opens_the_tree_and_clears_a_bash_line() {
    let provider = ScriptedProvider::new();
    let mut h = Harness::new(&provider);
    // An empty session has no entries: /tree says so, which shows the double Escape opened it.
    h.key(KeyCode::Esc);
    assert!(!h.screen().contains("No entries in session"));
    h.key(KeyCode::Esc);
    assert!(
        h.screen().contains("No entries in session"),
        "{}",
        h.screen()
    );
    // A key between the two presses starts over.
    h.keys(Input::typed("!ls"));
    h.key(KeyCode::Esc);
    assert_eq!(h.app.editor_text(), "", "escape clears a ! command");
    // Escape with text that is not a command leaves it.
    h.keys(Input::typed("keep"));
    h.key(KeyCode::Esc);
    assert_eq!(h.app.editor_text(), "keep");
}

#[tokio::test]
async fn double_escape_action_none_does_nothing() {
    let provider = ScriptedProvider::new();
    let mut h = Harness::configured(&provider, 80, |c| {
        c.settings = rho_core::settings::Settings::from_scopes(
            serde_json::json!({"doubleEscapeAction": "none"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            Default::default(),
        );
    });
    h.key(KeyCode::Esc);
    h.key(KeyCode::Esc);
    assert!(
        !h.screen().contains("No entries in session"),
        "{}",
        h.screen()
    );
}

#[tokio::test]
async fn ctrl_g_takes_back_what_the_external_editor_saved() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("ed.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nprintf '%s, edited' \"$(cat \"$1\")\" > \"$1\"\n",
    )
    .expect("script");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let provider = ScriptedProvider::new();
    let command = script.display().to_string();
    let mut h = Harness::configured(&provider, 80, |c| {
        c.settings = rho_core::settings::Settings::from_scopes(
            serde_json::json!({"externalEditor": command})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            Default::default(),
        );
    });
    h.keys(Input::typed("first draft"));
    h.keys(vec![Input::ctrl('g')]);
    h.next_msg().await;
    assert_eq!(h.app.editor_text(), "first draft, edited");
    assert!(h.screen().contains("first draft, edited"));
}
