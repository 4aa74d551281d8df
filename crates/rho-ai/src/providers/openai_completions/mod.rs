//! `openai-completions`: OpenAI Chat Completions and every server that speaks it (xAI, Groq,
//! Cerebras, OpenRouter, DeepSeek, z.ai, Moonshot, Ollama, vLLM, llama.cpp, LM Studio...).
//!
//! Servers differ in small ways; [`compat`] resolves those differences once per call, the
//! request side ([`request`], [`messages`]) and the stream side ([`parse`]) only read flags.

pub mod compat;
pub mod messages;
pub mod parse;
pub mod request;

use crate::message::Context;
use crate::model::Model;
use crate::options::StreamOptions;
use crate::provider::HttpRequest;

pub use parse::Parser;

/// Builds the `POST {baseUrl}/chat/completions` request for one call.
pub fn build_request(model: &Model, context: &Context, options: &StreamOptions) -> HttpRequest {
    request::build(model, context, options)
}

/// The error text for an HTTP failure: `<status> <error.message>`, the raw body when it is
/// not JSON, `<status> status code (no body)` when empty (providers spec §3.0).
pub fn error_message(status: u16, body: &str) -> String {
    crate::provider::openai_style_error(status, body)
}
