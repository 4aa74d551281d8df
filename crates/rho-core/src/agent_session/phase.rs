//! What the session's run is doing, as one value written in one place. Every question of the
//! form "is a run going?", "is it retrying?", "may this prompt start?" reads [`RunState`];
//! only the session task (the run it drives, the operations it applies) changes it, besides
//! the compaction and branch summary that run outside a run loop.

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// The phase of the run loop (seed diagram 3: prompt, post-run chain, settle).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunPhase {
    /// No run loop is active and none is waiting to start.
    #[default]
    Idle,
    /// A prompt's run has begun and its agent run has not started yet (prompt stages 5-7:
    /// the model and key checks, the pre-prompt compaction, `before_agent_start`).
    Starting,
    /// The agent streams replies or runs tools.
    Running,
    /// The post-run chain waits out a retry back-off (RETRY-2..8); `abort_retry` ends it.
    Retrying,
    /// The post-run chain or the pre-prompt check compacts the context (COMP-4..15).
    Compacting,
    /// The agent's run is over (`agent_end` went out); the post-run chain decides whether to
    /// continue, then the loop settles.
    Finishing,
}

impl RunPhase {
    /// Whether the agent itself is done with the run: what is left (compaction, settling) is
    /// the session's own, so a prompt from outside waits for it instead of being refused.
    pub fn agent_done(self) -> bool {
        matches!(self, RunPhase::Compacting | RunPhase::Finishing)
    }
}

/// Work that replaces the conversation outside any run loop, shown as "compacting".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SideWork {
    /// A manual `compact()` (COMP-17).
    Compaction,
    /// The summary of an abandoned branch (`navigate_tree`).
    BranchSummary,
}

/// The run's state: its phase and what was asked of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RunState {
    /// The run loop's phase.
    pub phase: RunPhase,
    /// A compaction or branch summary outside the run loop.
    pub side: Option<SideWork>,
    /// `abort()` was called for this run loop: its `agent_settled` says `aborted` and no
    /// retry is promised. Cleared when the next run loop starts.
    pub aborted: bool,
    /// The run's messages are not persisted: a manual compaction is aborting it (SE-9).
    /// Listeners and extensions still see the run end, so the event stream stays well-formed
    /// (D15; pi 1.x no longer hides those events either).
    pub detached: bool,
    /// Runs accepted to start after the current one (they wait for the run before them).
    pub starting: usize,
    /// How many run loops have settled: `abort()` waits for the count to pass the one it saw.
    pub settled: u64,
    /// The retry counter (RETRY-4, RETRY-12): failed attempts of the current retry sequence.
    pub retry_attempt: u32,
    /// How many user command results wait for the run's next flush (BASH-4).
    pub pending_bash: usize,
}

impl RunState {
    /// True while a run is active or waits to start.
    pub fn busy(&self) -> bool {
        self.phase != RunPhase::Idle || self.starting > 0
    }

    /// True while any compaction runs (in the run loop or outside it).
    pub fn compacting(&self) -> bool {
        self.phase == RunPhase::Compacting || self.side.is_some()
    }
}

/// The cancellation handles of the work that can be interrupted on its own (AB-7).
#[derive(Default)]
pub(crate) struct Cancels {
    /// The retry back-off (RETRY-15).
    pub retry: Option<CancellationToken>,
    /// The compaction's summary call (COMP-22).
    pub compaction: Option<CancellationToken>,
    /// The branch summary's call (AB-7).
    pub branch_summary: Option<CancellationToken>,
}

/// The run's state and its cancellation handles, shared by the session's handles.
pub(crate) struct RunControl {
    state: watch::Sender<RunState>,
    cancels: std::sync::Mutex<Cancels>,
}

impl Default for RunControl {
    fn default() -> Self {
        Self {
            state: watch::channel(RunState::default()).0,
            cancels: Default::default(),
        }
    }
}

impl RunControl {
    /// The current state.
    pub fn get(&self) -> RunState {
        *self.state.borrow()
    }

    /// Changes the state in one step; watchers see the result.
    pub fn update(&self, f: impl FnOnce(&mut RunState)) {
        self.state.send_if_modified(|s| {
            let before = *s;
            f(s);
            *s != before
        });
    }

    /// Sets the run loop's phase.
    pub fn set_phase(&self, phase: RunPhase) {
        self.update(|s| s.phase = phase);
    }

    /// Ends a retry sequence: returns its attempt count and resets it.
    pub fn take_retry_attempt(&self) -> u32 {
        let mut attempt = 0;
        self.update(|s| attempt = std::mem::take(&mut s.retry_attempt));
        attempt
    }

    /// Resolves once no run is active or waiting (at once if none is).
    pub async fn idle(&self) {
        let mut rx = self.state.subscribe();
        let _ = rx.wait_for(|s| !s.busy()).await;
    }

    /// Resolves once more than `count` run loops have settled.
    pub async fn settled_past(&self, count: u64) {
        let mut rx = self.state.subscribe();
        let _ = rx.wait_for(|s| s.settled > count).await;
    }

    /// Runs `f` on the cancellation handles.
    pub fn cancels<R>(&self, f: impl FnOnce(&mut Cancels) -> R) -> R {
        f(&mut super::lock(&self.cancels))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_covers_a_waiting_prompt_and_compacting_covers_side_work() {
        let mut s = RunState::default();
        assert!(!s.busy() && !s.compacting());
        s.starting = 1;
        assert!(s.busy());
        s = RunState {
            side: Some(SideWork::BranchSummary),
            ..RunState::default()
        };
        assert!(!s.busy() && s.compacting());
        s.phase = RunPhase::Compacting;
        s.side = None;
        assert!(s.busy() && s.compacting() && s.phase.agent_done());
        assert!(!RunPhase::Retrying.agent_done());
    }

    #[tokio::test]
    async fn idle_waits_for_the_runs_waiting_to_start_too() {
        let control = std::sync::Arc::new(RunControl::default());
        control.update(|s| {
            s.phase = RunPhase::Running;
            s.starting = 1;
        });
        let waiter = tokio::spawn({
            let control = control.clone();
            async move { control.idle().await }
        });
        tokio::task::yield_now().await;
        control.set_phase(RunPhase::Idle);
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished(), "a run still waits to start");
        control.update(|s| s.starting = 0);
        waiter.await.expect("joined");
    }

    #[tokio::test]
    async fn settled_past_sees_a_settle_even_when_the_next_run_starts_at_once() {
        let control = std::sync::Arc::new(RunControl::default());
        control.set_phase(RunPhase::Running);
        let seen = control.get().settled;
        let waiter = tokio::spawn({
            let control = control.clone();
            async move { control.settled_past(seen).await }
        });
        control.update(|s| {
            s.phase = RunPhase::Idle;
            s.settled += 1;
        });
        control.set_phase(RunPhase::Starting);
        waiter.await.expect("joined");
    }
}
