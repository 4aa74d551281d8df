//! The pi host's supervision: when the node host dies (an extension calls `process.exit`, node
//! runs out of memory, the process is killed), it is started again once; when it dies a second
//! time its extensions are reported unloaded and the session goes on without them. Messages
//! name the extension files, not the host program.
//!
//! The [`Extension`] handed to the session forwards every event, command and tool to the
//! current host generation, so a restart is invisible to the session's registry.

use std::sync::{Arc, Mutex, MutexGuard};

use futures_util::future::BoxFuture;
use rho_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use rho_ai::oauth::{LoginUi, OAuthCredential, OAuthError, OAuthProvider};
use rho_extension_host::process::{ProcessExtension, ProcessOptions};
use rho_extension_host::render::{RenderTarget, Rendered, RendererSpec};
use rho_extension_host::{
    CommandCompleter, CommandDef, Extension, ExtensionContext, ExtensionEvent, ExtensionRenderer,
    ProviderDef, ProviderRefresh, ProviderStream, ShortcutDef, VirtualModelDef, VirtualRoute,
};

/// How to start the host again.
pub struct Launch {
    /// node.
    pub program: String,
    /// host.mjs and its arguments.
    pub args: Vec<String>,
    /// Deadlines, cwd, flags.
    pub options: ProcessOptions,
    /// The extension files, for messages.
    pub files: String,
}

struct State {
    /// The running host; `None` once it is unloaded.
    current: Option<(u64, ProcessExtension, Extension)>,
    restarted: bool,
    /// rho is unloading the host on purpose (/reload, quit): its exit is no crash.
    closing: bool,
    /// The context of the latest request: restart notices go to its UI.
    ctx: Option<ExtensionContext>,
}

/// Keeps one pi host running for the session.
pub struct Supervisor {
    launch: Launch,
    state: Mutex<State>,
    /// Serialises crash handling between the watcher and a request that saw the exit.
    handling: tokio::sync::Mutex<()>,
    /// Dropped with the supervisor: watchers stop holding a host the session let go of.
    alive: tokio::sync::watch::Sender<()>,
}

fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Supervisor {
    /// Supervises `first` (already started from `launch`) and returns the session's view of it.
    pub fn extension(launch: Launch, first: ProcessExtension) -> Extension {
        let inner = first.extension();
        let sup = Arc::new(Supervisor {
            launch,
            state: Mutex::new(State {
                current: Some((0, first.clone(), inner.clone())),
                restarted: false,
                closing: false,
                ctx: None,
            }),
            handling: tokio::sync::Mutex::new(()),
            alive: tokio::sync::watch::channel(()).0,
        });
        sup.watch(0, &first);
        sup.outer(&first, &inner)
    }

    /// The extension the session sees: the registration of the first host, forwarded.
    fn outer(self: &Arc<Self>, first: &ProcessExtension, inner: &Extension) -> Extension {
        let mut ext = Extension::new(self.launch.files.clone());
        for event in &first.registration().events {
            let (sup, name) = (self.clone(), event.clone());
            ext.on(
                event,
                Arc::new(move |event, ctx| {
                    let (sup, name) = (sup.clone(), name.clone());
                    Box::pin(async move {
                        let Some((generation, inner)) = sup.current(&ctx) else {
                            return Ok(None);
                        };
                        let Some(handler) = inner.handlers_for(&name).next().cloned() else {
                            return Ok(None);
                        };
                        let r = handler(event, ctx).await;
                        sup.checked(generation, r, &name).await
                    })
                }),
            );
        }
        for command in inner.commands() {
            ext.set_command_path(&command.name, inner.command_path(&command.name));
            let (sup, name) = (self.clone(), command.name.clone());
            let complete = command
                .complete
                .is_some()
                .then(|| self.completer(command.name.clone()));
            ext.register_command(CommandDef {
                complete,
                name: command.name.clone(),
                description: command.description.clone(),
                handler: Arc::new(move |args, ctx| {
                    let (sup, name) = (sup.clone(), name.clone());
                    Box::pin(async move {
                        let Some((generation, inner)) = sup.current(&ctx) else {
                            return Err(sup.unloaded());
                        };
                        let Some(def) = inner.commands().iter().find(|c| c.name == name) else {
                            return Err(format!("the restarted pi host no longer has /{name}"));
                        };
                        let r = (def.handler)(args, ctx).await;
                        sup.checked(generation, r, &format!("command /{name}"))
                            .await
                    })
                }),
            });
        }
        for shortcut in inner.shortcuts() {
            let (sup, key) = (self.clone(), shortcut.key.clone());
            ext.register_shortcut(ShortcutDef {
                key: shortcut.key.clone(),
                description: shortcut.description.clone(),
                handler: Arc::new(move |ctx| {
                    let (sup, key) = (sup.clone(), key.clone());
                    Box::pin(async move {
                        let Some((generation, inner)) = sup.current(&ctx) else {
                            return Err(sup.unloaded());
                        };
                        let Some(def) = inner.shortcuts().iter().find(|s| s.key == key) else {
                            return Err(format!("the restarted pi host no longer has {key}"));
                        };
                        let r = (def.handler)(ctx).await;
                        sup.checked(generation, r, &format!("shortcut {key}")).await
                    })
                }),
            });
        }
        for provider in inner.providers() {
            let stream = provider
                .stream
                .is_some()
                .then(|| self.provider_stream(&provider.name));
            let oauth = provider.oauth.as_ref().map(|o| {
                Arc::new(SupervisedOAuth {
                    sup: self.clone(),
                    provider: provider.name.clone(),
                    name: o.name().to_string(),
                }) as Arc<dyn OAuthProvider>
            });
            let refresh = provider
                .refresh
                .is_some()
                .then(|| self.provider_refresh(&provider.name));
            ext.register_provider(ProviderDef {
                name: provider.name.clone(),
                config: provider.config.clone(),
                stream,
                oauth,
                refresh,
            });
        }
        for def in inner.virtual_models() {
            ext.register_virtual_model(VirtualModelDef {
                spec: def.spec.clone(),
                route: self.virtual_route(&def.spec.provider, &def.spec.id),
            });
        }
        // rho runs these servers itself; a restarted host's registrations do not restart them.
        for spec in inner.mcp_servers() {
            ext.register_mcp_server(spec.clone());
        }
        for flag in inner.flags() {
            ext.declare_flag(flag.clone());
        }
        for tool in inner.tools() {
            ext.register_tool(Arc::new(SupervisedTool {
                sup: self.clone(),
                first: tool.clone(),
            }));
        }
        ext.set_renderer(Arc::new(SupervisedRenderer {
            sup: self.clone(),
            spec: first.registration().renderers.clone(),
        }));
        let sup = self.clone();
        ext.set_closer(Arc::new(move |grace| {
            let sup = sup.clone();
            Box::pin(async move {
                let current = {
                    let mut state = lock(&sup.state);
                    state.closing = true;
                    state.current.take()
                };
                if let Some((_, _, inner)) = current {
                    inner.close(grace).await;
                }
            })
        }));
        ext
    }

    /// Streams a reply of provider `name` in whichever host generation is current.
    fn provider_stream(self: &Arc<Self>, name: &str) -> ProviderStream {
        let (sup, name) = (self.clone(), name.to_string());
        Arc::new(move |model, context, options, events| {
            let (sup, name) = (sup.clone(), name.clone());
            Box::pin(async move {
                let Some((generation, stream)) = sup.current_provider(&name, |p| p.stream.clone())
                else {
                    return Err(sup.unavailable(&name));
                };
                let r = stream(model, context, options, events).await;
                sup.checked(generation, r, &format!("a reply of provider {name}"))
                    .await
            })
        })
    }

    /// What `part` takes of provider `name` in the current host generation, with that
    /// generation; `None` when there is none (see [`Self::unavailable`]).
    fn current_provider<T>(
        &self,
        name: &str,
        part: impl FnOnce(&ProviderDef) -> Option<T>,
    ) -> Option<(u64, T)> {
        let current = lock(&self.state)
            .current
            .as_ref()
            .map(|(g, _, e)| (*g, e.clone()));
        let (generation, inner) = current?;
        let found = inner
            .providers()
            .iter()
            .find(|p| p.name == name)
            .and_then(part)?;
        Some((generation, found))
    }

    /// Why provider `name` cannot be asked: the host is unloaded, or its restarted
    /// generation no longer registers it.
    fn unavailable(&self, name: &str) -> String {
        if lock(&self.state).current.is_none() {
            return self.unloaded();
        }
        format!("the restarted pi host no longer has provider {name}")
    }

    /// Runs provider `name`'s `refreshModels` in whichever host generation is current.
    fn provider_refresh(self: &Arc<Self>, name: &str) -> ProviderRefresh {
        let (sup, name) = (self.clone(), name.to_string());
        Arc::new(move |allow_network, credential, stored| {
            let (sup, name) = (sup.clone(), name.clone());
            Box::pin(async move {
                let Some((generation, refresh)) =
                    sup.current_provider(&name, |p| p.refresh.clone())
                else {
                    return Err(sup.unavailable(&name));
                };
                let r = refresh(allow_network, credential, stored).await;
                sup.checked(generation, r, &format!("refreshModels of provider {name}"))
                    .await
            })
        })
    }

    /// Asks the router of virtual model `provider`/`id` in whichever host generation is
    /// current.
    fn virtual_route(self: &Arc<Self>, provider: &str, id: &str) -> VirtualRoute {
        let (sup, provider, id) = (self.clone(), provider.to_string(), id.to_string());
        Arc::new(move |request, ctx| {
            let (sup, provider, id) = (sup.clone(), provider.clone(), id.clone());
            Box::pin(async move {
                let Some((generation, inner)) = sup.current(&ctx) else {
                    return Err(sup.unloaded());
                };
                let route = inner
                    .virtual_models()
                    .iter()
                    .find(|v| v.spec.provider == provider && v.spec.id == id)
                    .map(|v| v.route.clone())
                    .ok_or_else(|| {
                        format!("the restarted pi host no longer has virtual model {provider}/{id}")
                    })?;
                let r = route(request, ctx).await;
                let what = format!("the router of virtual model {provider}/{id}");
                sup.checked(generation, r, &what).await
            })
        })
    }

    /// The running generation (remembering `ctx` for notices), or `None` once unloaded.
    fn current(&self, ctx: &ExtensionContext) -> Option<(u64, Extension)> {
        let mut state = lock(&self.state);
        state.ctx = Some(ctx.clone());
        state.current.as_ref().map(|(g, _, e)| (*g, e.clone()))
    }

    /// The host of now, without binding a session (completions have none).
    fn latest(&self) -> Option<(u64, Extension)> {
        let state = lock(&self.state);
        state.current.as_ref().map(|(g, _, e)| (*g, e.clone()))
    }

    /// Completes the arguments of command `name` in the host of the moment.
    fn completer(self: &Arc<Self>, name: String) -> CommandCompleter {
        let sup = self.clone();
        Arc::new(move |prefix| {
            let (sup, name) = (sup.clone(), name.clone());
            Box::pin(async move {
                let Some((generation, inner)) = sup.latest() else {
                    return Err(sup.unloaded());
                };
                let command = inner.commands().iter().find(|c| c.name == name).cloned();
                let Some(complete) = command.and_then(|c| c.complete) else {
                    return Ok(None);
                };
                let r = complete(prefix).await;
                sup.checked(generation, r, &format!("the completions of /{name}"))
                    .await
            })
        })
    }

    fn unloaded(&self) -> String {
        format!(
            "pi extensions {} are unloaded: their host crashed twice; /reload starts them again",
            self.launch.files
        )
    }

    /// Passes a result on; a failure because the host died becomes the crash message. The
    /// error is a process reply's text (`rho_extension_host::process::connection::Reply`:
    /// the extension's own error, or why it cannot answer), so it stays a string.
    async fn checked<T>(
        self: &Arc<Self>,
        generation: u64,
        // A process reply's text (the extension's own error): a string by protocol.
        r: Result<T, String>,
        what: &str,
        // The same reply text passed on, or the crash message in its place.
    ) -> Result<T, String> {
        let Err(error) = r else { return r };
        let died = {
            let state = lock(&self.state);
            match &state.current {
                Some((g, process, _)) if *g == generation => {
                    process.connection().dead_reason().is_some()
                }
                Some(_) => true,
                None => !state.closing,
            }
        };
        if !died {
            return Err(error);
        }
        let outcome = self.crashed(generation).await;
        Err(format!(
            "pi extensions {}: their host exited during {what}; {outcome}",
            self.launch.files
        ))
    }

    /// Watches generation `generation` and handles its death.
    fn watch(self: &Arc<Self>, generation: u64, process: &ProcessExtension) {
        let sup = Arc::downgrade(self);
        let conn = process.connection().clone();
        let mut alive = self.alive.subscribe();
        tokio::spawn(async move {
            tokio::select! {
                _ = conn.wait_dead() => {}
                _ = alive.changed() => return,
            }
            if let Some(sup) = sup.upgrade() {
                sup.crashed(generation).await;
            }
        });
    }

    /// Handles the death of `generation` once: restart once, else unload. Returns what
    /// happened, for the message of a request that saw it.
    async fn crashed(self: &Arc<Self>, generation: u64) -> String {
        let _one = self.handling.lock().await;
        let (restart, ctx) = {
            let mut state = lock(&self.state);
            if state.closing {
                return "it was unloaded".into();
            }
            match &state.current {
                Some((g, _, _)) if *g == generation => {}
                Some(_) => return "it was restarted".into(),
                None => return "they are unloaded".into(),
            }
            let restart = !state.restarted;
            state.restarted = true;
            if !restart {
                state.current = None;
            }
            (restart, state.ctx.clone())
        };
        let files = &self.launch.files;
        let (message, outcome) = if restart {
            match self.respawn(generation + 1).await {
                Ok(()) => (
                    format!(
                        "pi extensions {files}: their host crashed and was restarted (what they \
                         kept in memory is lost)"
                    ),
                    "it was restarted".to_string(),
                ),
                Err(e) => {
                    lock(&self.state).current = None;
                    (
                        format!("pi extensions {files} are unloaded: their host crashed and did not start again: {e}"),
                        "they are unloaded".to_string(),
                    )
                }
            }
        } else {
            (self.unloaded(), "they are unloaded".to_string())
        };
        match &ctx {
            Some(ctx) => ctx.ui.notify(message, "error".into()),
            None => rho_extension_host::diagnostics::warn(message),
        }
        if let (Some(ctx), "it was restarted") = (ctx, outcome.as_str()) {
            self.restart_session(ctx).await;
        }
        outcome
    }

    /// The restarted host lost what its extensions set up at `session_start`: they get it
    /// again, with reason `reload` (their runtime started anew, as after pi's /reload).
    async fn restart_session(&self, ctx: ExtensionContext) {
        let current = lock(&self.state)
            .current
            .as_ref()
            .map(|(_, _, e)| e.clone());
        let Some(inner) = current else { return };
        for handler in inner.handlers_for("session_start") {
            let event = ExtensionEvent::SessionStart {
                reason: "reload".into(),
                previous_session_file: None,
            };
            if let Err(e) = handler(event, ctx.clone()).await {
                ctx.ui.notify(e, "error".into());
            }
        }
    }

    async fn respawn(self: &Arc<Self>, generation: u64) -> Result<(), RespawnError> {
        let launch = &self.launch;
        let process =
            ProcessExtension::spawn(&launch.program, &launch.args, launch.options.clone()).await?;
        let inner = process.extension();
        let mut state = lock(&self.state);
        if state.closing {
            drop(state);
            drop(inner);
            return Err(RespawnError::Unloading);
        }
        state.current = Some((generation, process.clone(), inner));
        drop(state);
        self.watch(generation, &process);
        Ok(())
    }
}

/// Why a crashed host was not started again; ends "...did not start again: <this>".
#[derive(Debug, thiserror::Error)]
enum RespawnError {
    /// The host process could not be started or failed its handshake.
    #[error(transparent)]
    Spawn(#[from] rho_extension_host::process::ProcessError),
    /// rho began unloading the extensions meanwhile.
    #[error("rho is unloading it")]
    Unloading,
}

/// A tool of the pi host that runs in whichever host generation is current.
struct SupervisedTool {
    sup: Arc<Supervisor>,
    /// The first generation's tool: its name, label, description and schema.
    first: Arc<dyn AgentTool>,
}

impl AgentTool for SupervisedTool {
    fn name(&self) -> &str {
        self.first.name()
    }

    fn label(&self) -> &str {
        self.first.label()
    }

    fn description(&self) -> &str {
        self.first.description()
    }

    fn parameters(&self) -> serde_json::Value {
        self.first.parameters()
    }

    fn execute(
        &self,
        args: serde_json::Value,
        ctx: ToolContext,
    ) -> futures_util::future::BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let sup = self.sup.clone();
        let name = self.first.name().to_string();
        Box::pin(async move {
            let current = lock(&sup.state)
                .current
                .as_ref()
                .map(|(g, _, e)| (*g, e.clone()));
            let Some((generation, inner)) = current else {
                return Err(ToolError::new(sup.unloaded()));
            };
            let Some(tool) = inner.tools().iter().find(|t| t.name() == name).cloned() else {
                return Err(ToolError::new(format!(
                    "the restarted pi host no longer has the tool {name}"
                )));
            };
            match tool.execute(args, ctx).await {
                Err(e) => {
                    let details = e.details.clone();
                    sup.checked(generation, Err(e.message), &format!("tool {name}"))
                        .await
                        .map_err(|message| ToolError { message, details })
                }
                ok => ok,
            }
        })
    }
}

/// Draws with whichever host generation is current (an unloaded host draws nothing: rho's own
/// rendering takes over).
struct SupervisedRenderer {
    sup: Arc<Supervisor>,
    spec: RendererSpec,
}

impl SupervisedRenderer {
    fn current(&self) -> Option<Arc<dyn ExtensionRenderer>> {
        let state = lock(&self.sup.state);
        let (_, _, inner) = state.current.as_ref()?;
        inner.renderer().cloned()
    }
}

impl ExtensionRenderer for SupervisedRenderer {
    fn spec(&self) -> &RendererSpec {
        &self.spec
    }

    fn render(
        &self,
        target: RenderTarget,
        width: u16,
    ) -> futures_util::future::BoxFuture<'static, Result<Option<Rendered>, String>> {
        match self.current() {
            Some(r) => r.render(target, width),
            None => Box::pin(async { Ok(None) }),
        }
    }

    fn input(
        &self,
        key: String,
        data: String,
        // The extension's error text, as `ExtensionRenderer` defines it: a string by protocol.
    ) -> futures_util::future::BoxFuture<'static, Result<(), String>> {
        match self.current() {
            Some(r) => r.input(key, data),
            None => Box::pin(async { Ok(()) }),
        }
    }
}

/// A provider's sign-in in whichever host generation is current: a host that dies during a
/// sign-in or refresh is handled as for any request (restarted once, the message naming the
/// extension files), and the caller gets that message.
struct SupervisedOAuth {
    sup: Arc<Supervisor>,
    provider: String,
    name: String,
}

impl SupervisedOAuth {
    fn current(&self) -> Result<(u64, Arc<dyn OAuthProvider>), OAuthError> {
        let current = lock(&self.sup.state)
            .current
            .as_ref()
            .map(|(g, _, e)| (*g, e.clone()));
        let Some((generation, inner)) = current else {
            return Err(OAuthError::Extension {
                message: self.sup.unloaded(),
            });
        };
        let oauth = inner
            .providers()
            .iter()
            .find(|p| p.name == self.provider)
            .and_then(|p| p.oauth.clone());
        oauth
            .map(|o| (generation, o))
            .ok_or_else(|| OAuthError::Extension {
                message: format!(
                    "the restarted pi host no longer has the sign-in of provider {}",
                    self.provider
                ),
            })
    }

    async fn checked<T>(
        &self,
        generation: u64,
        r: Result<T, OAuthError>,
        what: &str,
    ) -> Result<T, OAuthError> {
        match r {
            Err(OAuthError::Extension { message }) => {
                let what = format!("{what} of provider {}", self.provider);
                self.sup
                    .checked(generation, Err(message), &what)
                    .await
                    .map_err(|message| OAuthError::Extension { message })
            }
            r => r,
        }
    }
}

impl OAuthProvider for SupervisedOAuth {
    fn id(&self) -> &str {
        &self.provider
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn login<'a>(
        &'a self,
        ui: &'a dyn LoginUi,
    ) -> BoxFuture<'a, Result<OAuthCredential, OAuthError>> {
        Box::pin(async move {
            let (generation, oauth) = self.current()?;
            let r = oauth.login(ui).await;
            self.checked(generation, r, "the sign-in").await
        })
    }

    fn refresh<'a>(
        &'a self,
        credential: &'a OAuthCredential,
    ) -> BoxFuture<'a, Result<OAuthCredential, OAuthError>> {
        Box::pin(async move {
            let (generation, oauth) = self.current()?;
            let r = oauth.refresh(credential).await;
            self.checked(generation, r, "the token refresh").await
        })
    }

    fn api_key<'a>(
        &'a self,
        credential: &'a OAuthCredential,
    ) -> BoxFuture<'a, Result<String, OAuthError>> {
        Box::pin(async move {
            let (generation, oauth) = self.current()?;
            let r = oauth.api_key(credential).await;
            self.checked(generation, r, "getApiKey").await
        })
    }
}
