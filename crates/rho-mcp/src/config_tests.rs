use super::*;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

#[test]
fn project_entries_replace_and_override_user_entries() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (agent, cwd) = (dir.path().join("agent"), dir.path().join("proj"));
    write(
        &agent.join("mcp.json"),
        r#"{"mcpServers": {
            "a": {"command": "x", "env": {"K": "${V}"}},
            "b": {"url": "http://127.0.0.1:1/mcp"},
            "c": {"command": "y", "exposure": "direct"}
        }}"#,
    );
    write(
        &cwd.join(".pi/mcp.json"),
        r#"{"mcpServers": {"a": {"enabled": false}, "c": {"command": "pi"}}}"#,
    );
    write(
        &cwd.join(".rho/mcp.json"),
        r#"{"mcpServers": {"c": {"command": "rho"}, "b": {"exposure": "hidden", "toolExposure": {"get_*": "direct", "get_x": "deferred"}}}}"#,
    );
    let config = load(&agent, &cwd);
    assert!(config.errors.is_empty(), "{:?}", config.errors);
    let get = |n: &str| config.servers.iter().find(|s| s.name == n).expect("server");
    assert!(!get("a").enabled);
    assert!(matches!(&get("a").transport, Transport::Stdio { env, .. } if env[0].1 == "${V}"));
    assert!(matches!(&get("c").transport, Transport::Stdio { command, .. } if command == "rho"));
    assert_eq!(get("c").exposure, Exposure::Codemode);
    let b = get("b");
    assert_eq!(b.exposure, Exposure::Hidden);
    assert_eq!(b.tool_exposure("get_x"), Exposure::Deferred);
    assert_eq!(b.tool_exposure("get_y"), Exposure::Direct);
    assert_eq!(b.tool_exposure("other"), Exposure::Hidden);
}

#[test]
fn invalid_entries_are_reported_and_skipped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (agent, cwd) = (dir.path().join("agent"), dir.path().join("proj"));
    write(
        &agent.join("mcp.json"),
        r#"{"mcpServers": {
            "bad name": {"command": "x"},
            "sse": {"type": "sse", "url": "http://h/sse"},
            "t": {"command": "x", "timeout": -1},
            "dev-x": {"command": "x"},
            "dev_x": {"command": "y"},
            "ok": {"command": "x"}
        }}"#,
    );
    write(
        &cwd.join(".rho/mcp.json"),
        r#"{"mcpServers": {"nobase": {"enabled": true}}}"#,
    );
    let config = load(&agent, &cwd);
    let names: Vec<&str> = config.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["dev-x", "ok"]);
    let errors = config.errors.join("\n");
    assert!(
        errors.contains("invalid server name \"bad name\""),
        "{errors}"
    );
    assert!(
        errors.contains("legacy SSE transport is not supported"),
        "{errors}"
    );
    assert!(
        errors.contains("timeout must be a positive number of seconds"),
        "{errors}"
    );
    assert!(
        errors.contains("server \"dev_x\" conflicts with \"dev-x\""),
        "{errors}"
    );
    assert!(
        errors.contains(
            "server \"nobase\" needs \"command\" or \"url\", or a global server to override"
        ),
        "{errors}"
    );
}

#[test]
fn an_untrusted_projects_servers_are_not_loaded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (agent, cwd) = (dir.path().join("agent"), dir.path().join("proj"));
    write(
        &agent.join("mcp.json"),
        r#"{"mcpServers": {"mine": {"command": "x"}}}"#,
    );
    write(
        &cwd.join(".mcp.json"),
        r#"{"mcpServers": {"theirs": {"command": "y"}}}"#,
    );
    write(
        &cwd.join(".rho/mcp.json"),
        r#"{"mcpServers": {"mine": {"command": "z"}}}"#,
    );
    let names = |c: &McpConfig| c.servers.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
    let untrusted = load_trusted(&agent, &cwd, false);
    assert_eq!(names(&untrusted), ["mine"]);
    assert!(
        matches!(&untrusted.servers[0].transport, Transport::Stdio { command, .. } if command == "x")
    );
    let trusted = load_trusted(&agent, &cwd, true);
    assert_eq!(names(&trusted).len(), 2);
}
