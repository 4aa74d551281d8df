//! pi's `ctx.shutdown()` in the interactive mode, in a tmux pane: pi's shutdown-command
//! example asks to quit from inside a tool; as in pi, rho waits until the agent is idle (the
//! model's answer to the tool result is shown) and then exits. Skipped (with a notice) without
//! tmux or node ≥ 22.18.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::pi_support;
use crate::tui;

use common::Sandbox;
use tui::{skip_without_tmux, streamed, tool_call, until, Tmux};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tools_ctx_shutdown_quits_once_the_reply_is_done() {
    let sb = Sandbox::new().await;
    if skip_without_tmux("shutdown-command") {
        return;
    }
    let Some(copies) = pi_support::prepare_agent(sb.agent.path(), &["shutdown-command.ts"]) else {
        return;
    };
    let ext = copies[0].display().to_string();
    sb.server.push(tool_call("finish_and_exit", "{}"));
    sb.server.push(streamed(&["All work is done."]));
    let tmux = Tmux::start(&sb, &["--model", "mock-model", "-e", &ext]);
    tmux.wait_for("the footer", |s| s.contains("mock-model"))
        .await;
    assert!(!tmux.exited());
    tmux.submit("finish up");
    until("rho to exit after the reply", || tmux.exited()).await;
    assert_eq!(
        sb.server.requests().len(),
        2,
        "the answer to the tool result ran first"
    );
}
