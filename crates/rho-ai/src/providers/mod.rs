//! One module per wire API.

pub mod anthropic;
pub mod google;
pub mod openai_codex;
pub mod openai_completions;
pub mod openai_responses;
