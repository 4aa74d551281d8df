//! Chat Completions calls that fail: HTTP errors, broken or cut streams, odd endings, aborts.

use std::time::Duration;

use rho_ai::{AssistantMessageEvent, ContentBlock, StopReason};
use rho_testkit::openai_chat::{self, ChatStream};
use rho_testkit::MockServer;

use super::common::*;

#[tokio::test]
async fn http_errors_give_one_error_event_with_the_exact_message() {
    let cases = [
        (openai_chat::error(429, openai_chat::ERROR_RATE_LIMIT), "429 Rate limit reached for gpt-4o in organization org-test on tokens per min (TPM): Limit 30000, Used 29500, Requested 1200. Please try again in 1.4s. Visit https://platform.openai.com/account/rate-limits to learn more."),
        (openai_chat::error(500, openai_chat::ERROR_SERVER), "500 The server had an error while processing your request. Sorry about that!"),
        (openai_chat::error(401, openai_chat::ERROR_INVALID_KEY), "401 Incorrect API key provided: sk-bad. You can find your API key at https://platform.openai.com/account/api-keys."),
        (openai_chat::error(400, openai_chat::ERROR_CONTEXT_LENGTH), "400 This model's maximum context length is 128000 tokens. However, your messages resulted in 140563 tokens. Please reduce the length of the messages."),
        (openai_chat::error(400, r#"{"error":{"message":"This model's maximum context length is 131072 tokens. However, you requested 140000 tokens.","type":"invalid_request_error"}}"#), "400 This model's maximum context length is 131072 tokens. However, you requested 140000 tokens."),
        (openai_chat::empty_error(413), "413 status code (no body)"),
        (openai_chat::empty_error(400), "400 status code (no body)"),
        (openai_chat::html_error(502, openai_chat::ERROR_HTML_BAD_GATEWAY), "502 <html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"),
    ];
    for (response, message) in cases {
        let server = MockServer::start().await;
        server.push(response);
        let events = run(&groq(&server.url())).await;
        assert_eq!(trace(&events), ["error(error)"], "{message}");
        let m = final_message(&events);
        assert_eq!(m.error_message.as_deref(), Some(message));
        assert_eq!(m.stop_reason, StopReason::Error);
        assert!(m.content.is_empty());
    }
}

#[tokio::test]
async fn invalid_json_chunk_fails_clearly_and_keeps_the_text() {
    let server = MockServer::start().await;
    let stream = ChatStream::new("c", "m")
        .text("Hel")
        .data("{\"id\":\"c\",\"choices\":[{\"delta\":{\"content\":\"lo")
        .text("never seen")
        .done();
    server.push(stream.response());
    let events = run(&groq(&server.url())).await;
    assert_eq!(
        trace(&events),
        [
            "start",
            "text_start(0)",
            "text_delta(0,Hel)",
            "error(error)"
        ]
    );
    let m = final_message(&events);
    let msg = m.error_message.as_deref().expect("message");
    assert!(
        msg.starts_with("Invalid JSON in Chat Completions stream chunk ("),
        "{msg}"
    );
    assert!(msg.contains("the server sent: {\"id\":\"c\""), "{msg}");
    assert_eq!(m.text(), "Hel");
}

#[tokio::test]
async fn error_object_inside_the_stream_fails_with_its_message() {
    let server = MockServer::start().await;
    let stream = ChatStream::new("gen-1", "m")
        .text("Partial")
        .data(openai_chat::STREAM_ERROR_CHUNK)
        .done();
    server.push(stream.response());
    let events = run(&groq(&server.url())).await;
    assert_eq!(
        trace(&events).last().map(String::as_str),
        Some("error(error)")
    );
    let m = final_message(&events);
    assert_eq!(
        m.error_message.as_deref(),
        Some("Upstream provider returned an error: overloaded")
    );
    assert_eq!(m.text(), "Partial");
}

#[tokio::test]
async fn connection_dropped_mid_stream_is_an_error_that_keeps_content() {
    let server = MockServer::start().await;
    let stream = ChatStream::new("c", "m")
        .text("Hello")
        .tool_call_start(0, "call_a", "read")
        .tool_args(0, "{\"path\": \"a");
    server.push(stream.response_then_drop());
    let events = run(&groq(&server.url())).await;
    let t = trace(&events);
    assert_eq!(t.last().map(String::as_str), Some("error(error)"));
    assert!(
        !t.iter()
            .any(|e| e.starts_with("text_end") || e.starts_with("toolcall_end")),
        "{t:?}"
    );
    let m = final_message(&events);
    let msg = m.error_message.as_deref().expect("message");
    assert!(msg.starts_with("Connection lost while streaming"), "{msg}");
    assert_eq!(m.text(), "Hello");
    assert!(matches!(&m.content[1], ContentBlock::ToolCall(tc) if tc.id == "call_a"));
}

#[tokio::test]
async fn stream_cut_off_without_finish_reason_or_done_is_a_retryable_error() {
    // Issue 17 #9: a body that ends with neither finish_reason nor [DONE] was cut off; it is
    // a retryable error that keeps the partial text, never a complete answer.
    let server = MockServer::start().await;
    server.push(ChatStream::new("c", "m").text("Hi").response());
    let events = run(&groq(&server.url())).await;
    // The text block ends before the error, as in pi, whose provider ends every block once
    // the body is over.
    assert_eq!(
        trace(&events),
        [
            "start",
            "text_start(0)",
            "text_delta(0,Hi)",
            "text_end(0,Hi)",
            "error(error)"
        ]
    );
    let m = final_message(&events);
    let msg = m.error_message.as_deref().expect("message");
    assert_eq!(msg, "Stream ended without finish_reason");
    assert!(rho_ai::retry::is_retryable_error_text(msg));
    assert_eq!(m.text(), "Hi");

    // [DONE] without a finish_reason was cut short too, as in pi 1.6 (same text, the block
    // ended first)...
    let server = MockServer::start().await;
    server.push(ChatStream::new("c", "m").text("Hi").done().response());
    let events = run(&groq(&server.url())).await;
    assert_eq!(
        trace(&events)[3..],
        ["text_end(0,Hi)".to_string(), "error(error)".to_string()]
    );
    let m = final_message(&events);
    assert_eq!(
        m.error_message.as_deref(),
        Some("Stream ended without finish_reason")
    );

    // ...unless the model's compat says the server sends none: then it is whole, with or
    // without [DONE], and its stop reason is inferred (a tool call: toolUse).
    let mut quiet = groq(&server.url());
    quiet.compat = Some(rho_ai::ModelCompat {
        supports_finish_reason: Some(false),
        ..Default::default()
    });
    for ending in [true, false] {
        let server = MockServer::start().await;
        let stream = ChatStream::new("c", "m").text("Hi");
        server.push(if ending { stream.done() } else { stream }.response());
        quiet.base_url = server.url();
        let events = run(&quiet).await;
        assert_eq!(
            trace(&events).last().map(String::as_str),
            Some("done(stop)")
        );
    }
    let server = MockServer::start().await;
    server.push(
        ChatStream::new("c", "m")
            .tool_call_start(0, "call_1", "read")
            .tool_args(0, "{}")
            .done()
            .response(),
    );
    quiet.base_url = server.url();
    let events = run(&quiet).await;
    assert_eq!(
        trace(&events).last().map(String::as_str),
        Some("done(toolUse)")
    );

    // finish_reason without [DONE] is honoured.
    let server = MockServer::start().await;
    server.push(
        ChatStream::new("c", "m")
            .text("Hi")
            .finish("length")
            .response(),
    );
    let events = run(&groq(&server.url())).await;
    assert_eq!(
        trace(&events).last().map(String::as_str),
        Some("done(length)")
    );
    assert_eq!(final_message(&events).stop_reason, StopReason::Length);
}

#[tokio::test]
async fn unknown_finish_reason_closes_blocks_then_fails() {
    let server = MockServer::start().await;
    server.push(
        ChatStream::new("c", "m")
            .text("Some")
            .finish("content_filter")
            .done()
            .response(),
    );
    let events = run(&groq(&server.url())).await;
    assert_eq!(
        trace(&events),
        [
            "start",
            "text_start(0)",
            "text_delta(0,Some)",
            "text_end(0,Some)",
            "error(error)"
        ]
    );
    let m = final_message(&events);
    assert_eq!(
        m.error_message.as_deref(),
        Some("Provider finish_reason: content_filter")
    );
    assert_eq!(m.text(), "Some");
}

#[tokio::test]
async fn events_after_done_marker_are_ignored() {
    let server = MockServer::start().await;
    server.push(
        ChatStream::new("c", "m")
            .text("A")
            .finish("stop")
            .done()
            .text("B")
            .response(),
    );
    let events = run(&groq(&server.url())).await;
    assert_eq!(final_message(&events).text(), "A");
}

#[tokio::test]
async fn abort_mid_stream_ends_aborted_and_closes_the_connection() {
    let server = MockServer::start().await;
    server.push(
        ChatStream::new("c", "m")
            .role()
            .text("Partial answer")
            .response_then_hang(),
    );
    let opts = options("k");
    let cancel = opts.cancel.clone();
    let mut s = rho_ai::stream(&groq(&server.url()), &show_main_context(), opts).expect("starts");
    let mut events = Vec::new();
    let first_text = async {
        while let Some(e) = s.next().await {
            let is_delta = matches!(e, AssistantMessageEvent::TextDelta { .. });
            events.push(e);
            if is_delta {
                return;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), first_text)
        .await
        .expect("text arrives");
    cancel.cancel();
    events.extend(collect(s).await);
    assert_eq!(
        trace(&events),
        [
            "start",
            "text_start(0)",
            "text_delta(0,Partial answer)",
            // pi's openai-completions ends open blocks on abort (issue 18.7).
            "text_end(0,Partial answer)",
            "error(aborted)"
        ]
    );
    let m = final_message(&events);
    assert_eq!(m.stop_reason, StopReason::Aborted);
    assert_eq!(m.text(), "Partial answer");
    tokio::time::timeout(Duration::from_secs(5), server.wait_for_closed(1))
        .await
        .expect("connection closed promptly after abort");
}

#[tokio::test]
async fn a_body_without_any_data_chunk_is_a_clear_error() {
    let server = MockServer::start().await;
    server.push(openai_chat::non_streaming_completion());
    let events = run(&groq(&server.url())).await;
    assert_eq!(trace(&events), ["start", "error(error)"]);
    let m = final_message(&events);
    let msg = m.error_message.as_deref().expect("message");
    assert!(
        msg.starts_with(
            "Stream ended without finish_reason: the response held no server-sent events \
             (it began: \"{\\\"id\\\":"
        ),
        "{msg}"
    );
    assert!(msg.ends_with("check that the model's baseUrl points to this API's streaming endpoint"));
}

/// pi 1.6's `retry.provider.maxRetries`: a request that fails before its stream starts with a
/// retryable status is sent again, so `1 + maxRetries` requests at most; a status that is not
/// worth retrying (or `x-should-retry: false`) is sent once; a server's `retry-after` longer
/// than `maxRetryDelayMs` fails at once with pi's text.
#[tokio::test]
async fn provider_retries_send_exactly_one_plus_max_retries_requests() {
    let call = |server: &MockServer, max_retries: u32, max_delay: Option<u64>| {
        let options = rho_ai::StreamOptions {
            max_retries,
            max_retry_delay_ms: max_delay,
            ..options("sk-test")
        };
        let stream = rho_ai::stream(&groq(&server.url()), &show_main_context(), options)
            .expect("stream starts");
        collect(stream)
    };
    let server = MockServer::start().await;
    for _ in 0..3 {
        server
            .push(openai_chat::error(503, openai_chat::ERROR_SERVER).header("retry-after-ms", "1"));
    }
    let events = call(&server, 2, None).await;
    let m = final_message(&events);
    assert_eq!(server.requests().len(), 3, "1 + 2 requests");
    assert_eq!(m.stop_reason, StopReason::Error);

    let server = MockServer::start().await;
    server.push(openai_chat::error(429, openai_chat::ERROR_RATE_LIMIT).header("retry-after", "0"));
    server.push(openai_chat::text_reply().response());
    let events = call(&server, 1, None).await;
    let m = final_message(&events);
    assert_eq!(server.requests().len(), 2);
    assert_eq!(m.stop_reason, StopReason::Stop, "{:?}", m.error_message);

    let server = MockServer::start().await;
    server.push(openai_chat::error(400, openai_chat::ERROR_CONTEXT_LENGTH));
    server.push(openai_chat::error(503, "{}").header("x-should-retry", "false"));
    call(&server, 3, None).await;
    call(&server, 3, None).await;
    assert_eq!(server.requests().len(), 2, "neither is retried");

    let server = MockServer::start().await;
    server
        .push(openai_chat::error(429, openai_chat::ERROR_RATE_LIMIT).header("retry-after", "120"));
    let events = call(&server, 3, Some(60_000)).await;
    assert_eq!(server.requests().len(), 1);
    let error = final_message(&events)
        .error_message
        .clone()
        .unwrap_or_default();
    assert!(
        error.starts_with("Server requested 120s retry delay (max: 60s). 429 Rate limit"),
        "{error}"
    );
}
