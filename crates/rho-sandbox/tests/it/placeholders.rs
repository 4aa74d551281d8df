//! The empty folders the sandbox creates to protect missing `.rho`/`.pi`/`.git/hooks` are
//! removed on exit when still empty, and nothing the user made is removed (in a process of its
//! own: the record of placeholders is per process, and the other tests' commands add to it).
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(target_os = "linux")]

use std::path::Path;

use rho_sandbox::{
    placeholders, remove_placeholders, NetworkAccess, Probe, Sandbox, SandboxMode, SandboxPolicy,
};

#[test]
fn placeholders_appear_for_a_command_and_go_at_exit() {
    if !rho_testkit::own_process::runs_here(
        "placeholders::placeholders_appear_for_a_command_and_go_at_exit",
    ) {
        return;
    }
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("placeholders");
    let _ = std::fs::remove_dir_all(&root);
    let proj = root.join("proj");
    std::fs::create_dir_all(proj.join(".git")).expect("mkdir");
    std::fs::create_dir_all(proj.join(".pi")).expect("the user's own .pi");
    let policy = SandboxPolicy::new(
        SandboxMode::WorkspaceWrite,
        NetworkAccess::On,
        &proj,
        None,
        None,
        &[],
    );
    let sandbox = Sandbox::new(policy, &Probe::detect());
    assert!(
        !proj.join(".rho").exists(),
        "nothing is created before a command"
    );
    let out = sandbox
        .command(Path::new("/bin/sh"), &["-c".into(), "test -d .rho".into()])
        .expect("command")
        .current_dir(&proj)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "the placeholder is there for the command"
    );
    let mut made = placeholders();
    made.sort();
    let proj = proj.canonicalize().expect("canonical");
    assert_eq!(made, [proj.join(".git/hooks"), proj.join(".rho")]);
    remove_placeholders();
    assert!(!proj.join(".rho").exists() && !proj.join(".git/hooks").exists());
    assert!(proj.join(".pi").is_dir(), "the user's folder stays");
}
