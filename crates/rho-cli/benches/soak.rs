//! Memory soak of `rho --mode rpc` with sessions on: 1,000 short prompts, then 300 prompts
//! whose replies are 50 KB each, against the loopback server. Prints rho's RSS after the
//! first prompt, after the 1,000 prompts and after the 300 large replies (target: within 2x
//! of the first). Run with `cargo bench -p rho-cli --bench soak`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Stdio;
use std::time::Instant;

use rho_testkit::openai_chat::ChatStream;
use rho_testkit::server::{MockResponse, MockServer};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

const SHORT: usize = 1000;
const LARGE: usize = 300;
const LARGE_BYTES: usize = 50 * 1024;

fn reply(text: &str) -> MockResponse {
    let mut stream = ChatStream::new("chatcmpl-soak", "m1").role();
    for piece in text.as_bytes().chunks(512) {
        stream = stream.text(std::str::from_utf8(piece).unwrap_or("x"));
    }
    stream.finish("stop").usage(20, 5, None).done().response()
}

/// Resident set size of `pid` in MB, from /proc.
fn rss_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(soak());
}

async fn soak() {
    let server = MockServer::start().await;
    let home = tempfile::tempdir().expect("tempdir");
    let agent = home.path().join("agent");
    std::fs::create_dir_all(&agent).expect("agent dir");
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", server.url()), "api": "openai-completions",
        "apiKey": "sk-soak", "models": [{"id": "m1", "contextWindow": 100000000, "maxTokens": 1000}]}}});
    std::fs::write(agent.join("models.json"), models.to_string()).expect("models.json");
    std::fs::write(
        agent.join("settings.json"),
        json!({"compaction": {"enabled": false}}).to_string(),
    )
    .expect("settings");
    let mut child = Command::new(env!("CARGO_BIN_EXE_rho"))
        .args(["--mode", "rpc", "--model", "mock/m1", "--session-dir"])
        .arg(home.path().join("sessions"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("RHO_CODING_AGENT_DIR", &agent)
        .current_dir(home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("rho starts");
    let pid = child.id().expect("pid");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let started = Instant::now();
    let prompt = |i: usize, reply_text: String| {
        server.push(reply(&reply_text));
        json!({"id": format!("p{i}"), "type": "prompt", "message": format!("prompt {i}")})
            .to_string()
            + "\n"
    };
    let mut first = 0.0;
    let mut after_short = 0.0;
    for i in 0..SHORT + LARGE {
        let text = if i < SHORT {
            format!("short answer {i}")
        } else {
            "y".repeat(LARGE_BYTES)
        };
        stdin
            .write_all(prompt(i, text).as_bytes())
            .await
            .expect("send");
        loop {
            let line = lines.next_line().await.expect("read").expect("rho alive");
            let v: Value = serde_json::from_str(&line).unwrap_or_default();
            if v["type"] == "agent_end" {
                break;
            }
        }
        if i == 0 {
            first = rss_mb(pid);
        }
        if i + 1 == SHORT {
            after_short = rss_mb(pid);
        }
    }
    let end = rss_mb(pid);
    println!(
        "soak: {SHORT} short prompts then {LARGE} x {} KB replies in {:.1} s",
        LARGE_BYTES / 1024,
        started.elapsed().as_secs_f64()
    );
    println!("  RSS after the first prompt:       {first:>7.1} MB");
    println!(
        "  RSS after {SHORT} prompts:            {after_short:>7.1} MB ({:.2}x)",
        after_short / first
    );
    println!(
        "  RSS after {LARGE} x 50 KB replies:      {end:>7.1} MB ({:.2}x)",
        end / first
    );
    drop(stdin);
    let _ = child.wait().await;
}
