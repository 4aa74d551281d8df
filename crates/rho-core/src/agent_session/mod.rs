//! AgentSession: the prompting system of the seed. Every run mode drives the agent through
//! this one type: `prompt()`'s seven stages, the run loop with its post-run chain (retry,
//! compaction, queued messages), steering and follow-up bookkeeping, custom messages,
//! extension commands, deferred bash results and abort (seed diagrams 1-12, decisions D1-D13).
//!
//! Concurrency: one *run driver* at a time owns the agent's event stream and processes each
//! event to completion before the next (SE-1); everything else (`steer`, `abort`, getters)
//! only touches shared state under short locks, so it works while a prompt runs (D13).

mod bash;
mod bash_chunks;
pub mod compaction_flow;
pub mod credentials;
mod custom;
mod error;
mod escalation;
/// What session listeners receive (defined in `rho-protocol`, shared with the UIs).
pub use rho_protocol::session::events;
mod ext_complete;
mod extension_set;
mod external;
mod fork;
mod host;
mod model;
mod model_control;
mod permission_gate;
mod post_run;
mod prompt;
mod queue;
mod resources;
mod rpc_support;
mod run_loop;
mod save_failure;
mod switch;
mod tool_set;
mod tree;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use rho_agent::{
    Agent, AgentMessage, AgentOptions, AgentTool, BashExecutionMessage, CustomMessage,
    EventReceiver, ReadError, StoredMessage, StreamFn,
};
use rho_ai::{Model, ThinkingLevel};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use crate::extensions::{Extension, ExtensionContext, ExtensionRunner, ExtensionUi, NoUi};
use crate::resources::skills::Skill;
use crate::resources::templates::PromptTemplate;
use crate::session::SessionManager;
use crate::settings::Settings;

pub use bash::{sanitize_output, BashOptions};
pub use bash_chunks::OutputFn;
pub use credentials::{
    key_scrub, AuthStatus, CredentialError, CredentialStore, EnvCredentials, StaticCredentials,
};
pub use custom::{SendMessageOptions, UserMessageContent};
pub use error::SessionError;
pub use events::{CompactionReason, SessionEvent, SessionOnlyEvent};
pub use ext_complete::CompleteError;
pub use extension_set::EXTENSION_EXIT_GRACE;
pub use external::{ExternalError, ExternalTools};
pub use fork::{ForkCandidate, ForkOutcome};
pub use model::{SessionStats, StatsScope};
pub use model_control::{parse_level, Cycled, InvalidThinkingLevel, ModelControl};
pub use prompt::{Disposition, InputSource, PreflightFn, PromptOptions, StreamingBehavior};
pub use queue::QueuedTexts;
pub use save_failure::SESSION_SOURCE;
pub use switch::{Opened, Reloader, SwitchReason};
pub use tree::{NavigateTreeOptions, NavigateTreeOutcome};

/// Everything a session is built from. The binary assembles it from flags and files.
pub struct AgentSessionConfig {
    /// The working directory tools and extensions see.
    pub cwd: PathBuf,
    /// The session store (a file or in memory).
    pub session: SessionManager,
    /// Effective settings.
    pub settings: Settings,
    /// The model, `None` for rho's real "no model" state (D7).
    pub model: Option<Model>,
    /// The requested thinking level (clamped to the model).
    pub thinking_level: ThinkingLevel,
    /// Active tools.
    pub tools: Vec<Arc<dyn AgentTool>>,
    /// Built-in tools configured but not active at start (`grep`, `find`, `ls` by default):
    /// extensions may activate them (pi's `setActiveTools`).
    pub inactive_tools: Vec<Arc<dyn AgentTool>>,
    /// The base system prompt (MSG-4: what `before_agent_start` sees).
    pub base_system_prompt: String,
    /// The options the base prompt was built from, for `before_agent_start`.
    pub system_prompt_options: serde_json::Value,
    /// The structured options, when the base prompt was built by rho: the base is rebuilt
    /// from them when the active tools change (MSG-9).
    pub prompt_options: Option<crate::system_prompt::SystemPromptOptions>,
    /// Loaded skills.
    pub skills: Vec<Skill>,
    /// Loaded prompt templates.
    pub templates: Vec<PromptTemplate>,
    /// Extensions in load order.
    pub extensions: Vec<Extension>,
    /// The mode's UI for extensions.
    pub ui: Arc<dyn ExtensionUi>,
    /// API keys.
    pub credentials: Arc<dyn CredentialStore>,
    /// Performs LLM calls (runs and compaction summaries); `rho_ai::stream` by default.
    pub stream_fn: StreamFn,
    /// The sandbox for `!cmd` and extension `exec` (the tools carry their own copy).
    pub sandbox: Option<Arc<rho_sandbox::Sandbox>>,
    /// Permission rules and mode, checked for every tool call.
    pub permissions: crate::permissions::Permissions,
    /// Whether a command the sandbox seems to have blocked may be offered to run once
    /// unsandboxed through the UI's `confirm` (the interactive mode; RPC only when asked for,
    /// as clients that never answer would hang).
    pub escalate: bool,
    /// Tools and commands from outside (MCP servers); `None` = none.
    pub external: Option<Arc<dyn ExternalTools>>,
    /// Every known model (built-ins and models.json), loaded once by the binary; model
    /// switching chooses from it. The built-in catalog by default.
    pub models: Arc<Vec<Model>>,
}

impl AgentSessionConfig {
    /// A config with defaults: in-memory session, no model, no tools, env credentials.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        let cwd = cwd.into();
        Self {
            session: SessionManager::in_memory(&cwd.to_string_lossy()),
            cwd,
            settings: Settings::default(),
            model: None,
            thinking_level: ThinkingLevel::Off,
            tools: Vec::new(),
            inactive_tools: Vec::new(),
            base_system_prompt: String::new(),
            system_prompt_options: serde_json::Value::Object(Default::default()),
            prompt_options: None,
            skills: Vec::new(),
            templates: Vec::new(),
            extensions: Vec::new(),
            ui: Arc::new(NoUi),
            credentials: Arc::new(EnvCredentials),
            stream_fn: Arc::new(rho_ai::stream),
            sandbox: None,
            permissions: Default::default(),
            escalate: false,
            external: None,
            models: Arc::new(rho_ai::catalog::builtin_models().to_vec()),
        }
    }
}

/// Mutable session state. Locked briefly, never across an await.
pub(crate) struct State {
    pub session: SessionManager,
    pub settings: Settings,
    pub model: Option<Model>,
    pub thinking_level: ThinkingLevel,
    pub base_system_prompt: String,
    pub system_prompt_options: serde_json::Value,
    pub prompt_options: Option<crate::system_prompt::SystemPromptOptions>,
    pub skills: Vec<Skill>,
    pub templates: Vec<PromptTemplate>,
    /// Texts of queued steering messages (UI bookkeeping, Q-2).
    pub steering: Vec<String>,
    /// Texts of queued follow-ups.
    pub follow_up: Vec<String>,
    /// Bash results recorded while streaming (BASH-4).
    pub pending_bash: Vec<BashExecutionMessage>,
    /// Custom messages for the next prompt (CM-2).
    pub pending_next_turn: Vec<CustomMessage>,
    /// Retry counter (RETRY-4).
    pub retry_attempt: u32,
    /// Set by the first overflow recovery, cleared by user input and good replies (COMP-9).
    pub overflow_recovery_attempted: bool,
    /// The last assistant `message_end` since the previous post-run (POST-1).
    pub last_assistant: Option<rho_ai::AssistantMessage>,
    /// True while a compaction (manual, auto or branch summary) runs.
    pub is_compacting: bool,
    /// The extension-visible turn index (EXT-13).
    pub turn_index: u32,
    /// The streaming reply folded from its events, kept only while an extension listens for
    /// `message_update` (whose `message` is the partial); nothing is folded otherwise.
    pub extension_partial: Option<rho_ai::PartialMessage>,
}

pub(crate) struct Inner {
    pub agent: Agent,
    /// The run driver's event stream; holding the lock means a run loop is active.
    pub driver: tokio::sync::Mutex<EventReceiver>,
    /// True while a run loop (prompt, retries, continuations) is active.
    pub loop_active: watch::Sender<bool>,
    /// Prompts accepted to run whose agent run has not started yet: later prompts queue
    /// behind them as if the agent were streaming, so input keeps its order (D13).
    pub runs_starting: std::sync::atomic::AtomicUsize,
    /// Set once the run's `agent_end` is on its way to listeners, cleared by the next
    /// `agent_start`: from then on the run is only finishing (its future and post-run chain),
    /// and a client that saw `agent_end` and prompts must be waited for, not refused.
    pub agent_ended: std::sync::atomic::AtomicBool,
    /// Set by `abort()` while a run loop is active or starting, cleared when the next run
    /// loop starts: the loop's `agent_settled` then says `aborted`, and no retry is promised.
    pub run_abort_requested: std::sync::atomic::AtomicBool,
    /// Set while manual compaction aborts the run: agent events are then neither
    /// forwarded nor persisted (SE-9).
    pub disconnected: std::sync::atomic::AtomicBool,
    /// Timestamp of the last assistant `message_end` the pipeline finished (SE-2, EXT-10).
    pub processed_assistant: watch::Sender<i64>,
    pub state: Mutex<State>,
    pub listeners: Mutex<Vec<mpsc::UnboundedSender<SessionEvent>>>,
    pub extensions: ExtensionRunner,
    pub ui: Mutex<Arc<dyn ExtensionUi>>,
    pub credentials: Arc<dyn CredentialStore>,
    pub stream_fn: StreamFn,
    pub sandbox: Option<Arc<rho_sandbox::Sandbox>>,
    pub permissions: crate::permissions::Permissions,
    pub escalate: bool,
    /// Replaceable: /reload starts the configured MCP servers again.
    pub external: Mutex<Option<Arc<dyn ExternalTools>>>,
    pub models: Arc<Vec<Model>>,
    /// Every configured built-in tool, active or not (see `tool_set`).
    pub builtin_tools: Vec<Arc<dyn AgentTool>>,
    /// Tools extensions registered after loading.
    pub dynamic_tools: Mutex<Vec<Arc<dyn AgentTool>>>,
    pub cwd: PathBuf,
    pub retry_cancel: Mutex<Option<CancellationToken>>,
    pub compaction_cancel: Mutex<Option<CancellationToken>>,
    pub bash_runs: bash::BashRuns,
    pub branch_summary_cancel: Mutex<Option<CancellationToken>>,
    /// Bumped whenever the conversation is replaced wholesale (see [`AgentSession::generation`]).
    pub generation: std::sync::atomic::AtomicU64,
    /// Whether extension commands' session actions are carried out (the interactive mode
    /// binds them; elsewhere they resolve at once, CMD-8).
    pub actions_bound: std::sync::atomic::AtomicBool,
    /// What `ctx.reload()` runs (the mode's /reload), and whether a command asked for it.
    pub reload: switch::ReloadHook,
    /// Runs when a run loop has ended, before the session reports idle (see
    /// [`AgentSession::set_after_run`]).
    pub after_run: Mutex<Option<AfterRun>>,
    pub weak: std::sync::Weak<Inner>,
}

/// A hook run on the blocking pool after each run loop.
pub type AfterRun = Arc<dyn Fn() + Send + Sync>;

/// The session. Cheap to clone; clones share everything, so one task can `prompt()` while
/// another calls `steer()` or `abort()`.
#[derive(Clone)]
pub struct AgentSession {
    pub(crate) inner: Arc<Inner>,
}

impl AgentSession {
    /// Builds a session: the agent gets the model, tools, system prompt and the session's
    /// messages; extension hooks are installed. Must be called inside a tokio runtime.
    pub fn new(config: AgentSessionConfig) -> AgentSession {
        let agent = Agent::new(AgentOptions::default());
        let driver = tokio::sync::Mutex::new(agent.subscribe());
        let context = config.session.build_context();
        agent.set_messages(context.messages);
        let builtin_tools: Vec<Arc<dyn AgentTool>> = config
            .tools
            .iter()
            .chain(&config.inactive_tools)
            .cloned()
            .collect();
        agent.set_tools(with_extension_tools(
            config.tools.clone(),
            collect_extension_tools(&config.extensions),
        ));
        agent.set_tool_source(config.external.as_ref().map(|e| e.tool_source()));
        agent.set_system_prompt(config.base_system_prompt.clone());
        agent.set_steering_mode(config.settings.steering_mode());
        agent.set_follow_up_mode(config.settings.follow_up_mode());
        let thinking = match &config.model {
            Some(m) => m.clamp_thinking_level(config.thinking_level),
            None => ThinkingLevel::Off,
        };
        if let Some(m) = &config.model {
            agent.set_model(m.clone());
        }
        agent.set_thinking_level(thinking);
        let inner = Arc::new_cyclic(|weak: &std::sync::Weak<Inner>| {
            let sink_weak = weak.clone();
            let extensions = ExtensionRunner::new(
                config.extensions,
                Arc::new(move |report| {
                    if let Some(inner) = sink_weak.upgrade() {
                        AgentSession { inner }.emit_session(SessionOnlyEvent::ExtensionError {
                            extension_path: report.extension_path,
                            event: report.event,
                            error: report.error,
                        });
                    }
                }),
            );
            Inner {
                agent,
                driver,
                loop_active: watch::channel(false).0,
                runs_starting: std::sync::atomic::AtomicUsize::new(0),
                agent_ended: std::sync::atomic::AtomicBool::new(false),
                run_abort_requested: std::sync::atomic::AtomicBool::new(false),
                disconnected: std::sync::atomic::AtomicBool::new(false),
                processed_assistant: watch::channel(0).0,
                state: Mutex::new(State {
                    session: config.session,
                    settings: config.settings,
                    model: config.model,
                    thinking_level: thinking,
                    base_system_prompt: config.base_system_prompt,
                    system_prompt_options: config.system_prompt_options,
                    prompt_options: config.prompt_options,
                    skills: config.skills,
                    templates: config.templates,
                    steering: Vec::new(),
                    follow_up: Vec::new(),
                    pending_bash: Vec::new(),
                    pending_next_turn: Vec::new(),
                    retry_attempt: 0,
                    overflow_recovery_attempted: false,
                    last_assistant: None,
                    is_compacting: false,
                    turn_index: 0,
                    extension_partial: None,
                }),
                listeners: Mutex::new(Vec::new()),
                extensions,
                ui: Mutex::new(config.ui),
                credentials: config.credentials,
                stream_fn: config.stream_fn,
                sandbox: config.sandbox,
                permissions: config.permissions,
                escalate: config.escalate,
                external: Mutex::new(config.external),
                models: config.models,
                builtin_tools,
                dynamic_tools: Mutex::new(Vec::new()),
                cwd: config.cwd,
                retry_cancel: Mutex::new(None),
                compaction_cancel: Mutex::new(None),
                bash_runs: bash::BashRuns::default(),
                branch_summary_cancel: Mutex::new(None),
                generation: std::sync::atomic::AtomicU64::new(0),
                actions_bound: std::sync::atomic::AtomicBool::new(false),
                reload: switch::ReloadHook::default(),
                after_run: Mutex::new(None),
                weak: weak.clone(),
            }
        });
        let session = AgentSession { inner };
        session.install_agent_hooks();
        session.rebuild_base_prompt(|_| {});
        session
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.inner.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The agent underneath (read-only use: state, messages).
    pub fn agent(&self) -> &Agent {
        &self.inner.agent
    }

    /// Subscribes to every event, in emission order. Drop the receiver to unsubscribe.
    pub fn subscribe(&self) -> mpsc::UnboundedReceiver<SessionEvent> {
        let (tx, rx) = mpsc::unbounded_channel();
        lock(&self.inner.listeners).push(tx);
        rx
    }

    /// Sends an event to every listener; closed ones are dropped.
    pub(crate) fn emit(&self, event: SessionEvent) {
        lock(&self.inner.listeners).retain(|l| l.send(event.clone()).is_ok());
    }

    pub(crate) fn emit_session(&self, event: SessionOnlyEvent) {
        self.emit(SessionEvent::Session(event));
    }

    /// A fresh extension context for one emission (EXT-20).
    /// The session's sandbox, if commands are sandboxed.
    pub fn sandbox(&self) -> Option<Arc<rho_sandbox::Sandbox>> {
        self.inner.sandbox.clone()
    }

    /// The permission rules and mode in force.
    pub fn permissions(&self) -> &crate::permissions::Permissions {
        &self.inner.permissions
    }

    pub(crate) fn ext_ctx(&self) -> ExtensionContext {
        ExtensionContext::new(
            Arc::new(host::SessionHost {
                inner: self.inner.weak.clone(),
            }),
            lock(&self.inner.ui).clone(),
        )
    }

    /// Counts wholesale replacements of the conversation: another session (new, resumed,
    /// forked), a move in the tree, a compaction. A UI that draws the conversation from events
    /// compares it to the value it last drew from and rebuilds when it changed, because those
    /// replacements have no event of their own in pi's protocol.
    pub fn generation(&self) -> u64 {
        self.inner
            .generation
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// Sets the agent's messages to a rebuilt conversation (sharing the session's entries) and bumps [`Self::generation`].
    pub(crate) fn replace_conversation(&self, messages: Vec<StoredMessage>) {
        self.inner.agent.set_messages(messages);
        self.inner
            .generation
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }

    /// Connects the mode's UI (the RPC mode's extension UI sub-protocol, the TUI) once it
    /// exists; later extension contexts use it.
    pub fn set_ui(&self, ui: Arc<dyn ExtensionUi>) {
        *lock(&self.inner.ui) = ui;
    }

    /// Sets what runs after each run loop (prompt, retries, continuations) has ended and
    /// its request buffers are freed, before the session reports idle: the binary hands
    /// freed memory back to the system there. It runs on the blocking pool and the session
    /// waits for it, so a client that sees the session idle sees its effect.
    pub fn set_after_run(&self, hook: AfterRun) {
        *lock(&self.inner.after_run) = Some(hook);
    }

    /// Lets go of the decoded messages that are in the session file (they are read back when
    /// needed), then runs the after-run hook, if any.
    pub(crate) async fn after_run(&self) {
        self.release_messages();
        let hook = lock(&self.inner.after_run).clone();
        if let Some(hook) = hook {
            let _ = tokio::task::spawn_blocking(move || hook()).await;
        }
    }

    /// Drops the decoded messages of the transcript and of every entry that are on disk
    /// (messages not yet written, or never, stay in memory).
    pub fn release_messages(&self) {
        self.inner.agent.release_stored_messages();
        for entry in self.state().session.entries() {
            if let Some(m) = entry.stored_message() {
                m.release();
            }
        }
    }

    /// The external tools (MCP servers) in use, if any.
    pub fn external(&self) -> Option<Arc<dyn ExternalTools>> {
        lock(&self.inner.external).clone()
    }

    /// Replaces the external tools (/reload): the agent asks the new source for its tools
    /// from the next turn on.
    pub fn set_external(&self, external: Option<Arc<dyn ExternalTools>>) {
        self.inner
            .agent
            .set_tool_source(external.as_ref().map(|e| e.tool_source()));
        *lock(&self.inner.external) = external;
    }

    /// The extension runner.
    pub fn extensions(&self) -> &ExtensionRunner {
        &self.inner.extensions
    }

    /// True while a run loop is active: streaming, retry back-off, or a continuation.
    pub fn is_streaming(&self) -> bool {
        *self.inner.loop_active.borrow() || self.inner.agent.is_streaming()
    }

    /// Resolves when no run loop is active.
    pub async fn wait_for_idle(&self) {
        let mut rx = self.inner.loop_active.subscribe();
        let _ = rx.wait_for(|active| !active).await;
        self.inner.agent.wait_for_idle().await;
    }

    /// The session's working directory.
    pub fn cwd(&self) -> &Path {
        &self.inner.cwd
    }

    /// The current model.
    pub fn model(&self) -> Option<Model> {
        self.state().model.clone()
    }

    /// The current thinking level.
    pub fn thinking_level(&self) -> ThinkingLevel {
        self.state().thinking_level
    }

    /// A deep copy of the conversation (agent state), for callers that must own it.
    pub fn messages(&self) -> Vec<AgentMessage> {
        self.inner.agent.messages()
    }

    /// The conversation (agent state), sharing each message instead of copying it; messages
    /// released from memory are read back from the session file.
    pub fn shared_messages(&self) -> Result<Vec<Arc<AgentMessage>>, ReadError> {
        self.inner.agent.shared_messages()
    }

    /// The transcript's last message, decoded (`None` when there is none or it cannot be read
    /// back).
    pub fn with_agent_last_message(&self) -> Option<Arc<AgentMessage>> {
        let last = self.inner.agent.stored_messages().pop()?;
        last.get().ok()
    }

    /// Runs `f` on the session store (short; the store is locked meanwhile).
    pub fn with_session<R>(&self, f: impl FnOnce(&SessionManager) -> R) -> R {
        f(&self.state().session)
    }

    /// True while a compaction runs.
    pub fn is_compacting(&self) -> bool {
        self.state().is_compacting
    }

    /// The retry counter (RETRY-12).
    pub fn retry_attempt(&self) -> u32 {
        self.state().retry_attempt
    }

    /// Loaded skills.
    pub fn skills(&self) -> Vec<Skill> {
        self.state().skills.clone()
    }

    /// Loaded prompt templates.
    pub fn templates(&self) -> Vec<PromptTemplate> {
        self.state().templates.clone()
    }

    /// Replaces the active tools (extension tools stay) and rebuilds the base system prompt
    /// from its options, which also drops a per-run override (MSG-9).
    pub fn set_active_tools(&self, tools: Vec<Arc<dyn AgentTool>>) {
        let names: Vec<String> = tools.iter().map(|t| t.name().to_string()).collect();
        let all = with_extension_tools(tools, self.inner.extensions.tools());
        self.inner.agent.set_tools(all);
        self.rebuild_base_prompt(|options| options.active_tools = Some(names));
    }

    /// Changes the prompt's options with `change` and rebuilds the base system prompt from
    /// them (MSG-9): the agent gets its text and its sections, which it records as pi 1.x
    /// system messages when they change (D18). Nothing happens for a session whose prompt
    /// was not built by rho.
    pub(crate) fn rebuild_base_prompt(
        &self,
        change: impl FnOnce(&mut crate::system_prompt::SystemPromptOptions),
    ) {
        let (base, sections) = {
            let mut s = self.state();
            let Some(options) = s.prompt_options.as_mut() else {
                return;
            };
            change(options);
            let sections = crate::system_prompt::build_system_prompt_sections(options);
            let base = crate::system_prompt::render_sections(&sections);
            s.base_system_prompt = base.clone();
            (base, sections)
        };
        self.inner.agent.set_system_prompt(base);
        self.inner.agent.set_system_sections(Some(sections));
    }

    /// The context files (AGENTS.md, CLAUDE.md) the system prompt was built with, root first.
    pub fn context_files(&self) -> Vec<PathBuf> {
        self.state()
            .prompt_options
            .as_ref()
            .map(|o| o.context_files.iter().map(|f| f.path.clone()).collect())
            .unwrap_or_default()
    }

    /// The current system prompt.
    pub fn system_prompt(&self) -> String {
        self.inner.agent.with_state(|s| s.system_prompt.clone())
    }
}

fn collect_extension_tools(extensions: &[Extension]) -> Vec<Arc<dyn AgentTool>> {
    extensions
        .iter()
        .flat_map(|e| e.tools().iter().cloned())
        .collect()
}

/// Built-in tools followed by extension tools; an extension tool named like a built-in
/// replaces it (pi: "Extension's read tool replaces built-in read").
fn with_extension_tools(
    builtins: Vec<Arc<dyn AgentTool>>,
    extension: Vec<Arc<dyn AgentTool>>,
) -> Vec<Arc<dyn AgentTool>> {
    let taken: Vec<String> = extension.iter().map(|e| e.name().to_string()).collect();
    builtins
        .into_iter()
        .filter(|b| !taken.iter().any(|name| name == b.name()))
        .chain(extension)
        .collect()
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests;
