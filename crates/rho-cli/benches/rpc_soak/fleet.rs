//! A fleet of agents (issue 41): N agents in RPC mode with sessions on, against one loopback
//! server. Reports their memory once all have answered `get_state` (idle), then a turn all of
//! them run at once (each a short streamed reply), then their memory idle again.
//!
//! Memory is given three ways, summed over the fleet: RSS (what `ps` shows; it counts the
//! binary's pages once per agent although the agents share them), PSS (each shared page
//! divided among the processes that map it: the sum is what the fleet really takes) and the
//! anonymous part of RSS (heap, stacks: what each further agent adds).

use std::path::Path;
use std::time::{Duration, Instant};

use rho_testkit::openai_chat::ChatStream;
use rho_testkit::MockServer;
use serde_json::json;

use crate::agent::{Agent, Kind};

/// How long the fleet is left alone after its last `get_state` answer before memory is read:
/// start-up work that does not hold up the answer (a background thread, a lazy load) is done.
const SETTLE: Duration = Duration::from_millis(500);
/// Deltas in each agent's reply during the concurrent turn.
const REPLY_DELTAS: usize = 200;

/// The fleet's memory at one moment, in KiB summed over its agents.
#[derive(Default, Clone, Copy)]
pub struct Memory {
    pub rss: u64,
    pub pss: u64,
    pub anon: u64,
}

impl Memory {
    fn read(agents: &[Agent]) -> Memory {
        agents.iter().fold(Memory::default(), |m, a| Memory {
            rss: m.rss + a.rss_kib(),
            pss: m.pss + a.pss_kib(),
            anon: m.anon + a.rss_parts_kib().0,
        })
    }
}

/// What one fleet measured.
pub struct FleetFigures {
    pub agents: usize,
    pub start_ms: f64,
    pub idle: Memory,
    pub turn_ms: f64,
    pub turn_cpu_ms: f64,
    /// Agents whose `agent_end` carried the whole reply.
    pub complete: usize,
    /// Sum of each agent's peak RSS (VmHWM) by the end of the turn.
    pub turn_peak: u64,
    pub after: Memory,
}

fn reply() -> rho_testkit::MockResponse {
    let mut stream = ChatStream::new("chatcmpl-fleet", "mock-model").role();
    for _ in 0..REPLY_DELTAS {
        stream = stream.text("ok ");
    }
    stream.finish("stop").usage(12, 200, None).done().response()
}

/// Asks every agent for its state and waits for each answer.
fn all_answer(agents: &mut [Agent], round: &str) -> Option<()> {
    for (i, agent) in agents.iter_mut().enumerate() {
        agent.send(&json!({"id": format!("{round}-{i}"), "type": "get_state"}).to_string());
    }
    for (i, agent) in agents.iter().enumerate() {
        agent.wait_for(&format!(r#""id":"{round}-{i}""#), |_| {})?;
    }
    Some(())
}

/// Runs a fleet of `n` agents of one kind; `None` if one exited or stalled.
pub fn measure(
    kind: &Kind,
    n: usize,
    server: &MockServer,
    agent_dir: &Path,
    home: &Path,
    cwd: &Path,
) -> Option<FleetFigures> {
    let sessions = home.join(format!("fleet-sessions-{}", kind.name()));
    let sessions = sessions.to_string_lossy().into_owned();
    let start = Instant::now();
    let mut agents: Vec<Agent> = (0..n)
        .map(|_| Agent::spawn_on_mock(kind, agent_dir, cwd, ["--session-dir", &sessions]))
        .collect();
    all_answer(&mut agents, "up")?;
    let start_ms = start.elapsed().as_secs_f64() * 1000.0;
    std::thread::sleep(SETTLE);
    let idle = Memory::read(&agents);

    let cpu_before: f64 = agents.iter().map(Agent::cpu_ms_precise).sum();
    for _ in 0..n {
        server.push(reply());
    }
    let start = Instant::now();
    for (i, agent) in agents.iter_mut().enumerate() {
        agent.send(&json!({"id": format!("p{i}"), "type": "prompt", "message": "go"}).to_string());
    }
    let text = "ok ".repeat(REPLY_DELTAS);
    let mut complete = 0;
    for agent in &agents {
        let end = agent.wait_for(r#"{"type":"agent_end""#, |_| {})?;
        complete += usize::from(end.contains(text.trim_end()));
    }
    let turn_ms = start.elapsed().as_secs_f64() * 1000.0;
    let turn_cpu_ms = agents.iter().map(Agent::cpu_ms_precise).sum::<f64>() - cpu_before;
    let turn_peak = agents.iter().map(Agent::peak_kib).sum();
    // Idle again: the answer to `get_state` comes after the run's clean-up (the session
    // reports idle once its after-run work is done).
    all_answer(&mut agents, "idle")?;
    std::thread::sleep(SETTLE);
    let after = Memory::read(&agents);
    for agent in agents {
        agent.finish();
    }
    Some(FleetFigures {
        agents: n,
        start_ms,
        idle,
        turn_ms,
        turn_cpu_ms,
        complete,
        turn_peak,
        after,
    })
}

/// Prints the fleet table: `sizes` gives the fleet size for each kind.
pub fn report(
    kinds: &[(Kind, usize)],
    server: &MockServer,
    agent_dir: &Path,
    home: &Path,
    cwd: &Path,
) {
    println!(
        "fleet: N agents in RPC mode, sessions on, one loopback server; memory summed (MiB), \
         per agent in brackets"
    );
    println!(
        "{:<4} {:>5} {:>9} {:>17} {:>17} {:>15} {:>9} {:>9} {:>17} {:>17} {:>13}",
        "",
        "N",
        "start ms",
        "idle RSS",
        "idle PSS",
        "idle anon",
        "turn ms",
        "turn CPU",
        "turn peak RSS",
        "after RSS",
        "agents/GiB"
    );
    let mib = |kib: u64| kib as f64 / 1024.0;
    for (kind, n) in kinds {
        let Some(f) = measure(kind, *n, server, agent_dir, home, cwd) else {
            println!(
                "{:<4} {n:>5} failed (an agent exited or stalled)",
                kind.name()
            );
            continue;
        };
        let each = |kib: u64| format!("{:.0} ({:.1})", mib(kib), mib(kib) / f.agents as f64);
        println!(
            "{:<4} {:>5} {:>9.0} {:>17} {:>17} {:>15} {:>9.0} {:>9.0} {:>17} {:>17} {:>13.0}",
            kind.name(),
            f.agents,
            f.start_ms,
            each(f.idle.rss),
            each(f.idle.pss),
            each(f.idle.anon),
            f.turn_ms,
            f.turn_cpu_ms,
            each(f.turn_peak),
            each(f.after.rss),
            f.agents as f64 * 1024.0 / mib(f.idle.rss),
        );
        println!(
            "{:<4} replies complete: {}/{}; idle agents per GiB: {:.0} by RSS, {:.0} by PSS; after the turn {:.0} by RSS, {:.0} by PSS",
            "",
            f.complete,
            f.agents,
            f.agents as f64 * 1024.0 / mib(f.idle.rss),
            f.agents as f64 * 1024.0 / mib(f.idle.pss),
            f.agents as f64 * 1024.0 / mib(f.after.rss),
            f.agents as f64 * 1024.0 / mib(f.after.pss),
        );
        if let Kind::Rho { path, .. } = kind {
            symbol_order(path);
        }
    }
}

/// Says how much of `crates/rho-cli/symbol-order.txt` the binary at `path` was laid out by:
/// an idle agent's RSS depends on it (README, "The code an agent runs, laid out together"),
/// and a list gone stale with the code roughly doubles it without any other sign. The rho
/// this bench was built with is not a release build: the bench profile names functions
/// differently, so the list never matches it.
fn symbol_order(path: &str) {
    if path == env!("CARGO_BIN_EXE_rho") {
        println!(
            "     layout: not a release build (cargo bench builds rho under the bench profile, \
             whose function names the list does not have); for fleet figures, pass a copy of \
             `cargo build --release`'s rho with --rho"
        );
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/gen-symbol-order");
    let checked = std::process::Command::new(script)
        .args(["--check", path])
        .output();
    match checked {
        Ok(out) => print!("     layout: {}", String::from_utf8_lossy(&out.stdout)),
        Err(e) => println!("     layout: not checked ({e})"),
    }
}
