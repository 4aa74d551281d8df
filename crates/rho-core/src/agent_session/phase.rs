//! What the session task is doing, as one value written in one place. Every question of the
//! form "is a run going?", "is it retrying?", "may this prompt start?" reads [`RunState`];
//! only the session task (the work it drives, the operations it applies) changes it.

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// What the session task drives: the phases of a run (seed diagram 3: prompt, post-run
/// chain, settle), and the session's own work that takes time outside any run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunPhase {
    /// Nothing is driven and nothing waits to start.
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
    /// A manual compaction (`compact`, COMP-17), outside any run: the run it found was
    /// aborted and has ended; `abort_compaction` cancels the summary.
    ManualCompaction,
    /// A move in the session tree (`navigate_tree`): the extensions' say, the summary of the
    /// branch left behind when one was asked for (`abort_branch_summary` cancels it), the
    /// move.
    Navigating,
}

impl RunPhase {
    /// Whether this is a phase of a run (what pi calls streaming), as opposed to idle or the
    /// session's own work outside a run.
    pub fn in_run(self) -> bool {
        matches!(
            self,
            RunPhase::Starting
                | RunPhase::Running
                | RunPhase::Retrying
                | RunPhase::Compacting
                | RunPhase::Finishing
        )
    }

    /// Whether a prompt from outside waits for what goes on, instead of being queued into the
    /// agent or refused: it is the session's own work (a compaction, the settle, a move in
    /// the tree), not the agent's, so the prompt's run can simply come next.
    pub fn prompts_wait(self) -> bool {
        matches!(
            self,
            RunPhase::Compacting
                | RunPhase::Finishing
                | RunPhase::ManualCompaction
                | RunPhase::Navigating
        )
    }
}

/// The session task's state: its phase and what was asked of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RunState {
    /// What the task drives.
    pub phase: RunPhase,
    /// `abort()` was called for this run loop: its `agent_settled` says `aborted` and no
    /// retry is promised. Cleared when the next run loop starts.
    pub aborted: bool,
    /// The run's messages are not persisted: a manual compaction is aborting it (SE-9).
    /// Listeners and extensions still see the run end, so the event stream stays well-formed
    /// (D15; pi 1.x no longer hides those events either).
    pub detached: bool,
    /// Work accepted to start after the current one (a run, a manual compaction or a tree
    /// move, each waiting for the one before it).
    pub starting: usize,
    /// How many run loops have settled: `abort()` waits for the count to pass the one it saw.
    pub settled: u64,
    /// The retry counter (RETRY-4, RETRY-12): failed attempts of the current retry sequence.
    pub retry_attempt: u32,
    /// How many user command results wait for the run's next flush (BASH-4).
    pub pending_bash: usize,
}

impl RunState {
    /// True while the session task drives anything (a run, a manual compaction, a move in
    /// the tree) or has work waiting to start: what `wait_for_idle` waits out.
    pub fn busy(&self) -> bool {
        self.phase != RunPhase::Idle || self.starting > 0
    }

    /// True while a run is active or about to start (pi's `isStreaming`). A manual
    /// compaction or a move in the tree is not streaming, nor is a prompt waiting for one.
    pub fn streaming(&self) -> bool {
        self.phase.in_run() || (self.phase == RunPhase::Idle && self.starting > 0)
    }

    /// True while any compaction runs (in a run or outside it) or the tree is being moved in
    /// (COMP-22: a branch summary counts as compacting).
    pub fn compacting(&self) -> bool {
        matches!(
            self.phase,
            RunPhase::Compacting | RunPhase::ManualCompaction | RunPhase::Navigating
        )
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

    /// Resolves once the state satisfies `ready` (at once if it does).
    pub async fn until(&self, ready: impl FnMut(&RunState) -> bool) {
        let mut rx = self.state.subscribe();
        let _ = rx.wait_for(ready).await;
    }

    /// Resolves once the task drives nothing and nothing waits (at once if so).
    pub async fn idle(&self) {
        self.until(|s| !s.busy()).await;
    }

    /// Resolves once more than `count` run loops have settled.
    pub async fn settled_past(&self, count: u64) {
        self.until(|s| s.settled > count).await;
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
    fn busy_covers_every_phase_and_streaming_only_the_runs() {
        let mut s = RunState::default();
        assert!(!s.busy() && !s.streaming() && !s.compacting());
        s.starting = 1;
        assert!(s.busy() && s.streaming(), "a run accepted and waiting");
        for side in [RunPhase::ManualCompaction, RunPhase::Navigating] {
            s = RunState {
                phase: side,
                ..RunState::default()
            };
            assert!(s.busy(), "{side:?}: the task is occupied");
            assert!(!s.streaming(), "{side:?}: no run (pi's isStreaming false)");
            s.starting = 1;
            assert!(
                !s.streaming(),
                "{side:?}: a prompt waiting for it is not running yet"
            );
            assert!(s.compacting(), "{side:?}: COMP-22");
            assert!(side.prompts_wait(), "{side:?}: a prompt waits for it");
        }
        s.phase = RunPhase::Compacting;
        assert!(s.busy() && s.streaming() && s.compacting() && s.phase.prompts_wait());
        assert!(!RunPhase::Retrying.prompts_wait() && !RunPhase::Starting.prompts_wait());
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
