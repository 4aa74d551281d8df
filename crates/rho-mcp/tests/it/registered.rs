//! Servers extensions register (pi's `registerMcpServer`) beside mcp.json's: validated by the
//! mcp.json parser with pi's texts, overridden by mcp.json's server of the same namespace,
//! replaced by a new config of the same name, and closed when their extension unregisters them
//! (not when another extension asks).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use rho_mcp::config::{self, Scope};
use rho_mcp::{log::McpLog, McpAuthStore, McpManager, McpOptions, Registered, ServerEnv};
use serde_json::json;

const EXT: &str = "/exts/mcp.ts";

fn manager(dir: &Path, mcp_json: &str) -> Arc<McpManager> {
    std::fs::write(dir.join("mcp.json"), mcp_json).expect("mcp.json");
    let options = McpOptions {
        env: ServerEnv {
            cwd: dir.to_path_buf(),
            hook: None,
            log: Arc::new(McpLog::new(None, String::new)),
            auth: McpAuthStore::new(dir),
        },
        tool_patterns: None,
    };
    McpManager::start(config::load(dir, dir), options)
}

fn registered(name: &str, entry: serde_json::Value) -> config::ServerConfig {
    config::registered(name, &entry, EXT).expect("valid")
}

#[test]
fn invalid_registrations_get_pi_texts() {
    let bad_args = config::registered("x", &json!({"command": "c", "args": "no"}), EXT);
    assert_eq!(
        bad_args.unwrap_err().to_string(),
        "server \"x\": args must be an array of strings"
    );
    let bad_name = config::registered("a b", &json!({"command": "c"}), EXT);
    assert_eq!(
        bad_name.unwrap_err().to_string(),
        "invalid server name \"a b\" (use letters, digits, \"_\" and \"-\")"
    );
    let none = config::registered("x", &json!({"exposure": "direct"}), EXT);
    assert_eq!(
        none.unwrap_err().to_string(),
        "server \"x\" needs either \"command\" (stdio) or \"url\" (streamable HTTP)"
    );
    let ok = registered(
        "x",
        json!({"url": "http://127.0.0.1:9/mcp", "enabled": false}),
    );
    assert_eq!(ok.scope, Scope::Extension);
    assert_eq!(ok.source, Path::new(EXT));
}

#[tokio::test]
async fn mcp_json_wins_and_registrations_come_and_go() {
    let dir = tempfile::tempdir().expect("tempdir");
    let m = manager(
        dir.path(),
        r#"{"mcpServers": {"docs": {"url": "http://127.0.0.1:9/mcp", "enabled": false}}}"#,
    );
    let off = |url: &str| json!({"url": url, "enabled": false});

    assert_eq!(
        m.register(registered("docs", off("http://a/"))),
        Registered::Overridden
    );
    assert_eq!(m.servers().len(), 1);
    assert_eq!(m.overrides("docs"), vec![Path::new(EXT).to_path_buf()]);
    let shown = m.overridden();
    assert_eq!(shown.len(), 1);
    assert!(
        shown[0].starts_with(&format!(
            "\"docs\" registered by {EXT} is overridden by \"docs\" in "
        )),
        "{shown:?}"
    );

    assert_eq!(
        m.register(registered("jira", off("http://a/"))),
        Registered::Added
    );
    assert_eq!(
        m.register(registered("jira", off("http://a/"))),
        Registered::Unchanged
    );
    let first = m.server("jira").expect("registered");
    assert_eq!(
        m.register(registered("jira", off("http://b/"))),
        Registered::Added
    );
    let second = m.server("jira").expect("replaced");
    assert!(
        !Arc::ptr_eq(&first, &second),
        "a new config is a new server"
    );
    assert_eq!(m.servers().len(), 2);
    assert_eq!(m.status()["servers"][1]["scope"], "extension");
    assert_eq!(m.status()["servers"][0]["overrides"], json!([EXT]));

    // Another extension's unregistration leaves it alone.
    assert!(!m.unregister("jira", Path::new("/exts/other.ts")));
    assert!(m.server("jira").is_ok());
    assert!(m.unregister("jira", Path::new(EXT)));
    assert!(m.server("jira").is_err());
    assert!(m.unregister("docs", Path::new(EXT)));
    assert!(m.overridden().is_empty());
    // mcp.json's server is never an extension's to remove.
    assert!(!m.unregister("docs", Path::new(EXT)));
    assert!(m.server("docs").is_ok());
}
