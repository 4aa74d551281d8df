//! The fullscreen layout (`tuiMode: "fullscreen"`) without a terminal: frames at a fixed
//! size, the transcript's scroll keys and wheel, the exit output, and the switch from
//! /settings.

use rho_core::settings::Settings;
use rho_testkit::scripted::{ScriptedProvider, ScriptedReply};
use rho_tui::input::{KeyCode, KeyModifiers};
use rho_tui::Input;
use serde_json::{json, Value};

use super::{AppMsg, Harness};

/// A started harness on a `width` × `height` terminal whose global settings are `settings`.
fn with_settings(
    provider: &ScriptedProvider,
    (width, height): (u16, u16),
    settings: Value,
) -> Harness {
    let Value::Object(global) = settings else {
        panic!("settings must be an object");
    };
    let mut h = Harness::unstarted_sized(provider, (width, height), |c| {
        c.settings = Settings::from_scopes(global, Default::default());
    });
    h.app.handle(AppMsg::Started(None));
    h
}

/// The frame last drawn, rows joined, trailing blanks trimmed, the temporary cwd masked.
fn frame(h: &mut Harness) -> String {
    h.screen();
    let cwd = h.session.cwd().display().to_string();
    let text = h.app.last_frame().replace(&cwd, "<cwd>");
    let rows: Vec<&str> = text.lines().map(str::trim_end).collect();
    rows.join("\n")
}

/// Three questions answered with five lines each: more than a 16-row screen holds.
async fn conversation(provider: &ScriptedProvider, h: &mut Harness) {
    for n in 1..=3 {
        provider.push(ScriptedReply::text(&format!(
            "Answer {n}, line 1.\n\nAnswer {n}, line 2.\n\nAnswer {n}, line 3."
        )));
        h.keys(Input::typed(&format!("question {n}\n")));
        h.until_event("agent_end").await;
    }
}

fn ctrl(code: KeyCode) -> Input {
    Input::with_mods(code, KeyModifiers::CONTROL)
}

#[tokio::test]
async fn the_layout_at_60_by_16_follows_the_end_and_shows_the_jump_bar_when_scrolled() {
    let provider = ScriptedProvider::new();
    let settings = json!({"tuiMode": "fullscreen", "fullscreenScrollbar": "always"});
    let mut h = with_settings(&provider, (60, 16), settings);
    conversation(&provider, &mut h).await;
    h.keys(Input::typed("draft"));
    let at_end = frame(&mut h);
    assert_eq!(at_end.lines().count(), 16, "one screen, no more");
    insta::assert_snapshot!("fullscreen_at_end", at_end);
    h.key(KeyCode::PageUp);
    insta::assert_snapshot!("fullscreen_scrolled_up", frame(&mut h));
}

#[tokio::test]
async fn keys_and_the_wheel_scroll_and_a_sent_message_returns_to_the_end() {
    let provider = ScriptedProvider::new();
    let settings = json!({"tuiMode": "fullscreen", "fullscreenScrollbar": "hidden"});
    let mut h = with_settings(&provider, (60, 16), settings);
    conversation(&provider, &mut h).await;
    let end = frame(&mut h);
    assert!(end.contains("Answer 3, line 3."), "{end}");
    assert!(!end.contains("rho v"), "the banner scrolled away:\n{end}");
    h.keys(vec![ctrl(KeyCode::Home)]);
    let top = frame(&mut h);
    assert!(top.starts_with("rho v"), "{top}");
    assert!(top.contains("Jump to latest message · Ctrl+End"), "{top}");
    assert!(!top.contains("Answer 3"), "{top}");
    for _ in 0..3 {
        h.keys(vec![Input::Wheel {
            down: true,
            alt: false,
        }]);
    }
    let wheeled = frame(&mut h);
    assert!(
        !wheeled.starts_with("rho v"),
        "three notches moved it:\n{wheeled}"
    );
    h.keys(vec![ctrl(KeyCode::End)]);
    assert_eq!(frame(&mut h), end);
    h.key(KeyCode::PageUp);
    assert!(frame(&mut h).contains("Jump to latest message"));
    provider.push(ScriptedReply::text("Answer 4."));
    h.keys(Input::typed("question 4\n"));
    h.until_event("agent_end").await;
    let after = frame(&mut h);
    assert!(after.contains("Answer 4."), "{after}");
    assert!(!after.contains("Jump to latest message"), "{after}");
}

#[tokio::test]
async fn prompt_jumps_move_between_the_messages_sent() {
    let provider = ScriptedProvider::new();
    let mut h = with_settings(&provider, (60, 16), json!({"tuiMode": "fullscreen"}));
    conversation(&provider, &mut h).await;
    let previous = Input::with_mods(KeyCode::Up, KeyModifiers::CONTROL | KeyModifiers::SHIFT);
    let first_row = |h: &mut Harness| frame(h).lines().take(3).collect::<Vec<_>>().join("\n");
    h.keys(vec![previous.clone()]);
    assert!(
        first_row(&mut h).contains("question 3"),
        "{}",
        frame(&mut h)
    );
    h.keys(vec![previous.clone()]);
    assert!(
        first_row(&mut h).contains("question 2"),
        "{}",
        frame(&mut h)
    );
    h.keys(vec![Input::with_mods(KeyCode::Down, KeyModifiers::CONTROL)]);
    assert!(
        first_row(&mut h).contains("question 3"),
        "{}",
        frame(&mut h)
    );
}

#[tokio::test]
async fn without_fullscreen_the_page_keys_stay_the_editors_and_no_mouse_is_asked_for() {
    let provider = ScriptedProvider::new();
    let mut h = with_settings(&provider, (60, 16), json!({}));
    conversation(&provider, &mut h).await;
    let mut out = Vec::new();
    h.app.draw(&mut out);
    h.key(KeyCode::PageUp);
    h.app.draw(&mut out);
    let bytes = String::from_utf8_lossy(&out);
    assert!(!bytes.contains("\x1b[?1049h") && !bytes.contains("\x1b[?1000h"));
    assert!(!frame(&mut h).contains("Jump to latest message"));
}

#[tokio::test]
async fn exit_leaves_the_transcript_or_only_the_resume_hint() {
    for (output, keeps_transcript) in [("transcript", true), ("resume-hint", false)] {
        let provider = ScriptedProvider::new();
        let settings = json!({"tuiMode": "fullscreen", "fullscreenExitOutput": output});
        let mut h = with_settings(&provider, (60, 16), settings);
        conversation(&provider, &mut h).await;
        let mut out = Vec::new();
        h.app.draw(&mut out);
        let mut exit = Vec::new();
        h.app.finish(&mut exit);
        let exit = String::from_utf8_lossy(&exit);
        let leave = exit
            .find("\x1b[?1049l")
            .expect("leaves the alternate screen");
        let after = rho_tui::ansi::strip_ansi(&exit[leave..]);
        for text in ["question 1", "Answer 1, line 1.", "Answer 3, line 3."] {
            assert_eq!(
                after.contains(text),
                keeps_transcript,
                "{output}: {text}\n{after}"
            );
        }
        assert!(exit.contains("\x1b[?1000l"), "the mouse is given back");
    }
}

#[tokio::test]
async fn settings_switch_the_layout_and_the_scrollbar_while_running() {
    let provider = ScriptedProvider::new();
    let mut h = with_settings(&provider, (60, 16), json!({}));
    conversation(&provider, &mut h).await;
    h.keys(Input::typed("/settings\n"));
    let rows = h.screen();
    assert!(
        rows.contains("Terminal mode") && rows.contains("regular"),
        "{rows}"
    );
    let mut out = Vec::new();
    // Down to "Terminal mode" (the sixth row), cycle it, close.
    for _ in 0..5 {
        h.key(KeyCode::Down);
    }
    h.key(KeyCode::Enter);
    h.key(KeyCode::Esc);
    h.app.draw(&mut out);
    assert!(
        String::from_utf8_lossy(&out).contains("\x1b[?1049h"),
        "entered"
    );
    assert_eq!(frame(&mut h).lines().count(), 16);
    let saved = h.session.with_settings(|s| s.raw().get("tuiMode").cloned());
    assert_eq!(saved, Some(json!("fullscreen")));
}
