//! Issue 17 defect 7: values a command cannot use are refused with an error naming them,
//! and nothing changes (thinking levels, images that are not base64, paths with a NUL byte).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::{json, Value};
use support::{read, reply, Rpc, Start};

/// `set_thinking_level` with a level pi does not name answers an error and keeps the level.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_thinking_levels_are_refused() {
    let mut rpc = Rpc::start_with(Start {
        args: vec!["--thinking".into(), "low".into()],
        ..Start::default()
    })
    .await;
    let r = rpc
        .call(json!({"id": "s", "type": "set_model", "provider": "mock", "modelId": "r1"}))
        .await;
    assert_eq!(r["success"], true, "{r}");
    // pi 1.6 keeps the (clamped) level across a model switch, so name one for the reasoning model.
    let r = rpc
        .call(json!({"id": "l", "type": "set_thinking_level", "level": "low"}))
        .await;
    assert_eq!(r["success"], true, "{r}");
    let before =
        rpc.call(json!({"id": "b", "type": "get_state"})).await["data"]["thinkingLevel"].clone();
    assert_eq!(before, "low", "the reasoning model thinks at the level set");
    for (i, level) in ["HIGH", "ultra", ""].iter().enumerate() {
        let r = rpc
            .call(json!({"id": i, "type": "set_thinking_level", "level": level}))
            .await;
        assert_eq!(r["success"], false, "{level:?}: {r}");
        assert_eq!(r["command"], "set_thinking_level");
        assert_eq!(
            r["error"],
            format!(
                "Invalid thinking level \"{level}\". Valid values: off, minimal, low, medium, high, xhigh, max"
            )
        );
    }
    let after = rpc.call(json!({"id": "a", "type": "get_state"})).await;
    assert_eq!(after["data"]["thinkingLevel"], before, "unchanged");
}

/// An image whose data is not base64 is refused by `prompt`, `steer` and `follow_up`
/// before anything runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn images_that_are_not_base64_are_refused() {
    let mut rpc = Rpc::start().await;
    let image = json!([{"type": "image", "data": "not base64!!", "mimeType": "image/png"}]);
    for kind in ["prompt", "steer", "follow_up"] {
        let r = rpc
            .call(json!({"id": kind, "type": kind, "message": "look", "images": image}))
            .await;
        assert_eq!(r["success"], false, "{kind}: {r}");
        assert_eq!(
            r["error"], "images[0].data is not base64: the image must be base64-encoded bytes",
            "{kind}"
        );
    }
    assert!(rpc.server.requests().is_empty(), "no request was sent");
    let ok = json!([{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}]);
    rpc.server.push(reply("seen"));
    let r = rpc
        .call(json!({"id": "p", "type": "prompt", "message": "look", "images": ok}))
        .await;
    assert_eq!(r["success"], true, "valid base64 is accepted: {r}");
    rpc.event("agent_end").await;
}

fn session_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in walk(dir) {
        if entry.extension().is_some_and(|e| e == "jsonl") {
            found.push(entry);
        }
    }
    found
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    read.flatten()
        .flat_map(|e| {
            let p = e.path();
            if p.is_dir() {
                walk(&p)
            } else {
                vec![p]
            }
        })
        .collect()
}

/// `switch_session` and `export_html` with a NUL byte in the path answer an error; the session
/// stays where it was and keeps saving.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paths_with_a_nul_byte_are_refused_and_the_session_keeps_saving() {
    let mut rpc = Rpc::start_with(Start {
        with_sessions: true,
        ..Start::default()
    })
    .await;
    rpc.server.push(reply("first answer"));
    rpc.prompt_ok("p1", "first question").await;
    let state = rpc.call(json!({"id": "s0", "type": "get_state"})).await;
    let file = state["data"]["sessionFile"]
        .as_str()
        .expect("file")
        .to_string();

    let r = rpc
        .call(json!({"id": "sw", "type": "switch_session", "sessionPath": "/tmp/a\u{0}b.jsonl"}))
        .await;
    assert_eq!(r["success"], false, "{r}");
    let error = r["error"].as_str().unwrap_or_default();
    assert!(error.contains("NUL"), "names the problem: {error}");
    let r = rpc
        .call(json!({"id": "ex", "type": "export_html", "outputPath": "out\u{0}.html"}))
        .await;
    assert_eq!(r["success"], false, "{r}");

    let state = rpc.call(json!({"id": "s1", "type": "get_state"})).await;
    assert_eq!(state["data"]["sessionFile"], Value::String(file.clone()));
    rpc.server.push(reply("second answer"));
    rpc.prompt_ok("p2", "second question").await;
    let text = read(std::path::Path::new(&file));
    assert!(text.contains("second answer"), "still saving: {text}");
    assert_eq!(session_files(&rpc.sessions_dir()).len(), 1);
}
