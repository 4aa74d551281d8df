//! Failures (providers spec §2, §3.0, §3.1): HTTP errors end in a single `error` event with
//! the SDK's message text; broken or cut streams and aborts end in `error`/`aborted` and keep
//! what was streamed.

use std::time::Duration;

use rho_ai::{AssistantMessageEvent as E, StopReason};
use rho_testkit::anthropic as wire;
use rho_testkit::{Chunk, MockResponse, MockServer};

use super::common::{a1_context, collect, model, names, options, text_of};

/// The error event of a finished stream, with no `start` before it.
fn only_error(events: &[E]) -> (StopReason, rho_ai::AssistantMessage) {
    assert_eq!(
        names(events),
        ["error"],
        "a failed request emits only `error`"
    );
    match &events[0] {
        E::Error { reason, error } => (*reason, error.clone()),
        other => panic!("expected error, got {other:?}"),
    }
}

/// The terminal error event of a stream that may have started.
fn final_error(events: &[E]) -> (StopReason, rho_ai::AssistantMessage) {
    match events.last() {
        Some(E::Error { reason, error }) => (*reason, error.clone()),
        other => panic!("expected a terminal error, got {other:?}"),
    }
}

async fn http_error_case(response: MockResponse, body: String, status: u16) {
    let server = MockServer::start().await;
    server.push(response);
    let m = model(&server, "claude-sonnet-4-5");
    let events = collect(&m, &a1_context(), options()).await;
    let (reason, error) = only_error(&events);
    assert_eq!(reason, StopReason::Error);
    assert_eq!(error.stop_reason, StopReason::Error);
    assert_eq!(error.error_message, Some(format!("{status} {body}")));
    assert!(error.content.is_empty());
}

#[tokio::test]
async fn http_errors_report_status_and_whole_body_without_start() {
    let rate = "This request would exceed the rate limit for your organization of 30,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase.";
    let cases = [
        (
            wire::rate_limit_error(),
            wire::error_body("rate_limit_error", rate, "req_011RATE"),
            429,
        ),
        (
            wire::api_error(),
            wire::error_body("api_error", "Internal server error", "req_011API"),
            500,
        ),
        (
            wire::overloaded_error(),
            wire::error_body("overloaded_error", "Overloaded", "req_011OVER"),
            529,
        ),
        (
            wire::authentication_error(),
            wire::error_body("authentication_error", "invalid x-api-key", "req_011AUTH"),
            401,
        ),
    ];
    for (response, body, status) in cases {
        http_error_case(response, body, status).await;
    }
}

#[tokio::test]
async fn prompt_too_long_is_the_spec_overflow_text() {
    let server = MockServer::start().await;
    server.push(wire::prompt_too_long(213462, 200000));
    let m = model(&server, "claude-sonnet-4-5");
    let events = collect(&m, &a1_context(), options()).await;
    let (_, error) = only_error(&events);
    assert_eq!(
        error.error_message.as_deref(),
        Some("400 {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is too long: 213462 tokens > 200000 maximum\"},\"request_id\":\"req_011PROMPT\"}")
    );
}

#[tokio::test]
async fn error_event_mid_stream_keeps_partial_text() {
    let server = MockServer::start().await;
    let mut events = wire::transcript_a1();
    events.truncate(4); // message_start, ping, text_start, first delta
    events.push(wire::error_event("overloaded_error", "Overloaded"));
    server.push(MockResponse::sse(events));
    let m = model(&server, "claude-sonnet-4-5");
    let events = collect(&m, &a1_context(), options()).await;
    assert_eq!(
        names(&events),
        ["start", "text_start", "text_delta", "error"]
    );
    let (reason, error) = final_error(&events);
    assert_eq!(reason, StopReason::Error);
    assert_eq!(
        error.error_message.as_deref(),
        Some("{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}")
    );
    assert_eq!(text_of(&error), "Hello! ");
    assert_eq!(error.usage.input, 412, "usage reported so far is kept");
}

#[tokio::test]
async fn invalid_json_in_a_data_line_is_a_clear_error() {
    let server = MockServer::start().await;
    let mut events = wire::transcript_a1();
    events.truncate(4);
    events.push(
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_del\n\n"
            .to_string(),
    );
    events.push(wire::text_delta(0, "never seen"));
    server.push(MockResponse::sse(events));
    let m = model(&server, "claude-sonnet-4-5");
    let events = collect(&m, &a1_context(), options()).await;
    assert_eq!(
        names(&events),
        ["start", "text_start", "text_delta", "error"]
    );
    let (reason, error) = final_error(&events);
    assert_eq!(reason, StopReason::Error);
    let msg = error.error_message.clone().expect("message");
    assert!(
        msg.starts_with(
            "Invalid JSON in Anthropic stream event content_block_delta: EOF while parsing"
        ),
        "{msg}"
    );
    assert_eq!(text_of(&error), "Hello! ");
}

#[tokio::test]
async fn junk_lines_and_invalid_utf8_do_not_break_the_stream() {
    let server = MockServer::start().await;
    let a1 = wire::transcript_a1();
    let mut raw = b"garbage line without a colon\r\n: a comment\r\n".to_vec();
    raw.extend_from_slice(b"event: content_block_delta\r\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\xffb\"}}\r\n\r\n");
    let response = MockResponse::sse(a1[..3].to_vec())
        .then(Chunk::Bytes(raw))
        .then(Chunk::Bytes(a1[5..].concat().into_bytes()));
    server.push(response);
    let m = model(&server, "claude-sonnet-4-5");
    let events = collect(&m, &a1_context(), options()).await;
    assert_eq!(
        names(&events),
        ["start", "text_start", "text_delta", "text_end", "done"]
    );
    let E::Done { message, .. } = events.last().expect("events") else {
        panic!("done expected")
    };
    assert_eq!(text_of(message), "a\u{fffd}b");
}

#[tokio::test]
async fn connection_dropped_mid_stream_keeps_content() {
    let server = MockServer::start().await;
    let mut events = wire::transcript_a1();
    events.truncate(5); // both text deltas, no block stop, no message_stop
    server.push(MockResponse::sse(events).then(Chunk::Drop));
    let m = model(&server, "claude-sonnet-4-5");
    let events = collect(&m, &a1_context(), options()).await;
    assert_eq!(
        names(&events),
        ["start", "text_start", "text_delta", "text_delta", "error"]
    );
    let (reason, error) = final_error(&events);
    assert_eq!(reason, StopReason::Error);
    assert_eq!(
        error.error_message.as_deref(),
        Some("Anthropic stream ended before message_stop")
    );
    assert_eq!(text_of(&error), "Hello! How can I help?");
}

#[tokio::test]
async fn abort_mid_stream_is_aborted_and_closes_the_connection() {
    let server = MockServer::start().await;
    let mut events = wire::transcript_a1();
    events.truncate(4);
    server.push(MockResponse::sse(events).then(Chunk::Hang));
    let m = model(&server, "claude-sonnet-4-5");
    let opts = options();
    let cancel = opts.cancel.clone();
    let mut stream = rho_ai::stream(&m, &a1_context(), opts).expect("stream starts");
    let mut seen = Vec::new();
    while let Some(e) = stream.next().await {
        if matches!(e, E::TextDelta { .. }) {
            cancel.cancel();
        }
        seen.push(e);
    }
    // rho ends open blocks on abort for every provider (pi does so for openai-completions;
    // its Anthropic provider leaves them open), so clients see every started block end.
    assert_eq!(
        names(&seen),
        ["start", "text_start", "text_delta", "text_end", "error"]
    );
    let (reason, error) = final_error(&seen);
    assert_eq!(reason, StopReason::Aborted);
    assert_eq!(error.stop_reason, StopReason::Aborted);
    assert_eq!(text_of(&error), "Hello! ");
    tokio::time::timeout(Duration::from_secs(5), server.wait_for_closed(1))
        .await
        .expect("the server sees the connection closed promptly after abort");
}

#[tokio::test]
async fn refusal_and_unknown_stop_reasons_are_errors() {
    for (stop, expected) in [
        ("refusal", "An unknown error occurred"),
        ("sensitive", "An unknown error occurred"),
        ("brand_new", "Unhandled stop reason: brand_new"),
    ] {
        let server = MockServer::start().await;
        let mut events = wire::transcript_a1();
        let n = events.len();
        events[n - 2] = wire::message_delta(stop, 9);
        server.push(MockResponse::sse(events));
        let m = model(&server, "claude-sonnet-4-5");
        let events = collect(&m, &a1_context(), options()).await;
        let (reason, error) = final_error(&events);
        assert_eq!(reason, StopReason::Error, "{stop}");
        assert_eq!(error.error_message.as_deref(), Some(expected));
    }
}

#[tokio::test]
async fn empty_success_body_is_an_error() {
    let server = MockServer::start().await;
    server.push(MockResponse::sse(Vec::<String>::new()));
    let m = model(&server, "claude-sonnet-4-5");
    let events = collect(&m, &a1_context(), options()).await;
    assert_eq!(names(&events), ["start", "error"]);
    let (_, error) = final_error(&events);
    // pi 1.6's text for a stream that never began; rho says what the body was.
    assert_eq!(
        error.error_message.as_deref(),
        Some("Anthropic stream ended without a stop reason: the response body was empty")
    );
}
