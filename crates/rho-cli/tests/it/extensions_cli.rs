//! Extension processes started by the binary: `-e PATH` and the project's extension dir.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{reply, stderr, stdout, Sandbox};

fn example(name: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../extensions/examples");
    root.join(name)
        .canonicalize()
        .expect("example exists")
        .display()
        .to_string()
}

#[tokio::test]
async fn dash_e_loads_a_python_extension_that_transforms_input() {
    let sb = Sandbox::new().await;
    sb.server.push(reply("ok"));
    let ext = example("input_transform.py");
    let out = sb
        .rho(&["-e", &ext, "-p", "--no-session", "shout: hello"], None)
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "ok\n");
    let body = sb.server.requests()[0].json();
    let last = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .expect("messages");
    assert_eq!(last["content"][0]["text"], "HELLO");
}

/// Copies the example input-transform extension into the project's extension dir.
fn install_project_extension(sb: &Sandbox) {
    let dir = sb.cwd.join(".rho/extensions");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::copy(
        example("input_transform.mjs"),
        dir.join("input_transform.mjs"),
    )
    .expect("copy");
    std::fs::create_dir_all(sb.cwd.join(".rho/js")).expect("mkdir");
    let lib = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../extensions/js/rho-extension.mjs");
    std::fs::copy(&lib, sb.cwd.join(".rho/js/rho-extension.mjs")).expect("copy lib");
}

#[tokio::test]
async fn project_extension_dir_is_discovered_and_no_extensions_skips_it() {
    let sb = Sandbox::new().await;
    install_project_extension(&sb);
    sb.server.push(reply("ok"));
    let out = sb
        .rho(&["--approve", "-p", "--no-session", "quiet please"], None)
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert!(
        sb.server.requests().is_empty(),
        "the extension handled the input"
    );
    let out = sb
        .rho(
            &["--approve", "-ne", "-p", "--no-session", "quiet please"],
            None,
        )
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(
        sb.server.requests().len(),
        1,
        "--no-extensions sends it to the model"
    );
}

#[tokio::test]
async fn an_untrusted_projects_extension_does_not_load_until_trusted() {
    let sb = Sandbox::new().await;
    install_project_extension(&sb);
    sb.server.push(reply("ok"));
    let out = sb.rho(&["-p", "--no-session", "quiet please"], None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(sb.server.requests().len(), 1, "no extension handled it");
    assert!(
        stderr(&out).contains("this folder is not trusted"),
        "{}",
        stderr(&out)
    );
    // A saved decision (what /trust writes) trusts it from then on.
    let key = sb.cwd.display().to_string();
    std::fs::write(
        sb.agent.path().join("trust.json"),
        serde_json::json!({ key: true }).to_string(),
    )
    .expect("write trust.json");
    let out = sb.rho(&["-p", "--no-session", "quiet please"], None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(sb.server.requests().len(), 1, "the extension handled it");
    // --no-approve overrides the saved decision for one run.
    sb.server.push(reply("ok"));
    let out = sb
        .rho(
            &["--no-approve", "-p", "--no-session", "quiet please"],
            None,
        )
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(sb.server.requests().len(), 2);
}

#[tokio::test]
async fn a_broken_extension_is_a_warning_not_a_failure() {
    let sb = Sandbox::new().await;
    let bad = sb.cwd.join("bad.py");
    std::fs::write(&bad, "import sys\nsys.exit(3)\n").expect("write");
    sb.server.push(reply("still works"));
    let out = sb
        .rho(&["-e", "bad.py", "-p", "--no-session", "hi"], None)
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "still works\n");
    assert!(
        stderr(&out).contains("bad.py"),
        "the warning names the extension: {}",
        stderr(&out)
    );
}

#[tokio::test]
async fn tools_flag_filters_extension_tools() {
    let sb = Sandbox::new().await;
    let ext = example("tool_word_count.py");
    let tool_names =
        |sb: &Sandbox, i: usize| rho_testkit::json::tool_names(&sb.server.requests()[i].json());
    sb.server.push(reply("a"));
    let out = sb
        .rho(&["-e", &ext, "-p", "--no-session", "hi"], None)
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert!(
        tool_names(&sb, 0).iter().any(|n| n == "word_count"),
        "{:?}",
        tool_names(&sb, 0)
    );
    sb.server.push(reply("b"));
    let out = sb
        .rho(
            &["-e", &ext, "--tools", "read", "-p", "--no-session", "hi"],
            None,
        )
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(tool_names(&sb, 1), ["read"]);
}

/// Logs the reason of each `session_shutdown` to `shutdown.log` beside itself.
const SHUTDOWN_LOGGER: &str = r#"
import os, sys
sys.path.insert(0, LIB)
from rho_extension import Extension

ext = Extension("shutdown-logger")

@ext.on("session_shutdown")
def bye(event):
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "shutdown.log"), "a") as f:
        f.write(event["reason"] + "\n")

ext.run()
"#;

/// Writes the logger into the sandbox; returns its path.
fn install_shutdown_logger(sb: &Sandbox) -> String {
    let lib = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../extensions/python")
        .canonicalize()
        .expect("python library");
    let source = format!("LIB = {:?}\n{SHUTDOWN_LOGGER}", lib.display().to_string());
    let ext = sb.cwd.join("logger.py");
    std::fs::write(&ext, source).expect("write extension");
    ext.display().to_string()
}

#[tokio::test]
async fn print_mode_sends_session_shutdown_with_reason_quit_when_it_ends() {
    let sb = Sandbox::new().await;
    sb.server.push(reply("ok"));
    let ext = install_shutdown_logger(&sb);
    let out = sb
        .rho(&["-e", &ext, "-p", "--no-session", "hi"], None)
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let log = std::fs::read_to_string(sb.cwd.join("shutdown.log")).unwrap_or_default();
    assert_eq!(log, "quit\n");
}

#[tokio::test]
async fn sigterm_sends_session_shutdown_before_rho_exits() {
    let sb = Sandbox::new().await;
    sb.server.push(
        rho_testkit::openai_chat::ChatStream::new("chatcmpl-h", "mock-model")
            .role()
            .text("thinking it over")
            .response_then_hang(),
    );
    let ext = install_shutdown_logger(&sb);
    let mut child = sb
        .command(&["-e", &ext, "-p", "--no-session", "hi"])
        .spawn()
        .expect("spawn");
    drop(child.stdin.take());
    sb.server.wait_for_requests(1).await;
    let pid = child.id().expect("pid") as i32;
    // SAFETY: signals the rho child this test started.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let out = child.wait_with_output().await.expect("rho exits");
    assert_eq!(out.status.code(), Some(143), "stderr: {}", stderr(&out));
    let log = std::fs::read_to_string(sb.cwd.join("shutdown.log")).unwrap_or_default();
    assert_eq!(log, "quit\n");
}
