//! An extension's `exec` children do not outlive rho in RPC mode (issue 17, processes): a
//! rho extension (Python, the extension protocol's `exec`) and a pi extension (`pi.exec`
//! through the pi host) each start a long-running program with a background child of its
//! own; SIGTERM, SIGHUP, SIGINT and end of input each end rho, and both processes must be
//! gone after. The extension also hears `session_shutdown` (reason `quit`) first, as in the
//! interactive and print modes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::pi_support;
use crate::pids;
use crate::support;

use std::path::Path;
use std::time::Duration;

use pids::{ends, read_pid};
use serde_json::json;
use support::{Rpc, Start};

/// What `exec` runs: a background sleeper and the shell itself waiting, both pids recorded.
const SPAWN: &str = "sleep 1000 >/dev/null 2>&1 & echo $! > bg.pid; echo $$ > exec.pid; wait";

/// A Python extension whose `/spawn` runs [`SPAWN`] through the protocol's `exec`, and which
/// writes the reason of `session_shutdown` to `shutdown.reason`.
fn python_extension() -> String {
    let lib = python_library();
    format!(
        r#"import sys
sys.path.insert(0, {lib:?})
from rho_extension import Extension

ext = Extension("spawner")


@ext.command("spawn", "start a long-running program through exec")
def spawn(args):
    ext.exec("sh", ["-c", {SPAWN:?}], timeout_ms=600000)


@ext.on("session_shutdown")
def shutdown(event):
    with open("shutdown.reason", "w") as f:
        f.write(event.get("reason", ""))


ext.run()
"#,
        lib = lib.display().to_string()
    )
}

/// rho's Python extension library.
fn python_library() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../extensions/python")
        .canonicalize()
        .expect("the Python library exists")
}

/// A Python extension whose `session_shutdown` handler writes its pid to `shutdown.pid` and
/// then never returns.
fn stuck_at_shutdown_extension() -> String {
    format!(
        r#"import os, sys, time
sys.path.insert(0, {lib:?})
from rho_extension import Extension

ext = Extension("stuck")


@ext.on("session_shutdown")
def shutdown(event):
    with open("shutdown.pid", "w") as f:
        f.write(str(os.getpid()))
    time.sleep(1000)


ext.run()
"#,
        lib = python_library().display().to_string()
    )
}

/// The same in TypeScript against pi's API.
fn pi_extension() -> String {
    format!(
        r#"import {{ writeFileSync }} from "node:fs";

export default function (pi) {{
  pi.registerCommand("spawn", {{
    description: "start a long-running program through exec",
    handler: async () => {{
      await pi.exec("sh", ["-c", {SPAWN:?}], {{ timeout: 600000 }});
    }},
  }});
  pi.on("session_shutdown", async (event) => {{
    writeFileSync("shutdown.reason", event.reason ?? "");
  }});
}}
"#
    )
}

/// How rho is ended, and the exit code that follows.
#[derive(Clone, Copy, Debug)]
enum End {
    Signal(i32, i32),
    Eof,
}

const ENDS: [End; 4] = [
    End::Signal(libc::SIGTERM, 143),
    End::Signal(libc::SIGHUP, 129),
    End::Signal(libc::SIGINT, 130),
    End::Eof,
];

/// Runs `/spawn`, ends rho as `end` says, and checks that the exec'd program and its
/// background child are gone and that the extension heard `session_shutdown`.
async fn spawn_then_end(mut rpc: Rpc, end: End) {
    rpc.send(json!({"id": "spawn", "type": "prompt", "message": "/spawn"}))
        .await;
    let work = rpc.work_dir();
    let exec = read_pid(&work.join("exec.pid")).await;
    let bg = read_pid(&work.join("bg.pid")).await;
    match end {
        End::Signal(signal, _) => {
            let pid = rpc.child.id().expect("rho runs") as i32;
            // SAFETY: signals the rho process this test started.
            unsafe { libc::kill(pid, signal) };
        }
        End::Eof => rpc.close_stdin(),
    }
    let status = tokio::time::timeout(Duration::from_secs(30), rpc.child.wait())
        .await
        .expect("rho exits")
        .expect("wait");
    let code = match end {
        End::Signal(_, code) => code,
        End::Eof => 0,
    };
    assert_eq!(status.code(), Some(code), "{end:?}");
    assert!(ends(exec).await, "{end:?}: the exec'd program outlived rho");
    assert!(ends(bg).await, "{end:?}: its background child outlived rho");
    let reason = std::fs::read_to_string(work.join("shutdown.reason")).unwrap_or_default();
    assert_eq!(reason, "quit", "{end:?}: session_shutdown before the exit");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rho_extensions_exec_children_end_with_rho_on_signals_and_eof() {
    for end in ENDS {
        let home = tempfile::tempdir().expect("tempdir");
        let ext = home.path().join("spawner.py");
        std::fs::write(&ext, python_extension()).expect("extension file");
        let rpc = Rpc::start_with(Start {
            args: vec!["-e".into(), ext.display().to_string()],
            home: Some(home),
            ..Start::default()
        })
        .await;
        spawn_then_end(rpc, end).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pi_extensions_exec_children_end_with_rho_on_signals_and_eof() {
    let source = pi_extension();
    for end in ENDS {
        let files = [("spawner.ts", source.as_str())];
        let Some(rpc) = pi_support::start_with_files(&[], &files, Start::default()).await else {
            return;
        };
        spawn_then_end(rpc, end).await;
    }
}

/// After end of input RPC mode's own signal handling is over, but its clean-up can still wait
/// on an extension: a SIGTERM then must still end rho with 143 (it was caught and dropped, so
/// rho hung until the extension gave up).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_ends_rho_while_an_extension_holds_up_the_clean_up_after_end_of_input() {
    let home = tempfile::tempdir().expect("tempdir");
    let ext = home.path().join("stuck.py");
    std::fs::write(&ext, stuck_at_shutdown_extension()).expect("extension file");
    let mut rpc = Rpc::start_with(Start {
        args: vec!["-e".into(), ext.display().to_string()],
        home: Some(home),
        ..Start::default()
    })
    .await;
    let work = rpc.work_dir();
    rpc.close_stdin();
    let extension = read_pid(&work.join("shutdown.pid")).await;
    let pid = rpc.child.id().expect("rho runs") as i32;
    // SAFETY: signals the rho process this test started.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let status = tokio::time::timeout(Duration::from_secs(30), rpc.child.wait())
        .await
        .expect("rho exits on SIGTERM")
        .expect("wait");
    assert_eq!(status.code(), Some(143));
    assert!(ends(extension).await, "the stuck extension outlived rho");
}
