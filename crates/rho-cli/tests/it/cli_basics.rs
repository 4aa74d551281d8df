//! The binary's first-day behaviour: `--version`, `--help`, pi's unknown-option errors, and
//! flags a mode refuses.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

fn rho(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rho"))
        .args(args)
        .output()
        .expect("rho runs")
}

#[test]
fn version_prints_the_version_and_exits_zero() {
    let out = rho(&["--version"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(rho(&["-v"]).stdout, out.stdout);
}

#[test]
fn help_lists_pi_flags() {
    let out = rho(&["--help"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--mode <text|json|rpc>",
        "-nbt, --no-builtin-tools",
        "--list-models",
        "--session <path|id>",
    ] {
        assert!(text.contains(flag), "help mentions {flag}");
    }
}

#[test]
fn unknown_options_fail_with_pi_messages() {
    let out = rho(&["--bogus", "--other"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "Error: Unknown options: --bogus, --other"
    );
    let out = rho(&["-x"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "Error: Unknown option: -x"
    );
}

#[test]
fn rpc_mode_refuses_file_arguments() {
    let home = tempfile::tempdir().expect("home");
    let agent = home.path().join("agent");
    let out = Command::new(env!("CARGO_BIN_EXE_rho"))
        .args(["--mode", "rpc", "@notes.md"])
        .env("HOME", home.path())
        .env("RHO_CODING_AGENT_DIR", &agent)
        .current_dir(home.path())
        .output()
        .expect("rho runs");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "Error: @file arguments are not supported in RPC mode"
    );
    assert!(out.stdout.is_empty(), "no protocol line before the refusal");
}
