//! Loads a generated 50,000-entry (~50 MB) session and rebuilds its context, printing the time
//! and the peak memory (VmHWM) it took; reopens it from its entry index in fresh processes, as
//! a start-up does, before and after lines are appended to it; then times appends with and
//! without `fsync`.
//!
//! Run: `cargo bench -p rho-session --bench session_load`. Targets: load + context < 300 ms,
//! peak memory < 3x the file size.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

use rho_protocol::agent::AgentMessage;
use rho_protocol::{
    AssistantMessage, ContentBlock, StopReason, ToolCall, ToolResultMessage, Usage, UserContent,
    UserMessage,
};
use rho_session::{Durability, EntryData, SessionEntry, SessionHeader, SessionManager};

const ENTRIES: usize = 50_000;
/// The smaller session whose reopening the long one's is compared with (issue 41: within 3x).
const SMALL: usize = 5_000;

fn filler(i: usize, len: usize) -> String {
    let words = [
        "alpha ", "beta ", "gamma ", "delta ", "epsilon ", "zeta ", "eta ", "theta ",
    ];
    let mut s = format!("entry {i}: ");
    while s.len() < len {
        s.push_str(words[(s.len() + i) % words.len()]);
    }
    s
}

/// One message per entry cycling user → assistant (text + tool call) → tool result.
fn message(i: usize) -> AgentMessage {
    let ts = 1_740_820_502_481 + i as i64;
    match i % 3 {
        0 => AgentMessage::User(UserMessage {
            content: UserContent::Blocks(vec![ContentBlock::text(filler(i, 900))]),
            timestamp: ts,
        }),
        1 => {
            let mut a =
                AssistantMessage::empty("anthropic-messages", "anthropic", "claude-sonnet-4-5");
            a.content = vec![
                ContentBlock::text(filler(i, 700)),
                ContentBlock::ToolCall(ToolCall {
                    namespace: None,
                    id: format!("toolu_{i:08}"),
                    name: "read".into(),
                    arguments: serde_json::json!({"path": format!("src/file_{i}.rs")}),
                    thought_signature: None,
                }),
            ];
            a.usage = Usage {
                input: 1200,
                output: 300,
                total_tokens: 1500,
                ..Default::default()
            };
            a.stop_reason = StopReason::ToolUse;
            a.timestamp = ts;
            AgentMessage::Assistant(a)
        }
        _ => AgentMessage::ToolResult(ToolResultMessage {
            tool_call_id: format!("toolu_{:08}", i - 1),
            tool_name: "read".into(),
            content: vec![ContentBlock::text(filler(i, 900))],
            details: None,
            usage: None,
            nested_calls: None,
            is_error: false,
            timestamp: ts,
            duration_ms: None,
        }),
    }
}

/// Streams the session to `path` so generation does not inflate the peak memory.
fn generate(path: &Path, entries: usize) -> u64 {
    let file = std::fs::File::create(path).expect("create bench file");
    let mut out = BufWriter::new(file);
    let header = SessionHeader {
        version: 3,
        id: "0195508c-6f10-7a22-9d3e-2c51a0b4e901".into(),
        timestamp: "2025-03-01T09:15:00.120Z".into(),
        cwd: "/bench".into(),
        parent_session: None,
    };
    serde_json::to_writer(&mut out, &header).expect("header");
    out.write_all(b"\n").expect("write");
    for i in 0..entries {
        let entry = SessionEntry {
            id: format!("{i:08x}"),
            parent_id: i.checked_sub(1).map(|p| format!("{p:08x}")),
            timestamp: "2025-03-01T09:15:02.481Z".into(),
            data: EntryData::Message(message(i).into()),
        };
        serde_json::to_writer(&mut out, &entry).expect("entry");
        out.write_all(b"\n").expect("write");
    }
    out.flush().expect("flush");
    std::fs::metadata(path).expect("stat").len()
}

/// Peak resident memory in KiB (VmHWM).
fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// CPU time the process has run, in ns, all threads (loading decodes on worker threads; the
/// machine may be shared, so wall time overstates).
fn cpu_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// Current resident memory in KiB (VmRSS).
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn time_appends(dir: &Path, durability: Durability) -> f64 {
    let mut session = SessionManager::create(dir, "/bench");
    session.set_durability(durability);
    session.append_message(message(1)).expect("first append");
    let n = 200;
    let start = Instant::now();
    for i in 0..n {
        session.append_message(message(i)).expect("append");
    }
    start.elapsed().as_secs_f64() * 1e6 / n as f64
}

/// Child mode (`--reopen <path>`): opens the session as rho's start-up does (from its entry
/// index when one is beside it), builds the context and the branch state, and prints the
/// microseconds it took and the peak RSS in KiB. A fresh process each time, so the memory the
/// open touches is new to it, as in a real start-up.
fn reopen_child(path: &Path) {
    let start = Instant::now();
    let session = SessionManager::open(path).expect("reopen");
    let context = session.build_context();
    let state = session.branch_state();
    let took = start.elapsed().as_micros();
    assert!(state.has_messages && !context.messages.is_empty());
    println!("{took} {} {}", peak_kib(), cpu_ns() / 1000);
}

/// What reopening took in fresh processes (medians): wall and CPU microseconds (all
/// threads, from the process's start: CPU time does not count waiting for a busy core), and
/// the peak RSS in KiB.
struct Reopened {
    wall_us: u128,
    cpu_us: u128,
    peak_kib: u64,
}

/// Opens `path` in `runs` fresh processes.
fn reopen_in_children(path: &Path, runs: usize) -> Reopened {
    let exe = std::env::current_exe().expect("bench executable");
    let mut times = Vec::new();
    let mut cpus = Vec::new();
    let mut peaks = Vec::new();
    for _ in 0..runs {
        let out = std::process::Command::new(&exe)
            .arg("--reopen")
            .arg(path)
            .output()
            .expect("run the reopening child");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let mut fields = text
            .split_whitespace()
            .map(|f| f.parse::<u128>().unwrap_or(0));
        times.push(fields.next().unwrap_or(0));
        peaks.push(fields.next().unwrap_or(0) as u64);
        cpus.push(fields.next().unwrap_or(0));
    }
    for list in [&mut times, &mut cpus] {
        list.sort_unstable();
    }
    peaks.sort_unstable();
    Reopened {
        wall_us: times[runs / 2],
        cpu_us: cpus[runs / 2],
        peak_kib: peaks[runs / 2],
    }
}

/// `rounds` times: the session at `path` appends 10 entries (keeping its index), then a
/// fresh process reopens it. The median reopen, and the mean cost of an append after the
/// first (which also grows the session's vectors once).
fn reopen_after_appends(path: &Path, rounds: usize) -> (Reopened, f64) {
    let mut reopens = Vec::new();
    let mut appending = std::time::Duration::ZERO;
    for round in 0..rounds {
        let mut session = SessionManager::open(path).expect("open to append");
        session.append_message(message(round * 10)).expect("append");
        let start = Instant::now();
        for i in 1..10 {
            session
                .append_message(message(round * 10 + i))
                .expect("append");
        }
        appending += start.elapsed();
        drop(session);
        reopens.push(reopen_in_children(path, 1));
    }
    let median = |f: fn(&Reopened) -> u128| {
        let mut values: Vec<u128> = reopens.iter().map(f).collect();
        values.sort_unstable();
        values[rounds / 2]
    };
    let reopened = Reopened {
        wall_us: median(|r| r.wall_us),
        cpu_us: median(|r| r.cpu_us),
        peak_kib: median(|r| u128::from(r.peak_kib)) as u64,
    };
    (
        reopened,
        appending.as_secs_f64() * 1e6 / (rounds * 9) as f64,
    )
}

fn main() {
    let mut args = std::env::args().skip(1);
    if let (Some(flag), Some(path)) = (args.next(), args.next()) {
        if flag == "--reopen" {
            return reopen_child(Path::new(&path));
        }
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bench.jsonl");
    let size = generate(&path, ENTRIES);
    if let Ok(keep) = std::env::var("RHO_BENCH_KEEP") {
        std::fs::copy(&path, keep).expect("keep bench file");
    }
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let before = peak_kib();

    let (start, cpu_start) = (Instant::now(), cpu_ns());
    let session = SessionManager::open(&path).expect("open");
    let (opened, cpu_opened, rss_opened) = (start.elapsed(), cpu_ns(), rss_kib());
    let context = session.build_context();
    let (total, cpu_total) = (start.elapsed(), cpu_ns());
    let peak = peak_kib();

    assert_eq!(session.entries().len(), ENTRIES);
    assert_eq!(context.messages.len(), ENTRIES);
    let mb = size as f64 / 1e6;
    println!("session_load: {ENTRIES} entries, {mb:.1} MB");
    println!(
        "  open {:.0} ms + context {:.0} ms = {:.0} ms (target < 300 ms)",
        opened.as_secs_f64() * 1e3,
        (total - opened).as_secs_f64() * 1e3,
        total.as_secs_f64() * 1e3
    );
    println!(
        "  cpu time: open {:.0} ms + context {:.0} ms = {:.0} ms",
        (cpu_opened - cpu_start) as f64 / 1e6,
        (cpu_total - cpu_opened) as f64 / 1e6,
        (cpu_total - cpu_start) as f64 / 1e6
    );
    println!(
        "  RSS after open (entries only): {:.1} MB",
        rss_opened as f64 / 1024.0
    );
    println!(
        "  peak RSS {:.1} MB = {:.2}x file size (target < 3x; baseline before load {:.1} MB, peak reset: {reset})",
        peak as f64 / 1024.0,
        peak as f64 * 1024.0 / size as f64,
        before as f64 / 1024.0
    );
    drop(context);
    drop(session);
    let steady = reopen_in_children(&path, 9);
    println!(
        "  reopen from the entry index, in a fresh process: {:.1} ms ({:.1} ms of CPU) to \
         context and branch state (median of 9), peak RSS {:.1} MB",
        steady.wall_us as f64 / 1e3,
        steady.cpu_us as f64 / 1e3,
        steady.peak_kib as f64 / 1024.0
    );
    let small_path = dir.path().join("small.jsonl");
    generate(&small_path, SMALL);
    drop(SessionManager::open(&small_path).expect("first open of the small session"));
    let small = reopen_in_children(&small_path, 9);
    println!(
        "  the same for {SMALL} entries: {:.1} ms ({:.1} ms of CPU), peak RSS {:.1} MB; \
         {ENTRIES} / {SMALL}: {:.1}x wall, {:.1}x CPU",
        small.wall_us as f64 / 1e3,
        small.cpu_us as f64 / 1e3,
        small.peak_kib as f64 / 1024.0,
        steady.wall_us as f64 / small.wall_us as f64,
        steady.cpu_us as f64 / small.cpu_us as f64,
    );
    let (grown, append_us) = reopen_after_appends(&path, 5);
    println!(
        "  reopen after the session appended 10 entries: {:.1} ms ({:.1} ms of CPU, median of \
         5); an append keeping the index: {append_us:.1} us",
        grown.wall_us as f64 / 1e3,
        grown.cpu_us as f64 / 1e3,
    );
    println!(
        "  append: {:.1} us/entry flushed, {:.1} us/entry with fsync",
        time_appends(dir.path(), Durability::Flush),
        time_appends(dir.path(), Durability::Sync)
    );
}
