//! User shell commands through AgentSession (`!cmd`): a real shell process (BASH-1, 2, 8, 9).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::session_common as common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use rho_core::agent_session::{AgentSession, BashOptions};
use rho_testkit::scripted::ScriptedProvider;
use serde_json::json;

fn session_in(dir: &std::path::Path, settings: serde_json::Value) -> AgentSession {
    let provider = ScriptedProvider::new();
    let mut c = config(&provider);
    c.cwd = dir.to_path_buf();
    c.settings = fast_settings(settings);
    AgentSession::new(c)
}

#[tokio::test]
async fn bash_1_prefix_runs_first_and_the_original_command_is_recorded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = session_in(dir.path(), json!({"shellCommandPrefix": "export X=1"}));
    let m = s
        .execute_bash("echo $X; pwd", BashOptions::default())
        .await
        .expect("runs");
    assert_eq!(m.command, "echo $X; pwd");
    let canonical = std::fs::canonicalize(dir.path()).expect("canonical");
    assert_eq!(m.output, format!("1\n{}\n", canonical.display()));
    assert_eq!(m.exit_code, Some(0));
    assert_eq!(
        s.messages().last().map(|m| m.role()),
        Some("bashExecution"),
        "BASH-4: idle → state at once"
    );
}

#[tokio::test]
async fn bash_2_long_output_is_truncated_with_the_full_output_saved() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = session_in(dir.path(), json!({}));
    let m = s
        .execute_bash(
            "for i in $(seq 1 3000); do echo line$i; done; printf '\\033[31mred\\033[0m\\r\\n'",
            BashOptions::default(),
        )
        .await
        .expect("runs");
    assert!(m.truncated);
    assert!(
        m.output.ends_with("line3000\nred\n"),
        "tail kept, ANSI and CR removed"
    );
    let full = std::fs::read_to_string(m.full_output_path.expect("saved")).expect("file");
    assert!(full.contains("line1\n") && full.contains("line3000\n"));
}

#[tokio::test]
async fn bash_8_abort_bash_cancels_a_running_command() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = session_in(dir.path(), json!({}));
    let run = {
        let s = s.clone();
        tokio::spawn(async move { s.execute_bash("sleep 10", BashOptions::default()).await })
    };
    tokio::time::timeout(Duration::from_secs(5), async {
        while !s.is_bash_running() {
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("started");
    s.abort_bash();
    let m = tokio::time::timeout(Duration::from_secs(2), run)
        .await
        .expect("stops")
        .expect("join")
        .expect("recorded");
    assert!(m.cancelled);
    assert_eq!(m.exit_code, None);
    let llm = rho_agent::AgentMessage::BashExecution(m)
        .to_llm()
        .expect("in context");
    let rho_ai::Message::User(u) = llm else {
        panic!("user text")
    };
    assert!(u.content.text().contains("(command cancelled)"));
}

#[tokio::test]
async fn bash_9_user_bash_handler_supplies_the_result() {
    let dir = tempfile::tempdir().expect("tempdir");
    let provider = ScriptedProvider::new();
    let mut c = config(&provider);
    c.cwd = dir.path().to_path_buf();
    c.extensions = vec![extension_on("a", "user_bash", |_, _| {
        Ok(Some(
            json!({"result": {"output": "X", "exitCode": 0, "cancelled": false, "truncated": false}}),
        ))
    })];
    let s = AgentSession::new(c);
    let m = s
        .execute_bash(
            "touch should-not-exist",
            BashOptions {
                exclude_from_context: true,
                ..Default::default()
            },
        )
        .await
        .expect("supplied");
    assert_eq!(m.output, "X");
    assert!(
        !dir.path().join("should-not-exist").exists(),
        "no process was spawned"
    );
    assert_eq!(m.exclude_from_context, Some(true));
}

#[tokio::test]
async fn bash_2_output_streams_to_on_output_while_the_command_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = session_in(dir.path(), json!({}));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let options = BashOptions {
        on_output: Some(Arc::new(move |chunk: &str| {
            let _ = tx.send(chunk.to_string());
        })),
        ..Default::default()
    };
    // The second line is printed only once the test has seen the first one live.
    let command =
        "echo one; while [ ! -e go ]; do sleep 0.02; done; printf '\\033[1mtwo\\033[0m\\n'";
    let run = {
        let s = s.clone();
        tokio::spawn(async move { s.execute_bash(command, options).await })
    };
    let first = tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .expect("the first line arrives while the command runs")
        .expect("sender alive");
    assert_eq!(first, "one\n");
    assert!(s.is_bash_running());
    std::fs::write(dir.path().join("go"), "").expect("release the command");
    let m = tokio::time::timeout(Duration::from_secs(5), run)
        .await
        .expect("finishes")
        .expect("join")
        .expect("runs");
    let mut rest = String::new();
    while let Ok(chunk) = rx.try_recv() {
        rest.push_str(&chunk);
    }
    assert_eq!(rest, "two\n", "the second line, sanitised, after the first");
    assert_eq!(m.output, "one\ntwo\n");
}

#[tokio::test]
async fn a_command_running_across_a_session_switch_is_stopped_and_not_recorded_in_the_new_one() {
    let provider = ScriptedProvider::new();
    let s = session(&provider);
    let running = {
        let s = s.clone();
        tokio::spawn(async move {
            s.execute_bash("sleep 5; echo late", BashOptions::default())
                .await
        })
    };
    while !s.is_bash_running() {
        tokio::task::yield_now().await;
    }
    let cancelled = s.new_session(None).await;
    assert!(!cancelled);
    let result = running.await.expect("task").expect("bash ran");
    assert!(result.cancelled, "the switch stopped the command");
    assert!(
        s.messages().is_empty(),
        "nothing leaked into the new session"
    );
}
