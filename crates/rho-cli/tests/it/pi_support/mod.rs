//! pi's example extensions for tests: `@earendil-works/pi-coding-agent@1.6.0` installed with
//! npm on first use into `~/.cache/rho-pi-test/npm` (never copied into the repository), node
//! ≥ 22.18 from `RHO_NODE` or the `~/.cache/node24` venv that `.ci/run` creates, and an RPC
//! session whose agent dir's `pi-host/node_modules` points at that install.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use rho_testkit::openai_chat::ChatStream;
use rho_testkit::server::MockResponse;
use serde_json::{json, Value};

use crate::mcp_support::find;
use crate::support::{Rpc, Start};

static INSTALL: Mutex<()> = Mutex::new(());

/// The pi release whose examples are the corpus.
pub const PI: &str = "@earendil-works/pi-coding-agent@1.6.0";

fn cache() -> PathBuf {
    PathBuf::from(std::env::var("HOME").unwrap_or_else(|_| "/tmp".into())).join(".cache")
}

/// A node new enough for the host, or why there is none (the test then skips).
pub fn node() -> Result<PathBuf, String> {
    let candidate = std::env::var_os("RHO_NODE")
        .map(PathBuf::from)
        .or_else(|| find(&cache().join("node24"), "node"))
        .ok_or("no node: set RHO_NODE or run .ci/run (it installs node 24 into ~/.cache/node24)")?;
    let out = Command::new(&candidate)
        .arg("--version")
        .output()
        .map_err(|e| format!("{}: {e}", candidate.display()))?;
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    match rho_pi_host::node::parse_version(&text) {
        Some(v) if (v.0, v.1) >= rho_pi_host::MIN_NODE => Ok(candidate),
        _ => Err(format!(
            "{} is {text}, older than 22.18",
            candidate.display()
        )),
    }
}

/// The npm prefix holding pi's packages (installed on first use).
pub fn packages(node: &Path) -> PathBuf {
    let _guard = INSTALL.lock().unwrap_or_else(|p| p.into_inner());
    let dir = cache().join("rho-pi-test").join("npm");
    if rho_pi_host::packages_ready(&dir) {
        return dir;
    }
    std::fs::create_dir_all(&dir).expect("cache dir");
    std::fs::write(dir.join("package.json"), "{\"private\":true}").expect("package.json");
    let npm = node
        .parent()
        .map(|bin| bin.join("../lib/node_modules/npm/bin/npm-cli.js"))
        .filter(|p| p.exists())
        .expect("npm beside node");
    let path = format!(
        "{}:{}",
        node.parent().expect("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let status = Command::new(node)
        .arg(npm)
        .args(["install", "--no-audit", "--no-fund", "--loglevel=error", PI])
        .current_dir(&dir)
        .env("PATH", path)
        .status()
        .expect("npm runs");
    assert!(status.success(), "npm install {PI} failed");
    dir
}

/// pi's `examples/extensions/` in the install.
pub fn examples(packages: &Path) -> PathBuf {
    packages.join("node_modules/@earendil-works/pi-coding-agent/examples/extensions")
}

fn copy_tree(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).expect("mkdir");
        for entry in std::fs::read_dir(from).expect("read dir").flatten() {
            copy_tree(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        std::fs::copy(from, to).expect("copy");
    }
}

/// A started RPC session with pi examples `names` loaded by `-e`, or `None` (reason printed)
/// without a new enough node. The examples are copied into the temp home first: node does not
/// strip types of files under `node_modules`, and pi users keep theirs elsewhere too.
pub async fn start(names: &[&str], opts: Start) -> Option<Rpc> {
    start_with_files(names, &[], opts).await
}

/// Like [`start`], plus extension files of the test's own `(name, source)`, loaded after the
/// examples.
pub async fn start_with_files(
    names: &[&str],
    files: &[(&str, &str)],
    mut opts: Start,
) -> Option<Rpc> {
    let node = match node() {
        Ok(n) => n,
        Err(why) => {
            eprintln!("skipped: {why}");
            return None;
        }
    };
    let packages = packages(&node);
    let home = opts
        .home
        .take()
        .unwrap_or_else(|| tempfile::tempdir().expect("tempdir"));
    let host = home.path().join("agent/pi-host");
    std::fs::create_dir_all(&host).expect("pi-host dir");
    // A home used before (`opts.home`) has the link already.
    if !host.join("node_modules").exists() {
        std::os::unix::fs::symlink(packages.join("node_modules"), host.join("node_modules"))
            .expect("symlink");
    }
    for name in names {
        let to = home.path().join("exts").join(name);
        copy_tree(&examples(&packages).join(name), &to);
        opts.args.push("-e".into());
        opts.args.push(to.display().to_string());
    }
    for (name, source) in files {
        let to = home.path().join("exts").join(name);
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        std::fs::write(&to, source).expect("extension file");
        opts.args.push("-e".into());
        opts.args.push(to.display().to_string());
    }
    let mut settings = opts.settings.take().unwrap_or_else(|| json!({}));
    settings["nodePath"] = json!(node);
    opts.settings = Some(settings);
    opts.home = Some(home);
    Some(Rpc::start_with(opts).await)
}

/// A streamed reply calling tool `name` with `args`.
pub fn tool_call(name: &str, args: Value) -> MockResponse {
    ChatStream::new("chatcmpl-t", "m1")
        .role()
        .tool_call_start(0, "call_1", name)
        .tool_args(0, &args.to_string())
        .finish("tool_calls")
        .usage(20, 5, None)
        .done()
        .response()
}

pub async fn ui(rpc: &mut Rpc, method: &str) -> Value {
    let m = method.to_string();
    rpc.wait(move |v| v["type"] == "extension_ui_request" && v["method"] == m)
        .await
}

pub async fn notified(rpc: &mut Rpc, text: &str) -> Value {
    let t = text.to_string();
    rpc.wait(move |v| {
        v["type"] == "extension_ui_request" && v["method"] == "notify" && v["message"] == t
    })
    .await
}

/// The text of the next notification starting with `prefix`.
pub async fn notified_starting(rpc: &mut Rpc, prefix: &str) -> String {
    let request = rpc
        .wait(|v| {
            v["type"] == "extension_ui_request"
                && v["method"] == "notify"
                && v["message"].as_str().is_some_and(|m| m.starts_with(prefix))
        })
        .await;
    request["message"].as_str().unwrap_or_default().to_string()
}

/// pi 1.6 in RPC mode in `home/work` with the extension `source` (written to `home`) and
/// `args`, when pi 1.6 is installed; `None` (said on stderr) otherwise.
pub fn start_pi(
    home: &tempfile::TempDir,
    source: &str,
    args: &[&str],
) -> Option<rho_testkit::pi16::Pi> {
    let work = home.path().join("work");
    std::fs::create_dir_all(&work).expect("work");
    rho_testkit::pi16::write_agent_dir(&home.path().join("agent"), "http://127.0.0.1:9/v1");
    std::fs::remove_file(home.path().join("agent/extensions/fixture.ts")).expect("fixture");
    let file = home.path().join("extension.ts");
    std::fs::write(&file, source).expect("extension");
    let path = file.display().to_string();
    let mut all = vec!["--model", "loop/loop-model", "-e", &path];
    all.extend_from_slice(args);
    match rho_testkit::pi16::Pi::start(home.path(), &work, &all) {
        Ok(pi) => Some(pi),
        Err(why) => {
            eprintln!("not compared with pi: {why}");
            None
        }
    }
}

pub fn tool_result_text(end: &Value) -> String {
    end["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Prepares agent dir `agent` for pi examples `names` outside the RPC harness (the tmux
/// tests): pi's packages linked into `pi-host/`, node in settings.json, the examples copied
/// under `exts/` beside it. Returns the copies' paths, or `None` (reason printed) without a new
/// enough node.
pub fn prepare_agent(agent: &Path, names: &[&str]) -> Option<Vec<PathBuf>> {
    let node = match node() {
        Ok(n) => n,
        Err(why) => {
            eprintln!("skipped: {why}");
            return None;
        }
    };
    let packages = packages(&node);
    let host = agent.join("pi-host");
    std::fs::create_dir_all(&host).expect("pi-host dir");
    std::os::unix::fs::symlink(packages.join("node_modules"), host.join("node_modules"))
        .expect("symlink");
    std::fs::write(
        agent.join("settings.json"),
        json!({"nodePath": node}).to_string(),
    )
    .expect("settings.json");
    let copies = names
        .iter()
        .map(|name| {
            let to = agent.join("exts").join(name);
            copy_tree(&examples(&packages).join(name), &to);
            to
        })
        .collect();
    Some(copies)
}
