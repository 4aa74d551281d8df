//! The wire APIs a model's `api` field names: the ones rho speaks, and the ones pi 1.6's
//! catalog uses that rho does not speak yet (only the Radius gateway's `pi-messages` now).
//! Those models are listed like any other, and a request to one fails with
//! [`Api::not_served_message`]; serving one later means a module under `providers/` and its
//! arm in [`crate::provider::stream`].

/// A wire API pi 1.6 knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Api {
    /// Anthropic Messages.
    AnthropicMessages,
    /// OpenAI Chat Completions and compatible servers.
    OpenAiCompletions,
    /// OpenAI Responses.
    OpenAiResponses,
    /// The ChatGPT backend's Responses endpoint (Codex subscriptions).
    OpenAiCodexResponses,
    /// Google Gemini.
    GoogleGenerativeAi,
    /// Amazon Bedrock's Converse stream.
    BedrockConverseStream,
    /// Google Vertex AI (Gemini on Google Cloud).
    GoogleVertex,
    /// Azure OpenAI's Responses API.
    AzureOpenAiResponses,
    /// Mistral's chat completions (pi's `mistral-conversations`).
    MistralConversations,
    /// The Radius gateway's protocol (not served yet).
    PiMessages,
}

impl Api {
    /// Every API, served ones first.
    pub const ALL: [Api; 10] = [
        Api::AnthropicMessages,
        Api::OpenAiCompletions,
        Api::OpenAiResponses,
        Api::OpenAiCodexResponses,
        Api::GoogleGenerativeAi,
        Api::BedrockConverseStream,
        Api::GoogleVertex,
        Api::AzureOpenAiResponses,
        Api::MistralConversations,
        Api::PiMessages,
    ];

    /// The name a model's `api` field uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Api::AnthropicMessages => "anthropic-messages",
            Api::OpenAiCompletions => "openai-completions",
            Api::OpenAiResponses => "openai-responses",
            Api::OpenAiCodexResponses => "openai-codex-responses",
            Api::GoogleGenerativeAi => "google-generative-ai",
            Api::BedrockConverseStream => "bedrock-converse-stream",
            Api::GoogleVertex => "google-vertex",
            Api::AzureOpenAiResponses => "azure-openai-responses",
            Api::MistralConversations => "mistral-conversations",
            Api::PiMessages => "pi-messages",
        }
    }

    /// Parses a model's `api` field; `None` for a name pi 1.6 does not use either.
    pub fn parse(api: &str) -> Option<Api> {
        Api::ALL.into_iter().find(|a| a.as_str() == api)
    }

    /// Whether rho can send requests in this API.
    pub fn is_served(self) -> bool {
        matches!(
            self,
            Api::AnthropicMessages
                | Api::OpenAiCompletions
                | Api::OpenAiResponses
                | Api::OpenAiCodexResponses
                | Api::GoogleGenerativeAi
                | Api::BedrockConverseStream
                | Api::GoogleVertex
                | Api::AzureOpenAiResponses
                | Api::MistralConversations
        )
    }

    /// Whether a call needs a key: Bedrock and Vertex can sign with the cloud's own
    /// credentials (the AWS chain, Application Default Credentials) instead.
    pub fn needs_key(self) -> bool {
        !matches!(self, Api::GoogleVertex | Api::BedrockConverseStream)
    }

    /// The APIs rho serves, for messages.
    pub fn served_names() -> Vec<&'static str> {
        Api::ALL
            .into_iter()
            .filter(|a| a.is_served())
            .map(Api::as_str)
            .collect()
    }

    /// What a request to `provider/model` in an unserved API says.
    pub fn not_served_message(self, provider: &str, model: &str) -> String {
        format!(
            "rho does not speak the \"{}\" API yet (model {provider}/{model}); pick a model of \
             another API with /model or --model",
            self.as_str()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_all_but_pi_messages_are_served() {
        for api in Api::ALL {
            assert_eq!(Api::parse(api.as_str()), Some(api));
        }
        assert_eq!(Api::parse("openai-decisions"), None);
        assert_eq!(Api::served_names().len(), 9);
        assert!(Api::BedrockConverseStream.is_served() && !Api::PiMessages.is_served());
        assert!(!Api::BedrockConverseStream.needs_key() && !Api::GoogleVertex.needs_key());
        assert!(Api::AzureOpenAiResponses.needs_key());
        assert_eq!(
            Api::PiMessages.not_served_message("radius", "x"),
            "rho does not speak the \"pi-messages\" API yet (model \
             radius/x); pick a model of another API with /model or --model"
        );
    }
}
