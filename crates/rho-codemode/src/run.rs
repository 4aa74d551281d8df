//! The host side of one script: starts its VM thread, runs the calls it makes (concurrently,
//! each with its own cancellation), keeps its output, and owns the deadline and the abort.
//! The first end wins: the script's `done`, a VM crash, the deadline or the abort. Then calls
//! still running are cancelled and the VM is told to stop (its interrupt flag, polled by
//! QuickJS while it computes, and the closed result channel while it waits).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, OnceLock};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use futures_util::stream::{FuturesUnordered, StreamExt};
use serde_json::Value;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::vm::{self, Limits, OutputItem, ScriptTool, Settle, Target, ToHost, VmSpec};

/// Heap limit of a script's VM (pi's): running out throws `InternalError: out of memory`.
pub const MEMORY_LIMIT_BYTES: usize = 256 * 1024 * 1024;
/// pi's output limits: characters of text and base64 image data, and output calls.
pub const MAX_OUTPUT_CHARS: usize = 16 * 1024 * 1024;
pub const MAX_OUTPUT_ITEMS: usize = 100_000;
/// pi's store limits, in characters of JSON.
pub const MAX_STORE_VALUE_CHARS: usize = 256 * 1024;
pub const MAX_STORE_TOTAL_CHARS: usize = 1024 * 1024;
/// VMs alive at once in one rho process (pi's default; `RHO_CODEMODE_MAX_WORKERS` or pi's
/// `PI_CODEMODE_MAX_WORKERS` change it).
const DEFAULT_MAX_WORKERS: usize = 2;
/// How long a script waits for a free VM before it fails without running.
pub const WORKER_WAIT: Duration = Duration::from_secs(60);

/// Runs the script's calls. Both return the call's value (`None` = `undefined`) or an error
/// message the script's promise rejects with.
pub trait CallHandler: Send + Sync {
    fn call_tool(
        &self,
        name: &str,
        args: Value,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Option<Value>, String>>;
    fn call_global(
        &self,
        name: &str,
        args: Value,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Option<Value>, String>>;
}

/// What to run.
pub struct Execution {
    pub code: String,
    pub tools: Vec<ScriptTool>,
    pub globals: Vec<String>,
    pub store: BTreeMap<String, Value>,
    /// The whole script's deadline, the wait for a free VM included.
    pub timeout: Option<Duration>,
}

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallStatus {
    Ok,
    Error,
    Cancelled,
}

impl CallStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CallStatus::Ok => "ok",
            CallStatus::Error => "error",
            CallStatus::Cancelled => "cancelled",
        }
    }
}

/// A tool call the script made.
#[derive(Debug, Clone, PartialEq)]
pub struct CallRecord {
    pub name: String,
    pub status: CallStatus,
}

/// What the script's `store()` calls changed; kept only when it succeeds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StoreWrites {
    pub set: serde_json::Map<String, Value>,
    pub delete: Vec<String>,
}

impl StoreWrites {
    pub fn is_empty(&self) -> bool {
        self.set.is_empty() && self.delete.is_empty()
    }
}

/// Why a script failed.
#[derive(Debug, Clone, PartialEq)]
pub enum ScriptError {
    /// It threw or did not parse: `Name: message` and its stack.
    Script(String),
    Timeout(String),
    Aborted(String),
    /// The VM or its bridge failed.
    Sandbox(String),
    /// It never started: no VM became free in time.
    NotStarted(String),
}

/// The end of one script.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptResult {
    pub outcome: Result<(Option<Value>, StoreWrites), ScriptError>,
    pub output: Vec<OutputItem>,
    pub calls: Vec<CallRecord>,
}

fn workers() -> &'static Arc<Semaphore> {
    static WORKERS: OnceLock<Arc<Semaphore>> = OnceLock::new();
    WORKERS.get_or_init(|| {
        let n = ["RHO_CODEMODE_MAX_WORKERS", "PI_CODEMODE_MAX_WORKERS"]
            .iter()
            .find_map(|k| std::env::var(k).ok()?.parse::<usize>().ok())
            .filter(|n| *n > 0)
            .unwrap_or(DEFAULT_MAX_WORKERS);
        Arc::new(Semaphore::new(n))
    })
}

/// Runs one script to its end. Never fails: every failure is in the result.
pub async fn execute(
    exec: Execution,
    handler: Arc<dyn CallHandler>,
    cancel: CancellationToken,
) -> ScriptResult {
    let started = Instant::now();
    let not_started = |e: ScriptError| ScriptResult {
        outcome: Err(e),
        output: Vec::new(),
        calls: Vec::new(),
    };
    let wait = exec.timeout.map_or(WORKER_WAIT, |t| t.min(WORKER_WAIT));
    let permit = tokio::select! {
        p = tokio::time::timeout(wait, workers().clone().acquire_owned()) => p,
        _ = cancel.cancelled() => return not_started(ScriptError::Aborted("This operation was aborted".into())),
    };
    let Ok(Ok(permit)) = permit else {
        return not_started(match exec.timeout {
            Some(t) if t <= WORKER_WAIT => ScriptError::Timeout(format!(
                "Execution timed out after {} ms while waiting for a free codemode worker",
                t.as_millis()
            )),
            _ => ScriptError::NotStarted(format!(
                "No codemode worker became free within {} seconds. All {} workers, shared by every session in this process, are held by other scripts. Retry after they finish.",
                WORKER_WAIT.as_secs(),
                workers().available_permits().max(DEFAULT_MAX_WORKERS)
            )),
        });
    };
    let store = exec
        .store
        .iter()
        .map(|(k, v)| (k.clone(), v.to_string()))
        .collect();
    let spec = VmSpec {
        code: exec.code,
        tools: exec.tools,
        globals: exec.globals,
        store,
        memory_limit: MEMORY_LIMIT_BYTES,
        limits: Limits {
            output_chars: MAX_OUTPUT_CHARS,
            output_items: MAX_OUTPUT_ITEMS,
            store_value: MAX_STORE_VALUE_CHARS,
            store_total: MAX_STORE_TOTAL_CHARS,
        },
    };
    let (to_host, mut from_vm) = tokio::sync::mpsc::unbounded_channel();
    let (to_vm, results) = mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    // The slot stays taken until the VM thread has really ended.
    let on_exit = Box::new(move || drop(permit));
    if let Err(e) = vm::spawn(spec, to_host, results, stop.clone(), on_exit) {
        return not_started(ScriptError::Sandbox(format!(
            "cannot start the VM thread: {e}"
        )));
    }
    let deadline = exec.timeout.map(|t| {
        let left = t.saturating_sub(started.elapsed());
        (t, tokio::time::Instant::now() + left)
    });
    let mut host = Host {
        handler,
        to_vm,
        output: Vec::new(),
        calls: Vec::new(),
        running: FuturesUnordered::new(),
        cancels: HashMap::new(),
    };
    let outcome = loop {
        let sleep = async {
            match deadline {
                Some((_, at)) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            message = from_vm.recv() => match message {
                Some(ToHost::Output(item)) => host.output.push(item),
                Some(ToHost::Call { id, target, name, args }) => host.start_call(id, target, name, args),
                Some(ToHost::Done(done)) => break decode_done(done),
                Some(ToHost::Crash(e)) => break Err(ScriptError::Sandbox(e)),
                None => break Err(ScriptError::Sandbox("the VM ended without a result".into())),
            },
            Some((id, index, result)) = host.running.next(), if !host.running.is_empty() => {
                host.finish_call(id, index, result);
            }
            _ = sleep => {
                let ms = deadline.map(|(t, _)| t.as_millis()).unwrap_or_default();
                break Err(ScriptError::Timeout(format!("Execution timed out after {ms} ms")));
            }
            _ = cancel.cancelled() => break Err(ScriptError::Aborted("This operation was aborted".into())),
        }
    };
    stop.store(true, Ordering::Relaxed);
    for token in host.cancels.values() {
        token.cancel();
    }
    // Cancelled calls finish in the background, so tools see their cancellation (an MCP
    // server is told, a process is killed) instead of being dropped mid-way.
    let mut running = std::mem::take(&mut host.running);
    if !running.is_empty() {
        tokio::spawn(async move { while running.next().await.is_some() {} });
    }
    // Output the VM sent before it ended (a `done` is its last message).
    while let Ok(message) = from_vm.try_recv() {
        if let ToHost::Output(item) = message {
            host.output.push(item);
        }
    }
    ScriptResult {
        outcome,
        output: host.output,
        calls: host.calls,
    }
}

type Running = BoxFuture<'static, (u64, Option<usize>, Result<Option<Value>, String>)>;

struct Host {
    handler: Arc<dyn CallHandler>,
    to_vm: mpsc::Sender<Settle>,
    output: Vec<OutputItem>,
    calls: Vec<CallRecord>,
    running: FuturesUnordered<Running>,
    cancels: HashMap<u64, CancellationToken>,
}

impl Host {
    fn start_call(&mut self, id: u64, target: Target, name: String, args: Option<String>) {
        let args = match args.as_deref().map(serde_json::from_str::<Value>) {
            None => Value::Null,
            Some(Ok(v)) => v,
            Some(Err(e)) => {
                let _ = self.to_vm.send(Settle {
                    id,
                    result: Err(format!("call arguments are not valid JSON: {e}")),
                });
                return;
            }
        };
        let token = CancellationToken::new();
        self.cancels.insert(id, token.clone());
        let (future, index) = match target {
            Target::Tool => {
                self.calls.push(CallRecord {
                    name: name.clone(),
                    status: CallStatus::Cancelled,
                });
                let args = if args.is_null() {
                    Value::Object(Default::default())
                } else {
                    args
                };
                (
                    self.handler.call_tool(&name, args, token),
                    Some(self.calls.len() - 1),
                )
            }
            Target::Global => (self.handler.call_global(&name, args, token), None),
        };
        self.running
            .push(Box::pin(async move { (id, index, future.await) }));
    }

    fn finish_call(
        &mut self,
        id: u64,
        index: Option<usize>,
        result: Result<Option<Value>, String>,
    ) {
        self.cancels.remove(&id);
        if let Some(record) = index.and_then(|i| self.calls.get_mut(i)) {
            record.status = if result.is_ok() {
                CallStatus::Ok
            } else {
                CallStatus::Error
            };
        }
        let result = result.map(|v| v.map(|v| v.to_string()));
        let _ = self.to_vm.send(Settle { id, result });
    }
}

/// The script's `done`: its value and store writes, or its error.
fn decode_done(
    done: Result<(Option<String>, String), String>,
) -> Result<(Option<Value>, StoreWrites), ScriptError> {
    let broken = |what: &str| {
        ScriptError::Sandbox(format!(
            "Sandbox bridge broken: {what} is not valid JSON. The script may have modified built-ins such as a prototype's toJSON."
        ))
    };
    match done {
        Err(error) => {
            let v: Value = serde_json::from_str(&error).map_err(|_| broken("script error"))?;
            let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
            let stack = text("stack").or_else(|| {
                let message = text("message").unwrap_or_default();
                Some(format!(
                    "{}: {message}",
                    text("name").unwrap_or_else(|| "Error".into())
                ))
            });
            Err(ScriptError::Script(stack.unwrap_or_default()))
        }
        Ok((value, writes)) => {
            let value = match value {
                Some(v) => Some(serde_json::from_str(&v).map_err(|_| broken("return value"))?),
                None => None,
            };
            let entries: Vec<Vec<String>> =
                serde_json::from_str(&writes).map_err(|_| broken("store writes"))?;
            let mut out = StoreWrites::default();
            for entry in entries {
                match entry.as_slice() {
                    [key] => out.delete.push(key.clone()),
                    [key, json] => {
                        let v = serde_json::from_str(json).map_err(|_| broken("a store value"))?;
                        out.set.insert(key.clone(), v);
                    }
                    _ => return Err(broken("store writes")),
                }
            }
            Ok((value, out))
        }
    }
}
