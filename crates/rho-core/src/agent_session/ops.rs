//! The typed operations that reach the session task. Everything that affects a run, and the
//! session's own work that takes time (a manual compaction, a move in the tree), arrives as
//! one of these and leaves as events; each maps onto an RPC command
//! (`rho_protocol::rpc::Command`) or an extension call, and carries the channel its answer
//! goes back on. The session task applies them one at a time, in the order they were sent,
//! between the steps of the run it drives (see `task.rs`).

use std::future::Future;

use rho_agent::queue::Queue;
use rho_agent::{AgentMessage, BashExecutionMessage, CustomMessage};
use rho_ai::{ImageContent, Model, ThinkingLevel};
use tokio::sync::oneshot;

use super::custom::SendMessageOptions;
use super::error::SessionError;
use super::phase::RunPhase;
use super::prompt::{Preflight, StreamingBehavior};
use super::tree::{NavigateTreeOptions, NavigateTreeOutcome, Navigation};
use super::AgentSession;
use rho_compaction::CompactionResult;
use rho_session::SessionManager;

/// Who sent an operation. A prompt sent from inside the session task's work (an extension
/// handler a run, a compaction or a tree move is awaiting) must never wait for that work to
/// end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A caller outside the task's work: a front-end, an RPC client, a tool hook.
    Outside,
    /// An extension handler the task's work awaits.
    RunLoop,
}

/// One operation.
pub(crate) enum Op {
    /// `prompt` (and an extension's `sendUserMessage`) once its input went through stages
    /// 1-3: stage 4 decides whether it runs now, waits for the run before it, is queued, or
    /// is refused (P-6).
    Prompt(Box<PromptOp>),
    /// `steer` / `follow_up`: a user message for the agent's queue.
    Queue {
        queue: Queue,
        text: String,
        images: Vec<ImageContent>,
        done: oneshot::Sender<()>,
    },
    /// An extension's custom message and how to deliver it (CM-2..6, D9).
    Custom {
        message: Box<CustomMessage>,
        options: SendMessageOptions,
        done: oneshot::Sender<Result<(), SessionError>>,
    },
    /// `abort` (D6); `detach` for a manual compaction, whose aborted run is not persisted
    /// (SE-9). Answers the settle count to wait past when a run loop was
    /// active.
    Abort {
        detach: bool,
        done: oneshot::Sender<Option<u64>>,
    },
    /// A user command's result (`bash`, `!cmd`): deferred while a run is active (BASH-4);
    /// with `session_id`, dropped if another session replaced that one meanwhile.
    Bash {
        message: Box<BashExecutionMessage>,
        session_id: Option<String>,
        done: oneshot::Sender<()>,
    },
    /// `set_model` / `cycle_model` (AUTH-10).
    SetModel {
        model: Box<Model>,
        done: oneshot::Sender<Result<ModelSwitch, SessionError>>,
    },
    /// `set_thinking_level` / `cycle_thinking_level`: the level (clamped to the model) and
    /// whether it is recorded even when unchanged.
    SetThinkingLevel {
        level: ThinkingLevel,
        always_record: bool,
        done: oneshot::Sender<Option<LevelChange>>,
    },
    /// `new_session`, `switch_session`, `fork`, `clone`: the store is replaced once no run
    /// loop is active (an active one is aborted first).
    ReplaceSession {
        next: Box<SessionManager>,
        done: oneshot::Sender<()>,
    },
    /// `compact` (COMP-17): the run going is aborted (its messages kept out of the file,
    /// SE-9), then the compaction is the task's work once the work before it is done;
    /// answered when it has ended.
    Compact {
        instructions: Option<String>,
        reply: oneshot::Sender<Result<CompactionResult, SessionError>>,
    },
    /// `navigate_tree`: refused while the task drives anything; otherwise the move is the
    /// task's work (the extensions' hooks and a branch summary take time); answered when it
    /// has ended.
    Navigate(Box<NavigateOp>),
}

/// A move in the session tree, as asked for.
pub(crate) struct NavigateOp {
    pub target: String,
    pub options: NavigateTreeOptions,
    pub reply: oneshot::Sender<Result<NavigateTreeOutcome, SessionError>>,
}

/// A prompt after input processing.
pub(crate) struct PromptOp {
    pub text: String,
    pub images: Vec<ImageContent>,
    pub behavior: Option<StreamingBehavior>,
    pub origin: Origin,
    /// Told the disposition (or the refusal) where it is decided: stage 4 on the session
    /// task, or stage 7 of the prompt's run, before the run's first event (P-12, P-15).
    pub preflight: Preflight,
    /// Answered when the prompt is queued or refused, or when the run it started settled.
    pub reply: oneshot::Sender<Result<(), SessionError>>,
}

/// A thinking level change: the level before and after.
pub(crate) type LevelChange = (ThinkingLevel, ThinkingLevel);

/// What a model switch changed, for the extension events that follow it.
pub(crate) struct ModelSwitch {
    /// The model before.
    pub previous: Option<Model>,
    /// Whether the model is another one.
    pub changed: bool,
    /// The thinking level change, when the switch clamped the level to another.
    pub level_change: Option<LevelChange>,
}

/// Work the session task drives when the work before it is done: a run, or the session's
/// own work that takes time.
pub(crate) enum Job {
    /// A prompt's stages 5-7, then its run loop.
    Prompt(Box<PromptOp>),
    /// A run loop over given messages (a custom message with `triggerTurn`, D9).
    Messages {
        messages: Vec<AgentMessage>,
        done: oneshot::Sender<Result<(), SessionError>>,
    },
    /// A manual compaction.
    Compact {
        instructions: Option<String>,
        reply: oneshot::Sender<Result<CompactionResult, SessionError>>,
    },
    /// A move in the tree, planned when it was accepted.
    Navigate(Box<Navigation>),
}

impl Job {
    /// The phase the task is in when it starts this job.
    pub fn phase(&self) -> RunPhase {
        match self {
            Job::Prompt(_) | Job::Messages { .. } => RunPhase::Starting,
            Job::Compact { .. } => RunPhase::ManualCompaction,
            Job::Navigate(_) => RunPhase::Navigating,
        }
    }
}

impl AgentSession {
    /// Sends `op` to the session task.
    pub(crate) fn submit(&self, op: Op) {
        // The task lives as long as the session's state does (it holds only a weak
        // reference while idle), so a send can only fail once nothing can observe it.
        let _ = self.inner.ops.send(op);
    }

    /// Sends the operation `make` builds around a reply channel, at once (so operations sent
    /// after this call are applied after it), and returns the wait for the reply.
    pub(crate) fn request<T: Send + 'static>(
        &self,
        make: impl FnOnce(oneshot::Sender<T>) -> Op,
    ) -> impl Future<Output = Result<T, SessionError>> + Send + 'static {
        let (tx, rx) = oneshot::channel();
        self.submit(make(tx));
        async move { rx.await.map_err(|_| SessionError::Stopped) }
    }
}
