//! Extension processes over the interactive mode's life, in a real terminal (tmux): /reload
//! ends the old processes (after `session_shutdown` with reason `reload`) and starts the current
//! code, whose new command and tool work afterwards; quitting sends `session_shutdown` with
//! reason `quit`; what an extension writes to stderr shows as a notice, not over the frame.
//! /reload also starts the MCP servers mcp.json names now. Skipped (with a notice) where tmux is not installed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::mcp_support;
use crate::tui;

use std::path::{Path, PathBuf};

use common::{chat_messages, Sandbox};
use tui::{footer, skip_without_tmux, start, streamed, tool_call, until, Tmux};

/// An extension in Python that logs its start (with its pid) and its shutdowns to `LOG`.
const PRELUDE: &str = r#"
import os, sys
sys.path.insert(0, LIB)
from rho_extension import Extension

def log(line):
    with open(LOG, "a") as f:
        f.write(line + "\n")

log("start " + VERSION + " " + str(os.getpid()))
ext = Extension("lifecycle")

@ext.on("session_shutdown")
def bye(event):
    log("shutdown " + VERSION + " " + event["reason"])
"#;

const V1: &str = r#"
@ext.command("hello", "says hello")
def hello(args):
    ext.notify("hello from v1")

@ext.command("noisy", "logs to stderr")
def noisy(args):
    sys.stderr.write("debug from the extension\n")
    sys.stderr.flush()
    ext.notify("noisy done")

ext.run()
"#;

const V2: &str = r#"
@ext.command("greet", "greets")
def greet(args):
    ext.notify("greetings from v2")

@ext.tool("shout", "Upper-cases a text.", {"type": "object", "properties": {"text": {"type": "string"}}})
def shout(args, ctx):
    return "SHOUTED " + args["text"].upper()

ext.run()
"#;

const ADDED: &str = r#"
@ext.command("added", "came with /reload")
def added(args):
    ext.notify("added one answers")

ext.run()
"#;

fn python_lib() -> String {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../extensions/python")
        .canonicalize()
        .expect("python library");
    format!("{:?}", lib.display().to_string())
}

/// Writes an extension `path` of `version` with `body`, logging to `log`.
fn write_extension(path: &Path, log: &Path, version: &str, body: &str) {
    let head = format!(
        "LIB = {}\nLOG = {:?}\nVERSION = {version:?}\n",
        python_lib(),
        log.display().to_string()
    );
    std::fs::write(path, format!("{head}{PRELUDE}{body}")).expect("write extension");
}

fn log_lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The pid the process of `version` logged at its start.
fn pid_of(log: &Path, version: &str) -> u32 {
    log_lines(log)
        .iter()
        .find_map(|l| l.strip_prefix(&format!("start {version} ")))
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("{version} logged no start: {:?}", log_lines(log)))
}

fn process_exists(pid: u32) -> bool {
    PathBuf::from(format!("/proc/{pid}")).exists()
}

async fn start_with(sb: &Sandbox, extension: &Path) -> Tmux {
    let tmux = Tmux::start(
        sb,
        &[
            "--model",
            "mock-model",
            "-e",
            extension.to_str().expect("utf-8 path"),
        ],
    );
    tmux.wait_for("the footer", |s| footer(s).contains("mock-model"))
        .await;
    tmux
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reload_restarts_extensions_with_their_current_code() {
    if skip_without_tmux("reload extensions") {
        return;
    }
    let sb = Sandbox::new().await;
    let (ext, log) = (sb.cwd.join("life.py"), sb.cwd.join("life.log"));
    write_extension(&ext, &log, "v1", V1);
    let tmux = start_with(&sb, &ext).await;
    tmux.submit("/hello");
    tmux.wait_for_text("hello from v1").await;
    let old_pid = pid_of(&log, "v1");
    assert!(process_exists(old_pid));

    // Edit it, and drop a second one into the agent dir's extension folder.
    write_extension(&ext, &log, "v2", V2);
    let folder = sb.agent.path().join("extensions");
    std::fs::create_dir_all(&folder).expect("mkdir");
    write_extension(&folder.join("added.py"), &log, "added", ADDED);
    std::fs::write(folder.join("broken.py"), "raise SystemExit(3)\n").expect("write broken");
    tmux.submit("/reload");
    tmux.wait_for_text("Reloaded extensions").await;
    // Words only: the warning may wrap.
    let words = tmux
        .screen()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        words.contains("broken.py failed the handshake"),
        "a failing extension is named: {words}"
    );
    let lines = log_lines(&log);
    assert!(
        lines.contains(&"shutdown v1 reload".to_string()),
        "{lines:?}"
    );
    assert!(!process_exists(old_pid), "the old process is gone");
    let screen = tmux.screen();
    assert!(
        screen.contains("Loaded extensions:") && screen.contains("added.py"),
        "{screen}"
    );

    // The old command is gone, the new ones answer.
    tmux.submit("/greet");
    tmux.wait_for_text("greetings from v2").await;
    tmux.submit("/added");
    tmux.wait_for_text("added one answers").await;
    sb.server.push(tool_call("shout", r#"{"text":"quiet"}"#));
    sb.server.push(streamed(&["done shouting"]));
    tmux.submit("use the tool");
    tmux.wait_for_text("done shouting").await;
    let second = sb.server.requests()[1].json();
    let sent: Vec<String> = chat_messages(&second)
        .into_iter()
        .map(|(_, text)| text)
        .collect();
    assert!(
        sent.iter().any(|t| t.contains("SHOUTED QUIET")),
        "the new tool ran: {sent:?}"
    );
    tmux.submit("/hello");
    until("the old command to reach the model as text", || {
        sb.server.requests().len() == 3
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quitting_sends_session_shutdown_and_ends_the_processes() {
    if skip_without_tmux("shutdown on quit") {
        return;
    }
    let sb = Sandbox::new().await;
    let (ext, log) = (sb.cwd.join("life.py"), sb.cwd.join("life.log"));
    write_extension(&ext, &log, "v1", V1);
    let tmux = start_with(&sb, &ext).await;
    let pid = pid_of(&log, "v1");
    tmux.send_keys(&["C-d"]);
    until("rho to exit", || tmux.exited()).await;
    let lines = log_lines(&log);
    assert!(lines.contains(&"shutdown v1 quit".to_string()), "{lines:?}");
    assert!(!process_exists(pid), "the process ended with rho");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extension_stderr_becomes_a_notice_instead_of_text_over_the_frame() {
    if skip_without_tmux("extension stderr") {
        return;
    }
    let sb = Sandbox::new().await;
    let (ext, log) = (sb.cwd.join("life.py"), sb.cwd.join("life.log"));
    write_extension(&ext, &log, "v1", V1);
    let tmux = start_with(&sb, &ext).await;
    tmux.submit("/noisy");
    let screen = tmux.wait_for_text("noisy done").await;
    let screen = if screen.contains("[life.py] debug") {
        screen
    } else {
        tmux.wait_for_text("[life.py] debug from the extension")
            .await
    };
    let raw = screen
        .lines()
        .filter(|l| l.contains("debug from the extension") && !l.contains("[life.py]"))
        .count();
    assert_eq!(raw, 0, "no raw stderr line on the screen:\n{screen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reload_starts_an_mcp_server_added_to_mcp_json() {
    if skip_without_tmux("reload MCP") {
        return;
    }
    let sb = Sandbox::new().await;
    let tmux = start(&sb).await;
    let config = serde_json::json!({"mcpServers": {"everything": {
        "command": mcp_support::node(),
        "args": [mcp_support::everything()],
        "exposure": "direct"
    }}});
    std::fs::write(sb.agent.path().join("mcp.json"), config.to_string()).expect("mcp.json");
    tmux.submit("/reload");
    tmux.wait_for_text("Reloaded extensions").await;
    sb.server.push(streamed(&["tools seen"]));
    tmux.submit("which tools?");
    tmux.wait_for_text("tools seen").await;
    let body = sb.server.requests()[0].json();
    let names = rho_testkit::json::tool_names(&body);
    assert!(
        names.iter().any(|n| n == "mcp__everything__echo"),
        "{names:?}"
    );
}
