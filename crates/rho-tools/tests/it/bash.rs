//! `bash` with real processes: output, exit codes, truncation, timeout and abort.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::{Arc, Mutex};

use common::{run, text, TempDir};
use rho_agent::{AgentTool, ToolContext, ToolOutput};
use rho_tools::shell::ShellConfig;
use rho_tools::BashTool;
use serde_json::json;
use tokio::sync::mpsc;

fn bash(dir: &TempDir) -> BashTool {
    BashTool::new(dir.path(), ShellConfig::default())
}

/// True while `pid` runs user code: it exists (`kill(pid, 0)`), is not a zombie (state `Z`/`X`:
/// exited, only its reaping is left) and is not already tearing down after a fatal signal
/// (`PF_EXITING` in the stat flags: its files are closed and it cannot run again).
fn alive(pid: i32) -> bool {
    const PF_EXITING: u64 = 0x4;
    // SAFETY: signal 0 only checks for existence.
    if unsafe { libc::kill(pid, 0) } != 0 {
        return false;
    }
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let Some((_, rest)) = stat.rsplit_once(") ") else {
        return false;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let state = fields.first().copied().unwrap_or("");
    let flags: u64 = fields.get(6).and_then(|f| f.parse().ok()).unwrap_or(0);
    !(state == "Z" || state == "X" || flags & PF_EXITING != 0)
}

#[tokio::test]
async fn runs_in_the_cwd_and_returns_output() {
    let dir = TempDir::new();
    dir.write("marker.txt", "");
    let out = run(&bash(&dir), json!({"command": "ls; echo to-stderr >&2"}))
        .await
        .expect("ok");
    assert_eq!(text(&out), "marker.txt\nto-stderr\n");
    assert_eq!(out.details, None);
}

#[tokio::test]
async fn empty_output_says_so() {
    let dir = TempDir::new();
    let out = run(&bash(&dir), json!({"command": "true"}))
        .await
        .expect("ok");
    assert_eq!(text(&out), "(no output)");
}

#[tokio::test]
async fn non_zero_exit_is_an_error_with_the_output() {
    let dir = TempDir::new();
    let err = run(&bash(&dir), json!({"command": "echo oops; exit 3"}))
        .await
        .expect_err("exit 3");
    assert_eq!(err.message, "oops\n\n\nCommand exited with code 3");
    let err = run(&bash(&dir), json!({"command": "exit 1"}))
        .await
        .expect_err("exit 1");
    assert_eq!(err.message, "(no output)\n\nCommand exited with code 1");
}

#[tokio::test]
async fn timeout_kills_the_command() {
    let dir = TempDir::new();
    let started = std::time::Instant::now();
    let err = run(
        &bash(&dir),
        json!({"command": "echo begun; sleep 30", "timeout": 0.5}),
    )
    .await
    .expect_err("timeout");
    assert_eq!(
        err.message,
        "begun\n\n\nCommand timed out after 0.5 seconds"
    );
    assert!(started.elapsed().as_secs() < 10);
}

#[tokio::test]
async fn missing_cwd_and_shell_are_reported() {
    let dir = TempDir::new();
    let gone = dir.path().join("gone");
    let err = run(
        &BashTool::new(&gone, ShellConfig::default()),
        json!({"command": "true"}),
    )
    .await
    .expect_err("cwd");
    assert_eq!(
        err.message,
        format!(
            "Working directory does not exist: {}\nCannot execute bash commands.",
            gone.display()
        )
    );
    let config = ShellConfig {
        shell_path: Some("/no/such/shell".into()),
        ..ShellConfig::default()
    };
    let err = run(
        &BashTool::new(dir.path(), config),
        json!({"command": "true"}),
    )
    .await
    .expect_err("shell");
    assert!(err
        .message
        .starts_with("Custom shell path not found: /no/such/shell."));
}

#[tokio::test]
async fn prefix_and_bin_dir_apply() {
    let dir = TempDir::new();
    let config = ShellConfig {
        shell_path: Some("/bin/sh".into()),
        command_prefix: Some("GREETING=hi".into()),
        bin_dir: Some("/opt/agent/bin".into()),
        ..ShellConfig::default()
    };
    let out = run(
        &BashTool::new(dir.path(), config),
        json!({"command": "echo $GREETING; echo $PATH"}),
    )
    .await
    .expect("ok");
    let lines: Vec<&str> = text(&out).lines().collect();
    assert_eq!(lines[0], "hi");
    assert!(lines[1].starts_with("/opt/agent/bin:"), "{}", lines[1]);
}

#[tokio::test]
async fn long_output_keeps_the_tail_and_saves_the_rest() {
    let dir = TempDir::new();
    let out = run(&bash(&dir), json!({"command": "seq 1 5000"}))
        .await
        .expect("ok");
    let body = text(&out);
    let details = out.details.clone().expect("details");
    let path = details["fullOutputPath"]
        .as_str()
        .expect("path")
        .to_string();
    assert!(body.starts_with("3002\n3003\n"));
    assert!(body.ends_with(&format!(
        "5000\n\n\n[Showing lines 3002-5001 of 5001. Full output: {path}]"
    )));
    assert_eq!(details["truncation"]["truncatedBy"], "lines");
    let full = std::fs::read_to_string(&path).expect("full output");
    let expected: String = (1..=5000).map(|i| format!("{i}\n")).collect();
    assert_eq!(full, expected);
    std::fs::remove_file(path).expect("cleanup");
}

#[tokio::test]
async fn byte_limit_and_single_huge_line_notices() {
    let dir = TempDir::new();
    let cmd =
        "for i in $(seq 1 1500); do echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; done";
    let out = run(&bash(&dir), json!({"command": cmd})).await.expect("ok");
    let path = out.details.as_ref().expect("details")["fullOutputPath"]
        .as_str()
        .expect("p")
        .to_string();
    assert!(text(&out).ends_with(&format!(
        "[Showing lines 477-1501 of 1501 (50.0KB limit). Full output: {path}]"
    )));
    std::fs::remove_file(path).expect("cleanup");

    let out = run(
        &bash(&dir),
        json!({"command": "head -c 100000 /dev/zero | tr '\\0' a"}),
    )
    .await
    .expect("ok");
    let path = out.details.as_ref().expect("details")["fullOutputPath"]
        .as_str()
        .expect("p")
        .to_string();
    assert!(text(&out).ends_with(&format!(
        "[Showing last 50.0KB of line 1 (line is 97.7KB). Full output: {path}]"
    )));
    assert_eq!(text(&out).find('['), Some(51200 + 2));
    std::fs::remove_file(path).expect("cleanup");
}

#[tokio::test]
async fn progress_streams_the_output() {
    let dir = TempDir::new();
    let updates: Arc<Mutex<Vec<ToolOutput>>> = Arc::default();
    let sink = updates.clone();
    let mut ctx = ToolContext::detached("p");
    ctx.progress = Arc::new(move |o| sink.lock().expect("lock").push(o));
    let cmd = "for i in $(seq 1 2000); do echo line $i; done";
    bash(&dir)
        .execute(json!({"command": cmd}), ctx)
        .await
        .expect("ok");
    let updates = updates.lock().expect("lock");
    assert!(updates[0].content.is_empty(), "first update is empty");
    let last = updates.last().expect("an update");
    assert!(last.content[0]
        .as_text()
        .expect("text")
        .ends_with("line 2000\n"));
    assert!(updates.len() < 200, "throttled: {} updates", updates.len());
}

#[tokio::test]
async fn progress_carries_truncation_details_once_truncated() {
    let dir = TempDir::new();
    let updates: Arc<Mutex<Vec<ToolOutput>>> = Arc::default();
    let sink = updates.clone();
    let mut ctx = ToolContext::detached("p");
    ctx.progress = Arc::new(move |o| sink.lock().expect("lock").push(o));
    let out = bash(&dir)
        .execute(json!({"command": "seq 1 5000"}), ctx)
        .await
        .expect("ok");
    let path = out.details.expect("details")["fullOutputPath"].clone();
    let updates = updates.lock().expect("lock");
    let last = updates.last().expect("an update");
    let details = last
        .details
        .as_ref()
        .expect("truncated progress has details");
    assert_eq!(details["fullOutputPath"], path);
    assert_eq!(details["truncation"]["truncated"], true);
    assert!(last.content[0].as_text().expect("text").ends_with("5000\n"));
    std::fs::remove_file(path.as_str().expect("path")).expect("cleanup");
}

#[tokio::test]
async fn abort_kills_the_process_group() {
    let dir = TempDir::new();
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    let mut ctx = ToolContext::detached("abort");
    ctx.progress = Arc::new(move |o: ToolOutput| {
        if let Some(t) = o.content.first().and_then(|c| c.as_text()) {
            let _ = tx.send(t.to_string());
        }
    });
    let cancel = ctx.cancel.clone();
    let cmd = "echo $$ > shell.pid; (sleep 300; echo never) & echo $! > child.pid; sh -c 'sleep 300' & echo $! > other.pid; echo ready; wait";
    let tool = bash(&dir);
    let task = tokio::spawn(async move { tool.execute(json!({"command": cmd}), ctx).await });
    while let Some(t) = rx.recv().await {
        if t.contains("ready") {
            break;
        }
    }
    let pids: Vec<i32> = ["shell.pid", "child.pid", "other.pid"]
        .iter()
        .map(|f| {
            String::from_utf8(dir.read(f))
                .expect("utf8")
                .trim()
                .parse()
                .expect("pid")
        })
        .collect();
    assert!(pids.iter().all(|p| alive(*p)), "all running before abort");
    cancel.cancel();
    let err = task.await.expect("join").expect_err("aborted");
    assert_eq!(err.message, "ready\n\n\nCommand aborted");
    for pid in pids {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        assert!(!alive(pid), "pid {pid} still alive after abort: {stat}");
    }
}
