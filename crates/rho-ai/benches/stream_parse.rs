//! Stream-parsing throughput: a 100,000-delta Anthropic SSE reply built in memory is run
//! through the whole receive path (SseParser → anthropic::Parser → ReplyBuilder → channel)
//! and every event is consumed from the stream. Prints ns per delta and MB/s.
//!
//! Run with `cargo bench -p rho-ai --bench stream_parse` (release build). Target: < 1 µs
//! per delta.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use rho_ai::provider::drive_bytes;
use rho_ai::providers::anthropic::Parser;
use rho_ai::reply::ReplyBuilder;
use rho_ai::{AssistantMessageEvent, AssistantStream, Model, ModelCost};
use tokio_util::sync::CancellationToken;

const DELTAS: usize = 100_000;
/// Network reads rarely line up with events; feed the body in 16 KiB pieces.
const CHUNK: usize = 16 * 1024;
const ROUNDS: usize = 7;

fn model() -> Model {
    Model {
        id: "claude-sonnet-4-5".into(),
        name: "Claude Sonnet 4.5".into(),
        api: "anthropic-messages".into(),
        provider: "anthropic".into(),
        base_url: "https://api.anthropic.com".into(),
        reasoning: true,
        thinking_level_map: None,
        input: vec![rho_ai::InputKind::Text],
        cost: ModelCost {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
            ..Default::default()
        },
        context_window: 200_000,
        max_tokens: 64_000,
        headers: None,
        compat: None,
        ..Default::default()
    }
}

/// 20% thinking, 70% text (some with escapes), 10% tool-argument fragments.
fn build_stream() -> (Vec<u8>, usize) {
    use rho_testkit::anthropic as wire;
    let usage = wire::Usage {
        input: 1200,
        output: 1,
        ..Default::default()
    };
    let thinking = DELTAS / 5;
    let tool = DELTAS / 10;
    let text = DELTAS - thinking - tool;
    let mut out = wire::message_start("msg_01BENCH", "claude-sonnet-4-5", usage);
    out.push_str(&wire::thinking_start(0));
    for i in 0..thinking {
        out.push_str(&wire::thinking_delta(0, &format!("step {i} of the plan, ")));
    }
    out.push_str(&wire::signature_delta(0, "c2lnbmF0dXJl"));
    out.push_str(&wire::block_stop(0));
    out.push_str(&wire::text_start(1));
    for i in 0..text {
        let delta = if i % 10 == 0 {
            format!("line {i}: \"quoted\"\n")
        } else {
            format!("word{i} ")
        };
        out.push_str(&wire::text_delta(1, &delta));
    }
    out.push_str(&wire::block_stop(1));
    out.push_str(&wire::tool_use_start(2, "toolu_01BENCH", "write"));
    out.push_str(&wire::input_json_delta(2, "{\"content\": \""));
    for i in 1..tool {
        out.push_str(&wire::input_json_delta(2, &format!("chunk {i} ")));
    }
    out.push_str(&wire::input_json_delta(2, "\"}"));
    out.push_str(&wire::block_stop(2));
    out.push_str(&wire::message_delta("tool_use", DELTAS as u64));
    out.push_str(&wire::message_stop());
    (out.into_bytes(), DELTAS + 1)
}

/// CPU time this thread has run, from `/proc/thread-self/schedstat` (Linux). The machine
/// may be shared, so wall time alone overstates the cost; `None` where unavailable.
fn thread_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Wall and thread-CPU time of one pass.
struct Timing {
    wall: Duration,
    cpu: Option<Duration>,
}

/// One full pass; returns its timing and the number of delta events consumed.
fn run_once(body: &[u8], model: &Model, rt: &tokio::runtime::Runtime) -> (Timing, usize) {
    let cpu_start = thread_cpu_time();
    let started = Instant::now();
    let (sink, mut stream): (_, AssistantStream) = AssistantStream::channel();
    let reply = ReplyBuilder::new(model, sink, CancellationToken::new());
    drive_bytes(body.chunks(CHUNK), Parser::new(model), reply);
    let deltas = rt.block_on(async {
        let mut deltas = 0usize;
        while let Some(event) = stream.next().await {
            match event {
                AssistantMessageEvent::TextDelta { delta, .. }
                | AssistantMessageEvent::ThinkingDelta { delta, .. }
                | AssistantMessageEvent::ToolCallDelta { delta, .. } => {
                    black_box(&delta);
                    deltas += 1;
                }
                AssistantMessageEvent::Error { error, .. } => {
                    panic!("benchmark stream failed: {:?}", error.error_message)
                }
                other => {
                    black_box(&other);
                }
            }
        }
        deltas
    });
    let wall = started.elapsed();
    let cpu = cpu_start.and_then(|s| Some(thread_cpu_time()?.saturating_sub(s)));
    (Timing { wall, cpu }, deltas)
}

fn main() {
    let model = model();
    let (body, expected_deltas) = build_stream();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("tokio runtime");
    let mut wall = Vec::with_capacity(ROUNDS);
    let mut cpu = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let (timing, deltas) = run_once(&body, &model, &rt);
        assert_eq!(deltas, expected_deltas, "every delta must come through");
        wall.push(timing.wall);
        cpu.extend(timing.cpu);
    }
    println!(
        "stream_parse: {} deltas, {:.1} MB of SSE, {ROUNDS} rounds",
        expected_deltas,
        body.len() as f64 / 1e6
    );
    report("wall", &mut wall, expected_deltas, body.len());
    if cpu.len() == ROUNDS {
        report("thread CPU", &mut cpu, expected_deltas, body.len());
    }
}

/// Prints median and best of `times` as ns per delta and MB/s.
fn report(label: &str, times: &mut [Duration], deltas: usize, bytes: usize) {
    times.sort();
    for (name, d) in [("median", times[times.len() / 2]), ("best", times[0])] {
        println!(
            "  {label:>10} {name:>6}: {:>5.0} ns/delta, {:>5.0} MB/s ({:.1} ms)",
            d.as_nanos() as f64 / deltas as f64,
            bytes as f64 / 1e6 / d.as_secs_f64(),
            d.as_secs_f64() * 1e3
        );
    }
}
