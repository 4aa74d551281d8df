//! pi 1.6's project trust question at the interactive start-up, with the real binary in tmux:
//! a folder with project resources and no decision asks before anything of it loads; each
//! answer loads the project or not, and saves to trust.json what pi saves (nothing for the
//! "this session only" answers, the parent folder with the folder's own decision cleared).
//! Skipped (with a notice) where tmux is not installed.

use std::path::Path;

use serde_json::Value;

use crate::common::Sandbox;
use crate::tui::{editor, footer, skip_without_tmux, Tmux};

const QUESTION: &str = "Trust project folder?";

/// The answers as the question lists them, in order.
fn answers(cwd: &Path) -> Vec<String> {
    let parent = cwd.parent().expect("a parent").display();
    vec![
        "Trust".to_string(),
        format!("Trust parent folder ({parent})"),
        "Trust (this session only)".to_string(),
        "Do not trust".to_string(),
        "Do not trust (this session only)".to_string(),
    ]
}

/// rho in the sandbox's project, once the trust question shows.
async fn asked(sb: &Sandbox) -> (Tmux, String) {
    let tmux = Tmux::start_extended(sb, &[], &["--model", "mock-model"]);
    let screen = tmux.wait_for_text(QUESTION).await;
    (tmux, screen)
}

/// Moves to answer `index` and takes it; returns the first frame of the screen after it.
async fn answer(tmux: &Tmux, index: usize) -> String {
    for _ in 0..index {
        tmux.send_keys(&["Down"]);
    }
    tmux.send_keys(&["Enter"]);
    tmux.wait_for("the footer", |s| footer(s).contains("mock-model"))
        .await
}

fn trust_json(sb: &Sandbox) -> Option<Value> {
    let text = std::fs::read_to_string(sb.agent.path().join("trust.json")).ok()?;
    serde_json::from_str(&text).ok()
}

fn loaded_prompt(screen: &str) -> bool {
    screen.contains("[Prompts]") && screen.contains("/ship")
}

/// A sandbox whose project has a prompt template (a resource that needs trust).
async fn project() -> Sandbox {
    let sb = Sandbox::new().await;
    let prompts = sb.cwd.join(".rho/prompts");
    std::fs::create_dir_all(&prompts).expect("mkdir");
    std::fs::write(prompts.join("ship.md"), "Ship $1").expect("prompt");
    sb
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_trust_question_lists_pis_answers_and_each_does_what_it_says() {
    if skip_without_tmux("trust question") {
        return;
    }
    let sb = project().await;
    let cwd = sb.cwd.display().to_string();

    // The question names the folder and lists pi's five answers, the first selected.
    let (tmux, screen) = asked(&sb).await;
    assert!(screen.contains(&cwd), "{screen}");
    let wanted = answers(&sb.cwd);
    let shown: Vec<&str> = screen
        .lines()
        .map(str::trim)
        .filter(|l| wanted.iter().any(|a| l.trim_start_matches("→ ") == a))
        .collect();
    assert_eq!(shown.len(), 5, "{screen}");
    assert_eq!(shown[0], "→ Trust", "{screen}");
    assert!(!footer(&screen).contains("mock-model"), "{screen}");

    // "Trust (this session only)": the project loads, nothing is saved, so the next start
    // asks again.
    let screen = answer(&tmux, 2).await;
    assert!(loaded_prompt(&screen), "{screen}");
    assert!(!screen.contains(QUESTION), "{screen}");
    assert_eq!(trust_json(&sb), None);
    drop(tmux);

    // "Do not trust": nothing of the project loads and the "no" is saved ...
    let (tmux, _) = asked(&sb).await;
    let screen = answer(&tmux, 3).await;
    assert!(!loaded_prompt(&screen), "{screen}");
    let saved = trust_json(&sb).expect("trust.json");
    assert_eq!(saved[&cwd], Value::Bool(false), "{saved}");
    drop(tmux);

    // ... so the next start does not ask.
    let tmux = Tmux::start_extended(&sb, &[], &["--model", "mock-model"]);
    let screen = tmux
        .wait_for("the footer", |s| footer(s).contains("mock-model"))
        .await;
    assert!(
        !screen.contains(QUESTION) && !loaded_prompt(&screen),
        "{screen}"
    );
    drop(tmux);

    // "Trust parent folder": the parent is trusted and the folder's own "no" cleared.
    std::fs::remove_file(sb.agent.path().join("trust.json")).expect("forget");
    let (tmux, _) = asked(&sb).await;
    let screen = answer(&tmux, 1).await;
    assert!(loaded_prompt(&screen), "{screen}");
    let saved = trust_json(&sb).expect("trust.json");
    let parent = sb.cwd.parent().expect("parent").display().to_string();
    assert_eq!(saved[&parent], Value::Bool(true), "{saved}");
    assert_eq!(saved[&cwd], Value::Null, "{saved}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn escape_leaves_the_project_untrusted_for_this_run_and_trust_is_saved() {
    if skip_without_tmux("trust question") {
        return;
    }
    let sb = project().await;
    let (tmux, _) = asked(&sb).await;
    tmux.send_keys(&["Escape"]);
    let screen = tmux
        .wait_for("the footer", |s| footer(s).contains("mock-model"))
        .await;
    assert!(!loaded_prompt(&screen), "{screen}");
    assert_eq!(trust_json(&sb), None);
    drop(tmux);

    let (tmux, _) = asked(&sb).await;
    let screen = answer(&tmux, 0).await;
    assert!(loaded_prompt(&screen), "{screen}");
    let saved = trust_json(&sb).expect("trust.json");
    assert_eq!(saved[&sb.cwd.display().to_string()], Value::Bool(true));
    // The screen took the terminal's reader over from the question: keys reach the editor.
    tmux.type_text("typed after the question");
    tmux.wait_for("the editor", |s| editor(s) == ["typed after the question"])
        .await;
}

/// pi's `project-trust.ts` example from `-e`: in the terminal its `project_trust` handler asks
/// its own question with the start-up selector before the built-in one; "Trust this session"
/// decides (no built-in question, the project loads, nothing saved); "Let built-in prompt
/// decide" leaves it to pi's question.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_project_trust_extension_asks_first_and_its_answer_decides() {
    if skip_without_tmux("project_trust in the terminal") {
        return;
    }
    let sb = project().await;
    let Some(copies) = crate::pi_support::prepare_agent(sb.agent.path(), &["project-trust.ts"])
    else {
        return;
    };
    let example = copies[0].display().to_string();
    let args = ["--model", "mock-model", "-e", example.as_str()];
    let title = format!("Project trust for:\n{}", sb.cwd.display());
    let its_question =
        |s: &str| s.contains("Project trust for:") && s.contains("Trust this session");

    let tmux = Tmux::start_extended(&sb, &[], &args);
    let screen = tmux
        .wait_for("the extension's question", its_question)
        .await;
    let first_lines: Vec<&str> = title.lines().collect();
    assert!(first_lines.iter().all(|l| screen.contains(l)), "{screen}");
    for option in [
        "Trust and remember",
        "Trust with note and remember",
        "Trust this session",
        "Do not trust this session",
        "Let built-in prompt decide",
    ] {
        assert!(screen.contains(option), "{option}: {screen}");
    }
    assert!(
        !screen.contains(QUESTION),
        "the built-in question waits: {screen}"
    );
    tmux.send_keys(&["Down", "Down", "Enter"]);
    let screen = tmux
        .wait_for("the footer", |s| footer(s).contains("mock-model"))
        .await;
    assert!(loaded_prompt(&screen), "trusted by the extension: {screen}");
    assert!(!screen.contains(QUESTION), "{screen}");
    assert_eq!(trust_json(&sb), None, "this session only");
    drop(tmux);

    let tmux = Tmux::start_extended(&sb, &[], &args);
    tmux.wait_for("the extension's question", its_question)
        .await;
    tmux.send_keys(&["Down", "Down", "Down", "Down", "Enter"]);
    tmux.wait_for_text(QUESTION).await;
    let screen = answer(&tmux, 3).await;
    assert!(!loaded_prompt(&screen), "{screen}");
    assert_eq!(
        trust_json(&sb).expect("trust.json")[&sb.cwd.display().to_string()],
        Value::Bool(false)
    );
}
