//! One model call on an extension's behalf (pi's `ctx.modelRegistry.complete`): any known
//! model, the session's credentials and stream function, no tools, nothing recorded in the
//! session. custom-compaction uses it to write its own summary with another model.

use rho_ai::options::StreamOptions;
use rho_ai::{AssistantMessage, Context};

use super::AgentSession;

/// Why an extension's completion could not start; the text is answered to the extension.
#[derive(Debug, thiserror::Error)]
pub enum CompleteError {
    /// No model of that provider and id is known.
    #[error("complete: no model {provider}/{model_id}")]
    NoModel {
        /// The provider asked for.
        provider: String,
        /// The model id asked for.
        model_id: String,
    },
    /// The credential store could not give a key.
    #[error("complete: {0}")]
    Credentials(#[source] super::CredentialError),
    /// The provider call could not start (no key, unsupported API, bad configuration).
    #[error("complete: {0}")]
    Start(#[source] rho_ai::ProviderError),
}

impl AgentSession {
    /// Asks `provider`/`model_id` for one reply to `context`; an error reply is returned as
    /// the message pi would return (`stopReason: "error"`), a call that cannot start as `Err`.
    pub async fn complete_for_extension(
        &self,
        provider: &str,
        model_id: &str,
        context: Context,
        max_tokens: Option<u64>,
    ) -> Result<AssistantMessage, CompleteError> {
        let model = self
            .inner
            .services
            .models
            .get()
            .iter()
            .find(|m| m.provider == provider && m.id == model_id)
            .cloned()
            .ok_or_else(|| CompleteError::NoModel {
                provider: provider.to_string(),
                model_id: model_id.to_string(),
            })?;
        let api_key = self
            .inner
            .services
            .credentials
            .request_key(provider)
            .await
            .map_err(CompleteError::Credentials)?;
        let options = StreamOptions {
            api_key,
            max_tokens,
            ..Default::default()
        };
        let stream = (self.inner.services.stream_fn)(&model, &context, options)
            .map_err(CompleteError::Start)?;
        Ok(stream.result().await)
    }
}
