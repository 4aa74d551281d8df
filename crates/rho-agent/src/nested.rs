//! Tool calls a tool makes while it runs (pi's `ctx.executeTool`, used by codemode scripts).
//! Each goes through the same pipeline as a call the model made: argument preparation and
//! validation, `before_tool_call` (the session's permission rules and extensions' `tool_call`),
//! execution with progress and abort, `after_tool_call` (the sandbox escalation and extensions'
//! `tool_result`). Its events carry `parentToolCallId`; its id is `<parent id>/<n>`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use rho_ai::{AssistantMessage, ContentBlock, ToolCall};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::nested_record::Recorder;
use crate::shared::Shared;
use crate::state::AgentOptions;
use crate::tool::AgentTool;
use crate::tools_exec::{emit_end, emit_start, progress_sink, Pipeline};

/// Runs calls on behalf of one tool call. Cheap to clone.
#[derive(Clone)]
pub struct NestedCalls {
    inner: Arc<Inner>,
}

struct Inner {
    shared: Arc<Shared>,
    opts: Arc<AgentOptions>,
    assistant: AssistantMessage,
    /// The calling tool's own cancellation (the run's abort reaches it too).
    cancel: CancellationToken,
    parent_id: String,
    next: AtomicU64,
    /// The record of the model-issued call these calls are made for (shared by every level).
    recorder: Arc<Recorder>,
}

/// How a nested call ended, after every hook.
#[derive(Debug, Clone, PartialEq)]
pub struct NestedOutcome {
    /// The call's id (`<parent id>/<n>`).
    pub id: String,
    pub content: Vec<ContentBlock>,
    pub details: Option<Value>,
    pub is_error: bool,
    /// What the tool gave for scripts beyond its content (see
    /// [`AgentTool::take_script_value`]).
    pub script_value: Option<Value>,
}

impl NestedOutcome {
    /// The text blocks joined by newlines.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl NestedCalls {
    pub(crate) fn new(
        pipeline: &Pipeline<'_>,
        parent_id: &str,
        cancel: CancellationToken,
        recorder: Arc<Recorder>,
    ) -> NestedCalls {
        NestedCalls {
            inner: Arc::new(Inner {
                shared: pipeline.shared.clone(),
                opts: pipeline.opts.clone(),
                assistant: pipeline.assistant.clone(),
                cancel,
                parent_id: parent_id.to_string(),
                next: AtomicU64::new(1),
                recorder,
            }),
        }
    }

    /// The id of the call these calls are made for.
    pub fn parent_id(&self) -> &str {
        &self.inner.parent_id
    }

    /// Runs `tool` with `args` through the pipeline. Never fails: a refused, invalid or
    /// failed call comes back with `is_error`. `cancel` stops this call alone.
    pub async fn call(
        &self,
        tool: Arc<dyn AgentTool>,
        args: Value,
        cancel: CancellationToken,
    ) -> NestedOutcome {
        let inner = &self.inner;
        let n = inner.next.fetch_add(1, Ordering::Relaxed);
        let call = ToolCall {
            id: format!("{}/{n}", inner.parent_id),
            name: tool.name().to_string(),
            arguments: args,
            thought_signature: None,
            namespace: None,
        };
        let parent = Some(inner.parent_id.as_str());
        let slot = inner.recorder.start(&call.id, &call.name, &call.arguments);
        emit_start(&inner.shared, &call, parent);
        // Either the script's own cancel or the calling tool's stops this call.
        let token = inner.cancel.child_token();
        let stop = token.clone();
        let watch = tokio::spawn(async move {
            cancel.cancelled().await;
            stop.cancel();
        });
        let pipeline = Pipeline {
            shared: &inner.shared,
            opts: &inner.opts,
            assistant: &inner.assistant,
            cancel: &token,
            recorder: Some(inner.recorder.clone()),
        };
        let f = match pipeline.check(&tool, &call, None).await {
            Err(f) => f,
            Ok(args) => {
                let finished = Arc::new(AtomicBool::new(false));
                let progress = progress_sink(&inner.shared, &call, parent, finished.clone());
                let f = pipeline.run(&tool, &call, args, progress, parent).await;
                finished.store(true, Ordering::Release);
                f
            }
        };
        watch.abort();
        let outcome = NestedOutcome {
            script_value: tool.take_script_value(&call.id),
            id: call.id.clone(),
            content: f.content.clone(),
            details: f.details.clone(),
            is_error: f.is_error,
        };
        inner
            .recorder
            .finish(slot, outcome.is_error.then(|| outcome.text()).as_deref());
        emit_end(&inner.shared, &call, &f, parent);
        outcome
    }
}
