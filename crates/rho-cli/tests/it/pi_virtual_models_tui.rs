//! A pi extension's virtual model in the terminal (pi 1.6's docs/virtual-models.md): `/model`
//! offers it, selecting it puts it in the footer, and after a reply the footer shows where the
//! request went, as pi's `auto • high → model • level`. Skipped without tmux or node ≥ 22.18.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::Sandbox;
use crate::pi_support;
use crate::pi_virtual_models::router;
use crate::tui::{footer, skip_without_tmux, streamed, Tmux};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_virtual_model_is_chosen_in_model_and_the_footer_shows_the_route() {
    if skip_without_tmux("virtual model") {
        return;
    }
    let sb = Sandbox::new().await;
    if pi_support::prepare_agent(sb.agent.path(), &[]).is_none() {
        return;
    }
    let ext = sb.agent.path().join("exts/router.ts");
    std::fs::create_dir_all(ext.parent().expect("exts")).expect("exts dir");
    std::fs::write(&ext, router("mock-model", "mock-vision")).expect("router.ts");
    let ext = ext.display().to_string();
    let args = ["--model", "mock/mock-model", "-e", &ext];
    let tmux = Tmux::start(&sb, &args);
    tmux.wait_for("the footer", |s| footer(s).contains("mock-model"))
        .await;

    tmux.submit("/model");
    tmux.wait_for_text("Select model").await;
    tmux.type_text("auto");
    tmux.wait_for_text("router").await;
    tmux.send_keys(&["Enter"]);
    let screen = tmux
        .wait_for("router/auto in the footer", |s| {
            footer(s).contains("(router) auto")
        })
        .await;
    let shown = footer(&screen);
    let model_row = shown.lines().last().unwrap_or_default();
    assert!(
        model_row.trim_end().ends_with("(router) auto • minimal"),
        "the selection alone before any reply, at the lowest level it offers: {shown}"
    );
    // Shift+Tab cycles through the virtual model's own levels: minimal → low → high.
    tmux.send_keys(&["BTab"]);
    tmux.wait_for("low", |s| footer(s).contains("auto • low"))
        .await;
    tmux.send_keys(&["BTab"]);
    tmux.wait_for("high", |s| footer(s).contains("auto • high"))
        .await;

    sb.server.push(streamed(&["Routed answer."]));
    tmux.submit("hello");
    tmux.wait_for_text("Routed answer.").await;
    let screen = tmux
        .wait_for("the route in the footer", |s| footer(s).contains("→"))
        .await;
    let shown = footer(&screen);
    let model_row = shown.lines().last().unwrap_or_default();
    assert!(
        model_row
            .trim_end()
            .ends_with("(router) auto • high → mock-vision • off"),
        "{shown}"
    );
    assert_eq!(sb.server.requests()[0].json()["model"], "mock-vision");
}
