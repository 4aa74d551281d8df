//! What a codemode script costs: a fresh VM per script (start, prelude, run, end), and one
//! tool call through the bridge (VM → host → VM). The tool here answers at once, so the
//! figure is the engine's own overhead; a real call adds the tool's time and the session's
//! pipeline. With `--node <path>` it also times the alternative that was not chosen: starting
//! a Node.js process that answers one request over stdin/stdout.
//!
//! `cargo bench -p rho-codemode --bench script [-- --node ~/.cache/node24/.../bin/node]`

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use rho_codemode::{execute, CallHandler, Execution, ScriptTool};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

struct Echo;

impl CallHandler for Echo {
    fn call_tool(
        &self,
        _name: &str,
        args: Value,
        _cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Option<Value>, String>> {
        Box::pin(async move { Ok(Some(args)) })
    }
    fn call_global(
        &self,
        _name: &str,
        _args: Value,
        _cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Option<Value>, String>> {
        Box::pin(async { Ok(None) })
    }
}

fn exec(code: &str) -> Execution {
    Execution {
        code: code.into(),
        tools: vec![ScriptTool {
            name: "echo".into(),
            js_name: "echo".into(),
            description: "echo".into(),
        }],
        globals: vec![],
        store: Default::default(),
        timeout: Some(Duration::from_secs(10)),
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn percentile(mut v: Vec<Duration>, p: f64) -> Duration {
    v.sort();
    v[((v.len() as f64 - 1.0) * p) as usize]
}

async fn time_script(code: &str, runs: usize) -> Vec<Duration> {
    let handler: Arc<dyn CallHandler> = Arc::new(Echo);
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        let r = execute(exec(code), handler.clone(), CancellationToken::new()).await;
        times.push(started.elapsed());
        assert!(r.outcome.is_ok(), "{:?}", r.outcome);
    }
    times
}

fn time_node(node: &str, runs: usize) -> Vec<Duration> {
    use std::io::{BufRead, BufReader, Write};
    let program =
        "process.stdin.once('data', (d) => { process.stdout.write(d); process.exit(0); });";
    (0..runs)
        .map(|_| {
            let started = Instant::now();
            let mut child = std::process::Command::new(node)
                .args(["-e", program])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("node starts");
            let mut stdin = child.stdin.take().expect("stdin");
            stdin.write_all(b"{\"id\":1}\n").expect("write");
            let mut line = String::new();
            BufReader::new(child.stdout.take().expect("stdout"))
                .read_line(&mut line)
                .expect("read");
            let _ = child.wait();
            started.elapsed()
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let node = args
        .iter()
        .position(|a| a == "--node")
        .and_then(|i| args.get(i + 1).cloned());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        time_script("return 1", 20).await;
        let start = time_script("return 1", 300).await;
        let one = time_script("return (await tools.echo({ n: 1 })).n", 300).await;
        let hundred = time_script(
            "let s = 0; for (let i = 0; i < 100; i++) s += (await tools.echo({ n: i })).n; return s;",
            100,
        )
        .await;
        let empty = median(start.clone());
        println!(
            "script start to result (empty script): median {empty:?}, p90 {:?}",
            percentile(start, 0.9)
        );
        println!(
            "script with one tool call: median {:?}, p90 {:?}",
            median(one.clone()),
            percentile(one, 0.9)
        );
        let per_call = median(hundred).saturating_sub(empty) / 100;
        println!("per tool call (100 sequential calls in one script): {per_call:?}");
    });
    if let Some(node) = node {
        let times = time_node(&node, 30);
        println!(
            "node process start + one stdin/stdout round trip: median {:?}, p90 {:?}",
            median(times.clone()),
            percentile(times, 0.9)
        );
    }
}
