//! The debug log (`RHO_DEBUG_LOG`): a provider's error body too big for a session is cut in
//! the reply's `errorMessage` and kept whole in the log only; without the variable nothing
//! is written.

use crate::common;

use common::{read_jsonl, stderr, Sandbox};
use rho_testkit::MockResponse;

async fn run_with_log(sb: &Sandbox, log: Option<&std::path::Path>) {
    let settings = serde_json::json!({"retry": {"enabled": false}});
    std::fs::write(sb.agent.path().join("settings.json"), settings.to_string()).expect("settings");
    let mut cmd = sb.command(&["-p", "hi"]);
    if let Some(log) = log {
        cmd.env("RHO_DEBUG_LOG", log);
    }
    let out = cmd.output().await.expect("rho runs");
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
}

fn saved_error(sb: &Sandbox) -> String {
    let files = sb.session_files();
    assert_eq!(files.len(), 1, "{files:?}");
    let lines = read_jsonl(&files[0]);
    lines.last().expect("reply")["message"]["errorMessage"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn a_huge_error_body_is_whole_in_the_debug_log_and_cut_in_the_session() {
    let sb = Sandbox::new().await;
    let mut huge = "e".repeat(10 * 1024 * 1024);
    huge.push_str("THE END");
    sb.server.push(MockResponse::error(500, huge.clone()));
    let log = sb.agent.path().join("debug.log");
    run_with_log(&sb, Some(&log)).await;
    let error = saved_error(&sb);
    assert!(
        error.ends_with(&format!(
            "[error body cut: first 16384 bytes of {} kept]",
            huge.len()
        )),
        "{}",
        &error[error.len().saturating_sub(100)..]
    );
    assert!(!error.contains("THE END"));
    let logged = std::fs::read_to_string(&log).expect("the debug log was written");
    assert!(
        logged.starts_with("--- ") && logged.contains("HTTP 500 error body from http://127.0.0.1:"),
        "{}",
        &logged[..200.min(logged.len())]
    );
    assert!(logged.contains(&huge), "the whole body is in the log");
}

#[tokio::test]
async fn without_the_variable_nothing_is_logged() {
    let sb = Sandbox::new().await;
    sb.server
        .push(MockResponse::error(500, "e".repeat(100_000)));
    run_with_log(&sb, None).await;
    assert!(saved_error(&sb).contains("[error body cut: first 16384 bytes kept]"));
    let mut names: Vec<String> = std::fs::read_dir(sb.agent.path())
        .expect("agent dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["auth.json", "models.json", "sessions", "settings.json"],
        "no log file"
    );
}
