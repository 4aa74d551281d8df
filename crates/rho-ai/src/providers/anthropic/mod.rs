//! The `anthropic-messages` wire API (providers spec §3.1): Anthropic itself and every server
//! that speaks its dialect (MiniMax, Kimi For Coding, Fireworks, Copilot's Claude models...).
//!
//! [`build_request`] is pure and snapshot-tested; [`Parser`] folds the SSE reply into a
//! [`crate::reply::ReplyBuilder`]; [`error_message`] renders HTTP failures the way the
//! Anthropic SDK does, which the context-overflow patterns of spec §5 are written against.

mod convert;
mod fast_delta;
mod parse;
mod request;

pub use parse::Parser;
pub(crate) use request::adaptive_effort;
pub use request::{build_request, is_adaptive_model, is_oauth_token};

/// The error text for an HTTP failure: `<status> <entire JSON body as compact text>`, the raw
/// text for a non-JSON body, `<status> status code (no body)` for an empty one (spec §3.0).
pub fn error_message(status: u16, body: &str) -> String {
    let trimmed = body.trim();
    if trimmed.is_empty() {
        return format!("{status} status code (no body)");
    }
    if let Some(compact) = crate::provider::compact_json(trimmed) {
        return format!("{status} {compact}");
    }
    format!("{status} {trimmed}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_text_is_status_and_compact_body_in_original_order() {
        let body = "{ \"type\": \"error\",\n \"error\": {\"type\": \"api_error\", \"message\": \"a  b\\\" c\"}}";
        assert_eq!(
            error_message(500, body),
            "500 {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"a  b\\\" c\"}}"
        );
    }

    #[test]
    fn error_text_for_empty_and_non_json_bodies() {
        assert_eq!(error_message(502, ""), "502 status code (no body)");
        assert_eq!(error_message(502, "Bad gateway\n"), "502 Bad gateway");
    }
}
