//! OpenAI Responses API (`openai-responses`, providers spec §3.3).
//!
//! [`build_request`] turns a context into the `/responses` request (pure, snapshot-tested);
//! [`Parser`] folds the `response.*` SSE events into the reply.

mod input;
mod parser;
mod request;

pub use parser::Parser;
pub use request::{build_request, build_request_without_sampling};

/// The error text for an HTTP failure: OpenAI style, `<status> <error.message>`.
pub fn error_message(status: u16, body: &str) -> String {
    crate::provider::openai_style_error(status, body)
}

pub use crate::tool_call_id::short_hash;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_hash_is_stable_short_and_input_sensitive() {
        let a = short_hash("msg_0123456789");
        assert_eq!(a, short_hash("msg_0123456789"));
        assert_ne!(a, short_hash("msg_0123456780"));
        assert!(a.len() <= 14 && a.chars().all(|c| c.is_ascii_alphanumeric()));
    }

    #[test]
    fn short_hash_matches_the_reference_values() {
        // Values computed with pi's JavaScript function (UTF-16 units, Math.imul).
        assert_eq!(short_hash("msg_0123456789"), "hs84zn1di0mw7");
        assert_eq!(short_hash(&"x".repeat(80)), "myu01d14yvyzp");
        assert_eq!(short_hash("é😀"), "102l7zrk951la");
    }
}
