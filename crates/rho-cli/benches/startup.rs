//! Startup cost of the binary: `rho --version`, and `rho --mode rpc` from spawn through the
//! `get_state` response to its exit at end of input (also with an MCP server, whose connect
//! the exit stops, and with an installed package). Run
//! with `cargo bench -p rho-cli --bench startup` (release build); prints the median and
//! spread over `RUNS` runs each.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 50;

fn main() {
    let home = tempfile::tempdir().expect("tempdir");
    let agent = home.path().join("agent");
    std::fs::create_dir_all(&agent).expect("agent dir");
    let bin = env!("CARGO_BIN_EXE_rho");
    let command = |args: &[&str]| {
        let mut c = Command::new(bin);
        c.args(args)
            .env_clear()
            .env("HOME", home.path())
            .env("RHO_CODING_AGENT_DIR", &agent)
            .current_dir(home.path());
        c
    };

    let version = measure(|| {
        let out = command(&["--version"]).output().expect("rho runs");
        assert!(out.status.success());
    });
    report("rho --version", &version);

    let rpc_run = |extra: &[&str]| {
        let mut args = vec!["--mode", "rpc", "--no-session"];
        args.extend_from_slice(extra);
        let mut child = command(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("rho starts");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(b"{\"id\":\"s\",\"type\":\"get_state\"}\n")
            .expect("write");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("read");
        assert!(line.contains("\"command\":\"get_state\""), "{line}");
        drop(stdin);
        child.wait().expect("exit");
    };
    report(
        "rho --mode rpc → get_state response → exit",
        &measure(|| rpc_run(&[])),
    );
    // MCP: with no server configured nothing MCP runs (a few missing-file checks only), so
    // this matches --no-mcp; a configured server connects in the background (`cat` never
    // answers, so its connect is still going when end of input stops it).
    report("  same with --no-mcp", &measure(|| rpc_run(&["--no-mcp"])));
    let server = "{\"mcpServers\": {\"s\": {\"command\": \"cat\"}}}";
    std::fs::write(agent.join("mcp.json"), server).expect("mcp.json");
    report(
        "  same with one stdio MCP server configured",
        &measure(|| rpc_run(&[])),
    );
    std::fs::remove_file(agent.join("mcp.json")).expect("remove mcp.json");
    // Packages: an installed npm package (laid out as npm installs it) with 20 skills and
    // 20 prompt templates is found and read without running npm.
    let pkg = agent.join("npm/node_modules/fx-bench");
    for i in 0..20 {
        let skill = format!("---\nname: s{i}\ndescription: skill {i}\n---\nbody\n");
        std::fs::create_dir_all(pkg.join(format!("skills/s{i}"))).expect("mkdir");
        std::fs::write(pkg.join(format!("skills/s{i}/SKILL.md")), skill).expect("skill");
        std::fs::create_dir_all(pkg.join("prompts")).expect("mkdir");
        std::fs::write(pkg.join(format!("prompts/p{i}.md")), "text $1\n").expect("prompt");
    }
    std::fs::write(
        pkg.join("package.json"),
        r#"{"name":"fx-bench","version":"1.0.0"}"#,
    )
    .expect("package.json");
    std::fs::write(
        agent.join("settings.json"),
        r#"{"packages":["npm:fx-bench"]}"#,
    )
    .expect("settings");
    report(
        "  same with one installed package (20 skills, 20 prompts)",
        &measure(|| rpc_run(&[])),
    );
    std::fs::remove_file(agent.join("settings.json")).expect("remove settings");
}

/// Runs `f` `RUNS` times (after one warm-up) and returns the sorted durations.
fn measure(mut f: impl FnMut()) -> Vec<Duration> {
    f();
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times
}

fn report(name: &str, sorted: &[Duration]) {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{name}: median {:.2} ms (min {:.2}, p90 {:.2}, max {:.2}) over {} runs",
        ms(sorted[sorted.len() / 2]),
        ms(sorted[0]),
        ms(sorted[sorted.len() * 9 / 10]),
        ms(sorted[sorted.len() - 1]),
        sorted.len()
    );
}
