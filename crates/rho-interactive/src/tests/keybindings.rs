//! keybindings.json in the loop: a remapped app key works and the old one stops, an empty
//! list unbinds, a broken file is a warning and pi's defaults, /reload reads it again, and
//! /hotkeys shows the keys in effect.

use rho_testkit::scripted::ScriptedProvider;
use rho_tui::input::KeyCode;
use rho_tui::Input;

use super::Harness;

/// A harness reading keybindings.json (written as `text`) from a temporary agent dir.
fn with_keybindings(provider: &ScriptedProvider, text: &str) -> (Harness, tempfile::TempDir) {
    let agent = tempfile::tempdir().expect("agent dir");
    std::fs::write(agent.path().join("keybindings.json"), text).expect("keybindings.json");
    let mut h = Harness::new(provider);
    h.app.set_agent_dir(agent.path());
    h.app.load_keybindings();
    (h, agent)
}

#[tokio::test]
async fn a_remapped_action_moves_to_its_new_key_and_an_empty_list_unbinds_one() {
    let provider = ScriptedProvider::new();
    let (mut h, _agent) = with_keybindings(
        &provider,
        r#"{"app.exit": [], "tui.editor.cursorLineStart": "f2", "newSession": "f3"}"#,
    );
    // Unbound: Ctrl+D on an empty editor no longer quits.
    h.keys(vec![Input::ctrl('d')]);
    assert!(!h.app.should_quit());
    // Remapped: F2 goes to the line's start, Ctrl+A (its old key) types nothing and moves nothing.
    h.keys(Input::typed("bc"));
    h.keys(vec![Input::key(KeyCode::F(2)), Input::char('a')]);
    assert_eq!(h.app.editor_text(), "abc");
    h.keys(vec![Input::ctrl('a'), Input::char('!')]);
    assert_eq!(
        h.app.editor_text(),
        "a!bc",
        "ctrl+a left the cursor after the a"
    );
    // A pi 0.x name (`newSession`) still binds `app.session.new`.
    h.keys(vec![Input::key(KeyCode::F(3))]);
    h.next_msg().await;
    assert!(h.screen().contains("New session started"), "{}", h.screen());
}

#[tokio::test]
async fn a_broken_file_is_named_in_a_warning_and_the_defaults_apply() {
    let provider = ScriptedProvider::new();
    let (mut h, agent) = with_keybindings(
        &provider,
        r#"{"app.exit": "ctrl+q", "app.thinking.toggle": "ctrl+shft+t", "app.nope": "f4"}"#,
    );
    let screen = h.screen();
    let file = agent.path().join("keybindings.json").display().to_string();
    assert!(
        screen.contains(&format!("Warning: {file}: \"app.thinking.toggle\"")),
        "{screen}"
    );
    assert!(
        screen.contains("\"app.nope\" is not an action id"),
        "{screen}"
    );
    // The usable entry applies; the broken one keeps its default.
    h.keys(vec![Input::ctrl('q')]);
    assert!(h.app.should_quit());

    std::fs::write(agent.path().join("keybindings.json"), "{ not json").expect("write");
    h.app.load_keybindings();
    let screen = h.screen();
    assert!(screen.contains("it is not valid JSON"), "{screen}");
    assert!(screen.contains("using the default keys"), "{screen}");
}

#[tokio::test]
async fn reload_reads_the_file_again_and_hotkeys_show_the_keys_in_effect() {
    let provider = ScriptedProvider::new();
    let (mut h, agent) = with_keybindings(&provider, r#"{"app.tools.expand": "f6"}"#);
    h.keys(Input::typed("/hotkeys\n"));
    let screen = h.screen();
    let row = screen
        .lines()
        .find(|l| l.contains("Expand or collapse tool output"))
        .unwrap_or_default();
    assert!(row.contains("f6") && !row.contains("ctrl+o"), "{screen}");
    h.key(KeyCode::Esc);
    std::fs::write(
        agent.path().join("keybindings.json"),
        r#"{"app.tools.expand": ["f7", "ctrl+o"], "app.thinking.toggle": []}"#,
    )
    .expect("write");
    h.keys(Input::typed("/reload\n"));
    h.next_msg().await;
    h.keys(Input::typed("/hotkeys\n"));
    let screen = h.screen();
    let row = screen
        .lines()
        .find(|l| l.contains("Expand or collapse tool output"))
        .unwrap_or_default();
    assert!(row.contains("f7/ctrl+o"), "{screen}");
    assert!(
        !screen.contains("Show or hide thinking blocks"),
        "unbound: not listed\n{screen}"
    );
}
