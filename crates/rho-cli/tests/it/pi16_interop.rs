//! Sessions move between rho and pi 1.6.0 (issue 14): rho opens pi 1.6's fixture with the
//! messages pi shows, pi 1.6 opens and continues a session rho continued or wrote from
//! scratch, and rho opens pi's continuation again. The tests that run pi 1.6 need node ≥ 22.19
//! and pi 1.6 (`.ci/run` installs both; see `rho_testkit::pi16`) and skip with a printed
//! reason elsewhere.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::{Path, PathBuf};

use rho_testkit::json::assert_same_json;
use rho_testkit::openai_chat::ChatStream;
use rho_testkit::pi16;
use serde_json::{json, Value};
use support::{reply, Rpc, Start};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../rho-session/tests/fixtures")
        .join(name)
}

/// Copies pi 1.6's fixture into `home` with its header's cwd pointing at `cwd` (pi and rho
/// both refuse a session whose working directory is gone); every other line is pi's.
fn copy_fixture(home: &Path, cwd: &Path) -> PathBuf {
    let text = std::fs::read_to_string(fixture("pi16_session.jsonl")).expect("fixture");
    let (header, rest) = text.split_once('\n').expect("header line");
    let mut header: Value = serde_json::from_str(header).expect("header json");
    header["cwd"] = json!(cwd.to_string_lossy());
    let path = home.join("pi16.jsonl");
    std::fs::write(&path, format!("{header}\n{rest}")).expect("copy");
    path
}

/// Starts rho in RPC mode (pi 1.x's dialect) on the session file `path`.
async fn rho_on(path: &Path, home: Option<tempfile::TempDir>) -> Rpc {
    Rpc::start_with(Start {
        with_sessions: true,
        args: vec![
            "--session".into(),
            path.to_string_lossy().into_owned(),
            "--rpc-dialect".into(),
            "1.x".into(),
        ],
        home,
        ..Start::default()
    })
    .await
}

async fn messages(rpc: &mut Rpc, id: &str) -> Value {
    let r = rpc.call(json!({"id": id, "type": "get_messages"})).await;
    assert_eq!(r["success"], true, "{r}");
    r["data"]["messages"].clone()
}

/// A reply that runs `echo <word>` with bash, for a tool call and its result in the file.
fn bash_call(word: &str) -> rho_testkit::MockResponse {
    ChatStream::new("chatcmpl-t", "m1")
        .role()
        .tool_call_start(0, "call_echo", "bash")
        .tool_args(0, &json!({"command": format!("echo {word}")}).to_string())
        .finish("tool_calls")
        .usage(20, 5, None)
        .done()
        .response()
}

/// Skips (with the reason on stderr) when pi 1.6 cannot run here.
fn pi16_or_skip(test: &str) -> bool {
    match pi16::pi16() {
        Ok(_) => true,
        Err(why) => {
            eprintln!("skipping {test}: {why}");
            false
        }
    }
}

/// pi 1.6 opens `path` (in rho's agent dir, which is pi's format) and shows `expected` as its
/// messages; then it continues the session with one more exchange against `rpc`'s server and
/// returns the messages it shows after that.
async fn pi_opens_and_continues(rpc: &Rpc, path: &Path, expected: &Value) -> Value {
    let session = path.to_string_lossy().into_owned();
    let mut pi = pi16::Pi::start(rpc.home.path(), &rpc.work_dir(), &["--session", &session])
        .expect("pi 1.6 starts");
    let shown = pi.call(json!({"type": "get_messages"})).await;
    assert_same_json(
        &shown["data"]["messages"],
        expected,
        "pi 1.6 shows what rho showed",
    );
    rpc.server.push(reply("pi continued"));
    pi.prompt("continue in pi").await;
    let after = pi.call(json!({"type": "get_messages"})).await;
    pi.stop().await;
    let after = after["data"]["messages"].clone();
    let texts = serde_json::to_string(&after).expect("json");
    assert!(
        texts.contains("continue in pi") && texts.contains("pi continued"),
        "{after:#}"
    );
    // pi 1.6 reads rho's system messages as its own: it records only what its prompt and
    // tools change against their replay, before its prompt.
    let roles: Vec<&str> = after
        .as_array()
        .map(|m| m.iter().filter_map(|m| m["role"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        roles[roles.len() - 3..],
        ["system", "user", "assistant"],
        "{after:#}"
    );
    let patch = &after[roles.len() - 3];
    assert!(patch["sections"]["preamble"].is_string(), "{patch}");
    assert!(
        patch["sections"].get("cwd").is_none(),
        "the same cwd section: {patch}"
    );
    after
}

/// rho's `get_messages` for pi 1.6's fixture equals what pi 1.6 itself answered for it (in
/// pi 0.73.1's dialect without the `system` messages, a role 0.73.1 does not have, D18), and
/// opening the file changes no byte.
#[tokio::test]
async fn get_messages_of_a_pi16_session_equals_pi16s() {
    let pis: Value = serde_json::from_str(&support::read(&fixture("pi16_session.messages.json")))
        .expect("saved answer");
    for dialect in ["1.x", "0.73"] {
        let home = tempfile::tempdir().expect("home");
        let path = copy_fixture(home.path(), &home.path().join("work"));
        let before = std::fs::read(&path).expect("copy");
        let mut rpc = Rpc::start_with(Start {
            with_sessions: true,
            args: [
                "--session",
                &path.to_string_lossy(),
                "--rpc-dialect",
                dialect,
            ]
            .map(String::from)
            .to_vec(),
            home: Some(home),
            ..Start::default()
        })
        .await;
        let ours = messages(&mut rpc, "m").await;
        let mut expected = pis.clone();
        if dialect == "0.73" {
            if let Some(list) = expected.as_array_mut() {
                list.retain(|m| m["role"] != "system");
            }
        }
        let what = format!("rho's get_messages ({dialect} dialect) differs from pi 1.6's");
        assert_same_json(&ours, &expected, &what);
        rpc.close_stdin();
        rpc.child.wait().await.expect("rho exits");
        assert_eq!(
            std::fs::read(&path).expect("file"),
            before,
            "nothing rewritten ({dialect})"
        );
    }
}

/// rho continues pi 1.6's session (a tool call and a reply), keeping every byte pi wrote;
/// pi 1.6 opens the result with the same messages, continues it, and rho opens pi's
/// continuation with the messages pi shows.
#[tokio::test]
async fn pi16_opens_and_continues_a_pi16_session_rho_continued() {
    if !pi16_or_skip("pi16_opens_and_continues_a_pi16_session_rho_continued") {
        return;
    }
    let home = tempfile::tempdir().expect("home");
    let path = copy_fixture(home.path(), &home.path().join("work"));
    let before = std::fs::read(&path).expect("copy");
    let mut rpc = rho_on(&path, Some(home)).await;
    rpc.server.push(bash_call("from-rho"));
    rpc.server.push(reply("rho continued"));
    rpc.prompt_ok("p", "continue in rho").await;
    let ours = messages(&mut rpc, "m").await;
    rpc.close_stdin();
    rpc.child.wait().await.expect("rho exits");
    let after = std::fs::read(&path).expect("file");
    assert!(after.starts_with(&before), "pi's lines are kept as written");
    let roles: Vec<&str> = ours
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["role"].as_str())
        .collect();
    // pi's prompt and tools are not rho's: rho records what it changes before its prompt,
    // as pi 1.x records a change (D18).
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "system",
            "user",
            "assistant",
            "toolResult",
            "assistant"
        ]
    );
    let patch = &ours[3];
    assert_eq!(
        patch["sections"]["preamble"]
            .as_str()
            .map(|p| p.contains("rho")),
        Some(true)
    );
    assert!(
        patch["toolsRemoved"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{patch}"
    );
    assert!(
        patch["toolsAdded"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{patch}"
    );
    let pis = pi_opens_and_continues(&rpc, &path, &ours).await;
    let home = rpc.home;
    let mut again = rho_on(&path, Some(home)).await;
    assert_same_json(
        &messages(&mut again, "m2").await,
        &pis,
        "rho shows pi's continuation as pi does",
    );
    assert_eq!(again.close().await, Some(0));
}

/// A session rho wrote from scratch (name, tool call, thinking level) opens in pi 1.6 with
/// every message, pi continues it, and rho opens pi's continuation.
#[tokio::test]
async fn pi16_opens_and_continues_a_session_rho_wrote() {
    if !pi16_or_skip("pi16_opens_and_continues_a_session_rho_wrote") {
        return;
    }
    let mut rpc = Rpc::start_with(Start {
        with_sessions: true,
        args: vec!["--rpc-dialect".into(), "1.x".into()],
        ..Start::default()
    })
    .await;
    let named = rpc
        .call(json!({"id": "n", "type": "set_session_name", "name": "from rho"}))
        .await;
    assert_eq!(named["success"], true, "{named}");
    rpc.server.push(bash_call("hello"));
    rpc.server.push(reply("it said hello"));
    rpc.prompt_ok("p", "say hello with bash").await;
    let ours = messages(&mut rpc, "m").await;
    assert_eq!(ours.as_array().map(Vec::len), Some(5), "{ours:#}");
    assert_eq!(
        ours[0]["role"], "system",
        "rho records its prompt first (D18)"
    );
    let state = rpc.call(json!({"id": "s", "type": "get_state"})).await;
    let path = PathBuf::from(state["data"]["sessionFile"].as_str().expect("a file"));
    rpc.close_stdin();
    rpc.child.wait().await.expect("rho exits");
    let written = std::fs::read(&path).expect("file");
    let pis = pi_opens_and_continues(&rpc, &path, &ours).await;
    assert!(
        std::fs::read(&path).expect("file").starts_with(&written),
        "pi appends to rho's lines"
    );
    let home = rpc.home;
    let mut again = rho_on(&path, Some(home)).await;
    assert_same_json(
        &messages(&mut again, "m2").await,
        &pis,
        "rho shows pi's continuation as pi does",
    );
    let state = again.call(json!({"id": "s2", "type": "get_state"})).await;
    assert_eq!(state["data"]["sessionName"], "from rho", "{state}");
    assert_eq!(again.close().await, Some(0));
}
