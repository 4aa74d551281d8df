//! The request loop: the handshake, then one reader (the calling thread) that routes replies
//! and cancels itself and hands requests to a pool of workers. A worker blocked in a call
//! into rho never delays other requests: when no worker is idle a new one starts, so the
//! events of a turn that a command's `send_message` started are served meanwhile.

use std::io::{self, BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;

use serde_json::Value;

use crate::extension::Extension;
use crate::protocol::{FromExtension, ToExtension};
use crate::rho::{Rho, Shared};
use crate::tool::ToolCall;
use crate::Error;

impl Extension {
    /// Handshakes over stdin/stdout, then serves rho's requests until rho closes stdin.
    /// stdout belongs to the protocol: log with `eprintln!`.
    pub fn run(self) -> Result<(), Error> {
        self.run_with(io::stdin().lock(), io::stdout())
    }

    /// [`Extension::run`] over any pipe pair (tests drive it in-process this way).
    pub fn run_with(
        self,
        input: impl BufRead,
        output: impl Write + Send + 'static,
    ) -> Result<(), Error> {
        let rho = Rho {
            shared: Arc::new(Shared::new(Box::new(output))),
        };
        let mut lines = input.lines();
        let hello = loop {
            match lines.next() {
                None => return Ok(()),
                Some(line) => {
                    let line = line?;
                    if line.trim().is_empty() {
                        continue;
                    }
                    match serde_json::from_str::<ToExtension>(&line) {
                        Ok(ToExtension::Hello(hello)) => break hello,
                        _ => return Err(Error::msg(format!("expected hello first, got {line}"))),
                    }
                }
            }
        };
        let _ = rho.shared.hello.set(hello);
        rho.shared
            .send(&FromExtension::Register(Box::new(self.registration())))?;
        let pool = Pool::new(Arc::new(self), rho.clone());
        for line in lines {
            let line = line?;
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<ToExtension>(&line) {
                Ok(ToExtension::Reply { id, result, error }) => {
                    let result = result.unwrap_or_default();
                    rho.shared.deliver_reply(id, error.map_or(Ok(result), Err));
                }
                Ok(ToExtension::Cancel { id }) => rho.shared.cancel(id),
                Ok(ToExtension::Hello(_) | ToExtension::Trust { .. } | ToExtension::Unknown) => {}
                Ok(request) => pool.submit(request),
                Err(e) => eprintln!("rho-extension: ignoring a line that is not a message ({e})"),
            }
        }
        rho.shared.close();
        Ok(())
    }
}

/// Workers that serve requests; it grows when every worker is busy.
struct Pool {
    jobs: Sender<ToExtension>,
    queue: Arc<Mutex<Receiver<ToExtension>>>,
    idle: Arc<AtomicUsize>,
    ext: Arc<Extension>,
    rho: Rho,
}

impl Pool {
    fn new(ext: Arc<Extension>, rho: Rho) -> Self {
        let (jobs, queue) = channel();
        Self {
            jobs,
            queue: Arc::new(Mutex::new(queue)),
            idle: Arc::new(AtomicUsize::new(0)),
            ext,
            rho,
        }
    }

    /// Queues `request` for an idle worker it reserves, or starts a worker for it.
    fn submit(&self, request: ToExtension) {
        let reserved = self
            .idle
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
            .is_ok();
        if reserved {
            let _ = self.jobs.send(request);
            return;
        }
        let (queue, idle, ext, rho) = (
            self.queue.clone(),
            self.idle.clone(),
            self.ext.clone(),
            self.rho.clone(),
        );
        thread::spawn(move || {
            let mut next = Some(request);
            while let Some(request) = next.take() {
                serve(&ext, &rho, request);
                idle.fetch_add(1, Ordering::AcqRel);
                let q = queue.lock().unwrap_or_else(PoisonError::into_inner);
                next = q.recv().ok();
            }
        });
    }
}

/// Runs one request's handler and writes its `result` line.
fn serve(ext: &Extension, rho: &Rho, request: ToExtension) {
    let Some(id) = request_id(&request) else {
        return;
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| handle(ext, rho, request)))
        .unwrap_or_else(|_| Err(Error::msg("the extension's handler panicked")));
    let sent = match outcome {
        Ok(value) => rho.shared.send(&FromExtension::Result {
            id,
            result: Some(value),
            error: None,
        }),
        Err(e) => rho.shared.send(&FromExtension::Result {
            id,
            result: None,
            error: Some(e.to_string()),
        }),
    };
    if let Err(e) = sent {
        eprintln!("rho-extension: cannot answer request {id}: {e}");
    }
}

fn request_id(request: &ToExtension) -> Option<u64> {
    match request {
        ToExtension::Event { id, .. }
        | ToExtension::Command { id, .. }
        | ToExtension::Tool { id, .. }
        | ToExtension::Shortcut { id, .. }
        | ToExtension::Render { id, .. }
        | ToExtension::ComponentInput { id, .. } => Some(*id),
        _ => None,
    }
}

fn handle(ext: &Extension, rho: &Rho, request: ToExtension) -> Result<Value, Error> {
    match request {
        ToExtension::Event { event, .. } => {
            let kind = event
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or_default();
            match ext.events.get(kind) {
                Some(f) => Ok(f(rho, &event)?.unwrap_or(Value::Null)),
                None => Ok(Value::Null),
            }
        }
        ToExtension::Command { name, args, .. } => {
            let f = ext
                .commands
                .get(&name)
                .ok_or_else(|| Error::msg(format!("no command named {name}")))?;
            f(rho, &args).map(|_| Value::Null)
        }
        ToExtension::Tool {
            id,
            name,
            tool_call_id,
            args,
        } => {
            let f = ext
                .tools
                .get(&name)
                .ok_or_else(|| Error::msg(format!("no tool named {name}")))?;
            let call = ToolCall::new(rho.clone(), id, tool_call_id);
            Ok(serde_json::to_value(f(&call, args)?)?)
        }
        ToExtension::Shortcut { key, .. } => {
            let f = ext
                .shortcuts
                .get(&key)
                .ok_or_else(|| Error::msg(format!("no shortcut for {key}")))?;
            f(rho).map(|_| Value::Null)
        }
        _ => Ok(Value::Null),
    }
}
