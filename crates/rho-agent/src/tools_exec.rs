//! Executing the tool calls of one assistant message (AC-11..AC-17, D4): preflight
//! (lookup, argument preparation and validation, `before_tool_call`), execution with
//! progress and abort, `after_tool_call`, and the toolResult messages in call order.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use futures_util::stream::FuturesUnordered;
use futures_util::{FutureExt, StreamExt};
use rho_ai::{AssistantMessage, ContentBlock, ToolCall, ToolResultMessage};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::event::{AgentEvent, ToolExecutionResult};
use crate::hooks::{AfterToolCallContext, BeforeToolCallContext};
use crate::message::AgentMessage;
use crate::nested_record::Recorder;
use crate::run::panic_text;
use crate::schema::{format_validation_error, validate};
use crate::shared::{abort_deadline, Shared};
use crate::state::{AgentOptions, ToolExecution};
use crate::tool::{AgentTool, ExecutionMode, ToolContext, ToolOutput};

/// The text of calls skipped because a steering message is waiting (D4).
pub const SKIPPED_TEXT: &str = "Skipped due to queued user message.";

/// A call's result before it becomes a message.
#[derive(Debug, Clone)]
pub(crate) struct Finalized {
    pub content: Vec<ContentBlock>,
    pub details: Option<Value>,
    pub is_error: bool,
    pub terminate: bool,
    /// How long the tool itself ran (pi 1.x's `durationMs`); `None` when it never ran.
    pub duration_ms: Option<u64>,
    /// The calls the tool made through [`ToolContext::nested`] (pi 1.x's `nestedCalls`).
    pub nested_calls: Option<Value>,
}

impl Finalized {
    pub(crate) fn error(text: impl Into<String>) -> Self {
        Self {
            content: vec![ContentBlock::text(text)],
            details: Some(Value::Object(Default::default())),
            is_error: true,
            terminate: false,
            duration_ms: None,
            nested_calls: None,
        }
    }

    /// `other` in place of this result, keeping how long the tool ran and the calls it made.
    fn replaced_by(self, other: Finalized) -> Self {
        Self {
            duration_ms: self.duration_ms,
            nested_calls: self.nested_calls,
            ..other
        }
    }
}

/// A call that passed preflight.
struct Prepared {
    tool: Arc<dyn AgentTool>,
    args: Value,
}

/// The outcome of one batch.
pub(crate) struct Batch {
    /// Tool results in call order.
    pub results: Vec<ToolResultMessage>,
    /// True when every result asked to terminate (AC-18).
    pub terminate: bool,
}

/// Borrowed view of the run that tool execution needs.
pub(crate) struct ToolRunner<'a> {
    pub shared: &'a Arc<Shared>,
    pub opts: &'a Arc<AgentOptions>,
    pub tools: &'a [Arc<dyn AgentTool>],
    /// The run's tool definitions (schemas built once per run, not per call).
    pub definitions: &'a [rho_ai::Tool],
    pub cancel: &'a CancellationToken,
    pub assistant: &'a AssistantMessage,
    /// Steering arrival count when the turn began (see [`Shared::steering_since`]); `None`
    /// when no steering skips this turn's calls (it answers one delivered one at a time).
    pub interrupt_after: Option<u64>,
}

impl ToolRunner<'_> {
    pub async fn run(&self) -> Batch {
        let calls: Vec<&ToolCall> = self.assistant.tool_calls().collect();
        let sequential = self.opts.tool_execution == ToolExecution::Sequential
            || calls.iter().any(|c| {
                self.find(&c.name)
                    .is_some_and(|t| t.execution_mode() == ExecutionMode::Sequential)
            });
        let done = if sequential {
            self.run_sequential(&calls).await
        } else {
            self.run_parallel(&calls).await
        };
        let terminate = !done.is_empty() && done.iter().all(|(_, t)| *t);
        Batch {
            results: done.into_iter().map(|(r, _)| r).collect(),
            terminate,
        }
    }

    /// AC-12: each call runs to its end and result message before the next starts.
    async fn run_sequential(&self, calls: &[&ToolCall]) -> Vec<(ToolResultMessage, bool)> {
        let mut out = Vec::with_capacity(calls.len());
        for call in calls {
            self.emit_start(call);
            let f = match self.preflight(call).await {
                Ok(prepared) => self.execute(call, prepared).await,
                Err(f) => f,
            };
            self.emit_end(call, &f);
            let terminate = f.terminate;
            out.push((self.emit_result_message(call, f), terminate));
        }
        out
    }

    /// AC-13: starts and preflights in call order, then concurrent execution with ends in
    /// completion order, then the result messages in call order.
    async fn run_parallel(&self, calls: &[&ToolCall]) -> Vec<(ToolResultMessage, bool)> {
        let mut finals: Vec<Option<Finalized>> = vec![None; calls.len()];
        let mut running = FuturesUnordered::new();
        for (i, call) in calls.iter().enumerate() {
            self.emit_start(call);
            match self.preflight(call).await {
                Ok(prepared) => {
                    running.push(async move { (i, self.execute(call, prepared).await) })
                }
                Err(f) => {
                    self.emit_end(call, &f);
                    finals[i] = Some(f);
                }
            }
        }
        while let Some((i, f)) = running.next().await {
            self.emit_end(calls[i], &f);
            finals[i] = Some(f);
        }
        calls
            .iter()
            .zip(finals)
            .map(|(call, f)| {
                let f = f.unwrap_or_else(|| Finalized::error("Tool call was not executed"));
                let terminate = f.terminate;
                (self.emit_result_message(call, f), terminate)
            })
            .collect()
    }

    fn find(&self, name: &str) -> Option<&Arc<dyn AgentTool>> {
        self.tools.iter().find(|t| t.name() == name)
    }

    fn schema(&self, name: &str) -> Option<&serde_json::Value> {
        self.definitions
            .iter()
            .find(|d| d.name == name)
            .map(|d| &d.parameters)
    }

    /// AC-14 plus D4's skip: `Err` is an immediate result, the call does not execute.
    async fn preflight(&self, call: &ToolCall) -> Result<Prepared, Finalized> {
        if self.shared.steering_since(self.interrupt_after) {
            return Err(Finalized::error(SKIPPED_TEXT));
        }
        let Some(tool) = self.find(&call.name) else {
            return Err(Finalized::error(format!("Tool {} not found", call.name)));
        };
        let args = self
            .pipeline()
            .check(tool, call, self.schema(&call.name))
            .await?;
        Ok(Prepared {
            tool: tool.clone(),
            args,
        })
    }

    fn pipeline(&self) -> Pipeline<'_> {
        Pipeline {
            shared: self.shared,
            opts: self.opts,
            assistant: self.assistant,
            cancel: self.cancel,
            recorder: None,
        }
    }

    /// AC-15/AC-16: runs the tool with progress and abort, then `after_tool_call`.
    async fn execute(&self, call: &ToolCall, prepared: Prepared) -> Finalized {
        let finished = Arc::new(AtomicBool::new(false));
        let progress = progress_sink(self.shared, call, None, finished.clone());
        let f = self
            .pipeline()
            .run(&prepared.tool, call, prepared.args, progress, None)
            .await;
        finished.store(true, Ordering::Release);
        f
    }

    fn emit_start(&self, call: &ToolCall) {
        self.shared
            .state()
            .pending_tool_calls
            .insert(call.id.clone());
        emit_start(self.shared, call, None);
    }

    fn emit_end(&self, call: &ToolCall, f: &Finalized) {
        self.shared.state().pending_tool_calls.remove(&call.id);
        emit_end(self.shared, call, f, None);
    }

    /// AC-17: the toolResult message, recorded in the transcript, with its events.
    fn emit_result_message(&self, call: &ToolCall, f: Finalized) -> ToolResultMessage {
        let result = ToolResultMessage {
            duration_ms: f.duration_ms,
            usage: None,
            nested_calls: f.nested_calls,
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            content: f.content,
            details: f.details,
            is_error: f.is_error,
            timestamp: rho_ai::now_ms(),
        };
        let message = AgentMessage::ToolResult(result.clone());
        self.shared.emit(AgentEvent::MessageStart {
            message: message.clone(),
        });
        let message = Arc::new(message);
        self.shared
            .state()
            .messages
            .push(Arc::clone(&message).into());
        self.shared.emit(AgentEvent::MessageEnd { message });
        result
    }
}

/// The checks and hooks around one tool call, shared by the calls the model makes and the
/// calls tools make on its behalf ([`crate::nested`]).
pub(crate) struct Pipeline<'a> {
    pub shared: &'a Arc<Shared>,
    pub opts: &'a Arc<AgentOptions>,
    /// The assistant message whose call this is (or whose call made it).
    pub assistant: &'a AssistantMessage,
    pub cancel: &'a CancellationToken,
    /// The record of a model-issued call's nested calls, for calls made on its behalf;
    /// `None` for the call the model made (its run starts the record).
    pub recorder: Option<Arc<Recorder>>,
}

impl Pipeline<'_> {
    /// AC-14: argument preparation, validation and `before_tool_call`; `Err` is an immediate
    /// result, the call does not execute. `schema` defaults to the tool's parameters.
    pub async fn check(
        &self,
        tool: &Arc<dyn AgentTool>,
        call: &ToolCall,
        schema: Option<&Value>,
    ) -> Result<Value, Finalized> {
        let mut args = tool.prepare_arguments(call.arguments.clone());
        let built;
        let schema = match schema {
            Some(s) => s,
            None => {
                built = tool.parameters();
                &built
            }
        };
        if let Err(issues) = validate(schema, &mut args) {
            let text = format_validation_error(&call.name, &issues, &call.arguments);
            return Err(Finalized::error(text));
        }
        let ctx = BeforeToolCallContext {
            assistant_message: self.assistant.clone(),
            tool_call: call.clone(),
            args: args.clone(),
            cancel: self.cancel.clone(),
        };
        match AssertUnwindSafe(self.opts.hooks.before_tool_call(ctx))
            .catch_unwind()
            .await
        {
            Ok(Ok(Some(d))) if d.block => {
                let reason = d
                    .reason
                    .unwrap_or_else(|| "Tool execution was blocked".into());
                Err(Finalized::error(reason))
            }
            Ok(Ok(_)) => Ok(args),
            Ok(Err(e)) => Err(Finalized::error(e)),
            Err(p) => Err(Finalized::error(panic_text(&p))),
        }
    }

    /// AC-15/AC-16: runs the tool with progress and abort, then `after_tool_call`.
    pub async fn run(
        &self,
        tool: &Arc<dyn AgentTool>,
        call: &ToolCall,
        args: Value,
        progress: crate::tool::ProgressSink,
        parent: Option<&str>,
    ) -> Finalized {
        let cancel = self.cancel.child_token();
        let recorder = self.recorder.clone().unwrap_or_default();
        let ctx = ToolContext {
            call_id: call.id.clone(),
            cancel: cancel.clone(),
            progress,
            nested: Some(crate::nested::NestedCalls::new(
                self,
                &call.id,
                cancel,
                recorder.clone(),
            )),
            parent_call_id: parent.map(str::to_string),
        };
        let fut = AssertUnwindSafe(tool.execute(args.clone(), ctx)).catch_unwind();
        let grace = self.opts.abort_grace;
        let started = std::time::Instant::now();
        let outcome = tokio::select! {
            r = fut => Some(r),
            _ = abort_deadline(self.cancel, grace) => None,
        };
        let duration_ms = Some(started.elapsed().as_millis() as u64);
        let mut f = match outcome {
            None => Finalized::error("Tool execution aborted"),
            Some(Err(p)) => Finalized::error(panic_text(&p)),
            Some(Ok(Err(e))) => Finalized {
                content: vec![ContentBlock::text(e.message)],
                details: Some(
                    e.details
                        .unwrap_or_else(|| Value::Object(Default::default())),
                ),
                is_error: true,
                terminate: false,
                duration_ms: None,
                nested_calls: None,
            },
            Some(Ok(Ok(out))) => Finalized {
                content: out.content,
                details: out.details,
                is_error: false,
                terminate: false,
                duration_ms: None,
                nested_calls: None,
            },
        };
        f.duration_ms = duration_ms;
        if self.recorder.is_none() {
            f.nested_calls = recorder.snapshot();
        }
        let ctx = AfterToolCallContext {
            assistant_message: self.assistant.clone(),
            tool_call: call.clone(),
            args,
            content: f.content.clone(),
            details: f.details.clone(),
            is_error: f.is_error,
            cancel: self.cancel.clone(),
        };
        match AssertUnwindSafe(self.opts.hooks.after_tool_call(ctx))
            .catch_unwind()
            .await
        {
            Ok(Ok(Some(o))) => {
                if let Some(c) = o.content {
                    f.content = c;
                }
                if let Some(d) = o.details {
                    f.details = Some(d);
                }
                if let Some(e) = o.is_error {
                    f.is_error = e;
                }
                if let Some(t) = o.terminate {
                    f.terminate = t;
                }
            }
            Ok(Ok(None)) => {}
            Ok(Err(e)) => f = f.replaced_by(Finalized::error(e)),
            Err(p) => f = f.replaced_by(Finalized::error(panic_text(&p))),
        }
        f
    }
}

/// Progress reports become `tool_execution_update` events until the call finished.
pub(crate) fn progress_sink(
    shared: &Arc<Shared>,
    call: &ToolCall,
    parent: Option<&str>,
    finished: Arc<AtomicBool>,
) -> crate::tool::ProgressSink {
    let shared = shared.clone();
    let id = call.id.clone();
    let name = call.name.clone();
    let args = call.arguments.clone();
    let parent = parent.map(str::to_string);
    Arc::new(move |out: ToolOutput| {
        if finished.load(Ordering::Acquire) {
            return;
        }
        shared.emit(AgentEvent::ToolExecutionUpdate {
            tool_call_id: id.clone(),
            tool_name: name.clone(),
            args: args.clone(),
            partial_result: ToolExecutionResult {
                content: out.content,
                details: out.details,
            },
            parent_tool_call_id: parent.clone(),
        });
    })
}

pub(crate) fn emit_start(shared: &Shared, call: &ToolCall, parent: Option<&str>) {
    shared.emit(AgentEvent::ToolExecutionStart {
        tool_call_id: call.id.clone(),
        tool_name: call.name.clone(),
        args: call.arguments.clone(),
        parent_tool_call_id: parent.map(str::to_string),
    });
}

pub(crate) fn emit_end(shared: &Shared, call: &ToolCall, f: &Finalized, parent: Option<&str>) {
    shared.emit(AgentEvent::ToolExecutionEnd {
        tool_call_id: call.id.clone(),
        tool_name: call.name.clone(),
        result: ToolExecutionResult {
            content: f.content.clone(),
            details: f.details.clone(),
        },
        is_error: f.is_error,
        duration_ms: f.duration_ms,
        parent_tool_call_id: parent.map(str::to_string),
    });
}
