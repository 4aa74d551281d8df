//! What the sandbox adds to one command: `sh -c true` spawned and waited for, plain and under
//! each mechanism, median of many runs, in a project with `.git/hooks` and `.rho`. Run: `cargo bench -p rho-sandbox --bench spawn_cost`.

use std::path::Path;
use std::time::{Duration, Instant};

use rho_sandbox::{NetworkAccess, Probe, Sandbox, SandboxMode, SandboxPolicy};

const RUNS: usize = 300;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn measure(sandbox: &Sandbox) -> Duration {
    let args = ["-c".into(), "true".into()];
    let samples = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            let status = sandbox
                .command(Path::new("/bin/sh"), &args)
                .and_then(|mut c| {
                    c.status()
                        .map_err(|e| rho_sandbox::SandboxError::Setup(e.to_string()))
                });
            assert!(status.is_ok_and(|s| s.success()), "command ran");
            start.elapsed()
        })
        .collect();
    median(samples)
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
    let plain = measure(&Sandbox::off());
    println!(
        "plain sh -c true:                 {:>8.0} µs",
        plain.as_micros()
    );
    let build = Instant::now();
    let ww = Sandbox::new(
        policy(SandboxMode::WorkspaceWrite, NetworkAccess::On),
        &probe,
    );
    println!(
        "building the sandbox (once):      {:>8.0} µs",
        build.elapsed().as_micros()
    );
    let cases = [
        ("workspace-write, Landlock", ww),
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
    for (name, sandbox) in &cases {
        let t = measure(sandbox);
        let added = t.as_micros() as i128 - plain.as_micros() as i128;
        println!("{name:<33} {:>8.0} µs  (+{added} µs)", t.as_micros());
    }
    if let Some(bwrap) = probe.bwrap.clone() {
        let no_landlock = Probe {
            landlock_abi: None,
            bwrap: Some(bwrap),
        };
        let sandbox = Sandbox::new(
            policy(SandboxMode::WorkspaceWrite, NetworkAccess::On),
            &no_landlock,
        );
        let t = measure(&sandbox);
        let added = t.as_micros() as i128 - plain.as_micros() as i128;
        println!(
            "{:<33} {:>8.0} µs  (+{added} µs)",
            "workspace-write, bubblewrap",
            t.as_micros()
        );
    }
}
