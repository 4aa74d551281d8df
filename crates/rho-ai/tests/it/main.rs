//! rho-ai's integration tests as one binary: each module is a former `tests/<name>.rs` (with
//! its folder of submodules where it has one).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod anthropic;
mod azure;
mod bedrock;
mod bedrock_credentials;
mod ended_early;
mod error_body_cap;
mod google;
mod llama;
mod mistral;
mod oauth_requests;
mod openai_completions;
mod openai_responses;
mod overflow_over_http;
mod pi1_reply_fields;
mod properties;
mod types_roundtrip;
mod vertex;
