//! Property tests (issue 17): each provider's SSE parser and the models.json parser take any
//! input without panicking; a stream always ends in exactly one `done` or `error` with a
//! message; a models.json error always names the file. The `cargo fuzz` targets in `fuzz/`
//! explore the same entry points for longer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use futures_util::FutureExt;
use proptest::prelude::*;
use rho_ai::models_json::parse_models_json;
use rho_ai::provider::{drive_bytes, WireParser};
use rho_ai::providers::{anthropic, google, openai_completions, openai_responses};
use rho_ai::reply::ReplyBuilder;
use rho_ai::{AssistantMessageEvent, AssistantStream, Model};
use tokio_util::sync::CancellationToken;

fn model(api: &str) -> Model {
    serde_json::from_value(serde_json::json!({
        "id": "m", "name": "M", "api": api, "provider": "p", "baseUrl": "http://127.0.0.1:1",
        "reasoning": true, "input": ["text"],
        "cost": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1000, "maxTokens": 100
    }))
    .expect("model json")
}

/// Runs `body` through `parser` in `chunk`-byte pieces; returns the terminal event's text
/// (`None` for `done`).
fn terminal<P: WireParser>(model: &Model, parser: P, body: &[u8], chunk: usize) -> Option<String> {
    let (sink, mut stream) = AssistantStream::channel();
    drive_bytes(
        body.chunks(chunk.max(1)),
        parser,
        ReplyBuilder::new(model, sink, CancellationToken::new()),
    );
    let mut last = None;
    while let Some(Some(event)) = stream.next().now_or_never() {
        last = Some(event);
    }
    match last {
        Some(AssistantMessageEvent::Done { .. }) => None,
        Some(AssistantMessageEvent::Error { error, .. }) => {
            Some(error.error_message.unwrap_or_default())
        }
        other => panic!("no terminal event: {other:?}"),
    }
}

/// SSE-shaped bodies: lines of `data:`/`event:`/comments with JSON-ish or random payloads.
fn sse_body() -> impl Strategy<Value = Vec<u8>> {
    let payload = prop_oneof![
        Just("[DONE]".to_string()),
        Just("{}".to_string()),
        Just(r#"{"type":"message_start","message":{"id":"x","usage":{}}}"#.to_string()),
        Just(r#"{"choices":[{"delta":{"content":"hi"},"finish_reason":null}]}"#.to_string()),
        Just(r#"{"type":"response.output_text.delta","delta":"a"}"#.to_string()),
        Just(r#"{"candidates":[{"content":{"parts":[{"text":"a"}]}}]}"#.to_string()),
        ".{0,40}",
    ];
    let line = prop_oneof![
        payload.prop_map(|p| format!("data: {p}\n\n")),
        "[a-z_.]{0,20}".prop_map(|e| format!("event: {e}\n")),
        Just(": keep-alive\n\n".to_string()),
        ".{0,20}\r?\n",
    ];
    prop::collection::vec(line, 0..20).prop_map(|lines| lines.concat().into_bytes())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_sse_parser_ends_each_stream_once_with_a_clear_error(
        body in prop_oneof![sse_body(), prop::collection::vec(any::<u8>(), 0..300)],
        chunk in 1usize..64,
    ) {
        for api in ["anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai"] {
            let m = model(api);
            let outcome = match api {
                "anthropic-messages" => terminal(&m, anthropic::Parser::new(&m), &body, chunk),
                "openai-completions" => terminal(&m, openai_completions::parse::Parser::new(&m), &body, chunk),
                "openai-responses" => terminal(&m, openai_responses::Parser::new(&m), &body, chunk),
                _ => terminal(&m, google::Parser::new(&m), &body, chunk),
            };
            if let Some(text) = outcome {
                prop_assert!(!text.trim().is_empty(), "{api}: an error without a message");
            }
        }
    }

    #[test]
    fn models_json_errors_name_the_file(text in prop_oneof![
        ".{0,200}",
        Just(r#"{"providers":{"p":{"models":[{"id":1}]}}}"#.to_string()),
        r#"\{"providers":\{"[a-z]{1,5}":\{"baseUrl":"[a-z:/.]{0,10}","models":\[\{"id":"[a-z]{0,4}"\}\]\}\}\}"#,
    ]) {
        if let Err(e) = parse_models_json(&text, "/agent/models.json") {
            prop_assert!(e.to_string().contains("/agent/models.json"), "{e}");
        }
    }
}
