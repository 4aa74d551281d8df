//! AgentSession: the prompting system of the seed. Every run mode drives the agent through
//! this one type: `prompt()`'s seven stages, the run loop with its post-run chain (retry,
//! compaction, queued messages), steering and follow-up bookkeeping, custom messages,
//! extension commands, deferred bash results and abort (seed diagrams 1-12, decisions D1-D13).
//!
//! Concurrency: one *session task* (`task.rs`) owns the run. It holds the agent's event
//! stream, drives one job at a time (a run, processing each event to completion before the
//! next, SE-1; a manual compaction; a move in the tree), and applies the typed operations
//! (`ops.rs`) that `prompt`, `steer`, `abort`, `compact`, `navigate_tree`, bash results,
//! session switches, model changes and extension calls send it, in the order they were sent
//! and between two steps of the job. The agent calls back into the session through one
//! trait, `rho_agent::SessionHooks` (`upcalls.rs`). [`AgentSession`] is a cheap
//! handle: its async methods send an operation and await the answer; its getters read the
//! session's data and the run's one [`RunState`] under short locks, so they work while a
//! prompt runs (D13).

mod bash;
mod bash_chunks;
mod boundary;
mod codemode;
pub mod compaction_flow;
pub mod credentials;
mod custom;
mod drafts;
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
mod model_providers;
mod ops;
mod permission_gate;
mod phase;
mod pipeline;
mod post_run;
mod prompt;
mod provider_headers;
mod queue;
mod resources;
mod rpc_support;
mod run_loop;
mod save_failure;
mod session_setup;
mod shell_env;
mod sign_in;
mod switch;
mod task;
mod tool_set;
mod tree;
mod upcalls;
mod virtual_route;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use rho_agent::{Agent, AgentMessage, AgentOptions, AgentTool, ReadError, StoredMessage, StreamFn};
use rho_ai::{Model, ThinkingLevel};
use tokio::sync::{mpsc, watch};

use crate::resources::skills::Skill;
use crate::resources::templates::PromptTemplate;
use crate::settings::Settings;
use ops::{Op, Origin};
use phase::RunControl;
use rho_extension_host::{Extension, ExtensionContext, ExtensionRunner, ExtensionUi, NoUi};
use rho_session::SessionManager;

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
pub use external::{unconnected_text, ExternalError, ExternalServers, ExternalTools};
pub use fork::{ForkCandidate, ForkOutcome};
pub use model::{SessionStats, StatsScope};
pub use model_control::{parse_level, Cycled, InvalidThinkingLevel, ModelControl};
pub use model_providers::{register_loaded_models, ModelProviders, ProviderRegistrationError};
pub use phase::{RunPhase, RunState};
pub use prompt::{Disposition, InputSource, PreflightFn, PromptOptions, StreamingBehavior};
pub use queue::QueuedTexts;
pub use save_failure::SESSION_SOURCE;
pub use shell_env::SessionEnvSource;
pub use sign_in::SignInError;
pub use switch::{Opened, ReloadReport, Reloader, SwitchReason};
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
    /// Where MCP servers extensions register after loading go; `None`: nothing connects them.
    pub external_servers: Option<Arc<dyn ExternalServers>>,
    /// Every known model (built-ins, refreshed catalogs and models.json), built the first
    /// time model switching asks for it; the built-in catalog by default.
    pub models: rho_ai::ModelList,
    /// What the `bash` tool's commands learn about the session ([`SessionEnvSource::provider`]
    /// in its shell settings); the session binds it to itself.
    pub session_env: SessionEnvSource,
    /// Where providers extensions register after loading go; `None`: they are refused.
    pub model_providers: Option<Arc<dyn ModelProviders>>,
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
            external_servers: None,
            models: rho_ai::ModelList::builtin(),
            session_env: SessionEnvSource::default(),
            model_providers: None,
        }
    }
}

/// The session's data: the store, settings, the model and what prompts are built from.
/// Locked briefly, never across an await.
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
    /// The agent's queues as listeners know them (`queue_update`, Q-2, Q-4).
    pub queue: queue::QueueView,
}

/// What the session works with for its whole life: the agent, extensions, credentials, the
/// provider, confinement, listeners. Set up once; the few parts that can be replaced
/// (/reload, the mode's UI) sit behind their own locks.
pub(crate) struct Services {
    pub agent: Agent,
    pub listeners: Mutex<Vec<Listener>>,
    pub extensions: ExtensionRunner,
    pub ui: Mutex<Arc<dyn ExtensionUi>>,
    pub credentials: Arc<dyn CredentialStore>,
    pub stream_fn: StreamFn,
    pub sandbox: Option<Arc<rho_sandbox::Sandbox>>,
    pub permissions: crate::permissions::Permissions,
    pub escalate: bool,
    /// Replaceable: /reload starts the configured MCP servers again.
    pub external: Mutex<Option<Arc<dyn ExternalTools>>>,
    /// Where MCP servers extensions register after loading go.
    pub external_servers: Option<Arc<dyn ExternalServers>>,
    pub models: rho_ai::ModelList,
    /// Where providers extensions register after loading go.
    pub model_providers: Option<Arc<dyn ModelProviders>>,
    /// Every configured built-in tool, active or not (see `tool_set`).
    pub builtin_tools: Vec<Arc<dyn AgentTool>>,
    /// Tools extensions registered after loading.
    pub dynamic_tools: Mutex<Vec<Arc<dyn AgentTool>>>,
    pub cwd: PathBuf,
    pub bash_runs: bash::BashRuns,
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
    /// codemode `store()` writes of scripts whose tool result the run loop has not persisted
    /// yet: written just before that result, so the entry follows the call on the branch.
    pub codemode_store: Mutex<Vec<serde_json::Value>>,
    /// The failed response an automatic retry under a virtual selection answers.
    pub failed_response: virtual_route::FailedResponse,
}

/// Everything behind a session handle, grouped by lifetime: services for the session's life,
/// the run's control (its phase, the driver of the agent's events), and the session's data.
pub(crate) struct Inner {
    pub services: Services,
    pub run: RunControl,
    /// The session task's inbox (see `task.rs`).
    pub ops: mpsc::UnboundedSender<Op>,
    /// Timestamp of the last assistant `message_end` the pipeline finished (SE-2, EXT-10).
    pub processed_assistant: watch::Sender<i64>,
    /// What `turn_end` and `agent_before_settle` need of the pipeline (`boundary.rs`).
    pub boundaries: boundary::Boundaries,
    pub state: Mutex<State>,
    pub weak: std::sync::Weak<Inner>,
}

/// Takes one event; false once the listener is gone.
pub(crate) type Listener = Box<dyn Fn(&SessionEvent) -> bool + Send>;

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
        let events = agent.subscribe();
        let (ops, inbox) = mpsc::unbounded_channel();
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
                services: Services {
                    agent,
                    listeners: Mutex::new(Vec::new()),
                    extensions,
                    ui: Mutex::new(config.ui),
                    credentials: config.credentials,
                    stream_fn: config.stream_fn,
                    sandbox: config.sandbox,
                    permissions: config.permissions,
                    escalate: config.escalate,
                    external: Mutex::new(config.external),
                    external_servers: config.external_servers,
                    models: config.models,
                    model_providers: config.model_providers,
                    builtin_tools: builtin_tools
                        .into_iter()
                        .chain([codemode::tool(weak.clone())])
                        .collect(),
                    dynamic_tools: Mutex::new(Vec::new()),
                    cwd: config.cwd,
                    generation: std::sync::atomic::AtomicU64::new(0),
                    actions_bound: std::sync::atomic::AtomicBool::new(false),
                    reload: switch::ReloadHook::default(),
                    after_run: Mutex::new(None),
                    bash_runs: bash::BashRuns::default(),
                    codemode_store: Mutex::new(Vec::new()),
                    failed_response: Default::default(),
                },
                run: RunControl::default(),
                ops,
                processed_assistant: watch::channel(0).0,
                boundaries: boundary::Boundaries::default(),
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
                    queue: queue::QueueView::default(),
                }),
                weak: weak.clone(),
            }
        });
        config.session_env.bind(Arc::downgrade(&inner));
        let task = task::SessionTask {
            inner: Arc::downgrade(&inner),
            ops: inbox,
            events,
        };
        tokio::spawn(task.run());
        let session = AgentSession { inner };
        session.connect_agent();
        session.rebuild_base_prompt(|_| {});
        session
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.inner.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The agent underneath (read-only use: state, messages).
    pub fn agent(&self) -> &Agent {
        &self.inner.services.agent
    }

    /// Subscribes to every event, in emission order. Drop the receiver to unsubscribe.
    pub fn subscribe(&self) -> mpsc::UnboundedReceiver<SessionEvent> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.subscribe_into(tx);
        rx
    }

    /// Subscribes a channel of the caller's own items, each event sent as one: a front-end
    /// that writes its own lines (responses) into the same channel gets them in one order with
    /// the events, so a line it sends from a callback the session makes before an event (a
    /// prompt's preflight) comes before that event, with no waiting on either side. Drop the
    /// receiver to unsubscribe.
    pub fn subscribe_into<T>(&self, tx: mpsc::UnboundedSender<T>)
    where
        T: From<SessionEvent> + Send + 'static,
    {
        let listener: Listener = Box::new(move |event| tx.send(T::from(event.clone())).is_ok());
        lock(&self.inner.services.listeners).push(listener);
    }

    /// Sends an event to every listener; closed ones are dropped.
    pub(crate) fn emit(&self, event: SessionEvent) {
        lock(&self.inner.services.listeners).retain(|l| l(&event));
    }

    pub(crate) fn emit_session(&self, event: SessionOnlyEvent) {
        self.emit(SessionEvent::Session(event));
    }

    /// A fresh extension context for one emission (EXT-20).
    /// The session's sandbox, if commands are sandboxed.
    pub fn sandbox(&self) -> Option<Arc<rho_sandbox::Sandbox>> {
        self.inner.services.sandbox.clone()
    }

    /// The permission rules and mode in force.
    pub fn permissions(&self) -> &crate::permissions::Permissions {
        &self.inner.services.permissions
    }

    pub(crate) fn ext_ctx(&self) -> ExtensionContext {
        self.ctx_for(Origin::Outside)
    }

    /// The context for the extension handlers the session task's work awaits (a run, a
    /// compaction, a move in the tree).
    pub(crate) fn run_ctx(&self) -> ExtensionContext {
        self.ctx_for(Origin::RunLoop)
    }

    /// A context whose session calls come from `origin`.
    pub(crate) fn ctx_for(&self, origin: Origin) -> ExtensionContext {
        ExtensionContext::new(
            Arc::new(host::SessionHost {
                inner: self.inner.weak.clone(),
                origin,
            }),
            lock(&self.inner.services.ui).clone(),
        )
    }

    /// Counts wholesale replacements of the conversation: another session (new, resumed,
    /// forked), a move in the tree, a compaction. A UI that draws the conversation from events
    /// compares it to the value it last drew from and rebuilds when it changed, because those
    /// replacements have no event of their own in pi's protocol.
    pub fn generation(&self) -> u64 {
        self.inner
            .services
            .generation
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// Sets the agent's messages to a rebuilt conversation (sharing the session's entries) and bumps [`Self::generation`].
    pub(crate) fn replace_conversation(&self, messages: Vec<StoredMessage>) {
        self.inner.services.agent.set_messages(messages);
        self.inner
            .services
            .generation
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }

    /// Connects the mode's UI (the RPC mode's extension UI sub-protocol, the TUI) once it
    /// exists; later extension contexts use it.
    pub fn set_ui(&self, ui: Arc<dyn ExtensionUi>) {
        *lock(&self.inner.services.ui) = ui;
    }

    /// Sets what runs after each run loop (prompt, retries, continuations) has ended and
    /// its request buffers are freed, before the session reports idle: the binary hands
    /// freed memory back to the system there. It runs on the blocking pool and the session
    /// waits for it, so a client that sees the session idle sees its effect.
    pub fn set_after_run(&self, hook: AfterRun) {
        *lock(&self.inner.services.after_run) = Some(hook);
    }

    /// Lets go of the decoded messages that are in the session file (they are read back when
    /// needed), then runs the after-run hook, if any.
    pub(crate) async fn after_run(&self) {
        self.release_messages();
        let hook = lock(&self.inner.services.after_run).clone();
        if let Some(hook) = hook {
            let _ = tokio::task::spawn_blocking(move || hook()).await;
        }
    }

    /// Drops the decoded messages of the transcript and of every entry that are on disk
    /// (messages not yet written, or never, stay in memory).
    pub fn release_messages(&self) {
        self.inner.services.agent.release_stored_messages();
        for entry in self.state().session.entries() {
            if let Some(m) = entry.stored_message() {
                m.release();
            }
        }
    }

    /// The external tools (MCP servers) in use, if any.
    pub fn external(&self) -> Option<Arc<dyn ExternalTools>> {
        lock(&self.inner.services.external).clone()
    }

    /// Replaces the external tools (/reload): the agent asks the new source for its tools
    /// from the next turn on.
    pub fn set_external(&self, external: Option<Arc<dyn ExternalTools>>) {
        self.inner
            .services
            .agent
            .set_tool_source(external.as_ref().map(|e| e.tool_source()));
        *lock(&self.inner.services.external) = external;
    }

    /// The extension runner.
    pub fn extensions(&self) -> &ExtensionRunner {
        &self.inner.services.extensions
    }

    /// True while a run is active or accepted to start: streaming, retry back-off, a
    /// continuation, or a prompt between its acceptance and its first event. A manual
    /// compaction or a move in the tree is not streaming (see [`Self::is_compacting`]).
    pub fn is_streaming(&self) -> bool {
        self.inner.run.get().streaming() || self.inner.services.agent.is_streaming()
    }

    /// The run's phase and what was asked of it.
    pub fn run_state(&self) -> RunState {
        self.inner.run.get()
    }

    /// Resolves when the session task drives nothing (no run, no manual compaction, no move
    /// in the tree) and nothing waits to start.
    pub async fn wait_for_idle(&self) {
        self.inner.run.idle().await;
        self.inner.services.agent.wait_for_idle().await;
    }

    /// The session's working directory.
    pub fn cwd(&self) -> &Path {
        &self.inner.services.cwd
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
        self.inner.services.agent.messages()
    }

    /// The conversation (agent state), sharing each message instead of copying it; messages
    /// released from memory are read back from the session file.
    pub fn shared_messages(&self) -> Result<Vec<Arc<AgentMessage>>, ReadError> {
        self.inner.services.agent.shared_messages()
    }

    /// The transcript's last message, decoded (`None` when there is none or it cannot be read
    /// back).
    pub fn with_agent_last_message(&self) -> Option<Arc<AgentMessage>> {
        let last = self.inner.services.agent.stored_messages().pop()?;
        last.get().ok()
    }

    /// Runs `f` on the session store (short; the store is locked meanwhile).
    pub fn with_session<R>(&self, f: impl FnOnce(&SessionManager) -> R) -> R {
        f(&self.state().session)
    }

    /// True while a compaction runs (in a run, or a manual one) or the tree is being moved
    /// in, a branch summary included (COMP-22).
    pub fn is_compacting(&self) -> bool {
        self.inner.run.get().compacting()
    }

    /// The retry counter (RETRY-12).
    pub fn retry_attempt(&self) -> u32 {
        self.inner.run.get().retry_attempt
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
        let all = with_extension_tools(tools, self.inner.services.extensions.tools());
        self.inner.services.agent.set_tools(all);
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
        self.inner.services.agent.set_system_prompt(base);
        self.inner
            .services
            .agent
            .set_system_sections(Some(sections));
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
        self.inner
            .services
            .agent
            .with_state(|s| s.system_prompt.clone())
    }
}

fn collect_extension_tools(extensions: &[Extension]) -> Vec<Arc<dyn AgentTool>> {
    extensions
        .iter()
        .flat_map(|e| e.tools().iter().cloned())
        .collect()
}

/// Built-in tools followed by extension tools; an extension tool named like a built-in
/// replaces it in its place (pi: "Extension's read tool replaces built-in read"; the order
/// stays pi's read, bash, edit, write, then extension tools as registered).
fn with_extension_tools(
    builtins: Vec<Arc<dyn AgentTool>>,
    extension: Vec<Arc<dyn AgentTool>>,
) -> Vec<Arc<dyn AgentTool>> {
    let mut extension = extension;
    let mut tools: Vec<Arc<dyn AgentTool>> = builtins
        .into_iter()
        .map(
            |b| match extension.iter().position(|e| e.name() == b.name()) {
                Some(at) => extension.remove(at),
                None => b,
            },
        )
        .collect();
    tools.extend(extension);
    tools
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests;
