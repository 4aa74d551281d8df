//! The state a run task and the [`crate::Agent`] handle share: locked state, queues, the
//! subscriber list, the active run's abort token and the idle signal.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use tokio::sync::{mpsc, watch, Notify};
use tokio_util::sync::CancellationToken;

use crate::event::AgentEvent;
use crate::message::AgentMessage;
use crate::queue::{MessageQueue, Queue};
use crate::state::{AgentOptions, AgentState};

/// An event as subscribers receive it: with the queue its message came from, for the
/// `message_start` of a queued message.
pub(crate) type Emitted = (Arc<AgentEvent>, Option<Queue>);

/// Both queues under one lock so "steering first, then follow-ups" reads are consistent.
#[derive(Debug, Default)]
pub(crate) struct Queues {
    pub steering: MessageQueue,
    pub follow_up: MessageQueue,
    /// Counts `steer()` calls: a turn is interrupted only by steering that arrived after it
    /// began, not by messages a `one-at-a-time` poll left queued for later turns. Kept with
    /// the queue so a poll reads the count and drains in one step.
    steer_seq: u64,
}

/// What one poll of the steering queue took.
pub(crate) struct SteeringPoll {
    /// The messages delivered now (one, or all, per the mode).
    pub messages: Vec<AgentMessage>,
    /// The arrival count the poll saw: later `steer()` calls are newer than this turn.
    pub seq: u64,
    /// Whether the queue is drained one message per turn.
    pub one_at_a_time: bool,
}

pub(crate) struct Shared {
    state: Mutex<AgentState>,
    /// Bumped whenever the transcript changes outside a run's own appends, so a run knows
    /// when its incrementally built request context is stale.
    pub generation: AtomicU64,
    queues: Mutex<Queues>,
    /// Woken on every `steer()` so a streaming reply can be interrupted (D4).
    pub steer_notify: Notify,
    subscribers: Mutex<Vec<mpsc::UnboundedSender<Emitted>>>,
    options: RwLock<Arc<AgentOptions>>,
    pub run_cancel: Mutex<Option<CancellationToken>>,
    pub running: watch::Sender<bool>,
}

/// Locks a mutex, recovering from poisoning: every critical section leaves the data
/// consistent, so a panic elsewhere must not wedge the agent.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Shared {
    pub fn new(options: AgentOptions) -> Self {
        Self {
            state: Mutex::new(AgentState::default()),
            generation: AtomicU64::new(0),
            queues: Mutex::new(Queues::default()),
            steer_notify: Notify::new(),
            subscribers: Mutex::new(Vec::new()),
            options: RwLock::new(Arc::new(options)),
            run_cancel: Mutex::new(None),
            running: watch::channel(false).0,
        }
    }

    pub fn state(&self) -> MutexGuard<'_, AgentState> {
        lock(&self.state)
    }

    pub fn queues(&self) -> MutexGuard<'_, Queues> {
        lock(&self.queues)
    }

    pub fn options(&self) -> Arc<AgentOptions> {
        self.options
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn update_options(&self, f: impl FnOnce(&mut AgentOptions)) {
        let mut guard = self.options.write().unwrap_or_else(|p| p.into_inner());
        let mut next = (**guard).clone();
        f(&mut next);
        *guard = Arc::new(next);
    }

    /// Marks the transcript as changed from outside the run.
    pub fn bump_generation(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    pub fn subscribe(&self) -> mpsc::UnboundedReceiver<Emitted> {
        let (tx, rx) = mpsc::unbounded_channel();
        lock(&self.subscribers).push(tx);
        rx
    }

    /// Delivers one event to every subscriber. The lock makes every subscriber see the same
    /// order even when tools report progress from other threads; dropped receivers are
    /// removed.
    pub fn emit(&self, event: AgentEvent) {
        self.emit_from(event, None);
    }

    /// [`Self::emit`] for the `message_start` of a message taken from `from`.
    pub fn emit_from(&self, event: AgentEvent, from: Option<Queue>) {
        let event = Arc::new(event);
        let mut subs = lock(&self.subscribers);
        subs.retain(|tx| tx.send((event.clone(), from)).is_ok());
    }

    /// Queues a steering message and wakes a streaming turn.
    pub fn push_steering(&self, message: AgentMessage) {
        {
            let mut q = self.queues();
            q.steering.push(message);
            q.steer_seq += 1;
        }
        self.steer_notify.notify_waiters();
    }

    /// The current steering arrival count (taken when a turn begins).
    pub fn steer_seq(&self) -> u64 {
        self.queues().steer_seq
    }

    /// Whether steering arrived after arrival count `since` and is still queued (`None`:
    /// the turn is not interrupted by steering).
    pub fn steering_since(&self, since: Option<u64>) -> bool {
        let Some(since) = since else {
            return false;
        };
        let q = self.queues();
        q.steer_seq > since && !q.steering.is_empty()
    }

    /// Drains steering per mode, with the arrival count seen (one lock: a `steer()` racing
    /// the poll is either delivered now or counted as newer, never both or neither).
    pub fn poll_steering(&self) -> SteeringPoll {
        let mut q = self.queues();
        SteeringPoll {
            one_at_a_time: q.steering.mode == crate::queue::QueueMode::OneAtATime,
            messages: q.steering.drain(),
            seq: q.steer_seq,
        }
    }

    pub fn poll_follow_up(&self) -> Vec<AgentMessage> {
        self.queues().follow_up.drain()
    }

    /// Resolves once steering that arrived after count `since` is queued (at once if so).
    /// Never resolves for `None`.
    pub async fn steering_arrived(&self, since: Option<u64>) {
        if since.is_none() {
            return std::future::pending().await;
        }
        loop {
            let notified = self.steer_notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.steering_since(since) {
                return;
            }
            notified.await;
        }
    }

    /// Ends a run (AC-4): not streaming, nothing pending, idle waiters released. Everything
    /// changes under the state lock, so a `prompt()` racing with the end of the previous run
    /// never sees a half-finished agent or has its own token cleared.
    pub fn finish_run(&self) {
        let mut s = self.state();
        s.is_streaming = false;
        s.streaming_message = None;
        s.pending_tool_calls.clear();
        *lock(&self.run_cancel) = None;
        self.running.send_replace(false);
    }
}

/// Resolves `grace` after `cancel` fired: whatever still runs then is given up on.
pub(crate) async fn abort_deadline(cancel: &CancellationToken, grace: std::time::Duration) {
    cancel.cancelled().await;
    tokio::time::sleep(grace).await;
}
