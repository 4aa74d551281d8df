//! `rho mcp add|list|remove` and `rho auth check|print-api-key|print-bearer-token` as pi
//! 1.6's `pi mcp` and `pi auth` (docs/cli.md): the entries `add` writes for every option,
//! pi's messages and exit codes, `list --json`'s report, and the credential commands'
//! statuses, texts and exit codes. No session starts and no model is called.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{json, Value};

struct World {
    _dir: tempfile::TempDir,
    agent: std::path::PathBuf,
    cwd: std::path::PathBuf,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let (agent, cwd) = (dir.path().join("agent"), dir.path().join("work"));
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::create_dir_all(&cwd).unwrap();
        World {
            _dir: dir,
            agent,
            cwd,
        }
    }

    fn rho(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_rho"))
            .args(args)
            .current_dir(&self.cwd)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.agent)
            .env("PI_CODING_AGENT_DIR", &self.agent)
            .output()
            .unwrap()
    }

    fn json(&self, path: &Path) -> Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn mcp_add_writes_pis_entries_for_every_option() {
    let w = World::new();
    let file = w.agent.join("mcp.json");
    let added = w.rho(&[
        "mcp",
        "add",
        "tools",
        "--env",
        "A=1",
        "--env",
        "B=x=y",
        "--cwd",
        "/srv",
        "--exposure",
        "direct",
        "--description",
        "Tools for tests",
        "--",
        "npx",
        "-y",
        "tools-mcp",
        "--flag",
    ]);
    assert_eq!(added.status.code(), Some(0), "{}", err(&added));
    assert_eq!(
        out(&added),
        format!(
            "Added global MCP server \"tools\" in {}.\nCheck it with: rho mcp list\n",
            file.display()
        )
    );
    let docs = w.rho(&[
        "mcp",
        "add",
        "docs",
        "--url",
        "https://docs.example/mcp",
        "--header",
        "X-Team=a",
        "--bearer-token-env-var",
        "DOCS_TOKEN",
        "--oauth-client-id",
        "cid",
        "--oauth-callback-port",
        "8765",
        "--oauth-client-registration",
        "dcr",
    ]);
    assert_eq!(docs.status.code(), Some(0), "{}", err(&docs));
    let open = w.rho(&[
        "mcp",
        "add",
        "sentry",
        "--url",
        "https://mcp.sentry.example/mcp",
    ]);
    assert!(
        out(&open).ends_with(
            "Check it with: rho mcp list. If it requires sign-in: rho mcp login sentry\n"
        ),
        "{}",
        out(&open)
    );
    assert_eq!(
        w.json(&file),
        json!({"mcpServers": {
            "tools": {"command": "npx", "args": ["-y", "tools-mcp", "--flag"],
                "env": {"A": "1", "B": "x=y"}, "cwd": "/srv", "exposure": "direct",
                "description": "Tools for tests"},
            "docs": {"url": "https://docs.example/mcp",
                "headers": {"X-Team": "a", "Authorization": "Bearer ${DOCS_TOKEN}"},
                "oauth": {"clientId": "cid", "callbackPort": 8765, "clientRegistration": "dcr"}},
            "sentry": {"url": "https://mcp.sentry.example/mcp"}
        }})
    );
    let replaced = w.rho(&["mcp", "add", "sentry", "--url", "https://other.example/mcp"]);
    assert!(out(&replaced).starts_with("Replaced global MCP server \"sentry\""));

    for (args, text) in [
        (
            &["mcp", "add", "x", "--header", "A=1", "--", "cmd"][..],
            "--header only applies to HTTP servers (--url).",
        ),
        (&["mcp", "add", "x", "--url", "https://u", "--cwd", "/"][..], "--cwd only applies to stdio servers."),
        (&["mcp", "add", "x", "--env", "NOEQUALS", "--", "cmd"][..], "--env expects KEY=VALUE, got \"NOEQUALS\"."),
        (&["mcp", "add", "x", "--bogus", "1"][..], "Unknown option --bogus.\nUse \"rho mcp --help\" for usage."),
        (&["mcp", "add", "x"][..], "Usage: rho mcp add <server> [options] (--url <url> | -- <command> [args...])\nUse \"rho mcp --help\" for usage."),
        (&["mcp", "frob"][..], "Unknown mcp command \"frob\".\nUse \"rho mcp --help\" for usage."),
    ] {
        let o = w.rho(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert_eq!(err(&o).trim_end(), text, "{args:?}");
    }
}

/// `-l` writes the project's file: pi's `.pi/mcp.json` (rho's `.rho/mcp.json` when that is
/// the one the project has), with pi's note while the project is not trusted.
#[test]
fn mcp_add_local_writes_the_projects_file() {
    let w = World::new();
    let o = w.rho(&["mcp", "add", "-l", "proj", "--", "echo", "hi"]);
    let file = w.cwd.join(".pi/mcp.json");
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(out(&o).contains(&format!(
        "Added project MCP server \"proj\" in {}.\nThe project is not trusted",
        file.display()
    )));
    assert_eq!(
        w.json(&file)["mcpServers"]["proj"],
        json!({"command": "echo", "args": ["hi"]})
    );
    std::fs::create_dir_all(w.cwd.join(".rho")).unwrap();
    std::fs::write(w.cwd.join(".rho/mcp.json"), "{}").unwrap();
    let o = w.rho(&["mcp", "add", "-l", "mine", "--", "echo"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(w.json(&w.cwd.join(".rho/mcp.json"))["mcpServers"]["mine"].is_object());
    let removed = w.rho(&["mcp", "remove", "-l", "mine"]);
    assert!(
        out(&removed).starts_with("Removed project MCP server \"mine\""),
        "{}",
        out(&removed)
    );
}

/// `list --json`: pi's report per server; exit 1 when an enabled server did not connect; a
/// disabled one is reported and does not fail the list.
#[test]
fn mcp_list_json_reports_servers_and_fails_on_a_broken_one() {
    let w = World::new();
    let file = w.agent.join("mcp.json");
    let config = json!({"mcpServers": {
        "off": {"command": "true", "enabled": false, "exposure": "deferred"},
    }});
    std::fs::write(&file, config.to_string()).unwrap();
    let o = w.rho(&["mcp", "list", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let report: Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(
        report,
        json!({"servers": [{"name": "off", "scope": "global", "source": file.display().to_string(),
            "enabled": false, "exposure": "deferred", "transport": "true",
            "state": "disabled", "tools": []}], "errors": []})
    );
    let broken = w.rho(&["mcp", "add", "broken", "--", "sh", "-c", "exit 3"]);
    assert_eq!(broken.status.code(), Some(0));
    let o = w.rho(&["mcp", "list", "--json"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a server that does not connect fails the list"
    );
    let report: Value = serde_json::from_str(&out(&o)).unwrap();
    let server = &report["servers"][1];
    assert_eq!(server["name"], "broken");
    assert_eq!(server["transport"], "sh -c exit 3");
    assert_eq!(server["state"], "failed");
    assert!(server["error"].is_string(), "{server}");
    let text = w.rho(&["mcp", "list"]);
    assert!(
        out(&text).starts_with("off: disabled (deferred, global)\n  true\n"),
        "{}",
        out(&text)
    );
    let gone = w.rho(&["mcp", "remove", "nope"]);
    assert_eq!(gone.status.code(), Some(1));
    assert_eq!(
        err(&gone).trim_end(),
        format!("No global MCP server named \"nope\" in {}.", file.display())
    );
}

/// `auth check`: ready / not_ready / invalid with exit 0 / 1 / 2, `--json` and
/// `--credentials`; `print-api-key` prints the key the session would send.
#[test]
fn auth_check_and_print_api_key_as_pi() {
    let w = World::new();
    let models = json!({"providers": {"mock": {"baseUrl": "http://127.0.0.1:9/v1",
        "api": "openai-completions", "apiKey": "test-key", "models": [{"id": "mock-model"}]}}});
    std::fs::write(w.agent.join("models.json"), models.to_string()).unwrap();
    let cases: [(&[&str], &str, i32); 9] = [
        (&["auth", "check", "--provider", "mock"], "ready\n", 0),
        (
            &["auth", "check", "--provider", "mock", "--json"],
            "{\"status\":\"ready\",\"provider\":\"mock\",\"authType\":\"api_key\"}\n",
            0,
        ),
        (
            &["auth", "check", "--model", "mock/mock-model", "--json", "--credentials"],
            "{\"status\":\"ready\",\"provider\":\"mock\",\"authType\":\"api_key\",\"credentials\":\"test-key\"}\n",
            0,
        ),
        (&["auth", "check", "--model", "mock-model", "--credentials"], "test-key\n", 0),
        (
            &["auth", "check", "--provider", "anthropic", "--json"],
            "{\"status\":\"not_ready\",\"provider\":\"anthropic\",\"reason\":\"credentials_not_configured\"}\n",
            1,
        ),
        (
            &["auth", "check", "--provider", "nope", "--json"],
            "{\"status\":\"not_ready\",\"provider\":\"nope\",\"reason\":\"provider_not_found\"}\n",
            1,
        ),
        (
            &["auth", "check", "--model", "no-such-model", "--json"],
            "{\"status\":\"invalid\",\"provider\":\"no-such-model\",\"reason\":\"invalid_state\"}\n",
            2,
        ),
        (&["auth", "print-api-key", "--provider", "mock"], "test-key\n", 0),
        (&["auth", "print-api-key", "--provider", "nope"], "", 1),
    ];
    for (args, stdout, code) in cases {
        let o = w.rho(args);
        assert_eq!(
            (out(&o).as_str(), o.status.code()),
            (stdout, Some(code)),
            "{args:?}: {}",
            err(&o)
        );
    }
    for (args, text, code) in [
        (&["auth", "check"][..], "Error: Auth checks require --provider <provider> or --model <model>", 2),
        (&["auth", "print-api-key"][..], "Error: Credential printing requires --provider <provider> or --model <model>", 1),
        (&["auth", "print-api-key", "--provider", "anthropic"][..], "Error: No usable API key is configured", 1),
        (&["auth", "print-api-key", "--provider", "nope"][..], "Error: Unknown provider \"nope\". Use --list-models to see available providers.", 1),
        (&["auth", "print-bearer-token", "--provider", "mock"][..], "Error: Provider \"mock\" is not configured with an OAuth bearer token", 1),
        (&["auth", "check", "--provider", "mock", "--min-expiry", "1h"][..], "Error: --min-expiry is only supported by print-bearer-token", 1),
        (&["auth", "print-api-key", "--provider", "mock", "--json"][..], "Error: --json is only supported by auth check", 1),
        (&["auth", "frob"][..], "Error: Unknown auth command \"frob\". Use \"rho auth login\", \"rho auth logout\", \"rho auth print-api-key\", \"rho auth print-bearer-token\", or \"rho auth check\".", 1),
    ] {
        let o = w.rho(args);
        assert_eq!((err(&o).trim_end(), o.status.code()), (text, Some(code)), "{args:?}");
    }
}

/// A stored login: `print-bearer-token` prints the OAuth token, `print-api-key` refuses it,
/// `check` says `oauth`; without `--provider` only stored credentials count.
#[test]
fn auth_commands_read_stored_logins() {
    let w = World::new();
    let models = json!({"providers": {"mock": {"baseUrl": "http://127.0.0.1:9/v1",
        "api": "openai-completions", "apiKey": "test-key", "models": [{"id": "mock-model"}]}}});
    std::fs::write(w.agent.join("models.json"), models.to_string()).unwrap();
    let auth = json!({"mock": {"type": "api_key", "key": "stored-key"},
        "anthropic": {"type": "oauth", "access": "tok-abc", "refresh": "r", "expires": 9_999_999_999_999u64}});
    std::fs::write(w.agent.join("auth.json"), auth.to_string()).unwrap();
    for (args, stdout) in [
        (
            &["auth", "print-api-key", "--model", "mock-model"][..],
            "stored-key\n",
        ),
        (
            &["auth", "print-bearer-token", "--provider", "anthropic"][..],
            "tok-abc\n",
        ),
        (
            &["auth", "check", "--provider", "anthropic", "--json"][..],
            "{\"status\":\"ready\",\"provider\":\"anthropic\",\"authType\":\"oauth\"}\n",
        ),
    ] {
        let o = w.rho(args);
        assert_eq!(out(&o), stdout, "{args:?}: {}", err(&o));
    }
    let o = w.rho(&["auth", "print-api-key", "--provider", "anthropic"]);
    assert_eq!(
        err(&o).trim_end(),
        "Error: Provider \"anthropic\" is configured with OAuth, not an API key"
    );
}

/// `rho config`: pi's built-ins and the resources, on or off; `enable`/`disable` write what
/// pi's selector writes (a `-`/`+` entry in the scope's list, a package's filter), and the
/// next listing shows the switch.
#[test]
fn config_lists_and_switches_resources() {
    let w = World::new();
    for rel in ["prompts/a.md", "prompts/b.md", "pkg/prompts/p.md"] {
        let path = w.agent.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "---\ndescription: d\n---\nx").unwrap();
    }
    let settings = w.agent.join("settings.json");
    std::fs::write(&settings, json!({"packages": ["./pkg"]}).to_string()).unwrap();
    let listed = w.rho(&["config"]);
    assert_eq!(listed.status.code(), Some(0), "{}", err(&listed));
    let text = out(&listed);
    assert!(text.contains("  [x] builtin:mcp\n"), "{text}");
    assert!(text.contains("  [x] prompts/a.md (auto, user)\n"), "{text}");
    assert!(
        text.contains("  [x] prompts/p.md (./pkg, user)\n"),
        "{text}"
    );
    for args in [
        &["config", "disable", "builtin:mcp"][..],
        &["config", "disable", "prompts/a.md"][..],
        &["config", "disable", "prompts/p.md"][..],
    ] {
        let o = w.rho(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", err(&o));
    }
    assert_eq!(
        w.json(&settings),
        json!({"packages": [{"source": "./pkg", "prompts": ["-prompts/p.md"]}],
            "extensions": ["-builtin:mcp"], "prompts": ["-prompts/a.md"]})
    );
    let text = out(&w.rho(&["config"]));
    assert!(text.contains("  [ ] builtin:mcp\n"), "{text}");
    assert!(text.contains("  [ ] prompts/a.md (auto, user)\n"), "{text}");
    assert!(text.contains("  [x] prompts/b.md (auto, user)\n"), "{text}");
    assert!(
        text.contains("  [ ] prompts/p.md (./pkg, user)\n"),
        "{text}"
    );
    let back = w.rho(&["config", "enable", "mcp"]);
    assert_eq!(back.status.code(), Some(0));
    assert_eq!(w.json(&settings)["extensions"], json!(["+builtin:mcp"]));
    let unknown = w.rho(&["config", "disable", "nothing.md"]);
    assert_eq!(unknown.status.code(), Some(1));
}
