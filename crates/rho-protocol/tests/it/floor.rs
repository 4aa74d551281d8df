//! rho-protocol is the floor of the crate graph: plain data that every side shares, so it must
//! not grow a dependency on a rho crate or on anything that does I/O, and rho-tui (which sees
//! the session only through these types) must not link the HTTP stack. A `use` added in the
//! wrong place would break either fact without failing a build, so this test asks Cargo for
//! the real dependency trees.
#![allow(clippy::expect_used)]

use std::path::Path;
use std::process::Command;

/// Crates that mean an async runtime or an HTTP stack came along.
const RUNTIME_CRATES: [&str; 3] = ["reqwest", "hyper", "tokio"];

/// The names of every normal (non-dev, non-build) dependency of `package`, itself included.
fn normal_dependencies(package: &str, extra: &[&str]) -> Vec<String> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
    let output = Command::new(env!("CARGO"))
        .args(["tree", "--offline", "-e", "normal", "--prefix", "none"])
        .args(["--format", "{p}", "--manifest-path"])
        .arg(&manifest)
        .args(["-p", package])
        .args(extra)
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree -p {package} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

#[test]
fn rho_protocol_depends_on_no_rho_crate_and_no_runtime() {
    let deps = normal_dependencies("rho-protocol", &["--all-features"]);
    assert!(deps.iter().any(|d| d == "serde"), "tree was read: {deps:?}");
    let bad: Vec<&String> = deps
        .iter()
        .filter(|d| {
            (d.starts_with("rho-") && *d != "rho-protocol") || RUNTIME_CRATES.contains(&d.as_str())
        })
        .collect();
    assert!(
        bad.is_empty(),
        "rho-protocol must depend on serde and small pure crates only, but it pulls in {bad:?}. \
         Keep behaviour that needs providers, I/O or async in rho-ai (or higher) and have that \
         crate depend on rho-protocol, not the other way round (see docs/architecture.md)."
    );
}

#[test]
fn rho_tui_links_no_http_stack() {
    let deps = normal_dependencies("rho-tui", &[]);
    assert!(
        deps.iter().any(|d| d == "rho-protocol"),
        "tree was read: {deps:?}"
    );
    let bad: Vec<&String> = deps
        .iter()
        .filter(|d| *d == "rho-ai" || *d == "reqwest" || *d == "hyper")
        .collect();
    assert!(
        bad.is_empty(),
        "rho-tui must not link the provider layer or HTTP, but it pulls in {bad:?}. Import \
         message, content, model and usage types from rho_protocol (not rho_ai), and move any \
         pure data type the UI needs down into rho-protocol."
    );
}
