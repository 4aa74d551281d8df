//! A scripted in-memory provider for tests and benchmarks: each call plays the next
//! [`ScriptedReply`] through `rho_ai`'s own [`ReplyBuilder`], so the events are exactly what
//! real providers emit, and it can pause, wait on a gate or hang until the call is aborted.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rho_ai::reply::ReplyBuilder;
use rho_ai::{AssistantStream, Context, Model, StopReason};
use serde_json::Value;
use tokio::sync::{watch, Notify};
use tokio_util::sync::CancellationToken;

use rho_agent::StreamFn;

/// A poisoned lock still holds usable data: a panicking test thread must not hide the
/// provider's script from the test's own assertions.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// One step of a scripted reply.
#[derive(Debug, Clone)]
pub enum Step {
    /// A text block streamed as these deltas, then closed.
    Text(Vec<String>),
    /// A thinking block streamed as these deltas, then closed.
    Thinking(Vec<String>),
    /// A tool call whose arguments stream as these raw JSON fragments.
    ToolCall {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Raw JSON fragments of the arguments.
        json: Vec<String>,
    },
    /// Pauses (ends early, `aborted`, if the call is cancelled meanwhile).
    Delay(Duration),
    /// Waits until the gate is notified (or the call cancelled).
    Gate(Arc<Notify>),
    /// Waits until the call is cancelled.
    Hang,
}

/// How a scripted reply ends.
#[derive(Debug, Clone)]
enum End {
    Finish(StopReason),
    Fail(String),
}

/// A reply: steps, then a normal end or an error.
#[derive(Debug, Clone)]
pub struct ScriptedReply {
    steps: Vec<Step>,
    end: End,
    usage: Option<(u64, u64)>,
}

impl ScriptedReply {
    /// An empty reply ending with `stop` (add steps with the builder methods).
    pub fn new() -> Self {
        Self {
            steps: Vec::new(),
            end: End::Finish(StopReason::Stop),
            usage: None,
        }
    }

    /// A reply of one text block, ending with `stop`.
    pub fn text(text: &str) -> Self {
        Self::new().with_text(&[text])
    }

    /// A reply calling tools (`(id, name, arguments)`), ending with `toolUse`.
    pub fn tool_calls(calls: &[(&str, &str, Value)]) -> Self {
        let mut r = Self::new();
        for (id, name, args) in calls {
            r = r.with_tool_call(id, name, args);
        }
        r.finish(StopReason::ToolUse)
    }

    /// Adds a text block streamed as `deltas`.
    pub fn with_text(mut self, deltas: &[&str]) -> Self {
        self.steps
            .push(Step::Text(deltas.iter().map(|d| d.to_string()).collect()));
        self
    }

    /// Adds a thinking block streamed as `deltas`.
    pub fn with_thinking(mut self, deltas: &[&str]) -> Self {
        self.steps.push(Step::Thinking(
            deltas.iter().map(|d| d.to_string()).collect(),
        ));
        self
    }

    /// Adds a tool call with `args` streamed as one fragment.
    pub fn with_tool_call(mut self, id: &str, name: &str, args: &Value) -> Self {
        self.steps.push(Step::ToolCall {
            id: id.into(),
            name: name.into(),
            json: vec![args.to_string()],
        });
        self
    }

    /// Adds any step.
    pub fn step(mut self, step: Step) -> Self {
        self.steps.push(step);
        self
    }

    /// Ends normally with `reason`.
    pub fn finish(mut self, reason: StopReason) -> Self {
        self.end = End::Finish(reason);
        self
    }

    /// Ends with an `error` stop reason and this message.
    pub fn fail(mut self, message: &str) -> Self {
        self.end = End::Fail(message.into());
        self
    }

    fn is_instant(&self) -> bool {
        self.steps
            .iter()
            .all(|s| matches!(s, Step::Text(_) | Step::Thinking(_) | Step::ToolCall { .. }))
    }

    fn play_block(step: &Step, reply: &mut ReplyBuilder) {
        match step {
            Step::Text(deltas) => {
                let i = reply.open_text();
                for d in deltas {
                    reply.push_text(i, d);
                }
                reply.close(i);
            }
            Step::Thinking(deltas) => {
                let i = reply.open_thinking();
                for d in deltas {
                    reply.push_thinking(i, d);
                }
                reply.close(i);
            }
            Step::ToolCall { id, name, json } => {
                let i = reply.open_tool_call(id, name);
                for j in json {
                    reply.push_tool_json(i, j);
                }
                reply.close(i);
            }
            _ => {}
        }
    }

    fn play_instant(self, mut reply: ReplyBuilder) {
        reply.start();
        for step in &self.steps {
            Self::play_block(step, &mut reply);
        }
        self.end_with(reply);
    }

    async fn play(self, mut reply: ReplyBuilder, cancel: CancellationToken) {
        reply.start();
        for step in &self.steps {
            let waited = match step {
                Step::Delay(d) => Some(wait_or_cancel(tokio::time::sleep(*d), &cancel).await),
                Step::Gate(g) => Some(wait_or_cancel(g.notified(), &cancel).await),
                Step::Hang => Some(wait_or_cancel(std::future::pending(), &cancel).await),
                _ => None,
            };
            if waited == Some(false) {
                return reply.fail("Request was aborted".into());
            }
            Self::play_block(step, &mut reply);
        }
        self.end_with(reply);
    }

    /// Reports `input` and `output` tokens (cost from the model's prices).
    pub fn with_usage(mut self, input: u64, output: u64) -> Self {
        self.usage = Some((input, output));
        self
    }

    fn end_with(self, mut reply: ReplyBuilder) {
        if let Some((input, output)) = self.usage {
            reply.set_usage(input, output, 0, 0);
        }
        match self.end {
            End::Finish(reason) => reply.finish(reason, None),
            End::Fail(message) => reply.fail(message),
        }
    }
}

impl Default for ScriptedReply {
    fn default() -> Self {
        Self::new()
    }
}

/// Awaits `fut` unless the call is cancelled first; true when `fut` finished.
async fn wait_or_cancel(
    fut: impl std::future::Future<Output = ()>,
    cancel: &CancellationToken,
) -> bool {
    tokio::select! {
        _ = fut => !cancel.is_cancelled(),
        _ = cancel.cancelled() => false,
    }
}

type Generator = Box<dyn Fn(usize) -> ScriptedReply + Send + Sync>;

struct Inner {
    replies: Mutex<VecDeque<ScriptedReply>>,
    generator: Option<Generator>,
    record: bool,
    requests: Mutex<Vec<Context>>,
    calls: watch::Sender<usize>,
}

/// The provider. Clone it freely; clones share the script and the recorded requests.
#[derive(Clone)]
pub struct ScriptedProvider {
    inner: Arc<Inner>,
}

impl Default for ScriptedProvider {
    fn default() -> Self {
        Self::new()
    }
}

impl ScriptedProvider {
    /// A provider that plays pushed replies in order and records every request context.
    pub fn new() -> Self {
        Self::build(None, true)
    }

    /// A provider whose reply for call `n` (0-based) comes from `generator`, recording no
    /// requests (benchmarks: recording would copy the growing context each call).
    pub fn from_fn(generator: impl Fn(usize) -> ScriptedReply + Send + Sync + 'static) -> Self {
        Self::build(Some(Box::new(generator)), false)
    }

    fn build(generator: Option<Generator>, record: bool) -> Self {
        Self {
            inner: Arc::new(Inner {
                replies: Mutex::new(VecDeque::new()),
                generator,
                record,
                requests: Mutex::new(Vec::new()),
                calls: watch::channel(0).0,
            }),
        }
    }

    /// Queues the reply for the next call.
    pub fn push(&self, reply: ScriptedReply) {
        lock(&self.inner.replies).push_back(reply);
    }

    /// The contexts of every call so far.
    pub fn requests(&self) -> Vec<Context> {
        lock(&self.inner.requests).clone()
    }

    /// Number of calls so far.
    pub fn call_count(&self) -> usize {
        *self.inner.calls.borrow()
    }

    /// Resolves once at least `n` calls were made.
    pub async fn wait_for_calls(&self, n: usize) {
        let mut rx = self.inner.calls.subscribe();
        let _ = rx.wait_for(|c| *c >= n).await;
    }

    /// The stream function to install in [`rho_agent::AgentOptions`].
    pub fn stream_fn(&self) -> StreamFn {
        let provider = self.clone();
        Arc::new(move |model, context, options| Ok(provider.call(model, context, options.cancel)))
    }

    fn call(&self, model: &Model, context: &Context, cancel: CancellationToken) -> AssistantStream {
        let n = *self.inner.calls.borrow();
        if self.inner.record {
            lock(&self.inner.requests).push(context.clone());
        }
        let next = lock(&self.inner.replies).pop_front();
        let reply = next
            .or_else(|| self.inner.generator.as_ref().map(|g| g(n)))
            .unwrap_or_else(|| {
                ScriptedReply::new().fail(&format!(
                    "Scripted provider has no reply for call {}",
                    n + 1
                ))
            });
        self.inner.calls.send_modify(|c| *c += 1);
        let (sink, stream) = AssistantStream::channel();
        let builder = ReplyBuilder::new(model, sink, cancel.clone());
        if reply.is_instant() {
            reply.play_instant(builder);
        } else {
            tokio::spawn(reply.play(builder, cancel));
        }
        stream
    }
}

/// A model for scripted runs.
pub fn scripted_model() -> Model {
    Model {
        id: "scripted-model".into(),
        name: "Scripted".into(),
        api: "scripted".into(),
        provider: "scripted".into(),
        base_url: String::new(),
        reasoning: true,
        thinking_level_map: None,
        input: vec![rho_ai::InputKind::Text, rho_ai::InputKind::Image],
        cost: Default::default(),
        context_window: 128_000,
        max_tokens: 16_384,
        headers: None,
        compat: None,
        ..Default::default()
    }
}
