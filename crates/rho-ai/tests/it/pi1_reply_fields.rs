//! The fields pi 1.x records on every reply, per provider over real HTTP: `rawStopReason`
//! (the provider's own stop reason), `usage.reasoning` (where the provider reports reasoning
//! tokens), `cost.totalFromProvider` (false: the total is the catalog estimate) and
//! `durationMs` (the stream's time, set on the final message only).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_ai::{AssistantMessage, Context, Message, Model, StreamOptions, UserMessage};
use rho_testkit::anthropic as wire;
use rho_testkit::google::{self, GeminiStream};
use rho_testkit::openai_chat::ChatStream;
use rho_testkit::openai_responses::{self, ResponsesStream};
use rho_testkit::{MockResponse, MockServer};
use serde_json::json;

fn model(api: &str, provider: &str, base_url: &str) -> Model {
    serde_json::from_value(json!({
        "id": "m1", "name": "m1", "api": api, "provider": provider, "baseUrl": base_url,
        "reasoning": true, "input": ["text"],
        "cost": {"input": 1.0, "output": 2.0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 100000, "maxTokens": 1000
    }))
    .expect("model")
}

/// One call of `api` against a server answering `response`; the final message.
async fn reply(api: &str, provider: &str, path: &str, response: MockResponse) -> AssistantMessage {
    let server = MockServer::start().await;
    server.push(response);
    let model = model(api, provider, &format!("{}{path}", server.url()));
    let context = Context {
        system_prompt: None,
        messages: vec![Message::User(UserMessage::text("hi"))],
        tools: Vec::new(),
    };
    let options = StreamOptions {
        api_key: Some("k".into()),
        ..Default::default()
    };
    let m = rho_ai::stream(&model, &context, options)
        .expect("stream")
        .result()
        .await;
    assert!(m.duration_ms.is_some(), "{api}: the final message is timed");
    assert_eq!(m.usage.cost.total_from_provider, Some(false), "{api}");
    m
}

#[tokio::test]
async fn chat_completions_records_finish_reason_and_reasoning_tokens() {
    let with_details = ChatStream::new("c1", "m1")
        .role()
        .text("hi")
        .finish("length")
        .data(
            &json!({"id": "c1", "choices": [], "usage": {"prompt_tokens": 10,
            "completion_tokens": 8, "completion_tokens_details": {"reasoning_tokens": 5}}})
            .to_string(),
        )
        .done()
        .response();
    let m = reply("openai-completions", "x", "/v1", with_details).await;
    assert_eq!(m.raw_stop_reason.as_deref(), Some("length"));
    assert_eq!(m.usage.reasoning, Some(5));

    let plain = ChatStream::new("c1", "m1")
        .role()
        .text("hi")
        .finish("stop")
        .usage(10, 2, None)
        .done()
        .response();
    let m = reply("openai-completions", "x", "/v1", plain).await;
    assert_eq!(m.raw_stop_reason.as_deref(), Some("stop"));
    assert_eq!(m.usage.reasoning, Some(0), "pi 1.x says 0 when unsaid");
}

#[tokio::test]
async fn responses_records_status_with_incomplete_reason_and_reasoning_tokens() {
    let mut s = ResponsesStream::new("r1", "m1").message("msg_1", &["hi"]);
    s.push(
        "response.incomplete",
        json!({"response": {"id": "r1", "status": "incomplete",
            "incomplete_details": {"reason": "max_output_tokens"},
            "usage": openai_responses::usage(10, 0, 8, 6)}}),
    );
    let m = reply(
        "openai-responses",
        "openai",
        "/v1",
        MockResponse::sse(s.events()),
    )
    .await;
    assert_eq!(
        m.raw_stop_reason.as_deref(),
        Some("incomplete.max_output_tokens")
    );
    assert_eq!(m.usage.reasoning, Some(6));
}

#[tokio::test]
async fn gemini_records_finish_reason_and_thoughts() {
    let chunks = GeminiStream::new("g1", "m1").finish(
        vec![google::text("hi")],
        "STOP",
        google::usage(10, 2, 7, 0),
    );
    let m = reply(
        "google-generative-ai",
        "google",
        "",
        MockResponse::sse(chunks),
    )
    .await;
    assert_eq!(m.raw_stop_reason.as_deref(), Some("STOP"));
    assert_eq!(m.usage.reasoning, Some(7));
}

#[tokio::test]
async fn anthropic_records_stop_reason_and_thinking_tokens_when_reported() {
    let delta = |details: &str| {
        format!("event: message_delta\ndata: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"end_turn\"}},\"usage\":{{\"output_tokens\":9{details}}}}}\n\n")
    };
    for (details, reasoning) in [
        (
            ",\"output_tokens_details\":{\"thinking_tokens\":4}",
            Some(4),
        ),
        ("", None),
    ] {
        let usage = wire::Usage {
            input: 10,
            output: 1,
            cache_read: 0,
            cache_write: 0,
        };
        let events = vec![
            wire::message_start("msg_1", "m1", usage),
            wire::text_start(0),
            wire::text_delta(0, "hi"),
            wire::block_stop(0),
            delta(details),
            wire::message_stop(),
        ];
        let m = reply(
            "anthropic-messages",
            "anthropic",
            "",
            MockResponse::sse(events),
        )
        .await;
        assert_eq!(m.raw_stop_reason.as_deref(), Some("end_turn"));
        assert_eq!(
            m.usage.reasoning, reasoning,
            "only when Anthropic reports it"
        );
    }
}
