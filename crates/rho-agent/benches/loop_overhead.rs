//! Per-turn overhead of the agent loop: a 1,000-turn run (999 tool turns, then a text reply)
//! against the in-memory scripted provider, with one subscriber. Prints the median of
//! several runs in µs per turn, and the same with the provider's own event generation
//! subtracted. Run: `cargo bench -p rho-agent --bench loop_overhead`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use rho_agent::testing::{scripted_model, ScriptedProvider, ScriptedReply};
use rho_agent::{Agent, AgentOptions, AgentTool, ToolContext, ToolError, ToolOutput};
use rho_ai::{Context, StreamOptions};
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

async fn one_run() -> Duration {
    let provider = ScriptedProvider::from_fn(reply);
    let agent = Agent::new(AgentOptions::with_stream_fn(provider.stream_fn()));
    agent.set_model(scripted_model());
    agent.set_tools(vec![Arc::new(Noop)]);
    let mut rx = agent.subscribe();
    let start = Instant::now();
    agent.prompt("go").await.expect("run");
    let elapsed = start.elapsed();
    assert_eq!(provider.call_count(), TURNS);
    let mut events = 0;
    while rx.try_recv().is_some() {
        events += 1;
    }
    assert!(events > TURNS * 10, "every turn emitted its events");
    elapsed
}

/// The scripted provider alone: building and draining the same streams.
async fn provider_only() -> Duration {
    let provider = ScriptedProvider::from_fn(reply);
    let stream_fn = provider.stream_fn();
    let model = scripted_model();
    let context = Context::default();
    let start = Instant::now();
    for _ in 0..TURNS {
        let stream = stream_fn(&model, &context, StreamOptions::default()).expect("stream");
        stream.result().await;
    }
    start.elapsed()
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e6 / TURNS as f64
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        one_run().await; // warm-up
        let mut runs = Vec::new();
        let mut provider = Vec::new();
        for _ in 0..RUNS {
            runs.push(one_run().await);
            provider.push(provider_only().await);
        }
        let total = median(runs);
        let prov = median(provider);
        println!("loop_overhead: {TURNS} turns/run, median of {RUNS} runs");
        println!("  per turn, total:                 {total:.2} µs");
        println!("  per turn, scripted provider:     {prov:.2} µs");
        println!(
            "  per turn, agent loop overhead:   {:.2} µs (target < 20 µs)",
            total - prov
        );
    });
}
