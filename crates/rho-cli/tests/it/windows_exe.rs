//! rho's Windows build (`rho.exe`, cross-compiled for `x86_64-pc-windows-gnu`) run under Wine:
//! what it shows of Windows (paths as `Z:\…`, its console streams, loopback HTTP, session
//! files written through Windows' file API, the RPC loop on Windows pipes).
//!
//! `RHO_WINDOWS_EXE` names the exe; `.ci/run` builds it, installs Wine and MinGW and sets it,
//! so in CI these tests run for real and fail if Wine is missing. Without it they print why
//! they did not run and pass (a developer without Wine). `scripts/wine-run` starts the exe
//! (the ProcessPrng stand-in, the Wine prefix); the prefix is `WINEPREFIX` or
//! `~/.cache/rho-wine`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::common::{self, read_jsonl, reply, stderr, stdout, Sandbox};

/// The exe to run, or `None` (after saying why) when `RHO_WINDOWS_EXE` is unset.
fn windows_exe() -> Option<PathBuf> {
    let Some(exe) = std::env::var_os("RHO_WINDOWS_EXE") else {
        eprintln!("skipped: RHO_WINDOWS_EXE is not set (.ci/run sets it after building rho.exe)");
        return None;
    };
    let exe = PathBuf::from(exe);
    assert!(
        exe.is_file(),
        "RHO_WINDOWS_EXE={} is no file",
        exe.display()
    );
    assert!(
        Path::new("/usr/lib/wine/wine64").is_file(),
        "RHO_WINDOWS_EXE is set but Wine is missing: apt-get install wine64"
    );
    Some(exe)
}

fn wine_run() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/wine-run")
}

/// The Wine prefix every test shares (its first creation takes half a minute; CI makes it
/// before the tests run).
fn wine_prefix() -> PathBuf {
    match std::env::var_os("WINEPREFIX") {
        Some(prefix) => PathBuf::from(prefix),
        None => PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/rho-wine"),
    }
}

/// `rho.exe args` under Wine in the sandbox's project dir, with its agent dir and a clean
/// environment.
fn command(exe: &Path, sb: &Sandbox, args: &[&str]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(wine_run());
    cmd.arg(exe)
        .args(args)
        .current_dir(&sb.cwd)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", sb.agent.path())
        .env("RHO_CODING_AGENT_DIR", sb.agent.path())
        .env("WINEPREFIX", wine_prefix())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd
}

async fn run(exe: &Path, sb: &Sandbox, args: &[&str]) -> Output {
    let mut child = command(exe, sb, args).spawn().expect("wine starts");
    drop(child.stdin.take());
    child.wait_with_output().await.expect("rho.exe finishes")
}

/// The path as a Windows program under Wine sees it (`Z:` is Wine's view of `/`).
fn windows_path(path: &Path) -> String {
    format!("Z:{}", path.display()).replace('/', "\\")
}

fn session_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(session_files(&path));
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            found.push(path);
        }
    }
    found
}

#[tokio::test]
async fn version_and_help() {
    let Some(exe) = windows_exe() else { return };
    let sb = Sandbox::new().await;
    let out = run(&exe, &sb, &["--version"]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out).trim(), env!("CARGO_PKG_VERSION"));
    let out = run(&exe, &sb, &["--help"]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    for flag in [
        "--mode <text|json|rpc>",
        "--list-models",
        "--session <path|id>",
    ] {
        assert!(stdout(&out).contains(flag), "help mentions {flag}");
    }
}

#[tokio::test]
async fn list_models_reads_models_json_from_the_agent_dir() {
    let Some(exe) = windows_exe() else { return };
    let sb = Sandbox::new().await;
    let out = run(&exe, &sb, &["--list-models", "mock"]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("mock-model"), "{text}");
    assert!(text.contains("mock-vision"), "{text}");
}

/// A print-mode prompt over loopback HTTP: the reply on stdout, the request as sent, and a
/// session file under the agent dir whose header holds the Windows cwd.
#[tokio::test]
async fn print_mode_writes_the_reply_and_a_session_file() {
    let Some(exe) = windows_exe() else { return };
    let sb = Sandbox::new().await;
    sb.server.push(reply("Hello from Windows"));
    let out = run(&exe, &sb, &["-p", "say hi"]).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out).replace("\r\n", "\n"), "Hello from Windows\n");
    let requests = sb.server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].header("authorization"), Some("Bearer test-key"));
    let messages = common::chat_messages(&requests[0].json());
    assert_eq!(messages.last().expect("user").1, "say hi");

    let files = session_files(&sb.agent.path().join("sessions"));
    assert_eq!(files.len(), 1, "{files:?}");
    let lines = read_jsonl(&files[0]);
    assert_eq!(lines[0]["type"], "session");
    assert_eq!(lines[0]["cwd"], windows_path(&sb.cwd));
    let last = lines.last().expect("lines");
    assert_eq!(last["message"]["role"], "assistant");
    assert_eq!(last["message"]["content"][0]["text"], "Hello from Windows");
}

/// RPC mode on Windows pipes: `get_state` answered, then stdin's end ends rho.
#[tokio::test]
async fn rpc_answers_get_state() {
    let Some(exe) = windows_exe() else { return };
    let sb = Sandbox::new().await;
    let mut child = command(&exe, &sb, &["--mode", "rpc", "--no-session"])
        .spawn()
        .expect("wine starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let request = json!({"id": "s1", "type": "get_state"}).to_string() + "\n";
    stdin.write_all(request.as_bytes()).await.expect("write");
    let response = loop {
        let line = lines.next_line().await.expect("read").expect("a line");
        let value: Value = serde_json::from_str(line.trim_end()).expect("json line");
        if value["type"] == "response" {
            break value;
        }
    };
    assert_eq!(response["id"], "s1");
    assert_eq!(response["command"], "get_state");
    assert_eq!(response["success"], true, "{response}");
    assert_eq!(response["data"]["model"]["id"], "mock-model");
    assert_eq!(response["data"]["isStreaming"], false);
    drop(stdin);
    let status = child.wait().await.expect("exits");
    assert_eq!(status.code(), Some(0));
}
