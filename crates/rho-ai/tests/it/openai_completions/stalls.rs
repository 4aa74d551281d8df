//! Streams that stall (issue 17 #3): headers and then nothing, keep-alive comments and nothing
//! else, or a trickle past the overall limit all end as a retryable "timed out" error that
//! keeps what arrived.

use std::time::Duration;

use rho_ai::http::idle_message;
use rho_ai::{AssistantMessageEvent, StopReason, StreamOptions};
use rho_testkit::openai_chat::ChatStream;
use rho_testkit::server::{Chunk, MockResponse};
use rho_testkit::MockServer;

use super::common::*;

async fn run_with(server: &MockServer, opts: StreamOptions) -> Vec<AssistantMessageEvent> {
    let s = rho_ai::stream(&groq(&server.url()), &show_main_context(), opts).expect("starts");
    collect(s).await
}

fn assert_timed_out(events: &[AssistantMessageEvent], expected: &str) {
    let m = final_message(events);
    assert_eq!(m.stop_reason, StopReason::Error);
    let msg = m.error_message.as_deref().unwrap_or_default();
    assert!(msg.starts_with(expected), "{msg}");
    assert!(rho_ai::retry::is_retryable_error_text(msg), "{msg}");
}

#[tokio::test]
async fn headers_then_silence_ends_after_the_idle_timeout() {
    let server = MockServer::start().await;
    server.push(
        ChatStream::new("c", "m")
            .role()
            .text("Partial")
            .response_then_hang(),
    );
    let idle = Duration::from_millis(300);
    let opts = StreamOptions {
        idle_timeout: Some(idle),
        ..options("k")
    };
    let events = run_with(&server, opts).await;
    assert_timed_out(&events, &idle_message(idle));
    assert_eq!(final_message(&events).text(), "Partial");
}

#[tokio::test]
async fn keep_alive_comments_alone_do_not_count_as_progress() {
    let server = MockServer::start().await;
    let mut response = ChatStream::new("c", "m").role().response_then_hang();
    response.chunks.pop();
    for _ in 0..400 {
        response
            .chunks
            .push(Chunk::Bytes(http_chunk(b": keep-alive\n\n")));
        response
            .chunks
            .push(Chunk::Delay(Duration::from_millis(25)));
    }
    response.chunks.push(Chunk::Hang);
    server.push(response);
    let idle = Duration::from_millis(300);
    let opts = StreamOptions {
        idle_timeout: Some(idle),
        ..options("k")
    };
    let events = run_with(&server, opts).await;
    assert_timed_out(&events, &idle_message(idle));
}

#[tokio::test]
async fn a_trickle_that_never_ends_hits_the_overall_timeout() {
    let server = MockServer::start().await;
    let mut response: MockResponse = ChatStream::new("c", "m").role().response_then_hang();
    response.chunks.pop();
    let piece = ChatStream::new("c", "m").text("x").sse_text();
    for _ in 0..400 {
        response
            .chunks
            .push(Chunk::Bytes(http_chunk(piece.as_bytes())));
        response
            .chunks
            .push(Chunk::Delay(Duration::from_millis(25)));
    }
    response.chunks.push(Chunk::Hang);
    server.push(response);
    let opts = StreamOptions {
        timeout: Some(Duration::from_millis(500)),
        idle_timeout: Some(Duration::from_secs(30)),
        ..options("k")
    };
    let events = run_with(&server, opts).await;
    assert_timed_out(&events, "Request timed out");
    assert!(final_message(&events).text().starts_with('x'));
}

/// One HTTP/1.1 chunk.
fn http_chunk(bytes: &[u8]) -> Vec<u8> {
    let mut out = format!("{:x}\r\n", bytes.len()).into_bytes();
    out.extend_from_slice(bytes);
    out.extend_from_slice(b"\r\n");
    out
}
