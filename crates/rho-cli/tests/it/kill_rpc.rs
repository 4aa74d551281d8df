//! SIGKILL durability of `rho --mode rpc` (issue 17): every entry whose event the client saw
//! is in the session file after a kill at a random point, and the file opens. A bounded run
//! for CI; `cargo bench -p rho-cli --bench kill_rpc` runs 200 trials.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::kill;

const TRIALS: usize = 30;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_entries_survive_sigkill() {
    let seed = kill::seed();
    let (_keep, dir) = kill::temp_dir();
    let outcome = kill::run(TRIALS, seed, &dir).await;
    assert!(
        outcome.lost.is_empty() && outcome.unreadable.is_empty(),
        "seed {seed}: lost {:?}, unreadable {:?}",
        outcome.lost,
        outcome.unreadable
    );
    assert!(
        outcome.acknowledged > 0,
        "seed {seed}: the trials acknowledged nothing"
    );
}
