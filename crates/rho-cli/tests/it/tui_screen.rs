//! The interactive mode end to end, what the screen says around a conversation: the banner's
//! list of loaded resources, the first-run warning, the footer, the working line, bash timing,
//! the commands that copy, import and export sessions, and `/permissions check`. The real
//! binary in tmux against the mock provider; skipped (with a notice) where tmux is not
//! installed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::tui;

use common::Sandbox;
use tui::{footer, skip_without_tmux, start, streamed, tool_call, Tmux};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_working_line_leaves_the_screen_after_every_reply() {
    if skip_without_tmux("working line") {
        return;
    }
    let sb = Sandbox::new().await;
    for i in 0..5 {
        sb.server.push(streamed(&[&format!("Reply number {i}.")]));
    }
    let tmux = start(&sb).await;
    for i in 0..5 {
        tmux.submit(&format!("question {i}"));
        tmux.wait_for_text(&format!("Reply number {i}.")).await;
        // No key is pressed: the frame after the run must come by itself.
        tmux.wait_for_gone("Working...").await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_frame_lists_what_is_loaded_and_shows_provider_and_context_use() {
    if skip_without_tmux("startup listing") {
        return;
    }
    let sb = Sandbox::new().await;
    std::fs::write(sb.cwd.join("AGENTS.md"), "Be brief.").expect("AGENTS.md");
    let prompts = sb.cwd.join(".rho/prompts");
    std::fs::create_dir_all(&prompts).expect("mkdir");
    std::fs::write(prompts.join("review.md"), "Review $1").expect("prompt");
    // Project prompts load once the folder is trusted (what /trust saves).
    std::fs::write(
        sb.agent.path().join("trust.json"),
        serde_json::json!({ sb.cwd.display().to_string(): true }).to_string(),
    )
    .expect("trust.json");
    let skill = sb.agent.path().join("skills/pdf-tools");
    std::fs::create_dir_all(&skill).expect("mkdir");
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: pdf-tools\ndescription: Work with PDF files\n---\nUse pdftotext.",
    )
    .expect("skill");
    let tmux = start(&sb).await;
    let screen = tmux.screen();
    for text in [
        "[Context]",
        "AGENTS.md",
        "[Skills]",
        "pdf-tools",
        "[Prompts]",
        "/review",
    ] {
        assert!(screen.contains(text), "{text} missing:\n{screen}");
    }
    let foot = footer(&screen);
    assert!(foot.contains("(mock) mock-model"), "{foot}");
    assert!(foot.contains("0.0%/32k"), "{foot}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_any_key_the_screen_says_what_to_do() {
    if skip_without_tmux("first run") {
        return;
    }
    let sb = Sandbox::new().await;
    std::fs::remove_file(sb.agent.path().join("models.json")).expect("no models.json");
    let tmux = Tmux::start(&sb, &[]);
    let screen = tmux.wait_for_text("No model selected.").await;
    for text in ["/login", "/set api-key", "models.json"] {
        assert!(screen.contains(text), "{text} missing:\n{screen}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bash_result_says_how_long_it_took() {
    if skip_without_tmux("bash timing") {
        return;
    }
    let sb = Sandbox::new().await;
    sb.server
        .push(tool_call("bash", r#"{"command":"echo timed-output"}"#));
    sb.server.push(streamed(&["Done."]));
    let tmux = start(&sb).await;
    tmux.submit("run it");
    let screen = tmux.wait_for_text("Done.").await;
    assert!(screen.contains("timed-output"), "{screen}");
    let took = screen
        .lines()
        .find_map(|l| l.trim().strip_prefix("Took "))
        .unwrap_or_else(|| panic!("no Took line:\n{screen}"));
    assert!(took.ends_with('s'), "{took}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_jsonl_then_import_it_after_a_new_session() {
    if skip_without_tmux("export and import") {
        return;
    }
    let sb = Sandbox::new().await;
    sb.server.push(streamed(&["Remember the number 42."]));
    let tmux = start(&sb).await;
    tmux.submit("pick a number");
    tmux.wait_for_text("Remember the number 42.").await;
    tmux.submit("/export saved.jsonl");
    tmux.wait_for_text("Session exported to:").await;
    let text = std::fs::read_to_string(sb.cwd.join("saved.jsonl")).expect("exported");
    assert!(text.starts_with("{\"type\":\"session\""), "{text}");
    tmux.submit("/new");
    tmux.wait_for_gone("Remember the number 42.").await;
    tmux.submit("/import saved.jsonl");
    tmux.wait_for_text("Replace current session with").await;
    tmux.send_keys(&["y"]);
    let screen = tmux.wait_for_text("Session imported from:").await;
    assert!(screen.contains("Remember the number 42."), "{screen}");
    tmux.submit("/clone");
    tmux.wait_for_text("Cloned to new session").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scoped_models_choose_what_ctrl_p_cycles_and_are_saved() {
    if skip_without_tmux("scoped models") {
        return;
    }
    let sb = Sandbox::new().await;
    let tmux = start(&sb).await;
    tmux.submit("/scoped-models");
    tmux.wait_for_text("Models for Ctrl+P cycling (all enabled)")
        .await;
    tmux.send_keys(&["C-x"]);
    tmux.wait_for_text("(0/").await;
    // Enable mock-model, then mock-vision: one of two, then every model, which pi 1.6's
    // selector shows (and saves) as "all enabled" again.
    tmux.send_keys(&["Enter"]);
    tmux.wait_for_text("(1/2 enabled)").await;
    tmux.send_keys(&["Down", "Enter"]);
    tmux.wait_for_text("(all enabled)").await;
    tmux.send_keys(&["C-s"]);
    tmux.wait_for_text("all models (saved to settings)").await;
    let settings = std::fs::read_to_string(sb.agent.path().join("settings.json")).expect("saved");
    let json: serde_json::Value = serde_json::from_str(&settings).expect("json");
    let all = json
        .get("enabledModels")
        .is_none_or(|v| v.as_array().is_some_and(|a| a.is_empty()));
    assert!(all, "{settings}");
    tmux.send_keys(&["C-p"]);
    tmux.wait_for("the other model", |s| footer(s).contains("mock-vision"))
        .await;
    tmux.send_keys(&["C-p"]);
    tmux.wait_for("back to the first", |s| {
        footer(s).contains("(mock) mock-model")
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reload_picks_up_a_new_prompt_template_and_changelog_shows() {
    if skip_without_tmux("reload") {
        return;
    }
    let sb = Sandbox::new().await;
    let tmux = start(&sb).await;
    assert!(!tmux.screen().contains("[Prompts]"));
    let prompts = sb.cwd.join(".rho/prompts");
    std::fs::create_dir_all(&prompts).expect("mkdir");
    std::fs::write(prompts.join("ship.md"), "Ship $1").expect("prompt");
    tmux.submit("/trust");
    tmux.wait_for_text("Trusted").await;
    tmux.submit("/reload");
    let screen = tmux
        .wait_for_text("Reloaded extensions, settings, skills, prompts")
        .await;
    assert!(
        screen.contains("[Prompts]") && screen.contains("/ship"),
        "{screen}"
    );
    tmux.submit("/changelog");
    tmux.wait_for_text("The first version").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permissions_check_names_the_rule_and_the_command_it_matched() {
    if skip_without_tmux("/permissions check") {
        return;
    }
    let sb = Sandbox::new().await;
    std::fs::write(
        sb.agent.path().join("settings.json"),
        serde_json::json!({"permissions": {"deny": ["bash(rm -rf*)"]}}).to_string(),
    )
    .expect("settings");
    let tmux = start(&sb).await;
    tmux.submit("/permissions check bash true && rm -rf build");
    let screen = tmux.wait_for_text("command: rm -rf build").await;
    assert!(
        screen.contains("rule: bash(rm -rf*) (permissions.deny)"),
        "{screen}"
    );
    tmux.submit("/permissions check bash ls -la");
    tmux.wait_for_text("rule: none names this call").await;
}
