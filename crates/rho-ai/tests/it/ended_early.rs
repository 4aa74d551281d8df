//! Issue 43: a reply whose body ends before its API's terminal event is never taken as
//! complete, on every wire API. Each API's stream is cut after a valid delta, followed by
//! garbage, by invalid UTF-8, and replaced by an empty body and by a page that is not an
//! event stream; each ends in one `error` with pi 1.6's text for the API, keeping what
//! arrived, and is retryable as pi classifies it. Invalid UTF-8 in a stream that ends
//! properly becomes U+FFFD in a complete reply (README, "Streams that end early").

use futures_util::FutureExt;
use proptest::prelude::*;
use rho_ai::provider::drive_bytes;
use rho_ai::providers::{
    anthropic, bedrock, google, mistral, openai_completions, openai_responses,
};
use rho_ai::reply::ReplyBuilder;
use rho_ai::retry::is_retryable;
use rho_ai::{
    AssistantMessage, AssistantMessageEvent as E, AssistantStream, Context, Message, Model,
    StopReason, StreamOptions, UserMessage,
};
use rho_testkit::faults::{self, Fault, Wire};
use rho_testkit::{MockResponse, MockServer};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn model(api: &str, base_url: &str) -> Model {
    serde_json::from_value(json!({
        "id": "m", "name": "m", "api": api, "provider": "custom", "baseUrl": base_url,
        "contextWindow": 128000, "maxTokens": 1024
    }))
    .expect("model")
}

/// One call of `api` with `key` against a server sending `response`; every event.
async fn events_for(api: &str, key: String, response: MockResponse) -> Vec<E> {
    let server = MockServer::start().await;
    server.push(response);
    let context = Context {
        system_prompt: None,
        messages: vec![Message::User(UserMessage::text("hi"))],
        tools: vec![],
    };
    let options = StreamOptions {
        api_key: Some(key),
        ..Default::default()
    };
    let mut stream =
        rho_ai::stream(&model(api, &server.url()), &context, options).expect("stream starts");
    let mut events = Vec::new();
    while let Some(e) = stream.next().await {
        events.push(e);
    }
    events
}

/// One call of `wire`'s API against a server sending `fault`'s body; every event.
async fn call(wire: &Wire, fault: Fault) -> Vec<E> {
    events_for(wire.api, wire.key(), wire.response(fault)).await
}

/// The one terminal event's message; panics unless exactly one ends the stream, last.
fn ending(events: &[E]) -> &AssistantMessage {
    let terminals = events.iter().filter(|e| e.is_terminal()).count();
    assert_eq!(terminals, 1, "one terminal event: {events:?}");
    match events.last() {
        Some(E::Done { message, .. } | E::Error { error: message, .. }) => message,
        other => panic!("no terminal event last: {other:?}"),
    }
}

/// What `fault` must end with on `wire`: the error text, and the text kept.
fn expected(wire: &Wire, fault: Fault) -> (String, String) {
    let bad = format!("{}{}", faults::PARTIAL, faults::BAD_UTF8_DECODED);
    match fault {
        Fault::Cut | Fault::Garbage => (wire.pi_ended_early.into(), faults::PARTIAL.into()),
        Fault::BadUtf8Cut => (wire.pi_ended_early.into(), bad),
        Fault::Empty => (
            format!("{}: the response body was empty", wire.pi_no_events),
            String::new(),
        ),
        Fault::NotSse if wire.api == "bedrock-converse-stream" => (
            format!(
                "{}: the response held no event-stream messages (it began: \
                 \"<html><body>Welcome to nginx!</body></html>\"); check that the model's \
                 baseUrl points to the Bedrock runtime endpoint",
                wire.pi_no_events
            ),
            String::new(),
        ),
        Fault::NotSse => (
            format!(
                "{}: the response held no server-sent events (it began: \
                 \"<html><body>Welcome to nginx!</body></html>\"); check that the model's \
                 baseUrl points to this API's streaming endpoint",
                wire.pi_no_events
            ),
            String::new(),
        ),
        Fault::BadUtf8Complete => unreachable!("not an error"),
    }
}

#[tokio::test]
async fn every_api_ends_a_body_without_its_terminal_event_in_a_retryable_error() {
    for wire in faults::all() {
        for fault in Fault::ERRORS {
            let events = call(&wire, fault).await;
            let reply = ending(&events);
            let what = format!("{} / {fault:?}", wire.api);
            assert!(matches!(events.last(), Some(E::Error { .. })), "{what}");
            assert_eq!(reply.stop_reason, StopReason::Error, "{what}");
            let (error, text) = expected(&wire, fault);
            assert_eq!(reply.error_message.as_deref(), Some(&*error), "{what}");
            assert_eq!(reply.text(), text, "{what}: the partial reply is kept");
            assert!(is_retryable(reply, 128_000), "{what}: retryable as in pi");
        }
    }
}

#[tokio::test]
async fn invalid_utf8_in_a_stream_that_ends_properly_becomes_replacement_characters() {
    for wire in faults::all() {
        let events = call(&wire, Fault::BadUtf8Complete).await;
        let reply = ending(&events);
        assert!(
            matches!(events.last(), Some(E::Done { .. })),
            "{}: {events:?}",
            wire.api
        );
        assert_eq!(reply.stop_reason, StopReason::Stop, "{}", wire.api);
        assert_eq!(
            reply.text(),
            format!("{}{}", faults::PARTIAL, faults::BAD_UTF8_DECODED),
            "{}",
            wire.api
        );
        let delta = events
            .iter()
            .any(|e| matches!(e, E::TextDelta { delta, .. } if delta == faults::BAD_UTF8_DECODED));
        assert!(delta, "{}: the delta itself carries U+FFFD", wire.api);
    }
}

#[tokio::test]
async fn a_complete_reply_is_still_complete() {
    for wire in faults::all() {
        let events = events_for(wire.api, wire.key(), wire.complete()).await;
        let reply = ending(&events);
        assert_eq!(reply.stop_reason, StopReason::Stop, "{}", wire.api);
        assert_eq!(reply.text(), faults::PARTIAL, "{}", wire.api);
    }
}

#[tokio::test]
async fn anthropic_message_stop_without_a_stop_reason_is_an_error_as_in_pi() {
    use rho_testkit::anthropic as a;
    let wire = faults::wire("anthropic-messages", "half");
    let mut body = wire.head.clone();
    body.extend_from_slice(a::block_stop(0).as_bytes());
    body.extend_from_slice(a::message_stop().as_bytes());
    let response = MockResponse {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        chunks: vec![rho_testkit::Chunk::Bytes(body)],
    };
    let events = events_for(wire.api, wire.key(), response).await;
    let reply = ending(&events);
    assert_eq!(reply.stop_reason, StopReason::Error);
    assert_eq!(
        reply.error_message.as_deref(),
        Some("Anthropic stream ended without a stop reason")
    );
    assert_eq!(reply.text(), "half");
}

/// How `body` ends when parsed in memory in `chunk`-byte pieces: `None` for `done`.
fn in_memory(api: &str, body: &[u8], chunk: usize) -> Option<String> {
    let m = model(api, "http://127.0.0.1:1");
    let (sink, mut stream) = AssistantStream::channel();
    let reply = ReplyBuilder::new(&m, sink, CancellationToken::new());
    let chunks = body.chunks(chunk.max(1));
    match api {
        "anthropic-messages" => drive_bytes(chunks, anthropic::Parser::new(&m), reply),
        "openai-completions" => {
            drive_bytes(chunks, openai_completions::parse::Parser::new(&m), reply)
        }
        "google-generative-ai" | "google-vertex" => {
            drive_bytes(chunks, google::Parser::new(&m), reply)
        }
        "mistral-conversations" => drive_bytes(chunks, mistral::Parser::new(&m), reply),
        "bedrock-converse-stream" => drive_bytes(chunks, bedrock::Parser::new(&m), reply),
        _ => drive_bytes(chunks, openai_responses::Parser::new(&m), reply),
    }
    let mut last = None;
    while let Some(Some(event)) = stream.next().now_or_never() {
        last = Some(event);
    }
    match last {
        Some(E::Done { .. }) => None,
        Some(E::Error { error, .. }) => Some(error.error_message.unwrap_or_default()),
        other => panic!("no terminal event: {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Wherever a complete reply is cut before its terminal event begins, and however its
    /// bytes are split, it never ends as complete.
    #[test]
    fn a_reply_cut_anywhere_before_its_terminal_event_is_never_complete(
        cut in 0.0f64..1.0,
        chunk in 1usize..48,
    ) {
        for wire in faults::all() {
            let body = [&wire.head[..], &wire.bad_delta].concat();
            let at = ((body.len() as f64) * cut) as usize;
            let outcome = in_memory(wire.api, &body[..at], chunk);
            prop_assert!(outcome.is_some(), "{} cut at {at} ended as complete", wire.api);
            prop_assert!(!outcome.unwrap_or_default().is_empty());
            let whole = [&body[..], &wire.tail].concat();
            prop_assert_eq!(in_memory(wire.api, &whole, chunk), None, "{}", wire.api);
        }
    }
}
