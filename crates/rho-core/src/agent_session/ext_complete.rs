//! One model call on an extension's behalf (pi's `ctx.modelRegistry.complete`): any known
//! model, the session's credentials and stream function, no tools, nothing recorded in the
//! session. custom-compaction uses it to write its own summary with another model.

use rho_ai::options::StreamOptions;
use rho_ai::{AssistantMessage, Context};

use super::AgentSession;

impl AgentSession {
    /// Asks `provider`/`model_id` for one reply to `context`; an error reply is returned as
    /// the message pi would return (`stopReason: "error"`), a call that cannot start as `Err`.
    pub async fn complete_for_extension(
        &self,
        provider: &str,
        model_id: &str,
        context: Context,
        max_tokens: Option<u64>,
    ) -> Result<AssistantMessage, String> {
        let model = self
            .inner
            .models
            .iter()
            .find(|m| m.provider == provider && m.id == model_id)
            .cloned()
            .ok_or_else(|| format!("complete: no model {provider}/{model_id}"))?;
        let api_key = self
            .inner
            .credentials
            .api_key(provider)
            .map_err(|e| format!("complete: {e}"))?;
        let options = StreamOptions {
            api_key,
            max_tokens,
            ..Default::default()
        };
        let stream = (self.inner.stream_fn)(&model, &context, options)
            .map_err(|e| format!("complete: {e}"))?;
        Ok(stream.result().await)
    }
}
