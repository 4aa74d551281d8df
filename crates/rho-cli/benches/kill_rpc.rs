//! 200 SIGKILL trials of `rho --mode rpc` (see `tests/it/kill/mod.rs`); prints acknowledged and
//! lost entries. Run with `cargo bench -p rho-cli --bench kill_rpc`; `RHO_KILL_SEED` replays
//! a seed and `RHO_KILL_TRIALS` changes the count.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/it/kill/mod.rs"]
mod kill;

fn main() {
    let trials = std::env::var("RHO_KILL_TRIALS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let seed = kill::seed();
    let (_keep, dir) = kill::temp_dir();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let started = std::time::Instant::now();
    let outcome = rt.block_on(kill::run(trials, seed, &dir));
    println!(
        "kill_rpc: seed {seed}, {} trials in {:.1} s, {} acknowledged entries, {} lost, {} unreadable files",
        outcome.trials,
        started.elapsed().as_secs_f64(),
        outcome.acknowledged,
        outcome.lost.len(),
        outcome.unreadable.len()
    );
    for line in outcome.lost.iter().chain(&outcome.unreadable) {
        println!("  {line}");
    }
    if !outcome.lost.is_empty() || !outcome.unreadable.is_empty() {
        std::process::exit(1);
    }
}
