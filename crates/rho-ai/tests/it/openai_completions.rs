//! `openai-completions` provider tests: stream behaviour over real HTTP against the mock
//! server, and snapshot tests of request bodies per server flavour.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "openai_completions/common.rs"]
mod common;
#[path = "openai_completions/failures.rs"]
mod failures;
#[path = "openai_completions/request.rs"]
mod request;
#[path = "openai_completions/stalls.rs"]
mod stalls;
#[path = "openai_completions/stream.rs"]
mod stream;
