//! Test support shared by every rho crate: [`MockServer`], an HTTP/1.1 server on 127.0.0.1
//! that replays scripted responses (SSE streams as the real APIs send them, HTTP errors with
//! the providers' real error bodies, delays, dropped connections, malformed bytes) and records
//! every request so tests can assert on what was sent; and [`scripted::ScriptedProvider`], an
//! in-memory provider that plays scripted replies through rho-ai's own reply builder.
// Test support only: a set-up that cannot work should fail the test that asked for it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod anthropic;
pub mod bedrock;
pub mod faults;
pub mod gate;
pub mod git;
pub mod google;
pub mod json;
pub mod mistral;
pub mod oauth;
pub mod openai_chat;
pub mod openai_responses;
pub mod own_process;
pub mod pi16;
pub mod replies;
pub mod scripted;
pub mod server;

pub use gate::Gate;
pub use server::{Chunk, MockResponse, MockServer, RecordedRequest};

/// One SSE event as bytes: optional `event:` line, one `data:` line per line of `data`, blank line.
pub fn sse_event(event: Option<&str>, data: &str) -> String {
    let mut out = String::new();
    if let Some(name) = event {
        out.push_str("event: ");
        out.push_str(name);
        out.push('\n');
    }
    for line in data.split('\n') {
        out.push_str("data: ");
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
    out
}
