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

/// models.json's `samplingParams` and `samplingParamsByThinkingLevel` for the request's
/// thinking level, written over `body` last so they win over the fields the builder set, as
/// pi 1.6 does for its OpenAI-compatible APIs (Chat Completions, Responses, Azure).
pub(crate) fn merge_sampling_params(
    model: &crate::model::Model,
    options: &crate::options::StreamOptions,
    body: &mut serde_json::Value,
) {
    let level = options.thinking().unwrap_or_default();
    if let (Some(params), Some(obj)) = (model.sampling_params_for(level), body.as_object_mut()) {
        obj.extend(params);
    }
}
