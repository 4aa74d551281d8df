//! The session task: the one owner of the run. It holds the agent's event stream and the
//! work waiting to start, drives one job at a time (a run; a manual compaction; a move in the
//! tree), and applies the operations handles send (see `ops.rs`) in the order they were
//! sent. An operation is applied between two steps of the job, never in the middle of one:
//! "is anything going?" and "start, queue or refuse" are answered by the same task that moves
//! the job from phase to phase, so no message can slip between a check and the change it
//! leads to.
//!
//! Applying an operation never awaits: whatever takes time (a run, a summary, an extension's
//! answer) is part of a job this task drives or happens in the caller's task. So a handler a
//! job is awaiting can itself send operations (`sendUserMessage`, `ctx.abort()`) without
//! deadlocking the task.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard, Weak};

use rho_agent::{BashExecutionMessage, CustomMessage, EventReceiver};
use tokio::sync::{mpsc, oneshot};

use super::ops::{Job, Op};
use super::phase::RunPhase;
use super::tree::Navigation;
use super::{lock, AgentSession, Inner};
use rho_session::SessionManager;

/// The run's own data. Only the session task touches it: it lends it to the run it drives
/// and to the operations it applies, which never run at the same time (the lock is never
/// contended; it only lets the run's future be sent between threads).
#[derive(Default)]
pub(crate) struct RunData {
    /// Bash results recorded while a run is active (BASH-4).
    pub pending_bash: Vec<BashExecutionMessage>,
    /// Custom messages for the next prompt (CM-2).
    pub pending_next_turn: Vec<CustomMessage>,
    /// Set by the first overflow recovery, cleared by user input and good replies (COMP-9).
    pub overflow_recovery_attempted: bool,
    /// The last assistant `message_end` since the previous post-run (POST-1).
    pub last_assistant: Option<rho_ai::AssistantMessage>,
    /// The extension-visible turn index (EXT-13).
    pub turn_index: u32,
    /// The streaming reply folded from its events, kept only while an extension listens for
    /// `message_update` (whose `message` is the partial); nothing is folded otherwise.
    pub extension_partial: Option<rho_ai::PartialMessage>,
}

/// The run data, as the session task lends it.
pub(crate) type Data = Mutex<RunData>;

/// Locks the run data (never contended, see [`RunData`]).
pub(crate) fn data(data: &Data) -> MutexGuard<'_, RunData> {
    lock(data)
}

/// What the run the session task drives works with: the run data and the agent's events.
pub(crate) struct Driver<'a> {
    pub data: &'a Data,
    pub events: &'a mut EventReceiver,
}

/// The work waiting to start and what waits for the current job to end.
#[derive(Default)]
pub(crate) struct Runs {
    /// Jobs accepted to start after the current one, in the order they were accepted.
    waiting: VecDeque<Job>,
    /// True while the task drives a job (a run from its first stage to its settling, a
    /// manual compaction, a move in the tree).
    pub active: bool,
    /// Session replacements asked for during a job: carried out when it has ended.
    replacements: Vec<(SessionManager, oneshot::Sender<()>)>,
}

impl Runs {
    /// Accepts `job` to start after the runs before it.
    pub fn push(&mut self, session: &AgentSession, job: Job) {
        session.inner.run.update(|s| s.starting += 1);
        self.waiting.push_back(job);
    }

    /// Defers replacing the store with `next` until the current run has ended.
    pub fn defer_replacement(&mut self, next: SessionManager, done: oneshot::Sender<()>) {
        self.replacements.push((next, done));
    }
}

/// The task's own parts: the operations inbox and the agent's event stream.
pub(crate) struct SessionTask {
    pub inner: Weak<Inner>,
    pub ops: mpsc::UnboundedReceiver<Op>,
    pub events: EventReceiver,
}

impl SessionTask {
    /// Runs until every handle of the session is gone (a run in progress is finished first).
    pub async fn run(self) {
        let SessionTask {
            inner,
            mut ops,
            mut events,
        } = self;
        let mut runs = Runs::default();
        let data = Data::default();
        loop {
            let Some(job) = runs.waiting.pop_front() else {
                let Some(op) = ops.recv().await else {
                    return;
                };
                let Some(inner) = inner.upgrade() else {
                    return;
                };
                AgentSession { inner }.apply(op, &mut runs, &data);
                continue;
            };
            let Some(inner) = inner.upgrade() else {
                return;
            };
            let session = AgentSession { inner };
            let phase = job.phase();
            session.inner.run.update(|s| {
                s.starting -= 1;
                s.phase = phase;
            });
            runs.active = true;
            {
                let mut driver = Driver {
                    data: &data,
                    events: &mut events,
                };
                let job = session.run_job(job, &mut driver);
                tokio::pin!(job);
                loop {
                    tokio::select! {
                        biased;
                        Some(op) = ops.recv() => session.apply(op, &mut runs, &data),
                        () = &mut job => break,
                    }
                }
            }
            runs.active = false;
            for (next, done) in std::mem::take(&mut runs.replacements) {
                session.replace_store(next, &data);
                let _ = done.send(());
            }
        }
    }
}

impl AgentSession {
    /// Applies one operation (without awaiting anything).
    fn apply(&self, op: Op, runs: &mut Runs, data: &Data) {
        match op {
            Op::Prompt(prompt) => self.apply_prompt(*prompt, runs),
            Op::Queue {
                queue,
                text,
                images,
                done,
            } => {
                self.queue_text(queue, text, images);
                let _ = done.send(());
            }
            Op::Custom {
                message,
                options,
                done,
            } => self.apply_custom(*message, options, done, runs, data),
            Op::Abort { detach, done } => {
                let _ = done.send(self.apply_abort(detach));
            }
            Op::Bash {
                message,
                session_id,
                done,
            } => {
                self.apply_bash(*message, session_id.as_deref(), data);
                let _ = done.send(());
            }
            Op::SetModel { model, done } => {
                let _ = done.send(self.apply_model(*model));
            }
            Op::SetThinkingLevel {
                level,
                always_record,
                done,
            } => {
                let _ = done.send(self.apply_thinking_level(level, always_record));
            }
            Op::Compact {
                instructions,
                reply,
            } => self.apply_compact(instructions, reply, runs),
            Op::Navigate(op) => self.apply_navigate(*op, runs),
            Op::ReplaceSession { next, done } => {
                self.apply_abort(false);
                self.abort_bash();
                // A run past its settle (its `agent_settled` handlers) no longer reads the
                // store: only a job still going makes the replacement wait.
                if runs.active && self.inner.run.get().phase != RunPhase::Idle {
                    runs.defer_replacement(*next, done);
                } else {
                    self.replace_store(*next, data);
                    let _ = done.send(());
                }
            }
        }
    }

    /// Starts `job` and drives it to its end. A run settles on its own; the session's own
    /// work returns to idle before its caller hears the answer.
    async fn run_job(&self, job: Job, d: &mut Driver<'_>) {
        match job {
            Job::Prompt(prompt) => self.prompt_job(*prompt, d).await,
            Job::Messages { messages, done } => {
                let result = self.run_loop(d, messages).await;
                let _ = done.send(result);
            }
            Job::Compact {
                instructions,
                reply,
            } => {
                let result = self.compaction_job(instructions.as_deref()).await;
                self.inner.run.set_phase(RunPhase::Idle);
                let _ = reply.send(result);
            }
            Job::Navigate(navigation) => {
                let Navigation {
                    plan,
                    options,
                    reply,
                } = *navigation;
                let result = self.navigation_job(plan, options).await;
                self.inner.run.set_phase(RunPhase::Idle);
                let _ = reply.send(result);
            }
        }
    }
}
