//! Placeholder until the wire API lands: requests fail with a clear error event.

use crate::message::Context;
use crate::model::Model;
use crate::options::StreamOptions;
use crate::provider::{Flow, HttpRequest, WireParser};
use crate::reply::ReplyBuilder;
use crate::sse::SseEvent;
use crate::usage::StopReason;

/// Builds the request.
pub fn build_request(model: &Model, _context: &Context, _options: &StreamOptions) -> HttpRequest {
    HttpRequest {
        url: model.base_url.clone(),
        headers: Vec::new(),
        body: serde_json::Value::Null,
    }
}

/// The stream parser.
pub struct Parser;

impl Parser {
    /// A parser for `model`.
    pub fn new(_model: &Model) -> Self {
        Parser
    }
}

impl WireParser for Parser {
    fn on_event(&mut self, _event: SseEvent, _reply: &mut ReplyBuilder) -> Result<Flow, String> {
        Err("this API is not implemented yet".into())
    }
    fn finish(&mut self, _reply: &mut ReplyBuilder) -> Result<StopReason, String> {
        Err("this API is not implemented yet".into())
    }
}

/// The error text for an HTTP failure.
pub fn error_message(status: u16, body: &str) -> String {
    crate::provider::openai_style_error(status, body)
}
