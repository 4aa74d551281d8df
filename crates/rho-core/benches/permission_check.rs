//! What checking a bash call against permission rules costs now that each line is parsed
//! with the shell grammar: the first check of a process (which also sets up the parser) and
//! the mean of later checks, for a short command, a compound line and a long script.
//!
//! Run: `cargo bench -p rho-core --bench permission_check`. Target: well under 1 ms a call.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::Instant;

use rho_core::permissions::{PermissionMode, Permissions};
use serde_json::json;

fn main() {
    let own = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let p = Permissions::from_lists(
        PermissionMode::Default,
        &own(&["bash(git status*)", "bash(cargo test*)"]),
        &own(&["bash(git push*)"]),
        &own(&["bash(rm -rf*)", "bash(curl *)", "bash(sudo *)"]),
        &mut Vec::new(),
    );
    let script: String = (0..40)
        .map(|i| format!("if [ -f f{i} ]; then cat f{i} | grep -v x > out{i} && echo \"$(wc -l < out{i})\"; fi\n"))
        .collect();
    let lines = [
        ("short", "ls -la".to_string()),
        (
            "compound",
            "cd crates && cargo test -p rho-core 2>&1 | tail -20 && git status --short".to_string(),
        ),
        ("script (40 lines)", script),
    ];
    let cwd = Path::new("/p");
    let start = Instant::now();
    p.check("bash", &json!({"command": "echo first"}), cwd);
    println!(
        "first check (parser set-up): {:>8.1} µs",
        start.elapsed().as_secs_f64() * 1e6
    );
    for (name, line) in &lines {
        let args = json!({ "command": line });
        let runs = 2000;
        let start = Instant::now();
        for _ in 0..runs {
            std::hint::black_box(p.check("bash", &args, cwd));
        }
        let each = start.elapsed().as_secs_f64() * 1e6 / runs as f64;
        println!("{name:<18} {:>5} bytes: {each:>8.1} µs a check", line.len());
    }
}
