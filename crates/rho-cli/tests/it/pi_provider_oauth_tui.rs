//! /login with a provider a pi extension registered with a sign-in, in the terminal: the list
//! offers it by the name its `oauth` gives, the extension's `onAuth` URL opens in the browser
//! (a recording `BROWSER`) and shows, its `onPrompt` question is answered in rho's input
//! dialog, and the credential `login` returns lands in auth.json in pi's shape beside the
//! entries already there. A host that dies during the sign-in gives a clear error, keeps
//! auth.json as it was, and rho goes on. Skipped without tmux or node ≥ 22.18.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use crate::common::Sandbox;
use crate::pi_provider_oauth::{assert_saved, SIGN_IN_PROVIDER};
use crate::pi_support;
use crate::tui::{footer, skip_without_tmux, streamed, Tmux};
use serde_json::{json, Value};

const BEFORE: &str = r#"{"other": {"type": "api_key", "key": "kept"}}"#;

/// A sandbox with the sign-in extension, its provider pointed at the loopback server, an
/// auth.json holding one other entry, and a `BROWSER` that records the page it is given.
/// Returns the extension's path and the browser's record, or `None` without node.
fn prepare(sb: &Sandbox) -> Option<(String, PathBuf)> {
    pi_support::prepare_agent(sb.agent.path(), &[])?;
    let agent = sb.agent.path();
    let ext = agent.join("exts/sign-in.ts");
    std::fs::create_dir_all(ext.parent().unwrap()).unwrap();
    std::fs::write(&ext, SIGN_IN_PROVIDER).unwrap();
    let models_path = agent.join("models.json");
    let mut models: Value =
        serde_json::from_str(&std::fs::read_to_string(&models_path).unwrap()).unwrap();
    models["providers"]["oauthext"] = json!({"baseUrl": format!("{}/v1", sb.server.url())});
    sb.write_models(&models);
    std::fs::write(agent.join("auth.json"), BEFORE).unwrap();
    let record = agent.join("browser.txt");
    let browser = agent.join("browser.sh");
    std::fs::write(
        &browser,
        format!("#!/bin/sh\nprintf '%s' \"$1\" > '{}'\n", record.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    Some((ext.display().to_string(), record))
}

fn start(sb: &Sandbox, ext: &str) -> Tmux {
    let browser = sb.agent.path().join("browser.sh");
    let browser = browser.display().to_string();
    let args = ["--model", "mock/mock-model", "-e", ext];
    Tmux::start_with_env(sb, &[("BROWSER", &browser)], &args)
}

/// A rho with the sign-in extension, at the extension's question after /login; `None`
/// (reason printed) without tmux or node.
async fn at_the_question(test: &str) -> Option<(Sandbox, Tmux, PathBuf)> {
    if skip_without_tmux(test) {
        return None;
    }
    let sb = Sandbox::new().await;
    let (ext, record) = prepare(&sb)?;
    let tmux = start(&sb, &ext);
    pick_the_sign_in(&tmux).await;
    Some((sb, tmux, record))
}

/// /login, then the extension's sign-in picked from the list by its name.
async fn pick_the_sign_in(tmux: &Tmux) {
    tmux.wait_for("the footer", |s| footer(s).contains("mock-model"))
        .await;
    tmux.submit("/login");
    let list = tmux.wait_for_text("Log in to which provider?").await;
    assert!(list.contains("Loopback Sign-In"), "{list}");
    tmux.type_text("Loopback");
    tmux.wait_for_text("sign in · oauthext").await;
    tmux.send_keys(&["Enter"]);
}

fn auth_json(agent: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(agent.join("auth.json")).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_runs_the_extensions_sign_in_and_stores_its_credential() {
    let Some((sb, tmux, record)) = at_the_question("extension sign-in").await else {
        return;
    };
    let asked = tmux.wait_for_text("Paste the code:").await;
    assert!(
        asked.contains("https://auth.example/authorize?client=rho-test"),
        "{asked}"
    );
    assert!(
        asked.contains("Sign in there, then paste the code."),
        "{asked}"
    );
    tmux.type_text("abc123");
    tmux.send_keys(&["Enter"]);
    let done = tmux.wait_for_text("Logged in to Loopback Sign-In").await;
    assert!(done.contains("Exchanging the code for tokens..."), "{done}");
    assert_eq!(
        std::fs::read_to_string(&record).unwrap(),
        "https://auth.example/authorize?client=rho-test",
        "the browser got the extension's URL"
    );

    assert_saved(
        &auth_json(sb.agent.path()),
        "access-abc123",
        "refresh-abc123",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_that_dies_during_the_sign_in_is_an_error_and_loses_nothing() {
    let Some((sb, tmux, _)) = at_the_question("extension sign-in crash").await else {
        return;
    };
    tmux.wait_for_text("Paste the code:").await;
    tmux.type_text("crash");
    tmux.send_keys(&["Enter"]);
    let failed = tmux
        .wait_for_text("Failed to log in to Loopback Sign-In")
        .await;
    // The message wraps at the screen's width.
    let words = failed.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("their host exited during the sign-in of provider oauthext"),
        "{failed}"
    );
    assert_eq!(
        std::fs::read_to_string(sb.agent.path().join("auth.json")).unwrap(),
        BEFORE,
        "auth.json untouched"
    );

    // rho goes on: a prompt still gets its answer.
    sb.server.push(streamed(&["Still here."]));
    tmux.submit("hello");
    tmux.wait_for_text("Still here.").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn escape_on_the_extensions_question_cancels_the_sign_in() {
    let Some((sb, tmux, _)) = at_the_question("extension sign-in cancelled").await else {
        return;
    };
    tmux.wait_for_text("Paste the code:").await;
    tmux.send_keys(&["Escape"]);
    let screen = tmux.wait_for_text("Login cancelled.").await;
    assert!(!screen.contains("Failed to log in"), "{screen}");
    assert_eq!(
        std::fs::read_to_string(sb.agent.path().join("auth.json")).unwrap(),
        BEFORE
    );
}
