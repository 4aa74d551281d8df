//! Resuming pi-format session files (`--continue`, `--session`, `--fork`) and the model
//! flags (`--list-models`, `--model`, `--thinking`) of the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{chat_messages, read_jsonl, reply, stderr, stdout, Sandbox};
use serde_json::json;

const SESSION_ID: &str = "0195508c-6f10-7a22-9d3e-2c51a0b4e901";

/// Writes a pi session (as pi 0.73.1 writes it) with one exchange into the project's
/// session directory and returns its path.
fn write_pi_session(sb: &Sandbox) -> std::path::PathBuf {
    let dir = sb.session_dir();
    std::fs::create_dir_all(&dir).expect("session dir");
    let path = dir.join(format!("2025-03-01T09-15-00-120Z_{SESSION_ID}.jsonl"));
    let cwd = sb.cwd.to_string_lossy();
    let lines = [
        json!({"type":"session","version":3,"id":SESSION_ID,"timestamp":"2025-03-01T09:15:00.120Z","cwd":cwd}),
        json!({"type":"model_change","id":"a0000001","parentId":null,"timestamp":"2025-03-01T09:15:00.200Z","provider":"mock","modelId":"mock-model"}),
        json!({"type":"thinking_level_change","id":"a0000002","parentId":"a0000001","timestamp":"2025-03-01T09:15:00.201Z","thinkingLevel":"off"}),
        json!({"type":"message","id":"a0000003","parentId":"a0000002","timestamp":"2025-03-01T09:15:02.481Z","message":{"role":"user","content":[{"type":"text","text":"Remember the word kiwi"}],"timestamp":1740820502481_i64}}),
        json!({"type":"message","id":"a0000004","parentId":"a0000003","timestamp":"2025-03-01T09:15:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Noted: kiwi."}],"api":"openai-completions","provider":"mock","model":"mock-model","usage":{"input":10,"output":3,"cacheRead":0,"cacheWrite":0,"totalTokens":13,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1740820503900_i64}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).expect("write session");
    path
}

fn texts(body: &serde_json::Value) -> Vec<(String, String)> {
    chat_messages(body)
        .into_iter()
        .filter(|(role, _)| role != "system")
        .collect()
}

fn history() -> Vec<(String, String)> {
    vec![
        ("user".into(), "Remember the word kiwi".into()),
        ("assistant".into(), "Noted: kiwi.".into()),
        ("user".into(), "Which word?".into()),
    ]
}

#[tokio::test]
async fn continue_resumes_the_newest_session_and_sends_its_messages() {
    let sb = Sandbox::new().await;
    let path = write_pi_session(&sb);
    sb.server.push(reply("kiwi"));
    let out = sb.rho(&["-c", "-p", "Which word?"], None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "kiwi\n");
    assert_eq!(texts(&sb.server.last_body()), history());
    // The same file grew by the new exchange; no other file was made.
    assert_eq!(sb.session_files(), std::slice::from_ref(&path));
    let lines = read_jsonl(&path);
    // A session from before system messages gets its first one with the first prompt, as
    // pi 1.x does (D18).
    assert_eq!(lines.len(), 8);
    assert_eq!(lines[5]["parentId"], "a0000004");
    assert_eq!(lines[5]["message"]["role"], "system");
    assert_eq!(lines[7]["message"]["content"][0]["text"], "kiwi");
}

#[tokio::test]
async fn session_by_path_and_by_id_prefix() {
    let sb = Sandbox::new().await;
    let path = write_pi_session(&sb);
    sb.server.push(reply("kiwi"));
    let arg = path.to_string_lossy().to_string();
    let out = sb
        .rho(&["--session", &arg, "-p", "Which word?"], None)
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(texts(&sb.server.last_body()), history());

    sb.server.push(reply("still kiwi"));
    let out = sb
        .rho(&["--session", "0195508c", "-p", "Again?"], None)
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let sent = texts(&sb.server.last_body());
    assert_eq!(sent.len(), 5, "{sent:?}");
    assert_eq!(sent[4].1, "Again?");

    let out = sb.rho(&["--session", "ffffffff", "-p", "x"], None).await;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim(),
        "Error: No session found matching 'ffffffff'"
    );
}

#[tokio::test]
async fn fork_copies_into_a_new_session_and_refuses_conflicts() {
    let sb = Sandbox::new().await;
    let path = write_pi_session(&sb);
    let out = sb.rho(&["--fork", "0195508c", "-c", "-p", "x"], None).await;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim(),
        "Error: --fork cannot be combined with --continue"
    );

    sb.server.push(reply("kiwi"));
    let out = sb
        .rho(&["--fork", "0195508c", "-p", "Which word?"], None)
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(texts(&sb.server.last_body()), history());
    let files = sb.session_files();
    assert_eq!(files.len(), 2, "{files:?}");
    let fork = files.iter().find(|p| **p != path).expect("fork file");
    let header = &read_jsonl(fork)[0];
    assert_eq!(header["parentSession"], path.to_string_lossy().as_ref());
    assert_ne!(header["id"], SESSION_ID);
    // The source is untouched.
    assert_eq!(read_jsonl(&path).len(), 5);
}

#[tokio::test]
async fn session_dir_flag_and_no_session() {
    let sb = Sandbox::new().await;
    let flat = tempfile::tempdir().expect("dir");
    sb.server.push(reply("one"));
    let dir = flat.path().to_string_lossy().to_string();
    let out = sb.rho(&["--session-dir", &dir, "-p", "a"], None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(std::fs::read_dir(flat.path()).expect("dir").count(), 1);
    assert!(sb.session_files().is_empty());

    sb.server.push(reply("two"));
    let out = sb.rho(&["--no-session", "-p", "b"], None).await;
    assert_eq!(out.status.code(), Some(0));
    assert!(sb.session_files().is_empty());
}

#[tokio::test]
async fn list_models_shows_only_authenticated_models() {
    let sb = Sandbox::new().await;
    let out = sb.rho(&["--list-models"], None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "provider  model        context  max-out  thinking  images\n\
         mock      mock-model   32K      16.4K    no        no    \n\
         mock      mock-vision  128K     16.4K    no        yes   \n"
    );
    let out = sb.rho(&["--list-models", "vision"], None).await;
    assert_eq!(stdout(&out).lines().count(), 2);
    let out = sb.rho(&["--list-models", "nothing-like-this"], None).await;
    assert_eq!(stdout(&out), "No models matching \"nothing-like-this\"\n");
}

#[tokio::test]
async fn model_flags_select_and_validate() {
    let sb = Sandbox::new().await;
    sb.server.push(reply("ok"));
    let out = sb
        .rho(
            &["--model", "mock-vision", "--thinking", "bogus", "-p", "x"],
            None,
        )
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(sb.server.last_body()["model"], "mock-vision");
    assert!(stderr(&out).contains("Warning: Invalid thinking level \"bogus\""));

    let out = sb
        .rho(&["--provider", "nope", "--model", "x", "-p", "x"], None)
        .await;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim(),
        "Error: Unknown provider \"nope\". Use --list-models to see available providers/models."
    );
    let out = sb.rho(&["--api-key", "k", "-p", "x"], None).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--api-key requires a model"));
}

#[tokio::test]
async fn api_key_flag_authenticates_a_provider_without_other_credentials() {
    let sb = Sandbox::new().await;
    sb.write_models(&json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", sb.server.url()),
        "api": "openai-completions",
        "apiKey": "$MOCK_KEY_UNSET_ENV",
        "models": [{"id": "mock-model"}]
    }}}));
    sb.server.push(reply("ok"));
    let out = sb
        .rho(
            &[
                "--model",
                "mock/mock-model",
                "--api-key",
                "cli-key",
                "-p",
                "x",
            ],
            None,
        )
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(
        sb.server.requests()[0].header("authorization"),
        Some("Bearer cli-key")
    );
    assert!(!stderr(&out).contains("cli-key"), "keys are never echoed");
}

/// A pi 1.x models.json: `$NAME` and `${NAME}` read the environment (also inside a header
/// value), a bare name is the key itself, `!command` runs; an unset variable stops the
/// request with pi's error naming it.
#[tokio::test]
async fn models_json_api_key_forms_of_pi_1x() {
    let sb = Sandbox::new().await;
    let cases = [
        ("${MY_KEY}", "Bearer from-env"),
        ("$MY_KEY", "Bearer from-env"),
        ("MY_KEY", "Bearer MY_KEY"),
        ("!printf cmd-key", "Bearer cmd-key"),
    ];
    for (api_key, expected) in cases {
        sb.write_models(&json!({"providers": {"mock": {
            "baseUrl": format!("{}/v1", sb.server.url()),
            "api": "openai-completions",
            "apiKey": api_key,
            "headers": {"x-team": "team-${TEAM}"},
            "models": [{"id": "mock-model"}]
        }}}));
        sb.server.push(reply("ok"));
        let out = sb
            .command(&["--model", "mock/mock-model", "--no-session", "-p", "x"])
            .env("MY_KEY", "from-env")
            .env("TEAM", "platform")
            .output()
            .await
            .expect("rho runs");
        assert_eq!(out.status.code(), Some(0), "{api_key}: {}", stderr(&out));
        let request = sb.server.requests().pop().expect("a request");
        assert_eq!(request.header("authorization"), Some(expected), "{api_key}");
        assert_eq!(request.header("x-team"), Some("team-platform"));
    }
    sb.write_models(&json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", sb.server.url()),
        "api": "openai-completions",
        "apiKey": "${NOT_SET_ANYWHERE}",
        "models": [{"id": "mock-model"}]
    }}}));
    let before = sb.server.requests().len();
    let out = sb
        .rho(
            &["--model", "mock/mock-model", "--no-session", "-p", "x"],
            None,
        )
        .await;
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains(
            "Failed to resolve API key for provider \"mock\" from environment variable: NOT_SET_ANYWHERE"
        ),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        sb.server.requests().len(),
        before,
        "no request without a key"
    );
}

#[tokio::test]
async fn settings_default_model_applies_to_new_sessions_but_not_to_resumed_ones() {
    let sb = Sandbox::new().await;
    std::fs::write(
        sb.agent.path().join("settings.json"),
        r#"{"defaultProvider": "mock", "defaultModel": "mock-vision"}"#,
    )
    .expect("settings");
    sb.server.push(reply("new"));
    let out = sb.rho(&["--no-session", "-p", "x"], None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(sb.server.last_body()["model"], "mock-vision");

    write_pi_session(&sb);
    sb.server.push(reply("resumed"));
    let out = sb.rho(&["-c", "-p", "Which word?"], None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(sb.server.last_body()["model"], "mock-model");
}

#[tokio::test]
async fn thinking_level_reaches_the_request_and_the_session() {
    let sb = Sandbox::new().await;
    sb.write_models(&json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", sb.server.url()),
        "api": "openai-completions",
        "apiKey": "test-key",
        "models": [{"id": "thinker", "reasoning": true}]
    }}}));
    sb.server.push(reply("deep"));
    let out = sb.rho(&["--model", "thinker:low", "-p", "x"], None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(sb.server.last_body()["reasoning_effort"], "low");
    let lines = read_jsonl(&sb.session_files()[0]);
    assert_eq!(lines[2]["type"], "thinking_level_change");
    assert_eq!(lines[2]["thinkingLevel"], "low");

    // `--thinking` beats the suffix; xhigh is not supported and clamps down to high.
    sb.server.push(reply("deeper"));
    let out = sb
        .rho(
            &[
                "--model",
                "thinker:low",
                "--thinking",
                "xhigh",
                "--no-session",
                "-p",
                "x",
            ],
            None,
        )
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(sb.server.last_body()["reasoning_effort"], "high");
}

#[tokio::test]
async fn resumed_session_runs_in_its_stored_cwd_which_must_exist() {
    let sb = Sandbox::new().await;
    let path = write_pi_session(&sb);
    let text = std::fs::read_to_string(&path).expect("read");
    let gone = text.replace(&*sb.cwd.to_string_lossy(), "/nonexistent/rho-test-dir");
    std::fs::write(&path, gone).expect("write");
    let arg = path.to_string_lossy().to_string();
    let out = sb.rho(&["--session", &arg, "-p", "x"], None).await;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim(),
        "Error: Stored session working directory does not exist: /nonexistent/rho-test-dir"
    );
    assert!(sb.server.requests().is_empty());
}

#[tokio::test]
async fn export_writes_an_html_page_of_the_session() {
    let sb = Sandbox::new().await;
    let path = write_pi_session(&sb);
    let arg = path.to_string_lossy().to_string();
    let out = sb.rho(&["--export", &arg, "chat.html"], None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let target = sb.cwd.join("chat.html");
    assert_eq!(stdout(&out), format!("Exported to: {}\n", target.display()));
    let html = std::fs::read_to_string(&target).expect("html");
    assert!(html.starts_with("<!DOCTYPE html>"));
    let user = html.find("Remember the word kiwi").expect("user text");
    let reply = html.find("Noted: kiwi.").expect("assistant text");
    assert!(user < reply);
    assert!(
        html.contains("<div class=\"meta\">mock/mock-model"),
        "the reply names its model"
    );

    let out = sb.rho(&["--export", &arg], None).await;
    assert_eq!(out.status.code(), Some(0));
    let default = sb.cwd.join(format!(
        "rho-session-2025-03-01T09-15-00-120Z_{SESSION_ID}.html"
    ));
    assert!(default.is_file(), "{}", stdout(&out));

    let out = sb.rho(&["--export", "missing.jsonl"], None).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("Error: cannot read"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test]
async fn models_scope_and_session_path_for_a_new_file() {
    let sb = Sandbox::new().await;
    sb.server.push(reply("scoped"));
    let out = sb
        .rho(
            &[
                "--models",
                "mock/*vision",
                "--session",
                "fresh.jsonl",
                "-p",
                "x",
            ],
            None,
        )
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(sb.server.last_body()["model"], "mock-vision");
    let lines = read_jsonl(&sb.cwd.join("fresh.jsonl"));
    assert_eq!(lines[0]["type"], "session");
    assert_eq!(lines[1]["modelId"], "mock-vision");
    assert!(sb.session_files().is_empty());
}
