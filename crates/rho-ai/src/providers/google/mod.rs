//! Google Gemini API (`google-generative-ai`, providers spec §3.4).
//!
//! [`build_request`] turns a context into the `streamGenerateContent` request (pure,
//! snapshot-tested); [`Parser`] folds the streamed `GenerateContentResponse` chunks into the
//! reply.

mod contents;
mod parser;
mod request;
mod thinking;

pub use parser::Parser;
pub use request::build_request;

/// The error text for an HTTP failure: Google's JSON error body as compact text. A body
/// that is not JSON gives `<status> <text>`, an empty one `<status> status code (no body)`.
pub fn error_message(status: u16, body: &str) -> String {
    if body.trim().is_empty() {
        return format!("{status} status code (no body)");
    }
    match crate::provider::compact_json(body) {
        Some(compact) => compact,
        None => format!("{status} {body}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_error_bodies_become_compact_in_original_key_order() {
        let body = "{\n  \"error\": {\n    \"status\": \"X\",\n    \"code\": 400,\n    \"message\": \"a  b \\\" c\"\n  }\n}\n";
        assert_eq!(
            error_message(400, body),
            r#"{"error":{"status":"X","code":400,"message":"a  b \" c"}}"#
        );
        assert_eq!(
            error_message(502, "<html>oops</html>"),
            "502 <html>oops</html>"
        );
        assert_eq!(error_message(500, "  "), "500 status code (no body)");
    }
}
