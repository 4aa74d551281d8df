//! Per-turn overhead of the agent loop: a 1,000-turn run (999 tool turns, then a text reply)
//! against the in-memory scripted provider, with one subscriber, on a current-thread tokio
//! runtime. Prints the median of several runs in µs per turn, as wall time and as the
//! thread's on-CPU time (from `/proc/thread-self/schedstat`, so a loaded machine does not
//! inflate it), and both with the provider's own event generation subtracted.
//! Run: `cargo bench -p rho-agent --bench loop_overhead`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use rho_agent::{Agent, AgentOptions, AgentTool, ToolContext, ToolError, ToolOutput};
use rho_ai::{Context, StreamOptions};
use rho_testkit::scripted::{scripted_model, ScriptedProvider, ScriptedReply};
use serde_json::{json, Value};

const TURNS: usize = 1_000;
const RUNS: usize = 7;

struct Noop;

impl AgentTool for Noop {
    fn name(&self) -> &str {
        "noop"
    }
    fn label(&self) -> &str {
        "noop"
    }
    fn description(&self) -> &str {
        "does nothing"
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]})
    }
    fn execute(
        &self,
        _: Value,
        _: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        Box::pin(async { Ok(ToolOutput::text("ok")) })
    }
}

fn reply(n: usize) -> ScriptedReply {
    if n + 1 < TURNS {
        ScriptedReply::tool_calls(&[(&format!("call_{n}"), "noop", json!({"n": n}))])
    } else {
        ScriptedReply::text("finished")
    }
}

/// Wall and on-CPU time of the current thread since `start`.
#[derive(Clone, Copy)]
struct Clock {
    wall: Instant,
    cpu_ns: Option<u64>,
}

impl Clock {
    fn now() -> Self {
        Self {
            wall: Instant::now(),
            cpu_ns: thread_cpu_ns(),
        }
    }

    fn elapsed(self) -> (Duration, Option<Duration>) {
        let cpu = match (self.cpu_ns, thread_cpu_ns()) {
            (Some(a), Some(b)) => Some(Duration::from_nanos(b.saturating_sub(a))),
            _ => None,
        };
        (self.wall.elapsed(), cpu)
    }
}

/// Nanoseconds this thread spent on a CPU (Linux); `None` elsewhere.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

async fn one_run() -> (Duration, Option<Duration>) {
    let provider = ScriptedProvider::from_fn(reply);
    let agent = Agent::new(AgentOptions::with_stream_fn(provider.stream_fn()));
    agent.set_model(scripted_model());
    agent.set_tools(vec![Arc::new(Noop)]);
    let mut rx = agent.subscribe();
    let clock = Clock::now();
    agent.prompt("go").await.expect("run");
    let elapsed = clock.elapsed();
    assert_eq!(provider.call_count(), TURNS);
    let mut events = 0;
    while rx.try_recv().is_some() {
        events += 1;
    }
    assert!(events > TURNS * 10, "every turn emitted its events");
    elapsed
}

/// The scripted provider alone: building and draining the same streams.
async fn provider_only() -> (Duration, Option<Duration>) {
    let provider = ScriptedProvider::from_fn(reply);
    let stream_fn = provider.stream_fn();
    let model = scripted_model();
    let context = Context::default();
    let clock = Clock::now();
    for _ in 0..TURNS {
        let stream = stream_fn(&model, &context, StreamOptions::default()).expect("stream");
        stream.result().await;
    }
    clock.elapsed()
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e6 / TURNS as f64
}

fn report(label: &str, runs: Vec<Duration>, provider: Vec<Duration>) {
    let (total, prov) = (median(runs), median(provider));
    println!(
        "  {label:<5} per turn: total {total:6.2} µs, provider {prov:5.2} µs, agent loop overhead {:6.2} µs",
        total - prov
    );
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        one_run().await; // warm-up
        let (mut wall, mut cpu, mut pwall, mut pcpu) = (vec![], vec![], vec![], vec![]);
        for _ in 0..RUNS {
            let (w, c) = one_run().await;
            wall.push(w);
            cpu.extend(c);
            let (w, c) = provider_only().await;
            pwall.push(w);
            pcpu.extend(c);
        }
        println!("loop_overhead: {TURNS} turns/run, median of {RUNS} runs (target < 20 µs/turn)");
        report("wall", wall, pwall);
        if cpu.len() == RUNS && pcpu.len() == RUNS {
            report("cpu", cpu, pcpu);
        }
    });
}
