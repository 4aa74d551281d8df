//! `rho mcp add|list|remove` through the binary: the config file round-trips without losing
//! what the user wrote beside the servers, and `list` reports a failing server with exit 1.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output};

const ORIGINAL: &str = r#"{
    "note": "kept by hand",
    "mcpServers": {
        "keep": { "command": "definitely-not-a-command-rho-knows", "exposure": "direct" }
    },
    "other": { "x": [1, 2, 3] }
}
"#;

fn rho(agent_dir: &Path, cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rho"))
        .args(args)
        .current_dir(cwd)
        .env("RHO_CODING_AGENT_DIR", agent_dir)
        .output()
        .expect("rho runs")
}

#[test]
fn add_list_remove_round_trip_the_user_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (agent, cwd) = (dir.path().join("agent"), dir.path().join("proj"));
    std::fs::create_dir_all(&agent).expect("agent dir");
    std::fs::create_dir_all(&cwd).expect("project dir");
    let file = agent.join("mcp.json");
    std::fs::write(&file, ORIGINAL).expect("write config");

    let added = rho(
        &agent,
        &cwd,
        &["mcp", "add", "extra", "--", "sh", "-c", "exit 3"],
    );
    assert!(added.status.success(), "{added:?}");
    let text = std::fs::read_to_string(&file).expect("read config");
    let value: serde_json::Value = serde_json::from_str(&text).expect("still JSON");
    assert_eq!(value["note"], "kept by hand");
    assert_eq!(value["other"]["x"], serde_json::json!([1, 2, 3]));
    assert_eq!(value["mcpServers"]["keep"]["exposure"], "direct");
    assert_eq!(value["mcpServers"]["extra"]["command"], "sh");
    assert_eq!(
        value["mcpServers"]["extra"]["args"],
        serde_json::json!(["-c", "exit 3"])
    );

    let listed = rho(&agent, &cwd, &["mcp", "list"]);
    let out = String::from_utf8_lossy(&listed.stdout);
    assert_eq!(
        listed.status.code(),
        Some(1),
        "a failing server fails list: {out}"
    );
    assert!(out.contains("keep") && out.contains("extra"), "{out}");

    let removed = rho(&agent, &cwd, &["mcp", "remove", "extra"]);
    assert!(removed.status.success(), "{removed:?}");
    // Everything the user wrote comes back, in their key order (compact objects are
    // re-indented: the file is rewritten, not patched in place).
    let back: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("JSON");
    let original: serde_json::Value = serde_json::from_str(ORIGINAL).expect("JSON");
    assert_eq!(back.to_string(), original.to_string());

    let again = rho(&agent, &cwd, &["mcp", "remove", "extra"]);
    assert!(!again.status.success(), "removing a missing server fails");
}
