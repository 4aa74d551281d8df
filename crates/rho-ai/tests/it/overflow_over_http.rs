//! Context-overflow detection end to end: each provider's real overflow error, served over
//! HTTP, becomes an error reply that `is_context_overflow` recognises, while a rate limit
//! from the same provider is retryable and not an overflow (providers spec §5, RETRY-2).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_ai::overflow::is_context_overflow;
use rho_ai::retry::is_retryable;
use rho_ai::{Context, Model, StopReason, StreamOptions, UserMessage};
use rho_testkit::{MockResponse, MockServer};
use serde_json::json;

fn model(api: &str, base_url: String) -> Model {
    serde_json::from_value(json!({
        "id": "m", "name": "m", "api": api, "provider": "custom", "baseUrl": base_url,
        "contextWindow": 128000, "maxTokens": 1024
    }))
    .expect("model")
}

async fn reply_for(api: &str, response: MockResponse) -> rho_ai::AssistantMessage {
    let server = MockServer::start().await;
    server.push(response);
    let base = match api {
        "openai-completions" | "openai-responses" => format!("{}/v1", server.url()),
        _ => server.url(),
    };
    let context = Context {
        system_prompt: None,
        messages: vec![rho_ai::Message::User(UserMessage::text("hi"))],
        tools: vec![],
    };
    let options = StreamOptions {
        api_key: Some("k".into()),
        ..Default::default()
    };
    rho_ai::stream(&model(api, base), &context, options)
        .expect("stream starts")
        .result()
        .await
}

#[tokio::test]
async fn every_providers_overflow_error_is_detected() {
    let cases = [
        (
            "anthropic-messages",
            rho_testkit::anthropic::prompt_too_long(213_462, 200_000),
        ),
        (
            "openai-completions",
            rho_testkit::openai_chat::error(400, rho_testkit::openai_chat::ERROR_CONTEXT_LENGTH),
        ),
        (
            "openai-responses",
            MockResponse::error(400, rho_testkit::openai_responses::OVERFLOW_BODY),
        ),
        (
            "google-generative-ai",
            MockResponse::error(400, rho_testkit::google::OVERFLOW_BODY),
        ),
    ];
    for (api, response) in cases {
        let reply = reply_for(api, response).await;
        assert_eq!(reply.stop_reason, StopReason::Error, "{api}");
        assert!(
            is_context_overflow(&reply, 128_000),
            "{api}: {:?}",
            reply.error_message
        );
        assert!(
            !is_retryable(&reply, 128_000),
            "{api}: an overflow is never retried"
        );
    }
}

/// Rate limits are retried and never taken for an overflow; a quota that ran out (Gemini's
/// "exceeded your current quota ... billing") is not retried, as in pi 1.6: it resets after
/// hours, not seconds.
#[tokio::test]
async fn rate_limits_are_retryable_not_overflow() {
    let cases = [
        (
            "anthropic-messages",
            rho_testkit::anthropic::rate_limit_error(),
            true,
        ),
        (
            "openai-responses",
            MockResponse::error(429, rho_testkit::openai_responses::RATE_LIMIT_BODY),
            true,
        ),
        (
            "google-generative-ai",
            MockResponse::error(429, rho_testkit::google::RATE_LIMIT_BODY),
            false,
        ),
    ];
    for (api, response, retried) in cases {
        let reply = reply_for(api, response).await;
        assert!(!is_context_overflow(&reply, 128_000), "{api}");
        assert_eq!(
            is_retryable(&reply, 128_000),
            retried,
            "{api}: {:?}",
            reply.error_message
        );
    }
}
