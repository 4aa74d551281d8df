//! Input-event round trip rho → extension process (the Rust `ext_echo` example) → rho, through
//! `ExtensionRunner::emit_input`. Prints the median and p90 in µs (target: median < 200 µs).
//!
//! Run: `cargo build --release -p rho-extension-host --example ext_echo && cargo bench -p rho-extension-host --bench ext_roundtrip`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rho_extension_host::process::{ProcessExtension, ProcessOptions};
use rho_extension_host::{ExtensionContext, ExtensionRunner, InputOutcome, NoSession, NoUi};

const WARMUP: usize = 500;
const ITERATIONS: usize = 10_000;

fn echo_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("bench binary path");
    let dir = exe.parent().and_then(Path::parent).expect("target dir");
    let bin = dir.join("examples/ext_echo");
    assert!(
        bin.exists(),
        "{} is missing: run `cargo build --release -p rho-extension-host --example ext_echo` first",
        bin.display()
    );
    bin
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let bin = echo_binary();
        let ext = ProcessExtension::spawn(&bin.to_string_lossy(), &[], ProcessOptions::default())
            .await
            .expect("ext_echo starts");
        let runner = ExtensionRunner::new(vec![ext.extension()], Arc::new(|e| panic!("{e:?}")));
        let host = NoSession {
            cwd: PathBuf::from("."),
            why: "is a bench host",
        };
        let ctx = ExtensionContext::new(Arc::new(host), Arc::new(NoUi));
        let mut samples = Vec::with_capacity(ITERATIONS);
        for i in 0..WARMUP + ITERATIONS {
            let start = Instant::now();
            let out = runner.emit_input("hello", &[], "interactive", None, &ctx).await;
            let elapsed = start.elapsed();
            assert!(matches!(out, InputOutcome::Transform { ref text, .. } if text == "hello [echo]"));
            if i >= WARMUP {
                samples.push(elapsed);
            }
        }
        samples.sort();
        let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q) as usize];
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        println!(
            "ext_roundtrip input event: median {:.1} µs, p90 {:.1} µs, p99 {:.1} µs over {} iterations",
            us(at(0.5)),
            us(at(0.9)),
            us(at(0.99)),
            ITERATIONS
        );
    });
}
