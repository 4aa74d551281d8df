//! Building the summarisation requests (pure) and running them through a stream function
//! (COMP-19). The stream function is injected so tests and other callers can route the call
//! (a scripted stream, a mock server, a different provider stack).

use std::sync::Arc;

use rho_agent::{convert_to_llm, AgentMessage, StreamFn};
use rho_ai::{
    Context, Message, Model, StopReason, StreamOptions, ThinkingLevel, Usage, UserMessage,
};
use tokio_util::sync::CancellationToken;

use super::error::CompactionError;
use super::prompts;
use super::retry::{RetryEvent, SummaryRetry};
use super::serialize::serialize_conversation;

/// The default stream function (the agent's own type), `rho_ai::stream`.
pub fn default_stream_fn() -> StreamFn {
    Arc::new(rho_ai::stream)
}

/// Who summarises and how: the model, its key, the session's thinking level, the abort
/// signal, and the stream function that performs the call.
#[derive(Clone)]
pub struct Summarizer {
    /// The model that writes the summary (the session's current model).
    pub model: Model,
    /// The API key (`None`: the provider's environment variables).
    pub api_key: Option<String>,
    /// The session's thinking level; passed as reasoning when the model reasons and it is
    /// not `off`.
    pub thinking: ThinkingLevel,
    /// Aborts the summarisation.
    pub cancel: CancellationToken,
    /// Performs the call.
    pub stream: StreamFn,
    /// Whether and how a failed request is sent again.
    pub retry: SummaryRetry,
}

impl Summarizer {
    /// A summariser using `rho_ai::stream`, no explicit key, thinking off.
    pub fn new(model: Model) -> Self {
        Self {
            model,
            api_key: None,
            thinking: ThinkingLevel::Off,
            cancel: CancellationToken::new(),
            stream: default_stream_fn(),
            retry: SummaryRetry::default(),
        }
    }

    /// The options of one summarisation call.
    pub fn options(&self, max_tokens: u64, with_reasoning: bool) -> StreamOptions {
        let reasoning =
            (with_reasoning && self.model.reasoning && self.thinking != ThinkingLevel::Off)
                .then_some(self.thinking);
        StreamOptions {
            api_key: self.api_key.clone(),
            max_tokens: Some(max_tokens),
            reasoning,
            cancel: self.cancel.clone(),
            ..Default::default()
        }
    }

    /// Runs one request and returns the reply's text blocks joined with newlines.
    /// `error` replies become `Err(label(message or "Unknown error"))`; `aborted` replies
    /// and a cancelled signal become [`CompactionError::Cancelled`].
    pub async fn complete(
        &self,
        context: &Context,
        options: StreamOptions,
        label: fn(String) -> CompactionError,
    ) -> Result<String, CompactionError> {
        Ok(self.complete_with_usage(context, options, label).await?.0)
    }

    /// [`Self::complete`], with the call's usage (pi 1.x records what summaries cost). A
    /// failure worth retrying is retried as [`Summarizer::retry`] allows.
    pub async fn complete_with_usage(
        &self,
        context: &Context,
        options: StreamOptions,
        label: fn(String) -> CompactionError,
    ) -> Result<(String, Usage), CompactionError> {
        let mut attempt = 0;
        loop {
            let outcome = self.complete_once(context, options.clone()).await;
            let error = match outcome {
                Err(Attempt::Failed(error)) => error,
                other => {
                    if attempt > 0 {
                        self.retry.report(RetryEvent::Finished);
                    }
                    return other.map_err(|e| e.into_error(label));
                }
            };
            attempt += 1;
            let Some(delay) = self.retry.delay(attempt, &error) else {
                if attempt > 1 {
                    self.retry.report(RetryEvent::Finished);
                }
                return Err(label(error));
            };
            self.retry.report(RetryEvent::Scheduled {
                attempt,
                max_attempts: self.retry.max_attempts(),
                delay_ms: delay.as_millis() as u64,
                error_message: error,
            });
            tokio::select! {
                _ = self.cancel.cancelled() => {
                    self.retry.report(RetryEvent::Finished);
                    return Err(CompactionError::Cancelled);
                }
                _ = tokio::time::sleep(delay) => {}
            }
            self.retry.report(RetryEvent::AttemptStart);
        }
    }

    async fn complete_once(
        &self,
        context: &Context,
        options: StreamOptions,
    ) -> Result<(String, Usage), Attempt> {
        let stream =
            (self.stream)(&self.model, context, options).map_err(|e| Attempt::Other(e.into()))?;
        let reply = stream.result().await;
        match reply.stop_reason {
            StopReason::Aborted => Err(Attempt::Other(CompactionError::Cancelled)),
            StopReason::Error if self.cancel.is_cancelled() => {
                Err(Attempt::Other(CompactionError::Cancelled))
            }
            StopReason::Error => Err(Attempt::Failed(
                reply
                    .error_message
                    .filter(|m| !m.is_empty())
                    .unwrap_or_else(|| "Unknown error".to_string()),
            )),
            _ => Ok((reply.text(), reply.usage)),
        }
    }
}

/// How one request ended, short of a summary.
enum Attempt {
    /// The reply was an error with this text (maybe worth retrying).
    Failed(String),
    /// Anything else (aborted, the call could not start).
    Other(CompactionError),
}

impl Attempt {
    fn into_error(self, label: fn(String) -> CompactionError) -> CompactionError {
        match self {
            Attempt::Failed(text) => label(text),
            Attempt::Other(e) => e,
        }
    }
}

/// The serialized conversation wrapped for the summariser: `<conversation>\n…\n</conversation>\n\n`.
pub fn conversation_block(messages: &[AgentMessage]) -> String {
    let llm: Vec<Message> = convert_to_llm(messages);
    format!(
        "<conversation>\n{}\n</conversation>\n\n",
        serialize_conversation(&llm)
    )
}

/// A one-user-message context under the summariser system prompt.
pub fn summary_context(prompt_text: String) -> Context {
    Context {
        system_prompt: Some(prompts::SYSTEM_PROMPT.to_string()),
        messages: vec![Message::User(UserMessage::text(prompt_text))],
        tools: Vec::new(),
    }
}

/// The user text of a history summary request: the conversation, the previous summary in
/// `<previous-summary>` when there is one, then the structured prompt (the update variant
/// with a previous summary) and `Additional focus: <instructions>` when given.
pub fn history_prompt(
    messages: &[AgentMessage],
    previous_summary: Option<&str>,
    custom_instructions: Option<&str>,
) -> String {
    let mut text = conversation_block(messages);
    let base = match previous_summary {
        Some(previous) => {
            text.push_str(&format!(
                "<previous-summary>\n{previous}\n</previous-summary>\n\n"
            ));
            prompts::UPDATE_PROMPT
        }
        None => prompts::SUMMARY_PROMPT,
    };
    text.push_str(base);
    if let Some(focus) = custom_instructions.filter(|s| !s.is_empty()) {
        text.push_str("\n\nAdditional focus: ");
        text.push_str(focus);
    }
    text
}

/// The user text of a split turn's prefix summary request.
pub fn turn_prefix_prompt(messages: &[AgentMessage]) -> String {
    let mut text = conversation_block(messages);
    text.push_str(prompts::TURN_PREFIX_PROMPT);
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::*;

    #[test]
    fn first_summary_prompt_layout() {
        let text = history_prompt(&[user("hello")], None, None);
        assert!(text.starts_with("<conversation>\n[User]: hello\n</conversation>\n\n"));
        assert!(text.ends_with(prompts::SUMMARY_PROMPT));
        assert!(!text.contains("<previous-summary>"));
    }

    #[test]
    fn comp_19_update_prompt_carries_previous_summary_and_focus() {
        let text = history_prompt(&[user("more")], Some("OLD"), Some("the tests"));
        let conv_end = text.find("</conversation>").expect("conversation block");
        let prev = text
            .find("<previous-summary>\nOLD\n</previous-summary>\n\n")
            .expect("previous summary block");
        assert!(conv_end < prev);
        assert!(text.contains(prompts::UPDATE_PROMPT));
        assert!(text.ends_with("\n\nAdditional focus: the tests"));
    }

    #[test]
    fn reasoning_only_for_reasoning_models_with_thinking_on() {
        let mut s = Summarizer::new(crate::test_support::model());
        s.thinking = ThinkingLevel::High;
        assert_eq!(s.options(100, true).reasoning, None);
        s.model.reasoning = true;
        assert_eq!(s.options(100, true).reasoning, Some(ThinkingLevel::High));
        assert_eq!(s.options(100, false).reasoning, None);
        s.thinking = ThinkingLevel::Off;
        assert_eq!(s.options(100, true).reasoning, None);
        assert_eq!(s.options(100, true).max_tokens, Some(100));
    }
}
