//! The wire APIs a model's `api` field names: the ones rho speaks, and the ones pi 1.6's
//! catalog uses that rho does not speak yet. Those models are listed like any other, and a
//! request to one fails with [`Api::not_served_message`]; serving one later means a module
//! under `providers/` and its arm in [`crate::provider::stream`].

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
    /// Amazon Bedrock's Converse stream (not served yet).
    BedrockConverseStream,
    /// Google Vertex AI (not served yet).
    GoogleVertex,
    /// Azure OpenAI's Responses API (not served yet).
    AzureOpenAiResponses,
    /// Mistral's Conversations API (not served yet).
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
        )
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
    fn names_round_trip_and_five_are_served() {
        for api in Api::ALL {
            assert_eq!(Api::parse(api.as_str()), Some(api));
        }
        assert_eq!(Api::parse("openai-decisions"), None);
        assert_eq!(Api::served_names().len(), 5);
        assert!(!Api::BedrockConverseStream.is_served());
        assert_eq!(
            Api::BedrockConverseStream.not_served_message("amazon-bedrock", "x"),
            "rho does not speak the \"bedrock-converse-stream\" API yet (model \
             amazon-bedrock/x); pick a model of another API with /model or --model"
        );
    }
}
