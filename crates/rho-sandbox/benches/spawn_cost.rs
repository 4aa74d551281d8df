//! What the sandbox adds to one command: `sh -c true` spawned and waited for, plain and under
//! each mechanism, median of many runs, in a project with `.git/hooks` and `.rho`. Run: `cargo bench -p rho-sandbox --bench spawn_cost`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use rho_sandbox::{NetworkAccess, Probe, Sandbox, SandboxMode, SandboxPolicy};

const RUNS: usize = 300;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn once(sandbox: &Sandbox) -> Duration {
    let args = ["-c".into(), "true".into()];
    let start = Instant::now();
    let ok = sandbox
        .command(Path::new("/bin/sh"), &args)
        .ok()
        .and_then(|mut c| c.status().ok())
        .is_some_and(|s| s.success());
    assert!(ok, "command ran");
    start.elapsed()
}

/// Runs plain and sandboxed alternately so machine load hits both alike; returns the median
/// plain time, the median sandboxed time and the median of the pairwise differences.
fn compare(plain: &Sandbox, sandbox: &Sandbox) -> (Duration, Duration, i128) {
    let (mut a, mut b, mut diff) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let p = once(plain);
        let s = once(sandbox);
        diff.push(s.as_micros() as i128 - p.as_micros() as i128);
        a.push(p);
        b.push(s);
    }
    diff.sort();
    (median(a), median(b), diff[diff.len() / 2])
}

fn main() {
    // A project with the folders that stay read-only, so the namespace setup is measured too.
    let cwd = std::env::temp_dir().join("rho-sandbox-bench-project");
    std::fs::create_dir_all(cwd.join(".git/hooks")).expect("mkdir");
    std::fs::create_dir_all(cwd.join(".rho")).expect("mkdir");
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let policy =
        |mode, network| SandboxPolicy::new(mode, network, &cwd, home.as_deref(), None, &[]);
    let probe = Probe::detect();
    let plain = Sandbox::off();
    let build = Instant::now();
    let ww = Sandbox::new(
        policy(SandboxMode::WorkspaceWrite, NetworkAccess::On),
        &probe,
    );
    println!(
        "building the sandbox (once per session): {} µs",
        build.elapsed().as_micros()
    );
    let mut cases = vec![
        ("workspace-write, Landlock + mounts", ww),
        (
            "workspace-write + network off",
            Sandbox::new(
                policy(SandboxMode::WorkspaceWrite, NetworkAccess::Off),
                &probe,
            ),
        ),
        (
            "read-only, Landlock",
            Sandbox::new(policy(SandboxMode::ReadOnly, NetworkAccess::On), &probe),
        ),
    ];
    if let Some(bwrap) = probe.bwrap.clone() {
        let no_landlock = Probe {
            landlock_abi: None,
            bwrap: Some(bwrap),
        };
        cases.push((
            "workspace-write, bubblewrap",
            Sandbox::new(
                policy(SandboxMode::WorkspaceWrite, NetworkAccess::On),
                &no_landlock,
            ),
        ));
    }
    println!("sh -c true, median of {RUNS} alternating runs:");
    for (name, sandbox) in &cases {
        let (p, s, added) = compare(&plain, sandbox);
        println!(
            "  {name:<36} plain {:>6} µs  sandboxed {:>6} µs  added {added:>6} µs",
            p.as_micros(),
            s.as_micros()
        );
    }
}
