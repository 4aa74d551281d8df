//! Flags and settings new in pi 1.x that matter to sessions (issue 14): `--name`, thinking
//! level `max`, pi 1.6's settings file with keys rho does not know (never an error) and its
//! `sessionDir`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{read_jsonl, reply, stderr, Sandbox};
use serde_json::json;

#[tokio::test]
async fn name_flag_names_the_new_session() {
    let sb = Sandbox::new().await;
    sb.server.push(reply("hello"));
    let out = sb
        .rho(&["--name", "  fixing auth ", "-p", "hi"], None)
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let files = sb.session_files();
    assert_eq!(files.len(), 1, "{files:?}");
    let names: Vec<_> = read_jsonl(&files[0])
        .into_iter()
        .filter(|e| e["type"] == "session_info")
        .map(|e| e["name"].clone())
        .collect();
    assert_eq!(names, [json!("fixing auth")]);
}

#[tokio::test]
async fn an_empty_name_is_refused_as_pi_does() {
    let sb = Sandbox::new().await;
    let out = sb.rho(&["-n", "   ", "-p", "hi"], None).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("--name requires a non-empty value"),
        "{}",
        stderr(&out)
    );
    assert!(sb.session_files().is_empty());
}

#[tokio::test]
async fn thinking_max_reaches_a_model_that_maps_it() {
    let sb = Sandbox::new().await;
    sb.write_models(&json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", sb.server.url()), "api": "openai-completions",
        "apiKey": "test-key",
        "models": [{"id": "deep", "reasoning": true,
                    "thinkingLevelMap": {"xhigh": "xhigh", "max": "max"}}]}}}));
    sb.server.push(reply("thought hard"));
    let out = sb
        .rho(
            &["--model", "mock/deep", "--thinking", "max", "-p", "hi"],
            None,
        )
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(sb.server.last_body()["reasoning_effort"], "max");
    let levels: Vec<_> = read_jsonl(&sb.session_files()[0])
        .into_iter()
        .filter(|e| e["type"] == "thinking_level_change")
        .map(|e| e["thinkingLevel"].clone())
        .collect();
    assert_eq!(levels, [json!("max")]);
}

#[tokio::test]
async fn pi16_settings_with_unknown_keys_work_and_session_dir_applies() {
    let sb = Sandbox::new().await;
    let settings = json!({
        "sessionDir": "my-sessions",
        "defaultThinkingLevel": "max",
        "sessionShareDestination": "auto",
        "tuiMode": "regular",
        "warnings": {"anthropicExtraUsage": false},
        "extensions": ["-builtin:mcp"],
        "someFutureKey": {"nested": [1, 2, 3]},
    });
    std::fs::write(sb.agent.path().join("settings.json"), settings.to_string()).expect("settings");
    sb.server.push(reply("fine"));
    let out = sb.rho(&["-p", "hi"], None).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let dir = sb.cwd.join("my-sessions");
    let files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .collect();
    assert_eq!(files.len(), 1, "the session is in sessionDir");
}

/// `--exclude-tools` (pi 1.x, `-xt`) takes names and `*` patterns out of the tools the model
/// is offered.
#[tokio::test]
async fn exclude_tools_takes_names_and_patterns_out() {
    let sb = Sandbox::new().await;
    sb.server.push(reply("ok"));
    sb.server.push(reply("ok"));
    for argv in [
        &["--exclude-tools", "bash,wr*", "--no-session", "-p", "hi"][..],
        &[
            "-xt",
            "e*",
            "--tools",
            "read,edit,grep",
            "--no-session",
            "-p",
            "hi",
        ][..],
    ] {
        let out = sb.rho(argv, None).await;
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let offered: Vec<Vec<String>> = sb
        .server
        .requests()
        .iter()
        .map(|r| rho_testkit::json::tool_names(&r.json()))
        .collect();
    assert_eq!(offered, [vec!["read", "edit"], vec!["read", "grep"]]);
}

/// `--session-id` (pi 1.x): the first run creates a session with that id (and says so), the
/// next continues the same file.
#[tokio::test]
async fn session_id_creates_then_continues_that_session() {
    let sb = Sandbox::new().await;
    sb.server.push(reply("first answer"));
    sb.server.push(reply("second answer"));
    let out = sb
        .rho(&["--session-id", "task-42.a", "-p", "one"], None)
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "No project session found with id 'task-42.a'; creating a new session with that id."
        ),
        "{}",
        stderr(&out)
    );
    let out = sb
        .rho(&["--session-id", "task-42.a", "-p", "two"], None)
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("No project session"),
        "{}",
        stderr(&out)
    );
    let files = sb.session_files();
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0]
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    assert!(name.ends_with("_task-42.a.jsonl"), "{name}");
    let lines = read_jsonl(&files[0]);
    assert_eq!(lines[0]["id"], "task-42.a");
    let texts = serde_json::to_string(&lines).expect("json");
    assert!(texts.contains("first answer") && texts.contains("second answer"));
}

/// A malformed id, or one combined with another way of choosing the session, is refused with
/// pi 1.x's texts before anything is written.
#[tokio::test]
async fn session_id_refuses_bad_ids_and_conflicting_flags() {
    let sb = Sandbox::new().await;
    for (argv, text) in [
        (
            &["--session-id", "-x", "-p", "hi"][..],
            "Session id must be non-empty",
        ),
        (
            &["--session-id", "a b", "-p", "hi"][..],
            "Session id must be non-empty",
        ),
        (
            &["--session-id", "ok", "--continue", "-p", "hi"][..],
            "--session-id cannot be combined with --continue",
        ),
    ] {
        let out = sb.rho(argv, None).await;
        assert_eq!(out.status.code(), Some(1), "{argv:?}");
        assert!(stderr(&out).contains(text), "{argv:?}: {}", stderr(&out));
    }
    assert!(sb.session_files().is_empty());
}
