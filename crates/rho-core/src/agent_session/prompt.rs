//! `prompt()`: the seed's seven stages with their early returns and the five preflight
//! points (seed diagram 1; rules P-1..15, MSG-1..8, AUTH-, D1, D5, D7, D8).

use rho_agent::{AgentMessage, CustomMessage};
use rho_ai::{ContentBlock, ImageContent, UserContent, UserMessage};

use super::credentials::AuthStatus;
use super::error::SessionError;
use super::AgentSession;
use crate::extensions::InputOutcome;
use crate::resources::skills::expand_skill;
use crate::resources::templates::expand_template;

pub use rho_protocol::rpc::{Disposition, StreamingBehavior};

/// Where input came from (IN-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InputSource {
    /// Typed by the user.
    #[default]
    Interactive,
    /// The RPC `prompt` command.
    Rpc,
    /// An extension's `send_user_message`.
    Extension,
}

impl InputSource {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            InputSource::Interactive => "interactive",
            InputSource::Rpc => "rpc",
            InputSource::Extension => "extension",
        }
    }
}

/// Reports whether a prompt was accepted (and whether it starts a run, was queued or was
/// handled: pi 1.x's `disposition`) or refused (`None`); called at most once (P-12).
pub type PreflightFn = Box<dyn FnOnce(Option<Disposition>) + Send>;

/// Options of [`AgentSession::prompt`] (P-1).
pub struct PromptOptions {
    /// Run commands and expand skills/templates (default true).
    pub expand_prompt_templates: bool,
    /// Images after the text.
    pub images: Vec<ImageContent>,
    /// Required while streaming.
    pub streaming_behavior: Option<StreamingBehavior>,
    /// Input source for the `input` event.
    pub source: InputSource,
    /// Preflight callback.
    pub preflight: Option<PreflightFn>,
}

impl Default for PromptOptions {
    fn default() -> Self {
        Self {
            expand_prompt_templates: true,
            images: Vec::new(),
            streaming_behavior: None,
            source: InputSource::Interactive,
            preflight: None,
        }
    }
}

/// Fires the preflight callback at most once.
struct Preflight(Option<PreflightFn>);

impl Preflight {
    fn fire(&mut self, outcome: Option<Disposition>) {
        if let Some(f) = self.0.take() {
            f(outcome);
        }
    }
}

/// What stages 1-7 made of a prompt.
enum Prepared {
    /// Run the agent on these messages.
    Run(Vec<AgentMessage>),
    /// Done without a run (queued or handled: early returns 1-3).
    Done(Disposition),
}

impl AgentSession {
    /// Sends user input through the seven stages, then runs the agent until the whole
    /// post-run chain is done (D1). Provider failures do not make this fail (P-13); only a
    /// refusal (no model, no key, streaming without behaviour...) does.
    pub async fn prompt(&self, text: &str, mut options: PromptOptions) -> Result<(), SessionError> {
        let mut preflight = Preflight(options.preflight.take());
        let messages = match self.prepare_prompt(text, options).await {
            Ok(Prepared::Run(messages)) => messages,
            Ok(Prepared::Done(disposition)) => {
                preflight.fire(Some(disposition));
                return Ok(());
            }
            Err(e) => {
                preflight.fire(None);
                return Err(e);
            }
        };
        self.run_agent_prompt_announced(messages, || preflight.fire(Some(Disposition::Started)))
            .await
    }

    /// Stages 1-7.
    async fn prepare_prompt(
        &self,
        text: &str,
        options: PromptOptions,
    ) -> Result<Prepared, SessionError> {
        let expand = options.expand_prompt_templates;
        let streaming = self.is_streaming();
        // Stage 1: extension command (runs even while streaming).
        if expand
            && text.starts_with('/')
            && self
                .inner
                .extensions
                .execute_command(text, &self.ext_ctx())
                .await
        {
            self.run_requested_reload().await;
            return Ok(Prepared::Done(Disposition::Handled));
        }
        // Stage 1b: a command of the external tools (an MCP prompt) becomes its text.
        let mut text = text.to_string();
        if expand && text.starts_with('/') {
            if let Some(external) = self.external() {
                match external.expand_command(&text).await {
                    Some(Ok(expanded)) => text = expanded,
                    Some(Err(e)) => return Err(SessionError::Command(e.to_string())),
                    None => {}
                }
            }
        }
        // Stage 2: the input event.
        let mut images = options.images;
        if self.inner.extensions.has_handlers("input") {
            let behavior = streaming
                .then(|| options.streaming_behavior.map(|b| b.as_str()))
                .flatten();
            match self
                .inner
                .extensions
                .emit_input(
                    &text,
                    &images,
                    options.source.as_str(),
                    behavior,
                    &self.ext_ctx(),
                )
                .await
            {
                InputOutcome::Handled => return Ok(Prepared::Done(Disposition::Handled)),
                InputOutcome::Transform { text: t, images: i } => {
                    text = t;
                    images = i;
                }
                InputOutcome::Continue => {}
            }
        }
        // Stage 3: skill, then template expansion.
        if expand {
            text = self.expand_text(&text);
        }
        // Stage 4: streaming → queue. A run that is only finishing its post-run chain (the
        // agent idle, no retry back-off) is waited for, so a client that prompts right
        // after `agent_end` is not refused.
        // A prompt accepted before this one and not started yet counts as streaming.
        if self.is_streaming()
            && !self.run_starting()
            && self.agent_finished()
            && !self.is_retrying()
            && !super::run_loop::in_run_loop()
        {
            self.wait_for_idle().await;
        }
        if self.is_streaming() || self.run_starting() {
            return match options.streaming_behavior {
                None => Err(SessionError::StreamingWithoutBehavior),
                Some(StreamingBehavior::FollowUp) => {
                    self.queue_follow_up_text(text, images);
                    Ok(Prepared::Done(Disposition::Queued))
                }
                Some(StreamingBehavior::Steer) => {
                    self.queue_steer_text(text, images);
                    Ok(Prepared::Done(Disposition::Queued))
                }
            };
        }
        // Stage 5: bash flush (point 1), model check, auth check.
        self.flush_pending_bash();
        self.check_model_and_auth()?;
        // Stage 6: pre-send compaction (aborted replies included), then bash flush (point 2).
        self.pre_prompt_compaction().await;
        self.flush_pending_bash();
        // Stage 7: messages and system prompt, once external tools had their chance to arrive.
        if let Some(external) = self.external() {
            external.before_prompt().await;
        }
        Ok(Prepared::Run(
            self.build_prompt_messages(text, images).await,
        ))
    }

    /// Skill expansion then template expansion (P-5); a skill read failure is reported as
    /// `skill_expansion` and the text passes through (SK-5).
    pub(crate) fn expand_text(&self, text: &str) -> String {
        let (skills, templates) = {
            let s = self.state();
            (s.skills.clone(), s.templates.clone())
        };
        let expanded = match expand_skill(text, &skills) {
            Ok(t) => t,
            Err(e) => {
                self.inner.extensions.report(
                    &e.file_path.display().to_string(),
                    "skill_expansion",
                    e.message,
                );
                text.to_string()
            }
        };
        expand_template(&expanded, &templates)
    }

    /// The model and auth checks with D7's texts.
    pub(crate) fn check_model_and_auth(&self) -> Result<(), SessionError> {
        let Some(model) = self.model() else {
            return Err(SessionError::NoModel);
        };
        match self.inner.credentials.status(&model.provider) {
            AuthStatus::Configured => Ok(()),
            AuthStatus::OAuthUnavailable => Err(SessionError::OAuthFailed(
                rho_ai::auth::oauth_failed_message(&model.provider),
            )),
            AuthStatus::Missing => Err(SessionError::NoApiKey(rho_ai::auth::no_api_key_message(
                &model.provider,
            ))),
        }
    }

    /// `[user, ...next-turn asides, ...before_agent_start messages]`; the system prompt is
    /// the chained extension result or the base (MSG-1..7).
    async fn build_prompt_messages(
        &self,
        text: String,
        images: Vec<ImageContent>,
    ) -> Vec<AgentMessage> {
        let mut content = vec![ContentBlock::text(text.clone())];
        content.extend(images.iter().cloned().map(ContentBlock::Image));
        let mut messages = vec![AgentMessage::User(UserMessage {
            content: UserContent::Blocks(content),
            timestamp: rho_ai::now_ms(),
        })];
        let (asides, base, options) = {
            let mut s = self.state();
            (
                std::mem::take(&mut s.pending_next_turn),
                s.base_system_prompt.clone(),
                s.system_prompt_options.clone(),
            )
        };
        messages.extend(asides.into_iter().map(AgentMessage::Custom));
        let mut system_prompt = base.clone();
        if self.inner.extensions.has_handlers("before_agent_start") {
            let (injected, chained) = self
                .inner
                .extensions
                .emit_before_agent_start(&text, &images, &base, options, &self.ext_ctx())
                .await;
            messages.extend(injected.into_iter().map(|m| {
                AgentMessage::Custom(CustomMessage {
                    custom_type: m.custom_type,
                    content: m.content,
                    display: m.display,
                    details: m.details,
                    timestamp: rho_ai::now_ms(),
                })
            }));
            if let Some(sp) = chained.filter(|s| !s.is_empty()) {
                system_prompt = sp;
            }
        }
        // An extension's prompt is sent for this run, not recorded (pi 1.x's forced prompt).
        let forced = (system_prompt != base).then(|| system_prompt.clone());
        self.inner.agent.set_forced_system_prompt(forced);
        self.inner.agent.set_system_prompt(system_prompt);
        messages
    }
}
