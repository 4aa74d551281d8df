//! Ending a session while a server is still connecting: `cat` as a stdio server never answers
//! `initialize`, so the connect would hold the server for its whole timeout; shutdown must end
//! it at once (an RPC client closing rho otherwise waited out the timeout, 60 s by default).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use rho_mcp::{config, log::McpLog, McpAuthStore, McpManager, McpOptions, ServerEnv, ServerState};

/// Guards the test against hanging; far below the server's 600 s timeout.
const HANG_GUARD: Duration = Duration::from_secs(30);

#[tokio::test]
async fn shutdown_ends_a_connect_the_server_never_answers() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("mcp.json"),
        r#"{"mcpServers": {"mute": {"command": "cat", "timeout": 600}}}"#,
    )
    .expect("mcp.json");
    let options = McpOptions {
        env: ServerEnv {
            cwd: dir.path().to_path_buf(),
            hook: None,
            log: Arc::new(McpLog::new(None, String::new)),
            auth: McpAuthStore::new(dir.path()),
        },
        tool_patterns: None,
    };
    let manager = McpManager::start(config::load(dir.path(), dir.path()), options);
    // The connect task runs until it waits for `initialize` (this test's runtime has one
    // thread, so yielding lets it get there).
    tokio::task::yield_now().await;
    let server = manager.server("mute").expect("configured").clone();
    assert_eq!(server.state(), ServerState::Connecting);

    tokio::time::timeout(HANG_GUARD, manager.shutdown())
        .await
        .expect("shutdown does not wait out the connect timeout");

    assert_eq!(server.state(), ServerState::Failed);
    let error = server.error().unwrap_or_default();
    assert!(
        error.contains("stopped before it finished connecting"),
        "{error}"
    );
    // Closed for good: a later call does not start the server again.
    let again = server.client().await.err().expect("closed").to_string();
    assert!(
        again.contains("stopped before it finished connecting"),
        "{again}"
    );
}
