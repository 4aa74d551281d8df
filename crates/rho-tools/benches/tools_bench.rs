//! Times `grep` and `find` over a 100,000-file tree (about 1 GB, generated once under the temp
//! dir and reused), compared in the same run with ripgrep when `rg` is installed, and an edit
//! in a 10 MB file. Run: `cargo bench -p rho-tools --bench tools_bench`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rho_tools::edit_apply::Edit;
use rho_tools::{edit_file, find, grep, GrepQuery};
use tokio_util::sync::CancellationToken;

const DIRS: usize = 100;
const SUBDIRS: usize = 10;
const FILES_PER_SUBDIR: usize = 100;
const FILE_BYTES: usize = 10_000;
const NEEDLE: &str = "NEEDLE_7f3a9c";
const RUNS: usize = 7;

const WORDS: [&str; 16] = [
    "alpha", "beta", "gamma", "delta", "struct", "impl", "return", "value", "token", "stream",
    "buffer", "index", "parser", "window", "thread", "signal",
];

/// Deterministic pseudo-random text (xorshift), so every run sees the same tree.
struct Text(u64);

impl Text {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn file(&mut self, bytes: usize, needle: bool) -> String {
        let mut out = String::with_capacity(bytes + 100);
        let mut line = 0;
        while out.len() < bytes {
            line += 1;
            if needle && line == 50 {
                out.push_str(&format!("    let marker = \"{NEEDLE}\";\n"));
                continue;
            }
            let words = 4 + (self.next() % 10) as usize;
            for w in 0..words {
                if w > 0 {
                    out.push(' ');
                }
                out.push_str(WORDS[(self.next() % WORDS.len() as u64) as usize]);
            }
            out.push('\n');
        }
        out
    }
}

fn tree_root() -> PathBuf {
    std::env::temp_dir().join("rho-tools-bench-tree")
}

/// Creates the tree unless a previous run finished it (marked by `.complete`).
fn ensure_tree(root: &Path) -> std::io::Result<()> {
    if root.join(".complete").exists() {
        println!("reusing tree at {}", root.display());
        return Ok(());
    }
    println!("generating 100,000 files (~1 GB) at {} ...", root.display());
    let started = Instant::now();
    let _ = std::fs::remove_dir_all(root);
    let mut text = Text(0x9E37_79B9_7F4A_7C15);
    let mut n = 0usize;
    for d in 0..DIRS {
        for s in 0..SUBDIRS {
            let dir = root.join(format!("d{d:03}")).join(format!("s{s:02}"));
            std::fs::create_dir_all(&dir)?;
            for f in 0..FILES_PER_SUBDIR {
                let ext = if f.is_multiple_of(3) { "rs" } else { "txt" };
                let body = text.file(FILE_BYTES, n.is_multiple_of(2000));
                std::fs::File::create(dir.join(format!("f{n:06}.{ext}")))?
                    .write_all(body.as_bytes())?;
                n += 1;
            }
        }
    }
    std::fs::write(root.join(".complete"), b"")?;
    println!(
        "generated {n} files in {:.1}s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn rg_available() -> bool {
    Command::new("rg")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn run_rg(args: &[&str]) -> usize {
    let out = Command::new("rg").args(args).stderr(Stdio::null()).output();
    out.map_or(0, |o| o.stdout.len())
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// Times `ours` and, when given, `theirs` alternately in each round, so both see the same
/// machine load; returns both medians.
fn paired<T>(
    mut ours: impl FnMut() -> T,
    mut theirs: Option<&mut dyn FnMut() -> usize>,
) -> (Duration, Option<Duration>, T) {
    let mut last = ours();
    if let Some(f) = theirs.as_mut() {
        f();
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let started = Instant::now();
        last = ours();
        a.push(started.elapsed());
        if let Some(f) = theirs.as_mut() {
            let started = Instant::now();
            f();
            b.push(started.elapsed());
        }
    }
    let theirs_median = (!b.is_empty()).then(|| median(b));
    (median(a), theirs_median, last)
}

fn bench_search(root: &Path) {
    let cancel = CancellationToken::new();
    let query = GrepQuery {
        pattern: NEEDLE.to_string(),
        root: root.to_path_buf(),
        glob: None,
        ignore_case: false,
        literal: false,
        context: 0,
        limit: 100,
    };
    let has_rg = rg_available();
    if !has_rg {
        println!("rg not installed: comparison skipped (apt-get install ripgrep to compare)");
    }
    let root_s = root.to_str().expect("utf-8 temp path");
    let rg_grep = [
        "--json",
        "--line-number",
        "--color=never",
        "--hidden",
        "--",
        NEEDLE,
        root_s,
    ];
    let mut rg_grep_run = || run_rg(&rg_grep);
    let (ours, theirs, out) = paired(
        || grep(&query, &cancel).expect("grep runs"),
        has_rg.then_some(&mut rg_grep_run as &mut dyn FnMut() -> usize),
    );
    let hits = out.content[0].as_text().map_or(0, |t| t.lines().count());
    report(
        &format!("grep {NEEDLE} ({hits} matching lines)"),
        ours,
        theirs,
        "rg --json --line-number --color=never --hidden",
    );
    let rg_files = ["--files", "--hidden", "--glob", "f0999*", root_s];
    let mut rg_files_run = || run_rg(&rg_files);
    let (ours, theirs, out) = paired(
        || find("f0999*", root, 1000, &cancel).expect("find runs"),
        has_rg.then_some(&mut rg_files_run as &mut dyn FnMut() -> usize),
    );
    let found = out.content[0].as_text().map_or(0, |t| t.lines().count());
    report(
        &format!("find f0999* ({found} results)"),
        ours,
        theirs,
        "rg --files --hidden --glob f0999*",
    );
}

fn report(what: &str, ours: Duration, theirs: Option<Duration>, reference: &str) {
    match theirs {
        Some(t) => println!(
            "{what:<40} rho-tools {:>9}   {reference}: {:>9}   ratio {:.2}",
            ms(ours),
            ms(t),
            ours.as_secs_f64() / t.as_secs_f64()
        ),
        None => println!("{what:<40} rho-tools {:>9}", ms(ours)),
    }
}

fn bench_edit() {
    let path = std::env::temp_dir().join("rho-tools-bench-10mb.txt");
    let mut text = Text(42);
    let mut body = text.file(10 * 1024 * 1024, false);
    let middle = body.len() / 2;
    let at = body[middle..].find('\n').map_or(middle, |i| middle + i + 1);
    body.insert_str(at, "UNIQUE_EDIT_TARGET line in the middle\n");
    std::fs::write(&path, &body).expect("write 10 MB file");
    let forward = [Edit {
        old_text: "UNIQUE_EDIT_TARGET line".into(),
        new_text: "UNIQUE_EDIT_DONE line".into(),
    }];
    let back = [Edit {
        old_text: "UNIQUE_EDIT_DONE line".into(),
        new_text: "UNIQUE_EDIT_TARGET line".into(),
    }];
    let mut flip = false;
    let mut samples = Vec::new();
    for _ in 0..RUNS * 3 {
        flip = !flip;
        let edits = if flip { &forward } else { &back };
        let started = Instant::now();
        edit_file(&path, "bench.txt", edits).expect("edit applies");
        samples.push(started.elapsed());
    }
    let fastest = samples.iter().min().copied().unwrap_or_default();
    println!(
        "edit one replacement in a {:.1} MB file     rho-tools {:>9} (fastest {})  (read, match, uniqueness check, write, diff)",
        body.len() as f64 / (1024.0 * 1024.0),
        ms(median(samples)),
        ms(fastest)
    );
    let _ = std::fs::remove_file(path);
}

/// `cargo bench -p rho-tools --bench tools_bench [-- search|edit]` runs one part only.
fn main() {
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a == "search" || a == "edit")
        .collect();
    let wants = |part: &str| only.is_empty() || only.iter().any(|a| a == part);
    println!("median of {RUNS} warm runs each");
    if wants("search") {
        let root = tree_root();
        if let Err(err) = ensure_tree(&root) {
            eprintln!("cannot create the bench tree at {}: {err}", root.display());
            std::process::exit(1);
        }
        bench_search(&root);
    }
    if wants("edit") {
        bench_edit();
    }
}
