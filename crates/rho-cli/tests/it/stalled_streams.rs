//! pi's `retry.provider.timeoutMs` and `httpIdleTimeoutMs` settings end a stalled stream
//! (issue 17 #3): before, only a hard-coded 10-minute limit applied.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{stderr, Sandbox};
use rho_testkit::openai_chat::ChatStream;
use serde_json::json;

async fn stalled_run(settings: serde_json::Value) -> String {
    let sb = Sandbox::new().await;
    std::fs::write(sb.agent.path().join("settings.json"), settings.to_string()).expect("settings");
    sb.server.push(
        ChatStream::new("c1", "mock-model")
            .role()
            .text("partial")
            .response_then_hang(),
    );
    let out = sb.rho(&["-p", "--no-session", "hello"], None).await;
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
    stderr(&out)
}

#[tokio::test]
async fn retry_provider_timeout_ms_ends_a_stalled_stream() {
    let err =
        stalled_run(json!({"retry": {"enabled": false, "provider": {"timeoutMs": 400}}})).await;
    assert!(err.contains("Request timed out"), "{err}");
}

#[tokio::test]
async fn http_idle_timeout_ms_ends_a_stalled_stream() {
    let err = stalled_run(json!({"retry": {"enabled": false}, "httpIdleTimeoutMs": 400})).await;
    assert!(
        err.contains("Request timed out: no data from the provider for 400 ms"),
        "{err}"
    );
}
