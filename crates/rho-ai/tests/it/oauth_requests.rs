//! What OAuth tokens change in a request, over HTTP against `MockServer`: a 401 makes the
//! call ask for a fresh token once and send again; a second 401 says to log in again; the
//! Codex endpoint gets the account id; a Copilot token's `proxy-ep` routes the request.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::anthropic;

use std::sync::{Arc, Mutex};

use anthropic::common::{a1_context, collect, model};
use base64::Engine;
use rho_ai::options::RequestHooks;
use rho_ai::{AssistantMessageEvent as E, StreamOptions};
use rho_testkit::anthropic as wire;
use rho_testkit::openai_responses::{usage, ResponsesStream};
use rho_testkit::{MockResponse, MockServer};
use serde_json::json;

const OLD: &str = "sk-ant-oat01-old";
const NEW: &str = "sk-ant-oat01-new";

fn unauthorized() -> MockResponse {
    MockResponse::error(
        401,
        r#"{"type":"error","error":{"type":"authentication_error","message":"OAuth token has expired."}}"#,
    )
}

/// Options carrying `OLD` and a hook that answers `answer`, recording the keys it was asked about.
fn refreshing(answer: Result<Option<String>, String>) -> (StreamOptions, Arc<Mutex<Vec<String>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let hooks = RequestHooks {
        on_unauthorized: Some(Arc::new(move |key| {
            seen.lock().unwrap().push(key);
            let answer = answer.clone();
            Box::pin(async move { answer })
        })),
        ..Default::default()
    };
    let options = StreamOptions {
        api_key: Some(OLD.into()),
        hooks,
        ..Default::default()
    };
    (options, asked)
}

fn error_text(events: &[E]) -> String {
    match events.last() {
        Some(E::Error { error, .. }) => error.error_message.clone().unwrap_or_default(),
        other => panic!("expected an error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_401_refreshes_once_and_the_retry_carries_the_new_token() {
    let server = MockServer::start().await;
    server.push(unauthorized());
    server.push(MockResponse::sse(wire::transcript_a1()));
    let (options, asked) = refreshing(Ok(Some(NEW.into())));
    let events = collect(&model(&server, "claude-sonnet-4-5"), &a1_context(), options).await;
    assert!(matches!(events.last(), Some(E::Done { .. })), "{events:?}");
    assert_eq!(*asked.lock().unwrap(), vec![OLD.to_string()]);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0].header("authorization"),
        Some(&*format!("Bearer {OLD}"))
    );
    assert_eq!(
        requests[1].header("authorization"),
        Some(&*format!("Bearer {NEW}"))
    );
    // The OAuth request shape stays: Claude Code's identity, no x-api-key.
    assert!(requests[1].header("x-api-key").is_none());
    assert_eq!(
        requests[1].json()["system"][0]["text"],
        "You are Claude Code, Anthropic's official CLI for Claude."
    );
}

#[tokio::test]
async fn a_second_401_tells_the_user_to_log_in_again() {
    let server = MockServer::start().await;
    server.push(unauthorized());
    server.push(unauthorized());
    let (options, asked) = refreshing(Ok(Some(NEW.into())));
    let events = collect(&model(&server, "claude-sonnet-4-5"), &a1_context(), options).await;
    let text = error_text(&events);
    assert!(text.starts_with("401"), "{text}");
    assert!(
        text.ends_with("Authentication failed for \"anthropic\". Credentials may have expired or network is unavailable. Run '/login anthropic' to re-authenticate."),
        "{text}"
    );
    assert_eq!(asked.lock().unwrap().len(), 1, "one refresh only");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_failed_refresh_ends_the_call_with_its_text_and_an_api_key_keeps_the_401() {
    let server = MockServer::start().await;
    server.push(unauthorized());
    let (options, _) = refreshing(Err("refresh failed: invalid_grant".into()));
    let events = collect(&model(&server, "claude-sonnet-4-5"), &a1_context(), options).await;
    assert_eq!(error_text(&events), "refresh failed: invalid_grant");
    assert_eq!(server.requests().len(), 1);

    server.push(unauthorized());
    let (options, _) = refreshing(Ok(None));
    let events = collect(&model(&server, "claude-sonnet-4-5"), &a1_context(), options).await;
    assert!(error_text(&events).contains("OAuth token has expired."));
    assert_eq!(
        server.requests().len(),
        2,
        "no second attempt without a fresh key"
    );
}

fn codex_token(account: &str) -> String {
    let payload = json!({"https://api.openai.com/auth": {"chatgpt_account_id": account}});
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(payload.to_string());
    format!("eyJhbGciOiJub25lIn0.{b64}.sig")
}

#[tokio::test]
async fn codex_subscriptions_call_the_chatgpt_backend_with_the_account_id() {
    let server = MockServer::start().await;
    let stream = ResponsesStream::new("resp_1", "gpt-5.5")
        .message("msg_1", &["Hi ", "there"])
        .completed(usage(10, 0, 2, 0));
    server.push(MockResponse::sse(stream));
    let mut m = rho_ai::catalog::builtin_model("openai-codex", "gpt-6.2-sol")
        .cloned()
        .unwrap();
    m.base_url = format!("{}/backend-api", server.url());
    let options = StreamOptions {
        api_key: Some(codex_token("acc-42")),
        ..Default::default()
    };
    let events = collect(&m, &a1_context(), options).await;
    let Some(E::Done { message, .. }) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(message.text(), "Hi there");
    let req = &server.requests()[0];
    assert_eq!(req.path, "/backend-api/codex/responses");
    assert_eq!(req.header("chatgpt-account-id"), Some("acc-42"));
    assert_eq!(req.header("openai-beta"), Some("responses=experimental"));
    assert_eq!(req.json()["store"], false);
}

#[test]
fn a_codex_key_without_an_account_cannot_start_a_call() {
    let m = rho_ai::catalog::builtin_model("openai-codex", "gpt-6.2-sol")
        .cloned()
        .unwrap();
    let options = StreamOptions {
        api_key: Some("not-a-jwt".into()),
        ..Default::default()
    };
    let err = rho_ai::stream(&m, &a1_context(), options).unwrap_err();
    assert_eq!(err.to_string(), "Failed to extract accountId from token");
}

#[test]
fn a_copilot_token_names_the_api_host_and_a_refresh_moves_the_request_there() {
    let mut request = rho_ai::provider::HttpRequest {
        url: "https://api.a.githubcopilot.com/chat/completions".into(),
        headers: vec![(
            "authorization".into(),
            "Bearer tid=1;proxy-ep=proxy.a.githubcopilot.com".into(),
        )],
        body: json!({}),
    };
    request.replace_key(
        "tid=1;proxy-ep=proxy.a.githubcopilot.com",
        "tid=2;proxy-ep=proxy.b.githubcopilot.com",
    );
    assert_eq!(
        request.url,
        "https://api.b.githubcopilot.com/chat/completions"
    );
    assert_eq!(
        request.headers[0].1,
        "Bearer tid=2;proxy-ep=proxy.b.githubcopilot.com"
    );
}
