//! pi 1.6's interactive example extensions in the terminal, each run in a tmux pane by rho
//! and, beside it, by pi 1.6.0 when installed: the part of the screen the extension draws
//! (header and widgets, a footer, an overlay game, the working indicator) is kept as an insta
//! snapshot per agent (`<test>@rho`, `<test>@pi`), so the two can be read side by side and a
//! change in either shows. Randomness is pinned: both agents' node gets a seeded
//! `Math.random` (the snake's food). Skipped without tmux or node ≥ 22.18; the pi half is
//! skipped without pi 1.6.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use crate::common::Sandbox;
use crate::pi_support;
use crate::support::gated_reply;
use crate::tui::{skip_without_tmux, Tmux};

/// Which agent a pane runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Agent {
    Rho,
    Pi,
}

impl Agent {
    fn name(self) -> &'static str {
        match self {
            Agent::Rho => "rho",
            Agent::Pi => "pi",
        }
    }
}

/// The agents to run: rho, and pi when pi 1.6 is installed.
fn agents() -> Vec<Agent> {
    match rho_testkit::pi16::pi16() {
        Ok(_) => vec![Agent::Rho, Agent::Pi],
        Err(why) => {
            eprintln!("pi half skipped: {why}");
            vec![Agent::Rho]
        }
    }
}

/// A preload that makes `Math.random` a fixed sequence, for both agents' node.
fn seeded_random(sb: &Sandbox) -> PathBuf {
    let file = sb.agent.path().join("seeded-random.mjs");
    let code = "let s = 42;\nMath.random = () => (s = (s * 16807) % 2147483647) / 2147483647;\n";
    std::fs::write(&file, code).expect("preload");
    file
}

/// `agent` with pi examples `names` in a pane, once its footer shows the model; `None` when
/// the test must skip.
async fn open(sb: &Sandbox, agent: Agent, names: &[&str]) -> Option<Tmux> {
    if skip_without_tmux(&names.join(", ")) {
        return None;
    }
    let copies = pi_support::prepare_agent(sb.agent.path(), names)?;
    let node = pi_support::node().ok()?;
    let settings = serde_json::json!({"nodePath": node, "quietStartup": true});
    std::fs::write(sb.agent.path().join("settings.json"), settings.to_string()).expect("settings");
    let preload = format!("--import={}", seeded_random(sb).display());
    let agent_dir = sb.agent.path().display().to_string();
    let env = [
        ("NODE_OPTIONS", preload.as_str()),
        ("PI_CODING_AGENT_DIR", agent_dir.as_str()),
        ("PI_OFFLINE", "1"),
    ];
    let mut args: Vec<String> = vec!["--model".into(), "mock/mock-model".into()];
    for copy in &copies {
        args.push("-e".into());
        args.push(copy.display().to_string());
    }
    let tmux = match agent {
        Agent::Rho => {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            Tmux::start_with_env(sb, &env, &args)
        }
        Agent::Pi => {
            let (node, cli) = rho_testkit::pi16::pi16().ok()?;
            let mut all = vec![cli.display().to_string()];
            all.extend(args);
            let all: Vec<&str> = all.iter().map(String::as_str).collect();
            Tmux::start_program(sb, &env, &node.display().to_string(), &all)
        }
    };
    tmux.wait_for("the footer", |s| s.contains("mock-model"))
        .await;
    Some(tmux)
}

/// The screen's rows from the first holding `from` to the first after it holding `to`,
/// trailing blanks trimmed, the sandbox's paths masked, runs of blank rows kept as one and
/// pi's start-up notices about its own tool downloads (which depend on the machine) left out.
fn region(sb: &Sandbox, screen: &str, from: &str, to: &str) -> String {
    let rows: Vec<&str> = screen.lines().collect();
    let start = rows
        .iter()
        .position(|l| l.contains(from))
        .unwrap_or_else(|| panic!("{from:?} not on screen:\n{screen}"));
    let end = rows[start..]
        .iter()
        .position(|l| l.contains(to))
        .map(|i| start + i)
        .unwrap_or_else(|| panic!("{to:?} not after {from:?}:\n{screen}"));
    let cwd = sb.cwd.display().to_string();
    let mut shown: Vec<String> = Vec::new();
    for row in &rows[start..=end] {
        let row = row.trim_end().replace(&cwd, "<cwd>");
        let repeated_blank = row.is_empty() && shown.last().is_some_and(String::is_empty);
        if !repeated_blank && !row.trim_start().starts_with("Warning: fd not found") {
            shown.push(row);
        }
    }
    shown.join("\n")
}

/// Submits the test's first input and waits until `expected` shows. pi 1.6 draws its footer
/// before its extensions have finished starting; input submitted in between stays in its
/// editor beside the notice "Startup is still in progress" (on a loaded machine for
/// seconds), so Enter is pressed again, a quarter second apart, until `expected` shows. rho
/// takes input once its footer shows, so the first Enter is the only one.
async fn first_submit(tmux: &Tmux, text: &str, expected: &str) -> String {
    const STARTING: &str = "Startup is still in progress";
    tmux.submit(text);
    for _ in 0..240 {
        let screen = tmux
            .wait_for(&format!("{expected:?} (or pi's start-up notice)"), |s| {
                s.contains(expected) || s.contains(STARTING)
            })
            .await;
        if screen.contains(expected) {
            return screen;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        tmux.send_keys(&["Enter"]);
    }
    panic!("{text:?} was still refused while the agent started, a minute on");
}

fn snapshot(agent: Agent, name: &str, shown: &str) {
    insta::assert_snapshot!(format!("{name}@{}", agent.name()), shown);
}

/// custom-header.ts replaces the banner; widget-placement.ts puts one widget above the editor
/// and one below it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_header_and_widgets_above_and_below_the_editor() {
    for agent in agents() {
        let sb = Sandbox::new().await;
        let names = ["custom-header.ts", "widget-placement.ts"];
        let Some(tmux) = open(&sb, agent, &names).await else {
            return;
        };
        // The header and the widgets are drawn as each comes back: wait for all of them.
        let screen = tmux
            .wait_for("the header and the widgets", |s| {
                s.contains("██") && s.contains("Below editor widget")
            })
            .await;
        let shown = region(&sb, &screen, "██", "Below editor widget");
        assert!(shown.contains("Above editor widget"), "{shown}");
        snapshot(agent, "header_and_widgets", &shown);
    }
}

/// custom-footer.ts's footer in place of the agent's own, after one reply.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_footer_drawn_by_the_extension() {
    for agent in agents() {
        let sb = Sandbox::new().await;
        sb.server.push(crate::tui::streamed(&["Counted."]));
        let Some(tmux) = open(&sb, agent, &["custom-footer.ts"]).await else {
            return;
        };
        first_submit(&tmux, "/footer", "$0.000").await;
        tmux.submit("count");
        let screen = tmux.wait_for_text("↑40 ↓9 $").await;
        let shown = region(&sb, &screen, "↑40 ↓9 $", "↑40 ↓9 $");
        snapshot(agent, "custom_footer", &shown);
    }
}

/// snake.ts's game in the editor's place: with the seeded food and no key pressed the snake
/// runs into the wall, the same board every time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_snake_game_to_its_game_over() {
    for agent in agents() {
        let sb = Sandbox::new().await;
        let Some(tmux) = open(&sb, agent, &["snake.ts"]).await else {
            return;
        };
        first_submit(&tmux, "/snake", "SNAKE").await;
        let screen = tmux.wait_for_text("GAME OVER").await;
        let shown = region(&sb, &screen, "SNAKE", "GAME OVER");
        snapshot(agent, "snake_game_over", &shown);
        tmux.send_keys(&["q"]);
        tmux.wait_for_gone("GAME OVER").await;
    }
}

/// working-indicator.ts's static dot in place of the spinner while a reply streams.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_working_indicator_set_by_the_extension() {
    for agent in agents() {
        let sb = Sandbox::new().await;
        let gate = rho_testkit::Gate::new();
        sb.server
            .push(gated_reply("Thinking it over", &gate, " done."));
        let Some(tmux) = open(&sb, agent, &["working-indicator.ts"]).await else {
            return;
        };
        first_submit(
            &tmux,
            "/working-indicator dot",
            "Working indicator set to: static dot",
        )
        .await;
        tmux.submit("go");
        let screen = tmux.wait_for_text("Thinking it over").await;
        let screen = if screen.contains("● ") {
            screen
        } else {
            tmux.wait_for_text("● ").await
        };
        let shown = region(&sb, &screen, "● ", "● ");
        assert!(
            !shown.contains('⠋'),
            "the extension's frame, not the spinner: {shown}"
        );
        snapshot(agent, "working_indicator_dot", &shown);
        gate.open();
        tmux.wait_for_text("done.").await;
    }
}

/// hidden-thinking-label.ts's label on a collapsed thinking block (ctrl+t hides thinking).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hidden_thinking_label_set_by_the_extension() {
    for agent in agents() {
        let sb = Sandbox::new().await;
        let reply = rho_testkit::openai_chat::ChatStream::new("chatcmpl-h", "mock-model")
            .role()
            .reasoning("reasoning_content", "a secret plan")
            .text("Answer.")
            .finish("stop")
            .usage(30, 6, None)
            .done()
            .response();
        sb.server.push(reply);
        let Some(tmux) = open(&sb, agent, &["hidden-thinking-label.ts"]).await else {
            return;
        };
        first_submit(&tmux, "think", "Answer.").await;
        tmux.send_keys(&["C-t"]);
        let screen = tmux.wait_for_text("Pondering...").await;
        assert!(!screen.contains("a secret plan"), "{screen}");
        let shown = region(&sb, &screen, "Pondering...", "Answer.");
        snapshot(agent, "hidden_thinking_label", &shown);
    }
}

/// modal-editor.ts's vim-like editor in place of the agent's own: Enter sends what it holds
/// to the model as the agent's own editor would and empties it; typed text lands in it, Escape
/// switches it to normal mode (its label on the bottom border), `h` moves the cursor and `i`
/// inserts again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_modal_editor_in_place_of_the_agents_own() {
    for agent in agents() {
        let sb = Sandbox::new().await;
        sb.server.push(crate::tui::streamed(&["Heard you."]));
        let Some(tmux) = open(&sb, agent, &["modal-editor.ts"]).await else {
            return;
        };
        tmux.wait_for_text("INSERT").await;
        first_submit(&tmux, "hello", "Heard you.").await;
        // The reply can be drawn before the host's redraw of the emptied editor arrives.
        let screen = tmux
            .wait_for("the editor emptied below the reply", |s| {
                s.split("Heard you.")
                    .nth(1)
                    .is_some_and(|below| !below.contains("hello"))
            })
            .await;
        assert_eq!(
            crate::tui::user_texts(&sb, 0),
            vec!["hello".to_string()],
            "{screen}"
        );
        let shown = region(&sb, &screen, "Heard you.", "INSERT");
        assert!(
            !shown.contains("hello"),
            "the editor is empty again: {shown}"
        );
        tmux.type_text("wold");
        tmux.wait_for_text("wold").await;
        tmux.send_keys(&["Escape"]);
        tmux.wait_for_text("NORMAL").await;
        tmux.send_keys(&["h"]);
        tmux.send_keys(&["h"]);
        tmux.send_keys(&["i"]);
        tmux.wait_for_text("INSERT").await;
        tmux.type_text("r");
        tmux.wait_for_text("world").await;
        tmux.send_keys(&["Escape"]);
        let screen = tmux.wait_for_text("NORMAL").await;
        let shown = region(&sb, &screen, "world", "NORMAL");
        snapshot(agent, "modal_editor_normal", &shown);
    }
}

/// entry-renderer.ts's status card: a `custom` entry the extension appends (never sent to the
/// model) shown in the transcript as its renderer draws it; expanded (ctrl+o), the renderer
/// adds the card's time under it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_custom_entry_drawn_by_its_extension() {
    for agent in agents() {
        let sb = Sandbox::new().await;
        let Some(tmux) = open(&sb, agent, &["entry-renderer.ts"]).await else {
            return;
        };
        let screen =
            first_submit(&tmux, "/status-card Build passed", "[status] Build passed").await;
        let shown = region(&sb, &screen, "[status]", "[status]");
        snapshot(agent, "status_card_entry", &shown);
        tmux.send_keys(&["C-o"]);
        let year = |s: &str| {
            let rows: Vec<&str> = s.lines().collect();
            let card = rows
                .iter()
                .position(|l| l.contains("[status] Build passed"));
            card.and_then(|i| rows.get(i + 1))
                .is_some_and(|l| l.contains("20"))
        };
        tmux.wait_for("the card's time under it", year).await;
        assert!(sb.server.requests().is_empty(), "nothing went to the model");
    }
}
