//! Issue 17 #10: a provider's error body (or an error sent inside the stream) is cut to a
//! bounded size before it becomes the reply's error message (and so a session entry), with
//! a note of the cut.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_ai::http::ERROR_BODY_CAP;
use rho_ai::{Context, Model, StopReason, StreamOptions, UserMessage};
use rho_testkit::{MockResponse, MockServer};
use serde_json::json;

async fn error_message_for(api: &str, response: MockResponse) -> String {
    let server = MockServer::start().await;
    server.push(response);
    let base = match api {
        "openai-completions" | "openai-responses" => format!("{}/v1", server.url()),
        _ => server.url(),
    };
    let model: Model = serde_json::from_value(json!({
        "id": "m", "name": "m", "api": api, "provider": "custom", "baseUrl": base,
        "contextWindow": 128000, "maxTokens": 1024
    }))
    .expect("model");
    let context = Context {
        system_prompt: None,
        messages: vec![rho_ai::Message::User(UserMessage::text("hi"))],
        tools: vec![],
    };
    let options = StreamOptions {
        api_key: Some("k".into()),
        ..Default::default()
    };
    let reply = rho_ai::stream(&model, &context, options)
        .expect("stream starts")
        .result()
        .await;
    assert_eq!(reply.stop_reason, StopReason::Error);
    reply.error_message.expect("an error message")
}

#[tokio::test]
async fn a_huge_error_body_is_cut_with_a_note_on_every_api() {
    let huge = "x".repeat(10 * 1024 * 1024);
    for api in [
        "openai-completions",
        "openai-responses",
        "anthropic-messages",
        "google-generative-ai",
    ] {
        let response = MockResponse::error(500, huge.clone())
            .header("content-length", &huge.len().to_string());
        let message = error_message_for(api, response).await;
        assert!(
            message.len() < ERROR_BODY_CAP + 200,
            "{api}: {} bytes kept",
            message.len()
        );
        assert!(
            message.ends_with(&format!(
                "[error body cut: first {ERROR_BODY_CAP} bytes of {} kept]",
                huge.len()
            )),
            "{api}: {}",
            &message[message.len().saturating_sub(120)..]
        );
    }
}

#[tokio::test]
async fn a_body_of_unknown_length_is_cut_too() {
    let huge = "z".repeat(1024 * 1024);
    let message = error_message_for("openai-completions", MockResponse::error(500, huge)).await;
    assert!(
        message.ends_with(&format!(
            "[error body cut: first {ERROR_BODY_CAP} bytes kept]"
        )),
        "{}",
        &message[message.len().saturating_sub(120)..]
    );
}

#[tokio::test]
async fn an_error_body_under_the_cap_is_kept_whole() {
    let body = "y".repeat(ERROR_BODY_CAP);
    let message =
        error_message_for("openai-completions", MockResponse::error(500, body.clone())).await;
    assert!(message.contains(&body), "kept whole");
    assert!(!message.contains("cut"), "{message}");
}

#[tokio::test]
async fn a_huge_error_inside_the_stream_is_cut_the_same_way() {
    let huge = "w".repeat(1024 * 1024);
    let anthropic = rho_testkit::anthropic::error_event("overloaded_error", &huge);
    let chat = rho_testkit::openai_chat::ChatStream::new("c", "m")
        .data(&json!({"error": {"message": huge}}).to_string())
        .sse_text();
    for (api, event) in [
        ("anthropic-messages", anthropic),
        ("openai-completions", chat),
    ] {
        let message = error_message_for(api, MockResponse::sse([event])).await;
        assert!(
            message.len() < ERROR_BODY_CAP + 200,
            "{api}: {} bytes kept",
            message.len()
        );
        assert!(message.contains("wwww"), "{api}: the start is kept");
        assert!(
            message.ends_with(" kept]")
                && message.contains("[error body cut: first 16384 bytes of "),
            "{api}: {}",
            &message[message.len().saturating_sub(120)..]
        );
    }
}
