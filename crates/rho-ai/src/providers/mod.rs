//! One module per wire API.

pub mod anthropic;
pub mod azure;
pub mod bedrock;
pub mod google;
pub mod mistral;
pub mod openai_codex;
pub mod openai_completions;
pub mod openai_responses;
pub mod vertex;

/// An error with its causes, `: `-separated (a cause already in the text is not repeated).
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let next = s.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = s.source();
    }
    text
}
