//! pi 1.6's own `RpcClient` drives rho (`--rpc-dialect 1.x`) and pi 1.6 through the same
//! scripted conversation (issue 14): `tests/rpc_client/drive.mjs` prompts, steers, follows
//! up, clears the queue, aborts, compacts, runs bash, reads entries and the tree, switches
//! models and levels, exports, forks, clones and switches sessions, and prints each step's
//! response data and event types. Both transcripts, with ids, timestamps and paths masked,
//! must be equal except for the differences listed in `DELIBERATE` (README, "RPC dialects").
//! Needs node ≥ 22.19 and pi 1.6 (`.ci/run` installs both); skips with a printed reason
//! elsewhere.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Stdio;

use rho_testkit::openai_chat::ChatStream;
use rho_testkit::{pi16, MockResponse, MockServer};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};

/// Differences the comparison accepts: (step, or `*` for any; text the difference contains;
/// why). Each is listed in the README's "RPC dialects" section.
const KNOWN: &[(&str, &str, &str)] = &[
    // Deliberate.
    (
        "compact",
        ".data.estimatedTokensAfter:",
        "a heuristic over each agent's own system prompt and tools",
    ),
];

fn reply(text: &str) -> MockResponse {
    ChatStream::new("chatcmpl-1", "loop-model")
        .role()
        .text(text)
        .finish("stop")
        .usage(20, 5, None)
        .done()
        .response()
}

/// A bash tool call of `command`.
fn bash_call(command: &str) -> MockResponse {
    ChatStream::new("chatcmpl-t", "loop-model")
        .role()
        .tool_call_start(0, "call_wait", "bash")
        .tool_args(0, &json!({ "command": command }).to_string())
        .finish("tool_calls")
        .usage(20, 5, None)
        .done()
        .response()
}

/// What one agent under test is: the cliPath RpcClient runs with node, extra arguments and
/// environment.
struct Agent {
    cli: PathBuf,
    args: Vec<String>,
    env: Vec<(&'static str, String)>,
}

/// Runs the script against `agent` with a fresh home and loopback server; the transcript.
async fn transcript(node: &Path, agent: Agent) -> Value {
    let server = MockServer::start().await;
    let home = tempfile::tempdir().expect("home");
    let agent_dir = home.path().join("agent");
    let work = home.path().join("work");
    std::fs::create_dir_all(&agent_dir).expect("agent dir");
    std::fs::create_dir_all(&work).expect("work dir");
    let model = |id: &str, reasoning: bool| json!({"id": id, "name": id, "reasoning": reasoning, "contextWindow": 128000, "maxTokens": 4096});
    let models = json!({"providers": {"loop": {
        "baseUrl": format!("{}/v1", server.url()), "api": "openai-completions",
        "apiKey": "loopback-key",
        "models": [model("loop-model", false), model("loop-think", true)]}}});
    std::fs::write(agent_dir.join("models.json"), models.to_string()).expect("models");
    let settings = json!({"compaction": {"keepRecentTokens": 1}, "quietStartup": true});
    std::fs::write(agent_dir.join("settings.json"), settings.to_string()).expect("settings");

    server.push(reply("hi there"));
    server.push(bash_call(
        "while [ ! -e release ]; do sleep 0.05; done; echo released",
    ));
    server.push(reply("steered"));
    server.push(reply("followed"));
    server.push(bash_call("while [ ! -e never ]; do sleep 0.05; done"));
    for _ in 0..3 {
        server.push(reply("summary of the talk"));
    }

    let pkg = pi16::pi16().expect("checked").1;
    let pkg = pkg.parent().and_then(Path::parent).expect("package dir");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rpc_client/drive.mjs");
    let mut args = agent.args;
    args.extend([
        "--session-dir".into(),
        home.path().join("sessions").to_string_lossy().into_owned(),
    ]);
    let node_dir = node.parent().expect("node dir");
    let path = format!(
        "{}:{}",
        node_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = tokio::process::Command::new(node);
    cmd.arg(&script)
        .env_clear()
        .env("PATH", path)
        .env("HOME", home.path())
        .env("TMPDIR", home.path())
        .env("PI_CODING_AGENT_DIR", &agent_dir)
        .env("RHO_CODING_AGENT_DIR", &agent_dir)
        .env("PI_OFFLINE", "1")
        .env("PI16_PKG", pkg)
        .env("DRIVE_CLI", &agent.cli)
        .env("DRIVE_CWD", &work)
        .env("DRIVE_ARGS", serde_json::to_string(&args).expect("args"))
        .env("DRIVE_EXPORT", home.path().join("export.html"))
        .envs(agent.env)
        .current_dir(&work)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    let mut child = cmd.spawn().expect("node starts");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut result = None;
    while let Some(line) = lines.next_line().await.expect("script output") {
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line}: {e}"));
        if let Some(t) = v.get("transcript") {
            result = Some(t.clone());
        }
    }
    let status = child.wait().await.expect("script ends");
    assert!(status.success(), "the script failed: {status}");
    let home_text = home.path().to_string_lossy().into_owned();
    let mut t = result.expect("a transcript");
    mask(&mut t, None, &home_text);
    mask_system_texts(&mut t);
    t
}

/// Reduces pi 1.x's `system` messages (in messages, entries, tree nodes and compaction
/// checkpoints) to their shape: which sections they set (a section's text is each agent's
/// own prompt, `null` removals kept) and the names of the tools they add or remove (the
/// declarations are each agent's own tools); and folds runs of `message_update` into one,
/// since how finely updates are cut depends on the stream's chunks.
fn mask_system_texts(v: &mut Value) {
    match v {
        Value::Object(map) => {
            if map.get("role").and_then(Value::as_str) == Some("system") {
                if let Some(Value::Object(sections)) = map.get_mut("sections") {
                    for text in sections.values_mut().filter(|t| t.is_string()) {
                        *text = json!("<section>");
                    }
                }
                for key in ["toolsAdded", "toolsRemoved"] {
                    if let Some(Value::Array(tools)) = map.get_mut(key) {
                        for tool in tools.iter_mut() {
                            *tool = json!({"name": tool["name"]});
                        }
                    }
                }
            }
            map.values_mut().for_each(mask_system_texts);
        }
        Value::Array(items) => {
            items.dedup_by(|b, a| {
                a.as_str().is_some_and(|s| s.starts_with("message_update")) && a == b
            });
            items.iter_mut().for_each(mask_system_texts);
        }
        _ => {}
    }
}

/// Masks what differs between any two runs: ids, timestamps, the home directory, durations
/// (their presence is compared, not their value).
fn mask(v: &mut Value, key: Option<&str>, home: &str) {
    const IDS: &[&str] = &[
        "id",
        "parentId",
        "leafId",
        "entryId",
        "sessionId",
        "targetId",
        "firstKeptEntryId",
        "fromId",
        "toolCallId",
        "responseId",
        "parentSession",
    ];
    const TIMES: &[&str] = &["timestamp", "labelTimestamp"];
    match v {
        Value::Object(map) => {
            // pi 1.6 leaves a reply untimed when the provider's `timestamp` was taken in an
            // earlier millisecond than the stream's start (pi-ai `event-stream.js`), which
            // varies run to run; rho always times it. Neither side's `durationMs` is compared.
            map.remove("durationMs");
            for (k, child) in map.iter_mut() {
                mask(child, Some(k), home);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|c| mask(c, key, home)),
        Value::String(s) if key.is_some_and(|k| IDS.contains(&k)) => *s = "<id>".into(),
        Value::String(_) | Value::Number(_) if key.is_some_and(|k| TIMES.contains(&k)) => {
            *v = json!("<time>")
        }
        Value::String(s) if key == Some("baseUrl") => *s = "<server>".into(),
        Value::String(s) if s.contains(home) => {
            let masked = s.replace(home, "<home>");
            *s = match masked.strip_prefix("<home>/sessions/") {
                Some(_) => "<session file>".into(),
                None => masked,
            };
        }
        _ => {}
    }
}

/// Every path where `a` (rho) and `b` (pi) differ. Event lists are compared without
/// `agent_settled`; a different count of it is one difference of its own.
fn differences(path: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    if path == ".events" {
        let settled = |v: &Value| {
            v.as_array()
                .map_or(0, |e| e.iter().filter(|t| *t == "agent_settled").count())
        };
        let rest = |v: &Value| {
            json!(v.as_array().map(|e| e
                .iter()
                .filter(|t| *t != "agent_settled")
                .cloned()
                .collect::<Vec<_>>()))
        };
        if settled(a) != settled(b) {
            out.push(format!(
                "{path}.agent_settled: rho {} / pi {}",
                settled(a),
                settled(b)
            ));
        }
        if rest(a) != rest(b) {
            out.push(format!("{path}: rho {} / pi {}", rest(a), rest(b)));
        }
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let p = format!("{path}.{k}");
                match (x.get(k), y.get(k)) {
                    (Some(l), Some(r)) => differences(&p, l, r, out),
                    (l, r) => out.push(format!("{p}: rho {l:?} / pi {r:?}")),
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (l, r)) in x.iter().zip(y).enumerate() {
                differences(&format!("{path}[{i}]"), l, r, out);
            }
        }
        _ if a != b => out.push(format!("{path}: rho {a} / pi {b}")),
        _ => {}
    }
}

#[tokio::test]
async fn pi16_rpc_client_sees_the_same_conversation_from_rho_and_pi() {
    let (node, pi_cli) = match pi16::pi16() {
        Ok(found) => found,
        Err(why) => {
            eprintln!("skipping pi16_rpc_client_sees_the_same_conversation_from_rho_and_pi: {why}");
            return;
        }
    };
    let shim = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rpc_client/exec_shim.mjs");
    let rho = transcript(
        &node,
        Agent {
            cli: shim,
            args: vec!["--rpc-dialect".into(), "1.x".into()],
            env: vec![("RHO_SHIM_BIN", env!("CARGO_BIN_EXE_rho").into())],
        },
    )
    .await;
    let pi = transcript(
        &node,
        Agent {
            cli: pi_cli,
            args: Vec::new(),
            env: Vec::new(),
        },
    )
    .await;
    if let Ok(dir) = std::env::var("RHO_RPC_CLIENT_DUMP") {
        std::fs::write(
            format!("{dir}/rho.json"),
            serde_json::to_string_pretty(&rho).unwrap(),
        )
        .unwrap();
        std::fs::write(
            format!("{dir}/pi.json"),
            serde_json::to_string_pretty(&pi).unwrap(),
        )
        .unwrap();
    }
    let (rho_steps, pi_steps) = (
        rho.as_array().expect("steps"),
        pi.as_array().expect("steps"),
    );
    assert_eq!(rho_steps.len(), pi_steps.len(), "the same steps ran");
    let mut unexplained = Vec::new();
    for (ours, theirs) in rho_steps.iter().zip(pi_steps) {
        let step = theirs["step"].as_str().expect("step name");
        let mut found = Vec::new();
        differences("", ours, theirs, &mut found);
        for d in found {
            let known = KNOWN
                .iter()
                .any(|(s, text, _)| (*s == "*" || *s == step) && d.contains(text));
            if !known {
                unexplained.push(format!("{step}: {d}"));
            }
        }
    }
    assert!(
        unexplained.is_empty(),
        "rho answers pi 1.6's RpcClient differently:\n{}",
        unexplained.join("\n")
    );
}
