//! The crate graph as docs/architecture.md draws it. rho-protocol is the floor: plain data that
//! every side shares, so it must not grow a dependency on a rho crate or on anything that does
//! I/O; rho-tui (which sees the session only through these types) must not link the HTTP
//! stack, nor the session store an async runtime; and every crate's rho dependencies are
//! exactly the ones the architecture allows it. A `use` or a Cargo.toml line added in the
//! wrong place would break these facts without failing a build, so this test asks Cargo for
//! the real dependency trees.
#![allow(clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Each workspace crate and the rho crates it depends on (normal dependencies, not dev or
/// build ones), lowest first. Every edge points down this list, none back up. A crate's
/// actual edges must equal its entry: a new edge is a decision about the architecture (add
/// it here and to docs/architecture.md), and an edge no longer used must go from Cargo.toml.
const ALLOWED: &[(&str, &[&str])] = &[
    ("rho-protocol", &[]),
    ("rho-sandbox", &[]),
    ("rho-pi-host", &[]),
    ("rho-extension", &["rho-protocol"]),
    ("rho-process", &["rho-protocol", "rho-sandbox"]),
    ("rho-session", &["rho-protocol"]),
    ("rho-tui", &["rho-protocol"]),
    ("rho-ai", &["rho-process", "rho-protocol"]),
    ("rho-agent", &["rho-ai", "rho-protocol"]),
    ("rho-testkit", &["rho-agent", "rho-ai"]),
    (
        "rho-tools",
        &["rho-agent", "rho-process", "rho-protocol", "rho-sandbox"],
    ),
    ("rho-export", &["rho-protocol", "rho-session", "rho-tui"]),
    (
        "rho-compaction",
        &["rho-agent", "rho-ai", "rho-protocol", "rho-session"],
    ),
    ("rho-codemode", &["rho-agent", "rho-protocol", "rho-tools"]),
    (
        "rho-extension-host",
        &[
            "rho-agent",
            "rho-ai",
            "rho-process",
            "rho-protocol",
            "rho-sandbox",
        ],
    ),
    (
        "rho-mcp",
        &["rho-agent", "rho-ai", "rho-process", "rho-tools"],
    ),
    (
        "rho-core",
        &[
            "rho-agent",
            "rho-ai",
            "rho-codemode",
            "rho-compaction",
            "rho-extension-host",
            "rho-process",
            "rho-protocol",
            "rho-sandbox",
            "rho-session",
            "rho-tools",
        ],
    ),
    (
        "rho-packages",
        &["rho-core", "rho-process", "rho-session", "rho-tools"],
    ),
    (
        "rho-rpc",
        &[
            "rho-ai",
            "rho-core",
            "rho-export",
            "rho-extension-host",
            "rho-protocol",
            "rho-session",
        ],
    ),
    (
        "rho-interactive",
        &[
            "rho-ai",
            "rho-core",
            "rho-export",
            "rho-extension-host",
            "rho-mcp",
            "rho-process",
            "rho-protocol",
            "rho-session",
            "rho-tools",
            "rho-tui",
        ],
    ),
    (
        "rho-cli",
        &[
            "rho-agent",
            "rho-ai",
            "rho-codemode",
            "rho-core",
            "rho-export",
            "rho-extension-host",
            "rho-interactive",
            "rho-mcp",
            "rho-packages",
            "rho-pi-host",
            "rho-process",
            "rho-protocol",
            "rho-rpc",
            "rho-sandbox",
            "rho-session",
            "rho-tools",
            "rho-tui",
        ],
    ),
];

/// Runs `cargo tree` on the workspace manifest with `args`; its lines.
fn cargo_tree(args: &[&str]) -> Vec<String> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
    let output = Command::new(env!("CARGO"))
        .args(["tree", "--offline", "-e", "normal", "--format", "{p}"])
        .arg("--manifest-path")
        .arg(&manifest)
        .args(args)
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree {args:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// Every workspace crate and the rho crates it depends on directly.
fn rho_edges() -> BTreeMap<String, Vec<String>> {
    let lines = cargo_tree(&[
        "--workspace",
        "--depth",
        "1",
        "--no-dedupe",
        "--prefix",
        "depth",
    ]);
    let mut edges: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current = None;
    for line in lines {
        let Some(name) = line.get(1..).and_then(|l| l.split_whitespace().next()) else {
            continue;
        };
        match line.as_bytes().first() {
            Some(b'0') => {
                edges.entry(name.to_string()).or_default();
                current = Some(name.to_string());
            }
            Some(b'1') if name.starts_with("rho-") => {
                if let Some(crate_name) = &current {
                    let deps = edges.entry(crate_name.clone()).or_default();
                    deps.push(name.to_string());
                    deps.sort();
                    deps.dedup();
                }
            }
            _ => {}
        }
    }
    edges
}

#[test]
fn every_crate_depends_on_exactly_the_rho_crates_it_is_allowed() {
    let actual = rho_edges();
    assert!(actual.len() > 10, "tree was read: {actual:?}");
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let mut wrong = Vec::new();
    for (name, deps) in &actual {
        let Some(allowed) = allowed.get(name.as_str()) else {
            wrong.push(format!(
                "{name} is not in ALLOWED: add it with the rho crates it may use, below its users"
            ));
            continue;
        };
        let extra: Vec<&String> = deps
            .iter()
            .filter(|d| !allowed.contains(&d.as_str()))
            .collect();
        let unused: Vec<&&str> = allowed
            .iter()
            .filter(|a| !deps.iter().any(|d| d == *a))
            .collect();
        if !extra.is_empty() {
            wrong.push(format!(
                "{name} depends on {extra:?}, which the architecture does not allow it: use what \
                 it needs from a crate below it (move a plain type down to rho-protocol), or, if \
                 the edge is right, add it to ALLOWED and docs/architecture.md"
            ));
        }
        if !unused.is_empty() {
            wrong.push(format!(
                "{name} no longer depends on {unused:?}: remove the edge from ALLOWED and \
                 docs/architecture.md"
            ));
        }
    }
    for name in allowed.keys() {
        if !actual.contains_key(*name) {
            wrong.push(format!(
                "{name} is in ALLOWED but not in the workspace: remove it"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "the crate graph drifted:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn allowed_edges_point_down_the_list() {
    for (i, (name, deps)) in ALLOWED.iter().enumerate() {
        for dep in *deps {
            let below = ALLOWED[..i].iter().any(|(lower, _)| lower == dep);
            assert!(
                below,
                "{name} -> {dep}: {dep} must come before {name} in ALLOWED"
            );
        }
    }
}

/// Crates that mean an async runtime or an HTTP stack came along.
const RUNTIME_CRATES: [&str; 3] = ["reqwest", "hyper", "tokio"];

/// The names of every normal (non-dev, non-build) dependency of `package`, itself included,
/// sorted.
fn normal_dependencies(package: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["--prefix", "none", "-p", package];
    args.extend_from_slice(extra);
    let mut names: Vec<String> = cargo_tree(&args)
        .iter()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Asserts that `package` (with cargo tree's `extra` arguments) links none of the crates
/// `forbidden` accepts; `seen` must be in its tree (so the tree was read), `advice` says what to
/// do instead.
fn assert_links_none(
    package: &str,
    extra: &[&str],
    seen: &str,
    forbidden: impl Fn(&str) -> bool,
    advice: &str,
) {
    let deps = normal_dependencies(package, extra);
    assert!(deps.iter().any(|d| d == seen), "tree was read: {deps:?}");
    let bad: Vec<&String> = deps.iter().filter(|d| forbidden(d)).collect();
    assert!(bad.is_empty(), "{package} pulls in {bad:?}: {advice}");
}

#[test]
fn rho_protocol_depends_on_no_rho_crate_and_no_runtime() {
    assert_links_none(
        "rho-protocol",
        &["--all-features"],
        "serde",
        |d| (d.starts_with("rho-") && d != "rho-protocol") || RUNTIME_CRATES.contains(&d),
        "rho-protocol must depend on serde and small pure crates only. Keep behaviour that \
         needs providers, I/O or async in rho-ai (or higher) and have that crate depend on \
         rho-protocol, not the other way round (see docs/architecture.md).",
    );
}

#[test]
fn rho_tui_links_no_http_stack() {
    assert_links_none(
        "rho-tui",
        &[],
        "rho-protocol",
        |d| matches!(d, "rho-ai" | "reqwest" | "hyper"),
        "rho-tui must not link the provider layer or HTTP. Import message, content, model and \
         usage types from rho_protocol (not rho_ai), and move any pure data type the UI needs \
         down into rho-protocol.",
    );
}

#[test]
fn the_session_store_links_no_runtime_or_http() {
    assert_links_none(
        "rho-session",
        &[],
        "rho-protocol",
        |d| RUNTIME_CRATES.contains(&d) || matches!(d, "rho-ai" | "rho-agent"),
        "rho-session reads and writes files and must not link an async runtime or HTTP. Take \
         message and agent types from rho_protocol (not rho_ai or rho_agent), and move any plain \
         type the store needs down into rho-protocol.",
    );
}
