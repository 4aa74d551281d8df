//! The tools under a sandbox: `bash` runs confined, `write` and `edit` refuse what the
//! policy refuses, in process, with the same answer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;

use common::{run, text, TempDir};
use rho_sandbox::{NetworkAccess, Probe, Sandbox, SandboxMode, SandboxPolicy};
use rho_tools::shell::ShellConfig;
use rho_tools::{BashTool, EditTool, WriteTool};
use serde_json::json;

/// `proj` writable, `proj/.rho` read-only, `outside` neither (no temp-dir roots here).
fn sandbox(dir: &TempDir) -> Arc<Sandbox> {
    let proj = dir.path().join("proj");
    std::fs::create_dir_all(proj.join(".rho")).expect("mkdir");
    let policy = SandboxPolicy {
        mode: SandboxMode::WorkspaceWrite,
        network: NetworkAccess::On,
        writable_roots: vec![proj.canonicalize().expect("canonical")],
        read_only_subpaths: vec![proj.join(".rho").canonicalize().expect("canonical")],
    };
    Arc::new(Sandbox::new(policy, &Probe::detect()))
}

#[tokio::test]
async fn edit_and_write_refuse_outside_the_roots_and_work_inside() {
    let dir = TempDir::new();
    let sb = sandbox(&dir);
    dir.write("outside.txt", "keep me");
    dir.write("proj/a.txt", "old");
    let proj = dir.path().join("proj");
    let edit = EditTool::new(&proj).with_sandbox(Some(sb.clone()));
    let err = run(
        &edit,
        json!({"path": "../outside.txt", "edits": [{"oldText": "keep", "newText": "lose"}]}),
    )
    .await
    .expect_err("denied");
    assert!(
        err.message.contains("does not allow writing"),
        "{}",
        err.message
    );
    assert_eq!(dir.read("outside.txt"), b"keep me");
    run(
        &edit,
        json!({"path": "a.txt", "edits": [{"oldText": "old", "newText": "new"}]}),
    )
    .await
    .expect("inside works");
    assert_eq!(dir.read("proj/a.txt"), b"new");
    let write = WriteTool::new(&proj).with_sandbox(Some(sb));
    let err = run(
        &write,
        json!({"path": ".rho/settings.json", "content": "{}"}),
    )
    .await
    .expect_err("read-only folder");
    assert!(err.message.contains("stays read-only"), "{}", err.message);
    assert!(!proj.join(".rho/settings.json").exists());
}

#[tokio::test]
async fn bash_runs_confined() {
    let dir = TempDir::new();
    let sb = sandbox(&dir);
    dir.write("outside.txt", "keep me");
    let config = ShellConfig {
        sandbox: Some(sb),
        ..ShellConfig::default()
    };
    let bash = BashTool::new(dir.path().join("proj"), config);
    let err = run(&bash, json!({"command": "echo x > ../outside.txt"}))
        .await
        .expect_err("exit code 1");
    assert!(err.message.contains("Permission denied"), "{}", err.message);
    assert_eq!(dir.read("outside.txt"), b"keep me");
    let out = run(&bash, json!({"command": "echo in > b.txt && cat b.txt"}))
        .await
        .expect("inside works");
    assert_eq!(text(&out).trim(), "in");
}
