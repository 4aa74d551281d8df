//! Helpers for the extension-process tests: where the fixtures, examples and the Rust example
//! binary are, loading them, and small hosts and tools.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use rho_extension_host::process::{ProcessExtension, ProcessOptions};
use rho_extension_host::Extension;
use serde_json::{json, Value};

pub fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixture(name: &str) -> String {
    manifest()
        .join("tests/ext_fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

pub fn example(name: &str) -> String {
    manifest()
        .join("../../extensions/examples")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// The Rust example extension; `cargo test` builds examples next to the test binaries.
pub fn rust_echo() -> String {
    let exe = std::env::current_exe().expect("test binary path");
    let dir: PathBuf = exe
        .parent()
        .and_then(Path::parent)
        .expect("target dir")
        .join("examples/ext_echo");
    if dir.exists() {
        return dir.to_string_lossy().into_owned();
    }
    build_echo_separately()
}

/// When only this test target was built, builds the example into a target dir of its own
/// (the outer cargo holds the lock of the main one), once per test binary.
fn build_echo_separately() -> String {
    static BUILT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let target = manifest().join("../../target/ext-echo");
            let status = std::process::Command::new(env!("CARGO"))
                .args([
                    "build",
                    "-q",
                    "-p",
                    "rho-extension-host",
                    "--example",
                    "ext_echo",
                    "--target-dir",
                ])
                .arg(&target)
                .status()
                .expect("cargo runs");
            assert!(status.success(), "cargo build --example ext_echo failed");
            target
                .join("debug/examples/ext_echo")
                .to_string_lossy()
                .into_owned()
        })
        .clone()
}

pub fn interpreter(script: &str) -> &'static str {
    if script.ends_with(".mjs") {
        "node"
    } else {
        "python3"
    }
}

pub async fn load(script: &str, options: ProcessOptions) -> Extension {
    load_process(script, options).await.extension()
}

pub async fn load_process(script: &str, options: ProcessOptions) -> ProcessExtension {
    let (program, args) = if script.ends_with("ext_echo") {
        (script.to_string(), Vec::new())
    } else {
        (interpreter(script).to_string(), vec![script.to_string()])
    };
    ProcessExtension::spawn(&program, &args, options)
        .await
        .unwrap_or_else(|e| panic!("{script} loads: {e}"))
}

pub fn with_flags(flags: Value) -> ProcessOptions {
    ProcessOptions {
        flags: flags.as_object().cloned().unwrap_or_default(),
        ..ProcessOptions::default()
    }
}

/// A host for emitting the events the session does not emit itself yet (session_start,
/// switch, fork, shutdown, resources_discover, user_bash) through the runner.
pub fn idle_host() -> rho_extension_host::NoSession {
    rho_extension_host::NoSession {
        cwd: "/work".into(),
        why: "is not there (a test host)",
    }
}

/// A `bash` tool that echoes its command.
pub struct EchoBash;

impl rho_agent::AgentTool for EchoBash {
    fn name(&self) -> &str {
        "bash"
    }
    fn label(&self) -> &str {
        "bash"
    }
    fn description(&self) -> &str {
        "runs commands"
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]})
    }
    fn execute(
        &self,
        args: Value,
        _ctx: rho_agent::ToolContext,
    ) -> futures_util::future::BoxFuture<'static, Result<rho_agent::ToolOutput, rho_agent::ToolError>>
    {
        let cmd = args["command"].as_str().unwrap_or_default().to_string();
        Box::pin(async move { Ok(rho_agent::ToolOutput::text(format!("ran: {cmd}"))) })
    }
}
