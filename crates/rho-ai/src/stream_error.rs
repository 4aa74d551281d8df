//! Why a provider's reply stream ended in an error once the HTTP exchange had started.
//!
//! The text of each variant is the assistant message's `errorMessage`, which sessions store
//! and RPC clients read, so the texts follow pi's wording exactly; the enum keeps the cause
//! (the JSON error) reachable through `source()` for callers that want more than the text.

/// A reply stream's terminal error, as a [`crate::provider::WireParser`] reports it.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// An Anthropic event's data was not JSON, even after repairing control characters.
    #[error("Invalid JSON in Anthropic stream event {event}: {source}. Data: {data}")]
    AnthropicJson {
        /// The SSE event name.
        event: String,
        /// The first 200 characters of the data.
        data: String,
        /// The parse error on the unrepaired text.
        source: serde_json::Error,
    },
    /// A Gemini chunk was not JSON.
    #[error("Invalid JSON in Gemini stream chunk ({source}): {data}")]
    GeminiJson {
        /// The first 200 characters of the chunk.
        data: String,
        /// The parse error.
        source: serde_json::Error,
    },
    /// An OpenAI Responses event was not JSON.
    #[error("Invalid JSON in Responses stream event ({source}): {data}")]
    ResponsesJson {
        /// The start of the event's data.
        data: String,
        /// The parse error.
        source: serde_json::Error,
    },
    /// A Chat Completions chunk was not JSON.
    #[error("Invalid JSON in Chat Completions stream chunk ({source}); the server sent: {data}")]
    CompletionsJson {
        /// The start of the chunk.
        data: String,
        /// The parse error.
        source: serde_json::Error,
    },
    /// A Mistral chunk was not JSON.
    #[error("Invalid JSON in Mistral stream chunk ({source}); the server sent: {data}")]
    MistralJson {
        /// The start of the chunk.
        data: String,
        /// The parse error.
        source: serde_json::Error,
    },
    /// A Bedrock event's payload was not JSON.
    #[error("Invalid JSON in Bedrock stream event {event} ({source}): {data}")]
    BedrockJson {
        /// The event type.
        event: String,
        /// The start of the payload.
        data: String,
        /// The parse error.
        source: serde_json::Error,
    },
    /// The provider reported an error inside the stream; the text is the provider's.
    #[error("{0}")]
    Provider(String),
    /// The body ended before the API's terminal event (Anthropic `message_stop`, a Chat
    /// Completions `finish_reason` or `[DONE]`, a Responses `response.completed`, a Gemini
    /// `finishReason`): the reply is incomplete, whatever it holds so far. `text` is pi 1.6's
    /// for the API ("ended without"/"stream ended before ..." make it retryable there and
    /// here); when the body held no event at all, what it held follows.
    #[error("{text}{}", no_events.as_ref().map(|n| format!(": {n}")).unwrap_or_default())]
    EndedEarly {
        /// pi's text for the API.
        text: &'static str,
        /// Set when not one SSE event arrived.
        no_events: Option<crate::sse::NoEvents>,
    },
    /// The provider stopped for a reason that is itself an error (refusal, safety) without
    /// saying more.
    #[error("An unknown error occurred")]
    Unknown,
    /// Anthropic sent a `stop_reason` this version does not know.
    #[error("Unhandled stop reason: {0}")]
    UnhandledStopReason(String),
    /// A Chat Completions server sent a `finish_reason` that is not a normal stop.
    #[error("Provider finish_reason: {0}")]
    FinishReason(String),
    /// An OpenAI response ended `failed` or `cancelled`.
    #[error("Response ended with status \"{0}\"; try the request again")]
    ResponseStatus(String),
}
