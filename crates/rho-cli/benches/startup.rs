//! Startup cost of the binary: `rho --version`, and `rho --mode rpc` from spawn through the
//! `get_state` response to its exit at end of input (also with an MCP server, whose connect
//! the exit stops, and with an installed package). Run
//! with `cargo bench -p rho-cli --bench startup` (release build); prints the median and
//! spread over `RUNS` runs each.
//!
//! Side by side: `-- --bin <name>=<path>` (repeatable) measures those binaries instead, one
//! run of each in turn, so a change in the machine's load falls on all of them alike (e.g.
//! main's build against a branch's, each built in its own tree).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 50;

/// The binaries to measure: `--bin name=path` arguments, or the rho built with this bench.
fn binaries() -> Vec<(String, String)> {
    let mut bins = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--bin" {
            let spec = args.next().expect("--bin <name>=<path>");
            let (name, path) = spec.split_once('=').expect("--bin <name>=<path>");
            bins.push((name.to_string(), path.to_string()));
        }
    }
    if bins.is_empty() {
        bins.push(("rho".to_string(), env!("CARGO_BIN_EXE_rho").to_string()));
    }
    bins
}

fn main() {
    let bins = binaries();
    let home = tempfile::tempdir().expect("tempdir");
    let agent = home.path().join("agent");
    std::fs::create_dir_all(&agent).expect("agent dir");
    let command = |bin: &str, args: &[&str]| {
        let mut c = Command::new(bin);
        c.args(args)
            .env_clear()
            .env("HOME", home.path())
            .env("RHO_CODING_AGENT_DIR", &agent)
            .current_dir(home.path());
        c
    };

    let version = |bin: &str| {
        let out = command(bin, &["--version"]).output().expect("rho runs");
        assert!(out.status.success());
    };
    report("rho --version", &bins, &measure(&bins, version));

    // Every model of the built-in catalog that has a key: four providers' keys set.
    let keys = [
        ("ANTHROPIC_API_KEY", "bench-key"),
        ("OPENAI_API_KEY", "bench-key"),
        ("GEMINI_API_KEY", "bench-key"),
        ("OPENROUTER_API_KEY", "bench-key"),
        ("RHO_OFFLINE", "1"),
    ];
    let list_models = |bin: &str| {
        let out = command(bin, &["--list-models"])
            .envs(keys)
            .output()
            .expect("rho runs");
        assert!(out.status.success() && out.stdout.len() > 1000);
    };
    report(
        "rho --list-models (4 providers' keys set)",
        &bins,
        &measure(&bins, list_models),
    );

    let rpc_run_with = |bin: &str, extra: &[&str], envs: &[(&str, &str)]| {
        let mut args = vec!["--mode", "rpc", "--no-session"];
        args.extend_from_slice(extra);
        let mut child = command(bin, &args)
            .envs(envs.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("rho starts");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(b"{\"id\":\"s\",\"type\":\"get_state\"}\n")
            .expect("write");
        // The response, after any extension UI requests written before it; how many there
        // were tells whether an extension ran.
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        let mut line = String::new();
        let mut before = 0;
        loop {
            line.clear();
            assert!(out.read_line(&mut line).expect("read") > 0, "no response");
            if line.contains("\"command\":\"get_state\"") {
                break;
            }
            before += usize::from(line.contains("\"extension_ui_request\""));
        }
        drop(stdin);
        child.wait().expect("exit");
        before
    };
    let rpc_run = |bin: &str, extra: &[&str]| rpc_run_with(bin, extra, &[]);
    report(
        "rho --mode rpc → get_state response → exit",
        &bins,
        &measure(&bins, |b| rpc_run(b, &[])),
    );
    // A provider key makes start-up choose that provider's default model from the built-in
    // catalog (offline: no catalog refresh is started).
    let key = [("ANTHROPIC_API_KEY", "bench-key"), ("RHO_OFFLINE", "1")];
    report(
        "  same with ANTHROPIC_API_KEY set (default model from the catalog)",
        &bins,
        &measure(&bins, |b| rpc_run_with(b, &[], &key)),
    );
    // MCP: with no server configured nothing MCP runs (a few missing-file checks only), so
    // this matches --no-mcp; a configured server connects in the background (`cat` never
    // answers, so its connect is still going when end of input stops it).
    report(
        "  same with --no-mcp",
        &bins,
        &measure(&bins, |b| rpc_run(b, &["--no-mcp"])),
    );
    let server = "{\"mcpServers\": {\"s\": {\"command\": \"cat\"}}}";
    std::fs::write(agent.join("mcp.json"), server).expect("mcp.json");
    report(
        "  same with one stdio MCP server configured",
        &bins,
        &measure(&bins, |b| rpc_run(b, &[])),
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
        &bins,
        &measure(&bins, |b| rpc_run(b, &[])),
    );
    std::fs::remove_file(agent.join("settings.json")).expect("remove settings");
    one_extension(&bins, &agent, rpc_run_with);
}

/// With one pi extension (a `.ts` file that sets a status at `session_start` and registers a
/// command, importing nothing from pi): the extension host starts on node, found on PATH or
/// through `RHO_NODE`. Skipped, saying so, when no node is found.
fn one_extension(
    bins: &[(String, String)],
    agent: &std::path::Path,
    rpc_run_with: impl Fn(&str, &[&str], &[(&str, &str)]) -> usize,
) {
    let path = std::env::var("PATH").unwrap_or_default();
    let node = std::env::var("RHO_NODE").ok().or_else(|| {
        std::env::split_paths(&path)
            .map(|d| d.join("node"))
            .find(|n| n.is_file())
            .map(|n| n.display().to_string())
    });
    let Some(node) = node else {
        println!("  one pi extension: skipped (no node on PATH or in RHO_NODE)");
        return;
    };
    let dir = agent.join("extensions");
    std::fs::create_dir_all(&dir).expect("extensions dir");
    let source = "export default function (pi) {\n\
        pi.on(\"session_start\", async (_event, ctx) => { ctx.ui.setStatus(\"bench\", \"ready\"); });\n\
        pi.registerCommand(\"bench\", { description: \"bench\", handler: async () => {} });\n\
        }\n";
    std::fs::write(dir.join("bench.ts"), source).expect("extension");
    let env = [("RHO_NODE", node.as_str())];
    // A node too old for the host makes rho start without the extension: measure only what
    // was asked for.
    for (name, bin) in bins {
        let requests = rpc_run_with(bin, &[], &env);
        assert!(
            requests > 0,
            "{name}: the extension did not run with node {node}"
        );
    }
    report(
        "  same with one pi extension (.ts, no pi imports)",
        bins,
        &measure(bins, |b| rpc_run_with(b, &[], &env)),
    );
    std::fs::remove_dir_all(&dir).expect("remove extensions");
}

/// Wall time and CPU time (user + system) of one run.
#[derive(Clone, Copy)]
struct Run {
    wall: Duration,
    cpu: Duration,
}

/// CPU time of this process's finished, waited-for children so far: the difference over one
/// run is that run's rho (under load its wall time is mostly waiting for a core).
fn children_cpu() -> Duration {
    // SAFETY: getrusage only writes the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// Runs `f` on each binary `RUNS` times, in turn (after one warm-up each), and returns each
/// binary's runs.
fn measure<R>(bins: &[(String, String)], mut f: impl FnMut(&str) -> R) -> Vec<Vec<Run>> {
    bins.iter().for_each(|(_, bin)| {
        f(bin);
    });
    let mut runs = vec![Vec::with_capacity(RUNS); bins.len()];
    for _ in 0..RUNS {
        for ((_, bin), runs) in bins.iter().zip(&mut runs) {
            let (start, cpu) = (Instant::now(), children_cpu());
            f(bin);
            runs.push(Run {
                wall: start.elapsed(),
                cpu: children_cpu() - cpu,
            });
        }
    }
    runs
}

fn report(what: &str, bins: &[(String, String)], runs: &[Vec<Run>]) {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    for ((name, _), runs) in bins.iter().zip(runs) {
        let name = match bins.len() {
            1 => what.to_string(),
            _ => format!("{what} [{name}]"),
        };
        let mut wall: Vec<Duration> = runs.iter().map(|r| r.wall).collect();
        let mut cpu: Vec<Duration> = runs.iter().map(|r| r.cpu).collect();
        wall.sort();
        cpu.sort();
        println!(
            "{name}: median {:.2} ms (min {:.2}, p90 {:.2}, max {:.2}), CPU median {:.2} ms (min {:.2}) over {} runs",
            ms(wall[wall.len() / 2]),
            ms(wall[0]),
            ms(wall[wall.len() * 9 / 10]),
            ms(wall[wall.len() - 1]),
            ms(cpu[cpu.len() / 2]),
            ms(cpu[0]),
            wall.len()
        );
    }
}
