//! The catalog's costs, in a fresh process each round so nothing is warm: looking one model up
//! the way start-up does (`ModelRegistry::find`, no list built), building the whole list of
//! pi 1.6's 1,698 models (`ModelRegistry::all`, what `/model`, `get_available_models` and
//! `--list-models` with every key pay once), the same with OpenRouter's 417 models stored as
//! a personal list in models-store.json, and cloning the built list.
//!
//! Run with `cargo bench -p rho-ai --bench catalog` (release build); prints medians over
//! `ROUNDS` child processes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rho_ai::models_store::ModelsStore;
use rho_ai::registry::{Base, ModelRegistry};

const ROUNDS: usize = 25;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        child(&args[i + 1], args.get(i + 2).map(String::as_str));
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    write_store(dir.path());
    let store_dir = dir.path().to_string_lossy().to_string();
    let stored = Some(store_dir.as_str());
    for (label, what, store) in [
        ("find one model (start-up's lookup)", "find", None),
        (
            "  another provider's, 417-model store",
            "find-other",
            stored,
        ),
        ("  the stored provider's, 417-model store", "find", stored),
        ("build the whole list", "all", None),
        ("  same with the 417-model store", "all", stored),
        ("clone the built list", "clone", None),
    ] {
        let mut times: Vec<Duration> = (0..ROUNDS)
            .map(|_| {
                let mut cmd = Command::new(&args[0]);
                cmd.args(["--child", what]);
                if let Some(dir) = store {
                    cmd.arg(dir);
                }
                let out = cmd.output().expect("child runs");
                let ns: u64 = String::from_utf8_lossy(&out.stdout)
                    .trim()
                    .parse()
                    .expect("ns");
                Duration::from_nanos(ns)
            })
            .collect();
        times.sort();
        println!(
            "{label:<45} median {:>9.1?}  (min {:.1?}, max {:.1?})",
            times[ROUNDS / 2],
            times[0],
            times[ROUNDS - 1]
        );
    }
}

/// One measurement in a fresh process; prints nanoseconds.
fn child(what: &str, store_dir: Option<&str>) {
    let store = store_dir.map(|d| {
        let warn = Arc::new(|w: String| eprintln!("{w}"));
        Arc::new(ModelsStore::new(std::path::Path::new(d), warn))
    });
    let registry = ModelRegistry::with_config(Base::Catalog(store), Default::default(), None);
    let start = Instant::now();
    match what {
        "find" => {
            let m = registry.find("openrouter", "moonshotai/kimi-k2");
            std::hint::black_box(m.expect("in the catalog"));
        }
        "find-other" => {
            let m = registry.find("anthropic", "claude-opus-4-6");
            std::hint::black_box(m.expect("in the catalog"));
        }

        "all" => {
            std::hint::black_box(registry.all());
        }
        _ => {
            let all = registry.all();
            let start = Instant::now();
            let copy = all.as_ref().clone();
            let ns = start.elapsed().as_nanos();
            std::hint::black_box(copy);
            println!("{ns}");
            return;
        }
    }
    println!("{}", start.elapsed().as_nanos());
}

/// models-store.json with OpenRouter's 417 built-in models as a personal list.
fn write_store(dir: &std::path::Path) {
    let models: Vec<serde_json::Value> = rho_ai::catalog::provider_models("openrouter")
        .expect("openrouter")
        .iter()
        .map(|m| serde_json::to_value(m).expect("json"))
        .collect();
    let store = serde_json::json!({"openrouter": {"models": models, "checkedAt": 1}});
    std::fs::write(dir.join("models-store.json"), store.to_string()).expect("store");
}
