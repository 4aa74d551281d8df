//! `rho mcp add|remove|list|login|logout`, pi 1.6's `pi mcp` (docs/cli.md, "MCP commands"):
//! configure and check MCP servers without a session, so an agent can run them through
//! `bash`. Options, texts and exit codes are pi's. The user's file is the agent dir's
//! `mcp.json`; with `-l` the project's: `.rho/mcp.json` when it exists, else pi's
//! `.pi/mcp.json` (which pi reads too; rho reads both).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Result};
use rho_mcp::config::{Scope, ServerConfig, Transport};
use rho_mcp::ordered::Json;
use rho_mcp::{McpConfig, McpManager, McpOptions};
use serde_json::{json, Value};

const HELP: &str = "Usage:
  rho mcp add <server> [options] -- <command> [args...]
  rho mcp add <server> [options] --url <url>
  rho mcp remove <server> [-l]
  rho mcp list [--json]
  rho mcp login <server> [-l] [--no-browser]
  rho mcp logout <server> [-l]

Configure and check MCP servers and sign in to OAuth servers without starting a session.
Reads mcp.json in the agent dir and, in trusted projects, .rho/mcp.json and .pi/mcp.json.

Commands:
  add <server>            Add or replace a server in mcp.json
  remove <server>         Remove a server from mcp.json
  list                    Show state, tools, and errors (exits 1 on failure)
  login <server>          Sign in through the browser
  logout <server>         Delete the stored OAuth credentials

Options for add, remove, login, and logout:
  -l, --local             Use the current project's mcp.json instead of the global file

Options for add:
  --url <url>             Streamable HTTP server URL (instead of a command)
  --env <KEY=VALUE>       Environment variable for a stdio server (repeatable)
  --cwd <dir>             Working directory for a stdio server
  --header <KEY=VALUE>    HTTP header (repeatable)
  --bearer-token-env-var <NAME>
                          Send \"Authorization: Bearer ${NAME}\"
  --oauth-client-id <id>  Pre-registered OAuth client id
  --oauth-client-secret <secret>
                          OAuth client secret (may be ${NAME} or !command)
  --oauth-callback-port <port>
                          Fixed OAuth callback port
  --oauth-client-name <name>
                          Client name sent when registering with the OAuth server
  --oauth-client-registration <mode>
                          auto (default), cimd, or dcr
  --exposure <mode>       codemode (default), deferred, direct, or hidden
  --description <text>    What the server offers, shown in the system prompt

Other options:
  --json                  Print the list as JSON
  --no-browser            Print the sign-in URL instead of opening a browser
";

const HINT: &str = "Use \"rho mcp --help\" for usage.";

/// What an option takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Takes {
    Flag,
    Value,
    List,
}

/// Options parsed as pi parses them: `--` or reaching `max_positional` positionals ends them
/// (so a server command's own options pass through).
#[derive(Debug, Default)]
struct Parsed {
    positional: Vec<String>,
    values: BTreeMap<String, String>,
    lists: BTreeMap<String, Vec<String>>,
}

impl Parsed {
    fn has(&self, name: &str) -> bool {
        self.values.contains_key(name) || self.lists.contains_key(name)
    }

    fn value(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }
}

fn parse(args: &[String], known: &[(&str, Takes)], max_positional: usize) -> Result<Parsed> {
    let mut parsed = Parsed::default();
    let mut i = 0;
    while i < args.len() {
        let typed = args[i].as_str();
        let arg = if typed == "-l" { "--local" } else { typed };
        if arg == "--" || parsed.positional.len() >= max_positional {
            let from = if arg == "--" { i + 1 } else { i };
            parsed.positional.extend(args[from..].iter().cloned());
            break;
        }
        i += 1;
        let Some(name) = arg.strip_prefix("--") else {
            parsed.positional.push(arg.to_string());
            continue;
        };
        let Some(&(_, takes)) = known.iter().find(|(n, _)| *n == name) else {
            bail!("Unknown option {typed}.\n{HINT}");
        };
        if takes == Takes::Flag {
            parsed.values.insert(name.into(), "true".into());
            continue;
        }
        let Some(value) = args.get(i).cloned() else {
            bail!("{arg} needs a value.");
        };
        i += 1;
        match takes {
            Takes::List => parsed.lists.entry(name.into()).or_default().push(value),
            _ => {
                parsed.values.insert(name.into(), value);
            }
        }
    }
    Ok(parsed)
}

/// `rho mcp ...` (`argv` after `mcp`).
pub fn command(argv: &[String]) -> ExitCode {
    let help = argv.iter().any(|a| a == "--help" || a == "-h");
    let (verb, rest) = match argv.split_first() {
        Some((verb, rest)) if verb != "help" && !help => (verb.as_str(), rest),
        _ => {
            print!("{HELP}");
            return ExitCode::SUCCESS;
        }
    };
    let agent_dir = match crate::plan::agent_dir() {
        Ok(dir) => dir,
        Err(e) => return fail(e),
    };
    let cwd = std::env::current_dir().unwrap_or_default();
    let dirs = (agent_dir.as_path(), cwd.as_path());
    let result = match verb {
        "add" => add(rest, dirs),
        "remove" => remove(rest, dirs),
        "list" => return list(rest, dirs),
        "login" | "logout" => return crate::mcp::sign_in_command(verb, rest, dirs),
        other => Err(anyhow!("Unknown mcp command \"{other}\".\n{HINT}")),
    };
    match result {
        Ok(lines) => {
            println!("{lines}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

fn fail(e: impl std::fmt::Display) -> ExitCode {
    eprintln!("{e}");
    ExitCode::FAILURE
}

/// The file `-l` edits: `.rho/mcp.json` when it exists, else pi's `.pi/mcp.json`.
pub fn project_file(cwd: &Path) -> PathBuf {
    let rho = cwd.join(".rho/mcp.json");
    if rho.is_file() {
        rho
    } else {
        cwd.join(".pi/mcp.json")
    }
}

fn trusted(agent_dir: &Path, cwd: &Path) -> bool {
    crate::project::Project::resolve(None, agent_dir, cwd, &mut Vec::new()).trusted()
}

/// The scope's file and its name in messages.
fn target(local: bool, (agent_dir, cwd): (&Path, &Path)) -> (PathBuf, &'static str) {
    if local {
        (project_file(cwd), "project")
    } else {
        (agent_dir.join("mcp.json"), "global")
    }
}

const ADD_OPTIONS: [(&str, Takes); 13] = [
    ("local", Takes::Flag),
    ("url", Takes::Value),
    ("env", Takes::List),
    ("cwd", Takes::Value),
    ("header", Takes::List),
    ("bearer-token-env-var", Takes::Value),
    ("oauth-client-id", Takes::Value),
    ("oauth-client-secret", Takes::Value),
    ("oauth-callback-port", Takes::Value),
    ("oauth-client-name", Takes::Value),
    ("oauth-client-registration", Takes::Value),
    ("exposure", Takes::Value),
    ("description", Takes::Value),
];

const HTTP_ONLY: [&str; 7] = [
    "header",
    "bearer-token-env-var",
    "oauth-client-id",
    "oauth-client-secret",
    "oauth-callback-port",
    "oauth-client-name",
    "oauth-client-registration",
];

/// `KEY=VALUE` pairs of a repeatable option, in order.
fn pairs(option: &str, given: Option<&Vec<String>>) -> Result<Vec<(String, Json)>> {
    let mut out: Vec<(String, Json)> = Vec::new();
    for pair in given.into_iter().flatten() {
        match pair.split_once('=') {
            Some((key, value)) if !key.is_empty() => {
                out.retain(|(k, _)| k != key);
                out.push((key.to_string(), Json::String(value.to_string())));
            }
            _ => bail!("--{option} expects KEY=VALUE, got \"{pair}\"."),
        }
    }
    Ok(out)
}

/// The entry `add` writes, in pi's key order.
fn entry(parsed: &Parsed, command: &[String]) -> Result<Json> {
    let text = |v: &str| Json::String(v.to_string());
    let url = parsed.value("url");
    let misplaced = match url {
        None => HTTP_ONLY.iter().find(|o| parsed.has(o)),
        Some(_) => ["env", "cwd"].iter().find(|o| parsed.has(o)),
    };
    if let Some(option) = misplaced {
        let kind = match url {
            None => "HTTP servers (--url)",
            Some(_) => "stdio servers",
        };
        bail!("--{option} only applies to {kind}.");
    }
    let mut fields: Vec<(String, Json)> = Vec::new();
    if let Some(url) = url {
        fields.push(("url".into(), text(url)));
        let mut headers = pairs("header", parsed.lists.get("header"))?;
        if let Some(name) = parsed.value("bearer-token-env-var") {
            headers.retain(|(k, _)| k != "Authorization");
            headers.push(("Authorization".into(), text(&format!("Bearer ${{{name}}}"))));
        }
        if !headers.is_empty() {
            fields.push(("headers".into(), Json::Object(headers)));
        }
        let mut oauth: Vec<(String, Json)> = Vec::new();
        for (option, key) in [
            ("oauth-client-id", "clientId"),
            ("oauth-client-secret", "clientSecret"),
            ("oauth-callback-port", "callbackPort"),
            ("oauth-client-name", "clientName"),
            ("oauth-client-registration", "clientRegistration"),
        ] {
            let Some(value) = parsed.value(option) else {
                continue;
            };
            let value = match key {
                "callbackPort" => Json::from_value(&port_value(value)),
                _ => text(value),
            };
            oauth.push((key.into(), value));
        }
        if !oauth.is_empty() {
            fields.push(("oauth".into(), Json::Object(oauth)));
        }
    } else {
        let (program, args) = command.split_first().ok_or_else(|| anyhow!("no command"))?;
        fields.push(("command".into(), text(program)));
        if !args.is_empty() {
            fields.push((
                "args".into(),
                Json::Array(args.iter().map(|a| text(a)).collect()),
            ));
        }
        let env = pairs("env", parsed.lists.get("env"))?;
        if !env.is_empty() {
            fields.push(("env".into(), Json::Object(env)));
        }
        if let Some(dir) = parsed.value("cwd") {
            fields.push(("cwd".into(), text(dir)));
        }
    }
    for (option, key) in [("exposure", "exposure"), ("description", "description")] {
        if let Some(value) = parsed.value(option) {
            fields.push((key.into(), text(value)));
        }
    }
    Ok(Json::Object(fields))
}

/// A port as pi writes it: a number (JavaScript's `Number("x")`, so text that is no number
/// stays a value validation then refuses).
fn port_value(text: &str) -> Value {
    match text.trim().parse::<f64>() {
        Ok(n) if n.fract() == 0.0 => json!(n as i64),
        Ok(n) => json!(n),
        Err(_) => Value::Null,
    }
}

fn add(args: &[String], dirs: (&Path, &Path)) -> Result<String> {
    let parsed = parse(args, &ADD_OPTIONS, 2)?;
    let (name, command) = match parsed.positional.split_first() {
        Some((name, command)) if parsed.has("url") == command.is_empty() => (name, command),
        _ => bail!(
            "Usage: rho mcp add <server> [options] (--url <url> | -- <command> [args...])\n{HINT}"
        ),
    };
    let entry = entry(&parsed, command)?;
    let local = parsed.has("local");
    let (file, scope) = target(local, dirs);
    let rho_scope = if local { Scope::Project } else { Scope::User };
    rho_mcp::config::validate(name, entry.clone(), &file, rho_scope)?;
    let replaced = rho_mcp::edit::add_server(&file, name, entry)
        .map_err(|e| anyhow!("Could not update {}: {e}", file.display()))?;
    let verb = if replaced { "Replaced" } else { "Added" };
    let mut lines = vec![format!(
        "{verb} {scope} MCP server \"{name}\" in {}.",
        file.display()
    )];
    if local && !trusted(dirs.0, dirs.1) {
        lines.push(format!(
            "The project is not trusted, so {} is ignored until you trust it (start rho in the project and use /trust, or pass --approve).",
            file.display()
        ));
    }
    let oauth_possible = parsed.has("url")
        && !parsed.has("bearer-token-env-var")
        && !parsed
            .lists
            .get("header")
            .into_iter()
            .flatten()
            .any(|h| h.to_ascii_lowercase().starts_with("authorization="));
    lines.push(match oauth_possible {
        true => {
            format!("Check it with: rho mcp list. If it requires sign-in: rho mcp login {name}")
        }
        false => "Check it with: rho mcp list".into(),
    });
    Ok(lines.join("\n"))
}

fn remove(args: &[String], dirs: (&Path, &Path)) -> Result<String> {
    let parsed = parse(args, &[("local", Takes::Flag)], usize::MAX)?;
    let [name] = parsed.positional.as_slice() else {
        bail!("Usage: rho mcp remove <server> [-l]\n{HINT}");
    };
    let local = parsed.has("local");
    let (file, scope) = target(local, dirs);
    let removed = rho_mcp::edit::remove_server(&file, name)
        .map_err(|e| anyhow!("Could not update {}: {e}", file.display()))?;
    if removed {
        return Ok(format!(
            "Removed {scope} MCP server \"{name}\" from {}.",
            file.display()
        ));
    }
    let all = rho_mcp::load_config(dirs.0, dirs.1);
    let elsewhere = all
        .servers
        .iter()
        .find(|s| &s.name == name && s.source != file);
    let hint = elsewhere.map_or(String::new(), |s| {
        let how = if s.scope == Scope::Project {
            "use --local"
        } else {
            "omit --local"
        };
        format!(" It is defined in {}; {how}.", s.source.display())
    });
    bail!(
        "No {scope} MCP server named \"{name}\" in {}.{hint}",
        file.display()
    )
}

/// How pi shows a server's transport: the URL, or the command line.
fn transport_text(server: &ServerConfig) -> String {
    match &server.transport {
        Transport::Http { url, .. } => url.clone(),
        Transport::Stdio { command, args, .. } => std::iter::once(command.as_str())
            .chain(args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// `rho mcp list [--json]`: connects every enabled server and reports it; exit 1 when an
/// entry is invalid or an enabled server did not connect.
fn list(args: &[String], (agent_dir, cwd): (&Path, &Path)) -> ExitCode {
    let parsed = match parse(args, &[("json", Takes::Flag)], usize::MAX) {
        Ok(p) if p.positional.is_empty() => p,
        Ok(_) => return fail(format!("Usage: rho mcp list [--json]\n{HINT}")),
        Err(e) => return fail(e),
    };
    let trusted = trusted(agent_dir, cwd);
    let config = rho_mcp::load_config_trusted(agent_dir, cwd, trusted);
    let note = [".rho/mcp.json", ".pi/mcp.json", ".mcp.json"]
        .iter()
        .map(|f| cwd.join(f))
        .find(|f| !trusted && f.is_file())
        .map(|f| {
            format!(
                "{} is ignored because the project is not trusted. Start rho in the project and trust it (/trust or --approve).",
                f.display()
            )
        });
    let reports = match reports(&config, agent_dir, cwd) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let failed = !config.errors.is_empty()
        || reports
            .iter()
            .any(|r| r["enabled"] == true && r["state"] != "connected");
    if parsed.has("json") {
        let mut out = json!({"servers": reports, "errors": config.errors});
        if let Some(note) = &note {
            out["note"] = json!(note);
        }
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    } else {
        print!(
            "{}",
            list_text(&reports, &config.errors, note.as_deref(), agent_dir)
        );
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// One report per server, pi's fields: connected servers' tools as the server names them.
fn reports(config: &McpConfig, agent_dir: &Path, cwd: &Path) -> Result<Vec<Value>> {
    if config.servers.is_empty() {
        return Ok(Vec::new());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| anyhow!("cannot start the async runtime: {e}"))?;
    let options = McpOptions {
        env: crate::mcp::server_env(agent_dir, cwd),
        tool_patterns: None,
    };
    let manager = runtime.block_on(async {
        let m = McpManager::start(config.clone(), options);
        m.wait_all().await;
        m
    });
    let reports = manager
        .servers()
        .iter()
        .map(|s| {
            let c = &s.config;
            let mut r = json!({
                "name": c.name,
                "scope": c.scope.as_str(),
                "source": c.source.display().to_string(),
            });
            if let Some(over) = &c.override_source {
                r["override"] = json!(over.display().to_string());
            }
            r["enabled"] = json!(c.enabled);
            r["exposure"] = json!(c.exposure.as_str());
            r["transport"] = json!(transport_text(c));
            r["state"] = json!(if c.enabled {
                s.state().as_str()
            } else {
                "disabled"
            });
            let tools = s.tools();
            r["tools"] = json!(tools.iter().map(|t| t.tool.clone()).collect::<Vec<_>>());
            let differing: serde_json::Map<String, Value> = tools
                .iter()
                .filter(|t| t.exposure != c.exposure)
                .map(|t| (t.tool.clone(), json!(t.exposure.as_str())))
                .collect();
            if !differing.is_empty() {
                r["toolExposure"] = Value::Object(differing);
            }
            if s.has_resources() {
                r["resources"] = json!(true);
            }
            if let Some(error) = s.error().filter(|_| r["state"] != "connected") {
                r["error"] = json!(error);
            }
            r
        })
        .collect();
    runtime.block_on(manager.shutdown());
    Ok(reports)
}

fn list_text(reports: &[Value], errors: &[String], note: Option<&str>, agent_dir: &Path) -> String {
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(&text);
        out.push('\n');
    };
    if reports.is_empty() && errors.is_empty() {
        line(format!(
            "No MCP servers configured. Add them to {} or .pi/mcp.json.",
            agent_dir.join("mcp.json").display()
        ));
    }
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    for r in reports {
        let tools: Vec<String> = r["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .map(text)
            .collect();
        let state = match r["state"].as_str() {
            Some("connected") => {
                let s = if tools.len() == 1 { "" } else { "s" };
                format!("connected, {} tool{s}", tools.len())
            }
            Some("needs-auth") => "needs sign-in".into(),
            other => other.unwrap_or_default().to_string(),
        };
        let name = text(&r["name"]);
        line(format!(
            "{name}: {state} ({}, {})",
            text(&r["exposure"]),
            text(&r["scope"])
        ));
        line(format!("  {}", text(&r["transport"])));
        if let Some(over) = r["override"].as_str() {
            line(format!("  project override: {over}"));
        }
        if r["state"] == "needs-auth" {
            line(format!("  sign in with: rho mcp login {name}"));
        }
        if !tools.is_empty() {
            let shown: Vec<String> = tools
                .iter()
                .map(|t| match r["toolExposure"][t].as_str() {
                    Some(e) => format!("{t} [{e}]"),
                    None => t.clone(),
                })
                .collect();
            line(format!("  tools: {}", shown.join(", ")));
        }
        if r["resources"] == true {
            line("  offers resources".into());
        }
        if let Some(error) = r["error"].as_str() {
            line(format!("  {}", error.replace('\n', "\n  ")));
        }
    }
    for e in errors {
        line(format!("config error: {e}"));
    }
    if let Some(note) = note {
        line(note.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn add_builds_pis_entry_and_refuses_misplaced_options() {
        let args = strings(&[
            "web",
            "--url",
            "https://x.dev/mcp",
            "--header",
            "X-A=1",
            "--bearer-token-env-var",
            "TOK",
            "--oauth-callback-port",
            "8765",
            "--oauth-client-registration",
            "dcr",
            "--exposure",
            "direct",
        ]);
        let parsed = parse(&args, &ADD_OPTIONS, 2).expect("parses");
        let (_, command) = parsed.positional.split_first().expect("name");
        let written = entry(&parsed, command).expect("entry").to_value();
        assert_eq!(
            written,
            json!({"url": "https://x.dev/mcp",
                "headers": {"X-A": "1", "Authorization": "Bearer ${TOK}"},
                "oauth": {"callbackPort": 8765, "clientRegistration": "dcr"},
                "exposure": "direct"})
        );
        let stdio = strings(&["s", "--env", "A=1", "--cwd", "/w", "--", "npx", "-y", "pkg"]);
        let parsed = parse(&stdio, &ADD_OPTIONS, 2).expect("parses");
        let (_, command) = parsed.positional.split_first().expect("name");
        assert_eq!(
            entry(&parsed, command).expect("entry").to_value(),
            json!({"command": "npx", "args": ["-y", "pkg"], "env": {"A": "1"}, "cwd": "/w"})
        );
        let wrong = strings(&["s", "--header", "A=1", "--", "x"]);
        let parsed = parse(&wrong, &ADD_OPTIONS, 2).expect("parses");
        assert_eq!(
            entry(&parsed, &strings(&["x"]))
                .err()
                .map(|e| e.to_string())
                .as_deref(),
            Some("--header only applies to HTTP servers (--url).")
        );
        assert_eq!(
            parse(&strings(&["s", "--bogus"]), &ADD_OPTIONS, 2)
                .err()
                .map(|e| e.to_string())
                .as_deref(),
            Some("Unknown option --bogus.\nUse \"rho mcp --help\" for usage.")
        );
        // Options after the command belong to it.
        let through =
            parse(&strings(&["s", "cmd", "--env", "x"]), &ADD_OPTIONS, 2).expect("parses");
        assert_eq!(through.positional, ["s", "cmd", "--env", "x"]);
    }
}
