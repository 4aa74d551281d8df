//! pi's example extensions that draw parts of the screen themselves (pi-tui components
//! rendered by the pi host), in the interactive mode in a tmux pane against the mock provider:
//! each test checks the screen shows what the extension draws. Skipped (with a notice) without
//! tmux or node ≥ 22.18.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::pi_support;
use crate::support;
use crate::tui;

use common::Sandbox;
use tui::{editor, footer, skip_without_tmux, streamed, tool_call, Tmux};

/// rho with pi examples `names`, once its footer is drawn; `None` when the test must skip.
async fn start(sb: &Sandbox, names: &[&str]) -> Option<Tmux> {
    if skip_without_tmux(names.join(", ").as_str()) {
        return None;
    }
    let copies = pi_support::prepare_agent(sb.agent.path(), names)?;
    let mut args = vec!["--model".to_string(), "mock-model".to_string()];
    for copy in &copies {
        args.push("-e".into());
        args.push(copy.display().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let tmux = Tmux::start(sb, &args);
    tmux.wait_for("the footer", |s| s.contains("mock-model"))
        .await;
    Some(tmux)
}

/// The row of the screen holding `text`.
fn row_of(screen: &str, text: &str) -> usize {
    screen
        .lines()
        .position(|l| l.contains(text))
        .unwrap_or_else(|| panic!("{text:?} not on screen:\n{screen}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn built_in_tool_renderer_draws_the_read_call_and_its_line_count() {
    let sb = Sandbox::new().await;
    std::fs::write(
        sb.cwd.join("notes.txt"),
        "alpha line\nbeta line\ngamma line",
    )
    .expect("notes");
    sb.server.push(tool_call("read", r#"{"path":"notes.txt"}"#));
    sb.server.push(streamed(&["Read them."]));
    let Some(tmux) = start(&sb, &["built-in-tool-renderer.ts"]).await else {
        return;
    };
    tmux.submit("read the notes");
    let screen = tmux.wait_for_text("3 lines").await;
    assert!(screen.contains("read notes.txt"), "{screen}");
    // rho's own drawing shows the file's first lines; the extension's shows only the count.
    assert!(!screen.contains("alpha line"), "{screen}");
    tmux.wait_for_text("Read them.").await;
    // Expanded (ctrl+o), the extension lists the lines.
    tmux.send_keys(&["C-o"]);
    let screen = tmux.wait_for_text("alpha line").await;
    assert!(screen.contains("3 lines"), "{screen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn message_renderer_draws_status_messages_with_their_level() {
    let sb = Sandbox::new().await;
    let Some(tmux) = start(&sb, &["message-renderer.ts"]).await else {
        return;
    };
    tmux.submit("/status warn disk almost full");
    let screen = tmux.wait_for_text("[WARN] disk almost full").await;
    // rho's own drawing labels the message with its type.
    assert!(!screen.contains("[status-update]"), "{screen}");
    // Expanded (ctrl+o), the extension adds the time.
    let timestamp = |s: &str| s.lines().any(|l| l.trim_start().starts_with("at "));
    assert!(!timestamp(&screen), "{screen}");
    tmux.send_keys(&["C-o"]);
    tmux.wait_for("the expanded message's time", timestamp)
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_footer_replaces_the_footer_with_the_extensions_figures() {
    let sb = Sandbox::new().await;
    sb.server.push(streamed(&["Counted."]));
    let Some(tmux) = start(&sb, &["custom-footer.ts"]).await else {
        return;
    };
    tmux.submit("/footer");
    let screen = tmux.wait_for_text("↑0 ↓0 $0.000").await;
    assert!(footer(&screen).contains("mock-model"), "{screen}");
    tmux.submit("count");
    // The extension's format: tokens, then the cost with a dollar sign (rho's has none).
    let screen = tmux.wait_for_text("↑40 ↓9 $").await;
    assert!(footer(&screen).contains("↑40 ↓9 $"), "{screen}");
    tmux.submit("/footer");
    let screen = tmux.wait_for_gone("↑40 ↓9 $").await;
    assert!(screen.contains("Default footer restored"), "{screen}");
}

/// The footer is drawn again for the new width when the terminal is resized (the extension
/// pads the model name to the right edge).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_footer_is_drawn_again_for_a_new_width() {
    let sb = Sandbox::new().await;
    let Some(tmux) = start(&sb, &["custom-footer.ts"]).await else {
        return;
    };
    tmux.submit("/footer");
    let ends_at = |screen: &str, col: usize| {
        screen.lines().any(|l| {
            l.contains("$0.000")
                && l.trim_end().ends_with("mock-model")
                && l.trim_end().chars().count() == col
        })
    };
    tmux.wait_for("the footer 100 columns wide", |s| ends_at(s, 100))
        .await;
    tmux.resize(80, 40);
    tmux.wait_for("the footer 80 columns wide", |s| ends_at(s, 80))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_header_replaces_the_banner_until_the_built_in_one_is_restored() {
    let sb = Sandbox::new().await;
    let Some(tmux) = start(&sb, &["custom-header.ts"]).await else {
        return;
    };
    let screen = tmux.wait_for_text("shitty coding agent").await;
    assert!(screen.contains("██████████████"), "{screen}");
    assert!(!screen.contains("/hotkeys for more"), "{screen}");
    tmux.submit("/builtin-header");
    let screen = tmux.wait_for_text("/hotkeys for more").await;
    assert!(!screen.contains("shitty coding agent"), "{screen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn todo_draws_its_tool_and_its_list_which_escape_closes() {
    let sb = Sandbox::new().await;
    sb.server
        .push(tool_call("todo", r#"{"action":"add","text":"buy milk"}"#));
    sb.server.push(streamed(&["Noted."]));
    let Some(tmux) = start(&sb, &["todo.ts"]).await else {
        return;
    };
    tmux.submit("remember milk");
    let screen = tmux.wait_for_text("✓ Added #1 buy milk").await;
    assert!(screen.contains("todo add \"buy milk\""), "{screen}");
    // rho's own drawing shows the tool's text.
    assert!(!screen.contains("Added todo #1"), "{screen}");
    tmux.wait_for_text("Noted.").await;
    tmux.submit("/todos");
    let screen = tmux.wait_for_text("Press Escape to close").await;
    assert!(screen.contains("0/1 completed"), "{screen}");
    assert!(screen.contains("○ #1 buy milk"), "{screen}");
    // The list holds the keys: typed text does not reach the editor.
    tmux.type_text("x");
    tmux.send_keys(&["Escape"]);
    let screen = tmux.wait_for_gone("Press Escape to close").await;
    assert!(editor(&screen).is_empty(), "{screen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn widget_placement_puts_widgets_above_and_below_the_editor() {
    let sb = Sandbox::new().await;
    let Some(tmux) = start(&sb, &["widget-placement.ts"]).await else {
        return;
    };
    let screen = tmux
        .wait_for("both widgets", |s| {
            s.contains("Above editor widget") && s.contains("Below editor widget")
        })
        .await;
    let rules: Vec<usize> = screen
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("───"))
        .map(|(i, _)| i)
        .collect();
    let [.., top, bottom] = rules.as_slice() else {
        panic!("no editor on screen:\n{screen}");
    };
    assert!(row_of(&screen, "Above editor widget") < *top, "{screen}");
    assert!(row_of(&screen, "Below editor widget") > *bottom, "{screen}");
}

/// Without a screen (RPC mode) a footer is not drawn and nothing is said about it, as in pi
/// (its RPC mode ignores `setFooter`); the command still runs and says what it did.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_footer_in_rpc_mode_is_ignored_as_in_pi() {
    let Some(mut rpc) = pi_support::start(&["custom-footer.ts"], support::Start::default()).await
    else {
        return;
    };
    rpc.call(serde_json::json!({"id": "f", "type": "prompt", "message": "/footer"}))
        .await;
    pi_support::notified(&mut rpc, "Custom footer enabled").await;
    let said: Vec<&serde_json::Value> = rpc
        .seen
        .iter()
        .filter(|v| v["method"] == "notify")
        .collect();
    assert_eq!(said.len(), 1, "only the command's own notice: {said:#?}");
    assert_eq!(rpc.close().await, Some(0));
}

/// An RPC client learns where a widget goes, as pi's RPC mode tells it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn widget_placement_reaches_an_rpc_client() {
    let Some(mut rpc) =
        pi_support::start(&["widget-placement.ts"], support::Start::default()).await
    else {
        return;
    };
    let below = pi_support::ui(&mut rpc, "setWidget").await;
    let above = pi_support::ui(&mut rpc, "setWidget").await;
    let (above, below) = if above["widgetKey"] == "widget-below" {
        (below, above)
    } else {
        (above, below)
    };
    assert_eq!(
        above["widgetLines"],
        serde_json::json!(["Above editor widget"])
    );
    assert!(above.get("widgetPlacement").is_none(), "{above}");
    assert_eq!(
        below["widgetLines"],
        serde_json::json!(["Below editor widget"])
    );
    assert_eq!(below["widgetPlacement"], "belowEditor");
    assert_eq!(rpc.close().await, Some(0));
}
