//! `prompt()`: the seed's seven stages with their early returns and the five preflight
//! points (seed diagram 1; rules P-1..15, MSG-1..8, AUTH-, D1, D5, D7, D8).

use rho_agent::queue::Queue;
use rho_agent::{AgentMessage, CustomMessage};
use rho_ai::{ContentBlock, ImageContent, UserContent, UserMessage};

use super::credentials::AuthStatus;
use super::error::SessionError;
use super::ops::{Job, Op, Origin, PromptOp};
use super::phase::RunPhase;
use super::task::{data as run_data, Data, Driver, Runs};
use super::AgentSession;
use crate::resources::skills::expand_skill;
use crate::resources::templates::expand_template;
use rho_extension_host::InputOutcome;

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
pub(crate) struct Preflight(Option<PreflightFn>);

impl Preflight {
    pub(crate) fn fire(&mut self, outcome: Option<Disposition>) {
        if let Some(f) = self.0.take() {
            f(outcome);
        }
    }
}

/// What stages 1-3 made of the input.
enum Input {
    /// Text and images for stage 4.
    Ready(String, Vec<ImageContent>),
    /// An extension command or an `input` handler took it (early returns 1-2).
    Handled,
}

impl AgentSession {
    /// Sends user input through the seven stages, then runs the agent until the whole
    /// post-run chain is done (D1). Provider failures do not make this fail (P-13); only a
    /// refusal (no model, no key, streaming without behaviour...) does.
    pub async fn prompt(&self, text: &str, options: PromptOptions) -> Result<(), SessionError> {
        self.prompt_from(text, options, Origin::Outside).await
    }

    /// [`Self::prompt`] from `origin`. Stages 1-3 run here, in the caller's task (they may
    /// await extensions); stage 4 on is the session task's (see [`Self::apply_prompt`]).
    pub(crate) async fn prompt_from(
        &self,
        text: &str,
        mut options: PromptOptions,
        origin: Origin,
    ) -> Result<(), SessionError> {
        let mut preflight = Preflight(options.preflight.take());
        let behavior = options.streaming_behavior;
        let (text, images) = match self.prepare_input(text, options).await {
            Ok(Input::Ready(text, images)) => (text, images),
            Ok(Input::Handled) => {
                preflight.fire(Some(Disposition::Handled));
                return Ok(());
            }
            Err(e) => {
                preflight.fire(None);
                return Err(e);
            }
        };
        let prompt = |reply| {
            Op::Prompt(Box::new(PromptOp {
                text,
                images,
                behavior,
                origin,
                preflight,
                reply,
            }))
        };
        self.request(prompt).await?
    }

    /// Stages 1-3.
    async fn prepare_input(
        &self,
        text: &str,
        options: PromptOptions,
    ) -> Result<Input, SessionError> {
        let expand = options.expand_prompt_templates;
        let streaming = self.is_streaming();
        // Stage 1: extension command (runs even while streaming).
        if expand
            && text.starts_with('/')
            && self
                .inner
                .services
                .extensions
                .execute_command(text, &self.ext_ctx())
                .await
        {
            self.run_requested_reload().await;
            return Ok(Input::Handled);
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
        if self.inner.services.extensions.has_handlers("input") {
            let behavior = streaming
                .then(|| options.streaming_behavior.map(|b| b.as_str()))
                .flatten();
            match self
                .inner
                .services
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
                InputOutcome::Handled => return Ok(Input::Handled),
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
        Ok(Input::Ready(text, images))
    }

    /// Stage 4, applied by the session task in the order prompts were sent: while idle the
    /// prompt's run is accepted; while the task does its own work (a run only finishing: the
    /// post-run compaction, the settle; a manual compaction; a move in the tree) a prompt
    /// from outside that work waits for it instead of being refused, so a client that
    /// prompts right after `agent_end` or during a compaction is served after it; any other
    /// time it is queued as its streaming behaviour says, or refused without one (P-6). Work
    /// accepted and not started yet counts as running: later prompts queue behind it.
    pub(crate) fn apply_prompt(&self, prompt: PromptOp, runs: &mut Runs) {
        let state = self.inner.run.get();
        let waits_for_run =
            state.phase.prompts_wait() && state.starting == 0 && prompt.origin == Origin::Outside;
        if !state.busy() || waits_for_run {
            runs.push(self, Job::Prompt(Box::new(prompt)));
            return;
        }
        let PromptOp {
            text,
            images,
            behavior,
            mut preflight,
            reply,
            ..
        } = prompt;
        let outcome = match behavior {
            None => Err(SessionError::StreamingWithoutBehavior),
            Some(StreamingBehavior::FollowUp) => {
                self.queue_text(Queue::FollowUp, text, images);
                Ok(())
            }
            Some(StreamingBehavior::Steer) => {
                self.queue_text(Queue::Steering, text, images);
                Ok(())
            }
        };
        preflight.fire(outcome.is_ok().then_some(Disposition::Queued));
        let _ = reply.send(outcome);
    }

    /// A prompt's turn on the session task: stages 5-7, then its run loop.
    pub(crate) async fn prompt_job(&self, prompt: PromptOp, d: &mut Driver<'_>) {
        let PromptOp {
            text,
            images,
            mut preflight,
            reply,
            ..
        } = prompt;
        match self.prepare_run(text, images, d).await {
            Ok(messages) => {
                preflight.fire(Some(Disposition::Started));
                let _ = reply.send(self.run_loop(d, messages).await);
            }
            Err(e) => {
                self.inner.run.set_phase(RunPhase::Idle);
                preflight.fire(None);
                let _ = reply.send(Err(e));
            }
        }
    }

    /// Stages 5-7.
    async fn prepare_run(
        &self,
        text: String,
        images: Vec<ImageContent>,
        d: &mut Driver<'_>,
    ) -> Result<Vec<AgentMessage>, SessionError> {
        // Stage 5: bash flush (point 1), model check, auth check.
        self.flush_pending_bash(d.data);
        self.check_model_and_auth()?;
        // Stage 6: pre-send compaction (aborted replies included), then bash flush (point 2).
        self.pre_prompt_compaction(d).await;
        self.inner.run.set_phase(RunPhase::Starting);
        self.flush_pending_bash(d.data);
        // Stage 7: messages and system prompt, once external tools had their chance to arrive.
        if let Some(external) = self.external() {
            external.before_prompt().await;
        }
        Ok(self.build_prompt_messages(text, images, d.data).await)
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
                self.inner.services.extensions.report(
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
        match self.inner.services.credentials.status(&model.provider) {
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
        data: &Data,
    ) -> Vec<AgentMessage> {
        let mut content = vec![ContentBlock::text(text.clone())];
        content.extend(images.iter().cloned().map(ContentBlock::Image));
        let mut messages = vec![AgentMessage::User(UserMessage {
            content: UserContent::Blocks(content),
            timestamp: rho_ai::now_ms(),
        })];
        let asides = std::mem::take(&mut run_data(data).pending_next_turn);
        let (base, options) = {
            let s = self.state();
            (
                s.base_system_prompt.clone(),
                s.system_prompt_options.clone(),
            )
        };
        messages.extend(asides.into_iter().map(AgentMessage::Custom));
        let mut system_prompt = base.clone();
        if self
            .inner
            .services
            .extensions
            .has_handlers("before_agent_start")
        {
            let (injected, chained) = self
                .inner
                .services
                .extensions
                .emit_before_agent_start(&text, &images, &base, options, &self.run_ctx())
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
        self.inner.services.agent.set_forced_system_prompt(forced);
        self.inner.services.agent.set_system_prompt(system_prompt);
        messages
    }
}
