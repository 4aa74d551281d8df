//! A session that started without extensions gains one with /reload, in a real terminal
//! (tmux): that extension's `register_provider` (pi's `registerProvider` from a command) is
//! applied, its model is selectable and answers. Skipped (with a notice) where tmux is not
//! installed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::tui;

use common::Sandbox;
use tui::{footer, skip_without_tmux, start, streamed};

/// A process extension (no library) whose `/late-provider` registers provider `lateprov` at
/// `URL` (defined above it) and tells how that went.
const LATE_PROVIDER: &str = r#"
import json, sys
sys.stdin.readline()
command = {"name": "late-provider", "description": "registers lateprov"}
print(json.dumps({"type": "register", "name": "late", "commands": [command]}), flush=True)
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") != "command":
        continue
    config = {"baseUrl": URL, "api": "openai-completions", "apiKey": "late-key",
              "models": [{"id": "late-model", "name": "Late model"}]}
    call = {"type": "call", "id": 1, "method": "register_provider",
            "params": {"provider": {"name": "lateprov", "config": config}}}
    print(json.dumps(call), flush=True)
    reply = json.loads(sys.stdin.readline())
    text = "lateprov registered" if reply.get("error") is None else "failed: " + reply["error"]
    notify = {"type": "call", "id": 2, "method": "ui_notify", "params": {"message": text, "kind": "info"}}
    print(json.dumps(notify), flush=True)
    print(json.dumps({"type": "result", "id": msg["id"], "result": None}), flush=True)
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_extension_a_reload_brings_registers_a_provider() {
    if skip_without_tmux("a provider after /reload") {
        return;
    }
    let sb = Sandbox::new().await;
    let tmux = start(&sb).await;
    let folder = sb.agent.path().join("extensions");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let source = format!(
        "URL = {:?}\n{LATE_PROVIDER}",
        format!("{}/v1", sb.server.url())
    );
    std::fs::write(folder.join("late.py"), source).expect("extension");
    tmux.submit("/reload");
    tmux.wait_for_text("Reloaded extensions").await;
    tmux.submit("/late-provider");
    let screen = tmux
        .wait_for("the registration's outcome", |s| {
            s.contains("lateprov registered") || s.contains("failed:")
        })
        .await;
    assert!(!screen.contains("failed:"), "{screen}");

    tmux.submit("/model");
    tmux.wait_for_text("Select model").await;
    tmux.type_text("late-model");
    tmux.send_keys(&["Enter"]);
    tmux.wait_for("late-model in the footer", |s| {
        footer(s).contains("late-model")
    })
    .await;
    sb.server.push(streamed(&["Late hello."]));
    tmux.submit("hi");
    tmux.wait_for_text("Late hello.").await;
    let request = sb.server.requests()[0].clone();
    assert_eq!(request.json()["model"], "late-model");
    let key = request.headers.iter().find(|(k, _)| k == "authorization");
    assert_eq!(key.map(|(_, v)| v.as_str()), Some("Bearer late-key"));
}
