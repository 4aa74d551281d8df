//! One live extension process: a writer for rho's requests, a reader task that routes the
//! extension's lines (results, tool updates, calls into rho), and request ids with a reply
//! deadline per request. A dead, silent or garbling process yields errors, never a hang.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rho_agent::{ProgressSink, ToolOutput};
use rho_process::ChildGroup;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::oneshot;

use super::late_trust::LateStartError;
use super::oauth::{self, LoginCalls};
use super::wire::{encode_line, excerpt, Incoming, Request};
use super::{calls, registrations, setup, ProcessOptions};
use crate::{ExtensionContext, HostError, SetupTarget};
use rho_protocol::extension::calls::SESSION_SETUP_APPEND;

/// A handler's reply: its result value (`null` = none) or its error text. A string: it is the
/// extension's own `error` from the wire, or why the extension cannot answer, and either way
/// becomes the extension's error text handlers report (see [`crate::EventHandler`]).
// A string: the wire's `error` is the extension's own text, handed on unchanged.
pub type Reply = Result<Value, String>;

/// Takes the `stream_event`s of a `stream` request.
pub type StreamSink = Arc<dyn Fn(Value) + Send + Sync>;

struct Pending {
    reply: oneshot::Sender<Reply>,
    progress: Option<ProgressSink>,
    events: Option<StreamSink>,
    /// Takes the `oauth_notify` / `oauth_prompt` calls of an `oauth_login` request.
    login: Option<LoginCalls>,
    /// Takes the `session_setup_append` calls of a `session_setup` request.
    setup: Option<Arc<dyn SetupTarget>>,
}

/// State shared by the writer side and the reader task.
pub(crate) struct Shared {
    /// The extension's path, for messages.
    path: String,
    /// `None` once rho closed the process's stdin (unloading it).
    writer: tokio::sync::Mutex<Option<ChildStdin>>,
    pending: Mutex<HashMap<u64, Pending>>,
    next_id: AtomicU64,
    /// The context of the latest forwarded request: calls into rho act on that session.
    ctx: Mutex<Option<ExtensionContext>>,
    /// Calls from the extension that rho is still serving (deadlines wait for them).
    busy: AtomicUsize,
    /// Why the process can no longer answer, once it cannot.
    dead: Mutex<Option<String>>,
    /// The deadlines the process was started with: what it registers later keeps them.
    options: ProcessOptions,
    /// Flips to true when the process can no longer answer.
    dead_signal: tokio::sync::watch::Sender<bool>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// CM-9 / EXT-22: pi's text for an action before the extension is bound to a session.
pub const NOT_INITIALIZED: &str =
    "Extension runtime not initialized. Action methods cannot be called during extension loading.";

/// The request side of a connection; cheap to share between handlers.
#[derive(Clone)]
pub struct Connection {
    shared: Arc<Shared>,
    /// The process; killed when the last connection handle goes (the reader task does not
    /// hold it, so a dropped extension never lingers).
    child: Arc<Mutex<Option<ChildGroup>>>,
    /// The stderr forwarder, awaited when the extension is unloaded: output without a final
    /// newline (a terminal escape such as notify.ts's) is only passed on at end of file, and
    /// rho may exit right after the unload.
    stderr_forwarder: Arc<Mutex<Option<tokio::task::JoinHandle<()>>>>,
}

impl Connection {
    /// Wraps the pipes of a process that completed the handshake and starts the reader task.
    pub(crate) fn start(
        path: String,
        stdin: ChildStdin,
        stdout: BufReader<ChildStdout>,
        options: ProcessOptions,
    ) -> Self {
        let shared = Arc::new(Shared {
            path,
            writer: tokio::sync::Mutex::new(Some(stdin)),
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            ctx: Mutex::new(None),
            busy: AtomicUsize::new(0),
            dead: Mutex::new(None),
            options,
            dead_signal: tokio::sync::watch::channel(false).0,
        });
        tokio::spawn(read_loop(shared.clone(), stdout));
        Self {
            shared,
            child: Arc::new(Mutex::new(None)),
            stderr_forwarder: Arc::new(Mutex::new(None)),
        }
    }

    /// Ties the process's lifetime to this connection.
    pub(crate) fn attach(
        &self,
        child: ChildGroup,
        stderr_forwarder: Option<tokio::task::JoinHandle<()>>,
    ) {
        *lock(&self.child) = Some(child);
        *lock(&self.stderr_forwarder) = stderr_forwarder;
    }

    /// Resolves once the process can no longer answer (it exited or closed its output).
    pub async fn wait_dead(&self) {
        let mut rx = self.shared.dead_signal.subscribe();
        let _ = rx.wait_for(|dead| *dead).await;
    }

    /// The process's exit status when it has exited.
    pub fn exit_status(&self) -> Option<std::process::ExitStatus> {
        lock(&self.child).as_ref().and_then(ChildGroup::exit_status)
    }

    /// The process id while the process runs under this connection.
    pub fn pid(&self) -> Option<u32> {
        lock(&self.child)
            .as_ref()
            .filter(|c| !c.has_exited())
            .map(ChildGroup::pid)
    }

    /// Unloads the extension: pending and later requests fail, its stdin closes (the author
    /// libraries then return from their loop) and the process gets `grace` to exit before it
    /// is ended (SIGTERM, then SIGKILL). It is reaped either way, so no zombie stays behind.
    pub async fn close(&self, grace: Duration) {
        self.shared
            .fail_all(&format!("extension {} was unloaded", self.path()));
        // A write stuck on a process that stopped reading holds the writer: do not wait
        // past the grace for it.
        let closed = tokio::time::timeout(grace, async {
            self.shared.writer.lock().await.take();
        })
        .await;
        let Some(child) = lock(&self.child).take() else {
            return;
        };
        if closed.is_err() {
            child.terminate().await;
        } else {
            child.stop_after(grace).await;
        }
        // The process is gone, so its stderr reaches end of file soon (unless a grandchild
        // still holds the pipe: then do not wait past the grace).
        let forwarder = lock(&self.stderr_forwarder).take();
        if let Some(forwarder) = forwarder {
            let _ = tokio::time::timeout(grace, forwarder).await;
        }
    }

    /// The options the process was started with.
    pub(crate) fn options(&self) -> &ProcessOptions {
        &self.shared.options
    }

    /// The extension's path.
    pub fn path(&self) -> &str {
        &self.shared.path
    }

    /// Remembers the context calls into rho should use from now on.
    pub fn bind(&self, ctx: &ExtensionContext) {
        *lock(&self.shared.ctx) = Some(ctx.clone());
    }

    /// Why the process stopped answering, if it did.
    pub fn dead_reason(&self) -> Option<String> {
        lock(&self.shared.dead).clone()
    }

    /// Sends a request built from a fresh id and waits for its result. `what` names it in
    /// errors. The deadline restarts while the extension waits on a call of its own to rho;
    /// when it passes, the extension gets `cancel` and the caller an error.
    pub async fn request<'a>(
        &self,
        what: &str,
        deadline: Duration,
        progress: Option<ProgressSink>,
        build: impl FnOnce(u64) -> Request<'a>,
    ) -> Reply {
        let (id, rx) = self.send(progress, build).await?;
        self.wait(id, rx, what, deadline).await
    }

    /// Like [`Connection::request`], handing the request's `stream_event`s to `events`.
    pub async fn request_stream<'a>(
        &self,
        what: &str,
        deadline: Duration,
        events: StreamSink,
        build: impl FnOnce(u64) -> Request<'a>,
    ) -> Reply {
        let (id, rx) = self
            .send_with(None, Some(events), None, None, build)
            .await?;
        self.wait(id, rx, what, deadline).await
    }

    /// Sends an `oauth_login` request whose `oauth_notify` / `oauth_prompt` calls go to
    /// `login`; returns its id and reply receiver (wait with [`Connection::wait`]).
    pub(crate) async fn send_login<'a>(
        &self,
        login: LoginCalls,
        build: impl FnOnce(u64) -> Request<'a>,
    ) -> Result<(u64, oneshot::Receiver<Reply>), String> {
        self.send_with(None, None, Some(login), None, build).await
    }

    /// Sends a `session_setup` request whose `session_setup_append` calls go to `target`;
    /// returns its id and reply receiver (wait with [`Connection::wait`]).
    pub(crate) async fn send_setup<'a>(
        &self,
        target: Arc<dyn SetupTarget>,
        build: impl FnOnce(u64) -> Request<'a>,
    ) -> Result<(u64, oneshot::Receiver<Reply>), String> {
        self.send_with(None, None, None, Some(target), build).await
    }

    /// Registers a pending request and writes it; returns its id and reply receiver.
    pub(crate) async fn send<'a>(
        &self,
        progress: Option<ProgressSink>,
        build: impl FnOnce(u64) -> Request<'a>,
    ) -> Result<(u64, oneshot::Receiver<Reply>), String> {
        self.send_with(progress, None, None, None, build).await
    }

    async fn send_with<'a>(
        &self,
        progress: Option<ProgressSink>,
        events: Option<StreamSink>,
        login: Option<LoginCalls>,
        setup: Option<Arc<dyn SetupTarget>>,
        build: impl FnOnce(u64) -> Request<'a>,
    ) -> Result<(u64, oneshot::Receiver<Reply>), String> {
        if let Some(reason) = self.dead_reason() {
            return Err(reason);
        }
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let mut line = Vec::with_capacity(256);
        encode_line(&build(id), &mut line).map_err(|e| format!("cannot encode request: {e}"))?;
        let (tx, rx) = oneshot::channel();
        lock(&self.shared.pending).insert(
            id,
            Pending {
                reply: tx,
                progress,
                events,
                login,
                setup,
            },
        );
        if let Err(e) = self.shared.write(&line).await {
            lock(&self.shared.pending).remove(&id);
            return Err(e);
        }
        Ok((id, rx))
    }

    /// Waits for request `id` under `deadline` (see [`Connection::request`]).
    pub(crate) async fn wait(
        &self,
        id: u64,
        mut rx: oneshot::Receiver<Reply>,
        what: &str,
        deadline: Duration,
    ) -> Reply {
        loop {
            match tokio::time::timeout(deadline, &mut rx).await {
                Ok(Ok(reply)) => return reply,
                Ok(Err(_)) => {
                    return Err(self.dead_reason().unwrap_or_else(|| {
                        format!("extension {} dropped request {what}", self.path())
                    }))
                }
                Err(_) if self.shared.busy.load(Ordering::Acquire) > 0 => continue,
                Err(_) => {
                    self.cancel(id).await;
                    return Err(format!(
                        "extension {} did not answer {what} within {} ms; check it for a hang \
                         or raise the timeout",
                        self.path(),
                        deadline.as_millis()
                    ));
                }
            }
        }
    }

    /// Writes `message`, which has no answer (`trust`).
    pub(crate) async fn notify(&self, message: &Request<'_>) -> Result<(), LateStartError> {
        if let Some(reason) = self.dead_reason() {
            return Err(LateStartError::Unreachable(reason));
        }
        let mut line = Vec::with_capacity(64);
        encode_line(message, &mut line).map_err(LateStartError::Encode)?;
        let written = self.shared.write(&line).await;
        written.map_err(LateStartError::Unreachable)
    }

    /// Forgets request `id` and tells the extension to stop working on it.
    pub(crate) async fn cancel(&self, id: u64) {
        lock(&self.shared.pending).remove(&id);
        let mut line = Vec::with_capacity(32);
        if encode_line(&Request::Cancel { id }, &mut line).is_ok() {
            let _ = self.shared.write(&line).await;
        }
    }
}

impl Shared {
    /// Writes one line; `Err` is why the extension cannot be reached, the text its pending
    /// and later requests fail with ([`Reply`]).
    // A string: the failure becomes the text of the request's `Reply` error.
    async fn write(&self, line: &[u8]) -> Result<(), String> {
        let mut guard = self.writer.lock().await;
        let Some(w) = guard.as_mut() else {
            return Err(lock(&self.dead)
                .clone()
                .unwrap_or_else(|| format!("extension {} was unloaded", self.path)));
        };
        let res = match w.write_all(line).await {
            Ok(()) => w.flush().await,
            Err(e) => Err(e),
        };
        res.map_err(|e| {
            let reason = format!("extension {} is not running (write failed: {e})", self.path);
            self.fail_all(&reason);
            reason
        })
    }

    /// Marks the process dead and fails every pending request with `reason`.
    fn fail_all(&self, reason: &str) {
        lock(&self.dead).get_or_insert_with(|| reason.to_string());
        self.dead_signal.send_replace(true);
        let drained: Vec<Pending> = lock(&self.pending).drain().map(|(_, p)| p).collect();
        for p in drained {
            let _ = p.reply.send(Err(reason.to_string()));
        }
    }

    /// Fails the pending requests with `reason` but keeps the connection (garbage line).
    fn fail_pending(&self, reason: &str) {
        let drained: Vec<Pending> = lock(&self.pending).drain().map(|(_, p)| p).collect();
        if drained.is_empty() {
            crate::diagnostics::warn(reason);
        }
        for p in drained {
            let _ = p.reply.send(Err(reason.to_string()));
        }
    }

    fn route(self: &Arc<Self>, msg: Incoming, text: &str) {
        match msg {
            Incoming::Register(_) => self.fail_pending(&format!(
                "extension {} wrote an invalid protocol line (register after the handshake): {}",
                self.path,
                excerpt(text, 120)
            )),
            Incoming::Result { id, result, error } => {
                if let Some(p) = lock(&self.pending).remove(&id) {
                    let result = result.unwrap_or_default();
                    let _ = p.reply.send(error.map_or(Ok(result), Err));
                }
            }
            Incoming::ToolUpdate { id, partial } => {
                let sink = lock(&self.pending)
                    .get(&id)
                    .and_then(|p| p.progress.clone());
                if let Some(sink) = sink {
                    sink(ToolOutput {
                        content: partial.content,
                        details: partial.details,
                    });
                }
            }
            Incoming::StreamEvent { id, event } => {
                let sink = lock(&self.pending).get(&id).and_then(|p| p.events.clone());
                if let Some(sink) = sink {
                    sink(event);
                }
            }
            Incoming::Call { id, method, params } if oauth::is_login_call(&method) => {
                self.login_call(id, method, params)
            }
            Incoming::Call { id, method, params } if method == SESSION_SETUP_APPEND => {
                // Served as read: the extension waits for each append's answer in turn.
                let outcome = setup::append(params, |request| {
                    lock(&self.pending)
                        .get(&request)
                        .and_then(|p| p.setup.clone())
                });
                let shared = self.clone();
                tokio::spawn(async move { shared.answer(id, outcome).await });
            }
            Incoming::Call {
                id,
                method,
                mut params,
            } => {
                let ctx = lock(&self.ctx).clone();
                self.busy.fetch_add(1, Ordering::AcqRel);
                // Told to the screen and registered here, in the order read (see
                // `calls::is_ui_tell`): what a handler registers is in place before its result
                // is read.
                let now = match &ctx {
                    // Served in line order: a handler's `ctx.abort()` counts before the
                    // handler's reply that follows it is read.
                    Some(ctx) if method == "abort" => {
                        ctx.host.abort();
                        Some(Ok(Value::Null))
                    }
                    Some(ctx) if calls::is_ui_tell(&method) => {
                        Some(calls::ui_tell(&method, std::mem::take(&mut params), ctx))
                    }
                    Some(ctx) if registrations::is_registration(&method) => {
                        let params = std::mem::take(&mut params);
                        Some(registrations::register(
                            &self.handle(),
                            &method,
                            params,
                            ctx,
                        ))
                    }
                    _ => None,
                };
                let shared = self.clone();
                tokio::spawn(async move {
                    let outcome = match (now, ctx) {
                        (Some(now), _) => now,
                        (None, Some(ctx)) => {
                            calls::dispatch(&method, params, &ctx, Some(&shared.handle())).await
                        }
                        (None, None) => Err(HostError::NotInitialized { method }),
                    };
                    shared.busy.fetch_sub(1, Ordering::AcqRel);
                    shared.answer(id, outcome).await;
                });
            }
        }
    }

    /// Hands a sign-in's notice or question to the `oauth_login` request it names; the
    /// deadline of that request waits while the user answers.
    fn login_call(self: &Arc<Self>, id: u64, method: String, params: Value) {
        self.busy.fetch_add(1, Ordering::AcqRel);
        let call = oauth::login_call(&method, params).and_then(|(request, call)| {
            let sink = lock(&self.pending)
                .get(&request)
                .and_then(|p| p.login.clone());
            let (reply, answer) = oneshot::channel();
            match sink {
                Some(sink) if sink.send(oauth::LoginCall { call, reply }).is_ok() => Ok(answer),
                _ => Err(HostError::NoLogin { method, request }),
            }
        });
        let shared = self.clone();
        tokio::spawn(async move {
            let outcome = match call {
                Ok(answer) => answer.await.unwrap_or(Err(HostError::LoginCancelled)),
                Err(e) => Err(e),
            };
            shared.busy.fetch_sub(1, Ordering::AcqRel);
            shared.answer(id, outcome).await;
        });
    }

    /// Answers the extension's call `id`.
    async fn answer(&self, id: u64, outcome: Result<Value, HostError>) {
        let (result, error) = match outcome {
            Ok(v) => (Some(v), None),
            Err(e) => (None, Some(e.to_string())),
        };
        let mut line = Vec::with_capacity(64);
        if encode_line(&Request::Reply { id, result, error }, &mut line).is_ok() {
            let _ = self.write(&line).await;
        }
    }

    /// A handle that does not own the process, for what the extension registers after
    /// loading: the extension's own handles decide its life.
    fn handle(self: &Arc<Self>) -> Connection {
        Connection {
            shared: self.clone(),
            child: Arc::new(Mutex::new(None)),
            stderr_forwarder: Arc::new(Mutex::new(None)),
        }
    }
}

async fn read_loop(shared: Arc<Shared>, mut stdout: BufReader<ChildStdout>) {
    let mut line = String::new();
    loop {
        line.clear();
        match stdout.read_line(&mut line).await {
            Ok(0) => {
                shared.fail_all(&format!(
                    "extension {} exited (its stdout closed); /reload or restart rho to start it again",
                    shared.path
                ));
                return;
            }
            Ok(_) => {
                let text = line.trim_end();
                if text.is_empty() {
                    continue;
                }
                match serde_json::from_str::<Incoming>(text) {
                    Ok(msg) => shared.route(msg, text),
                    Err(e) => shared.fail_pending(&format!(
                        "extension {} wrote an invalid protocol line ({e}): {}",
                        shared.path,
                        excerpt(text, 120)
                    )),
                }
            }
            Err(e) => {
                shared.fail_all(&format!(
                    "extension {} output is unreadable ({e}); it must write UTF-8 JSON lines",
                    shared.path
                ));
                return;
            }
        }
    }
}
