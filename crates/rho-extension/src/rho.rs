//! The handle handlers use to call rho (`{"type":"call",...}`), and the connection state it
//! shares with the request loop: the output pipe, the calls waiting for replies and the
//! cancelled requests.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};

use serde::Deserialize;
use serde_json::{json, Value};

use crate::protocol::{encode_line, FromExtension, Hello};
use crate::Error;
use crate::{Content, CustomMessage, DeliverAs, SendOptions};

/// The answer to a call: its `result`, or the `error` text rho sent on the wire, which the
/// extension gets as is.
// The wire's `error` field, handed to the extension unchanged: a string by protocol.
type Reply = Result<Value, String>;

/// The connection state shared by the loop, the workers and every [`Rho`] clone.
pub(crate) struct Shared {
    out: Mutex<Box<dyn Write + Send>>,
    pub(crate) hello: OnceLock<Hello>,
    next_call: AtomicU64,
    waiting: Mutex<HashMap<u64, Sender<Reply>>>,
    cancelled: Mutex<HashSet<u64>>,
    cancel_signal: Condvar,
    closed: OnceLock<()>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    pub(crate) fn new(out: Box<dyn Write + Send>) -> Self {
        Self {
            out: Mutex::new(out),
            hello: OnceLock::new(),
            next_call: AtomicU64::new(0),
            waiting: Mutex::new(HashMap::new()),
            cancelled: Mutex::new(HashSet::new()),
            cancel_signal: Condvar::new(),
            closed: OnceLock::new(),
        }
    }

    /// Writes one message as one line, flushed (lines of concurrent writers never mix).
    pub(crate) fn send(&self, msg: &FromExtension) -> Result<(), Error> {
        let mut line = Vec::with_capacity(128);
        encode_line(msg, &mut line)?;
        let mut out = lock(&self.out);
        out.write_all(&line)?;
        out.flush()?;
        Ok(())
    }

    /// Hands rho's reply to the call waiting for it (a reply nobody waits for is dropped).
    pub(crate) fn deliver_reply(&self, id: u64, reply: Reply) {
        if let Some(tx) = lock(&self.waiting).remove(&id) {
            let _ = tx.send(reply);
        }
    }

    /// Records that rho gave up on request `id` and wakes tools waiting for it.
    pub(crate) fn cancel(&self, id: u64) {
        lock(&self.cancelled).insert(id);
        self.cancel_signal.notify_all();
    }

    pub(crate) fn is_cancelled(&self, id: u64) -> bool {
        self.closed.get().is_some() || lock(&self.cancelled).contains(&id)
    }

    pub(crate) fn forget_cancel(&self, id: u64) {
        lock(&self.cancelled).remove(&id);
    }

    /// Blocks until request `id` is cancelled or the connection closes.
    pub(crate) fn wait_cancelled(&self, id: u64) {
        let mut set = lock(&self.cancelled);
        while !set.contains(&id) && self.closed.get().is_none() {
            set = self
                .cancel_signal
                .wait(set)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// rho closed stdin: waiting calls fail, waiting tools wake up.
    pub(crate) fn close(&self) {
        let _ = self.closed.set(());
        lock(&self.waiting).clear();
        let _guard = lock(&self.cancelled);
        self.cancel_signal.notify_all();
    }
}

/// rho's answer to `get_state`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct State {
    /// The session's working directory.
    pub cwd: String,
    /// The current model (`null` when none), as rho's `Model` JSON.
    #[serde(default)]
    pub model: Value,
    /// No run in progress.
    pub is_idle: bool,
    /// Steering or follow-up messages are queued.
    pub has_pending_messages: bool,
    /// The effective system prompt.
    pub system_prompt: String,
    /// Whether a UI answers `ui_*` calls.
    #[serde(rename = "hasUI")]
    pub has_ui: bool,
}

/// rho's answer to `exec`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ExecOutput {
    /// Captured standard output.
    pub stdout: String,
    /// Captured standard error.
    pub stderr: String,
    /// Exit code (`None` when killed by a signal or the timeout).
    pub code: Option<i32>,
    /// True when the timeout killed it.
    pub killed: bool,
}

/// A handle for calling rho, given to every handler. Cheap to clone; calls may be made from
/// any thread. Each call blocks until rho has done the work (a `send_message` that triggers a
/// turn returns when the turn has finished) while other requests keep being served.
#[derive(Clone)]
pub struct Rho {
    pub(crate) shared: Arc<Shared>,
}

impl Rho {
    /// What rho said in `hello` (working directory, UI, flag values).
    pub fn hello(&self) -> &Hello {
        static EMPTY: OnceLock<Hello> = OnceLock::new();
        self.shared
            .hello
            .get()
            .unwrap_or_else(|| EMPTY.get_or_init(Hello::default))
    }

    /// The value the user gave for flag `name`, if any.
    pub fn flag(&self, name: &str) -> Option<&Value> {
        self.hello().flags.get(name)
    }

    /// Calls `method` with `params` and waits for the reply (docs/extensions.md §5).
    pub fn call(&self, method: &str, params: Value) -> Result<Value, Error> {
        let id = self.shared.next_call.fetch_add(1, Ordering::Relaxed) + 1;
        let (tx, rx) = channel();
        lock(&self.shared.waiting).insert(id, tx);
        if self.shared.closed.get().is_some() {
            lock(&self.shared.waiting).remove(&id);
            return Err(Error::Closed(method.to_string()));
        }
        let sent = self.shared.send(&FromExtension::Call {
            id,
            method: method.to_string(),
            params,
        });
        if let Err(e) = sent {
            lock(&self.shared.waiting).remove(&id);
            return Err(e);
        }
        match rx.recv() {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(message)) => Err(Error::Rho {
                method: method.to_string(),
                message,
            }),
            Err(_) => Err(Error::Closed(method.to_string())),
        }
    }

    fn call_unit(&self, method: &str, params: Value) -> Result<(), Error> {
        self.call(method, params).map(|_| ())
    }

    /// Sends a custom message, delivered as `options` says (the five routes of CM-2..6).
    pub fn send_message(&self, message: CustomMessage, options: SendOptions) -> Result<(), Error> {
        let mut params = serde_json::to_value(options)?;
        params["message"] = serde_json::to_value(message)?;
        self.call_unit("send_message", params)
    }

    /// Sends a user message as if typed (`deliver_as` queues it while streaming).
    pub fn send_user_message(
        &self,
        text: &str,
        deliver_as: Option<DeliverAs>,
    ) -> Result<(), Error> {
        self.send_user_message_with_images(text, Vec::new(), deliver_as)
    }

    /// Sends a user message with images (only `Content::Image` blocks are meaningful here).
    pub fn send_user_message_with_images(
        &self,
        text: &str,
        images: Vec<Content>,
        deliver_as: Option<DeliverAs>,
    ) -> Result<(), Error> {
        let mut params = json!({"text": text, "images": images});
        if let Some(route) = deliver_as {
            params["deliverAs"] = serde_json::to_value(route)?;
        }
        self.call_unit("send_user_message", params)
    }

    /// Adds a custom entry to the session file; the model never sees it.
    pub fn append_entry(&self, custom_type: &str, data: Option<Value>) -> Result<(), Error> {
        self.call_unit(
            "append_entry",
            json!({"customType": custom_type, "data": data}),
        )
    }

    /// Names the session.
    pub fn set_session_name(&self, name: &str) -> Result<(), Error> {
        self.call_unit("set_session_name", json!({"name": name}))
    }

    /// The session's state now.
    pub fn get_state(&self) -> Result<State, Error> {
        Ok(serde_json::from_value(self.call("get_state", json!({}))?)?)
    }

    /// Aborts the running turn.
    pub fn abort(&self) -> Result<(), Error> {
        self.call_unit("abort", json!({}))
    }

    /// Runs `command args` (no shell) on rho's side, default timeout 60 s.
    pub fn exec(&self, command: &str, args: &[&str]) -> Result<ExecOutput, Error> {
        self.exec_in(command, args, None, None)
    }

    /// [`Rho::exec`] with a working directory and a timeout.
    pub fn exec_in(
        &self,
        command: &str,
        args: &[&str],
        cwd: Option<&str>,
        timeout_ms: Option<u64>,
    ) -> Result<ExecOutput, Error> {
        let params = json!({"command": command, "args": args, "cwd": cwd, "timeoutMs": timeout_ms});
        Ok(serde_json::from_value(self.call("exec", params)?)?)
    }

    /// Asks the user to pick one of `options`; `None` when dismissed or without a UI.
    pub fn select(&self, title: &str, options: &[&str]) -> Result<Option<String>, Error> {
        let v = self.call("ui_select", json!({"title": title, "options": options}))?;
        Ok(v.as_str().map(str::to_string))
    }

    /// Asks a yes/no question; `false` without a UI.
    pub fn confirm(&self, title: &str, message: &str) -> Result<bool, Error> {
        let v = self.call("ui_confirm", json!({"title": title, "message": message}))?;
        Ok(v.as_bool().unwrap_or(false))
    }

    /// Asks for a line of text; `None` when dismissed or without a UI.
    pub fn input(&self, title: &str, placeholder: Option<&str>) -> Result<Option<String>, Error> {
        let v = self.call(
            "ui_input",
            json!({"title": title, "placeholder": placeholder}),
        )?;
        Ok(v.as_str().map(str::to_string))
    }

    /// Asks for multi-line text starting from `prefill`; `None` when dismissed or without a UI.
    pub fn editor(&self, title: &str, prefill: Option<&str>) -> Result<Option<String>, Error> {
        let v = self.call("ui_editor", json!({"title": title, "prefill": prefill}))?;
        Ok(v.as_str().map(str::to_string))
    }

    /// Replaces the text in the user's editor.
    pub fn set_editor_text(&self, text: &str) -> Result<(), Error> {
        self.call_unit("ui_set_editor_text", json!({"text": text}))
    }

    /// Shows a notification; `kind` is `info`, `warning` or `error`.
    pub fn notify(&self, message: &str, kind: &str) -> Result<(), Error> {
        self.call_unit("ui_notify", json!({"message": message, "kind": kind}))
    }

    /// Sets (or with `None` clears) the status-line text under `key`.
    pub fn set_status(&self, key: &str, text: Option<&str>) -> Result<(), Error> {
        self.call_unit("ui_status", json!({"key": key, "text": text}))
    }

    /// Sets (or with `None` removes) the widget under `key`.
    pub fn set_widget(&self, key: &str, lines: Option<&[&str]>) -> Result<(), Error> {
        self.call_unit("ui_widget", json!({"key": key, "lines": lines}))
    }

    /// Sets the terminal title.
    pub fn set_title(&self, title: &str) -> Result<(), Error> {
        self.call_unit("ui_title", json!({"title": title}))
    }
}
