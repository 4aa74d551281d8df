//! `grep`, `find` and `ls` over real directory trees.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{run, text, TempDir};
use rho_tools::{FindTool, GrepTool, LsTool};
use serde_json::json;

fn tree() -> TempDir {
    let dir = TempDir::new();
    dir.write("src/main.rs", "fn main() {\n    println!(\"Hello\");\n}\n");
    dir.write("src/lib.rs", "pub fn hello() {}\n// hello again\n");
    dir.write("src/nested/deep.rs", "const HELLO: &str = \"x\";\n");
    dir.write("README.md", "# Hello project\n");
    dir.write(".hidden/secret.txt", "hello from hidden\n");
    dir.write(".gitignore", "target/\n*.log\n");
    dir.write("target/out.rs", "hello ignored\n");
    dir.write("debug.log", "hello ignored too\n");
    dir
}

fn git_tree() -> TempDir {
    let dir = tree();
    std::fs::create_dir_all(dir.path().join(".git")).expect("mkdir .git");
    dir
}

#[tokio::test]
async fn grep_lists_matches_relative_to_the_search_dir() {
    let dir = git_tree();
    let out = run(&GrepTool::new(dir.path()), json!({"pattern": "hello"}))
        .await
        .expect("ok");
    assert_eq!(
        text(&out),
        ".hidden/secret.txt:1: hello from hidden\nsrc/lib.rs:1: pub fn hello() {}\nsrc/lib.rs:2: // hello again"
    );
    assert_eq!(out.details, None);
}

#[tokio::test]
async fn grep_options_case_literal_glob_and_single_file() {
    let dir = git_tree();
    let tool = GrepTool::new(dir.path());
    let out = run(
        &tool,
        json!({"pattern": "HELLO", "ignoreCase": true, "glob": "*.md"}),
    )
    .await
    .expect("ok");
    assert_eq!(text(&out), "README.md:1: # Hello project");
    let out = run(&tool, json!({"pattern": "println!(", "literal": true}))
        .await
        .expect("ok");
    assert_eq!(text(&out), "src/main.rs:2:     println!(\"Hello\");");
    let out = run(&tool, json!({"pattern": "fn", "path": "src/lib.rs"}))
        .await
        .expect("ok");
    assert_eq!(text(&out), "lib.rs:1: pub fn hello() {}");
}

#[tokio::test]
async fn grep_context_lines() {
    let dir = TempDir::new();
    dir.write("a.txt", "one\ntwo\nthree\nfour\nfive\n");
    let out = run(
        &GrepTool::new(dir.path()),
        json!({"pattern": "three", "context": 1}),
    )
    .await
    .expect("ok");
    assert_eq!(text(&out), "a.txt-2- two\na.txt:3: three\na.txt-4- four");
}

#[tokio::test]
async fn grep_limit_and_long_line_notices() {
    let dir = TempDir::new();
    let body: String = (0..20).map(|i| format!("match {i}\n")).collect();
    dir.write("many.txt", body);
    dir.write("wide.txt", format!("{}match\n", "w".repeat(600)));
    let tool = GrepTool::new(dir.path());
    let out = run(
        &tool,
        json!({"pattern": "match", "path": "many.txt", "limit": 5}),
    )
    .await
    .expect("ok");
    assert_eq!(
        text(&out),
        "many.txt:1: match 0\nmany.txt:2: match 1\nmany.txt:3: match 2\nmany.txt:4: match 3\nmany.txt:5: match 4\n\n[5 matches limit reached. Use limit=10 for more, or refine pattern]"
    );
    assert_eq!(out.details, Some(json!({"matchLimitReached": 5})));
    let out = run(&tool, json!({"pattern": "match", "path": "wide.txt"}))
        .await
        .expect("ok");
    assert_eq!(
        text(&out),
        format!("wide.txt:1: {}... [truncated]\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]", "w".repeat(500))
    );
    assert_eq!(out.details, Some(json!({"linesTruncated": true})));
}

#[tokio::test]
async fn grep_byte_limit() {
    let dir = TempDir::new();
    let body: String = (0..400)
        .map(|i| format!("hit {i:04} {}\n", "p".repeat(300)))
        .collect();
    dir.write("big.txt", body);
    let out = run(
        &GrepTool::new(dir.path()),
        json!({"pattern": "hit", "limit": 1000}),
    )
    .await
    .expect("ok");
    assert!(
        text(&out).ends_with("\n\n[50.0KB limit reached]"),
        "{}",
        &text(&out)[text(&out).len() - 60..]
    );
    let details = out.details.expect("details");
    assert_eq!(details["truncation"]["truncatedBy"], "bytes");
}

#[tokio::test]
async fn grep_errors_and_empty_results() {
    let dir = TempDir::new();
    dir.write("a.txt", "abc\n");
    let tool = GrepTool::new(dir.path());
    let out = run(&tool, json!({"pattern": "zzz"})).await.expect("ok");
    assert_eq!(text(&out), "No matches found");
    let err = run(&tool, json!({"pattern": "x", "path": "missing"}))
        .await
        .expect_err("missing");
    assert_eq!(
        err.message,
        format!("Path not found: {}", dir.path().join("missing").display())
    );
    let err = run(&tool, json!({"pattern": "(unclosed"}))
        .await
        .expect_err("bad regex");
    assert!(err.message.contains("unclosed group"), "{}", err.message);
}

#[tokio::test]
async fn grep_skips_binary_files() {
    let dir = TempDir::new();
    dir.write("bin.dat", b"needle\0\x01\x02needle");
    dir.write("text.txt", "needle\n");
    let out = run(&GrepTool::new(dir.path()), json!({"pattern": "needle"}))
        .await
        .expect("ok");
    assert_eq!(text(&out), "text.txt:1: needle");
}

#[tokio::test]
async fn find_matches_names_and_paths() {
    let dir = tree();
    let tool = FindTool::new(dir.path());
    let out = run(&tool, json!({"pattern": "*.rs"})).await.expect("ok");
    assert_eq!(text(&out), "src/lib.rs\nsrc/main.rs\nsrc/nested/deep.rs");
    let out = run(&tool, json!({"pattern": "src/*.rs"}))
        .await
        .expect("ok");
    assert_eq!(text(&out), "src/lib.rs\nsrc/main.rs");
    let out = run(&tool, json!({"pattern": "nest*"})).await.expect("ok");
    assert_eq!(text(&out), "src/nested/");
    let out = run(&tool, json!({"pattern": "*.txt"})).await.expect("ok");
    assert_eq!(text(&out), ".hidden/secret.txt");
}

#[tokio::test]
async fn find_honours_gitignore_and_skips_dot_git() {
    let dir = git_tree();
    dir.write(".git/config", "[core]\n");
    let out = run(&FindTool::new(dir.path()), json!({"pattern": "*"}))
        .await
        .expect("ok");
    assert_eq!(
        text(&out),
        ".gitignore\n.hidden/\n.hidden/secret.txt\nREADME.md\nsrc/\nsrc/lib.rs\nsrc/main.rs\nsrc/nested/\nsrc/nested/deep.rs"
    );
}

#[tokio::test]
async fn find_limits_and_errors() {
    let dir = tree();
    let tool = FindTool::new(dir.path());
    let out = run(&tool, json!({"pattern": "*.rs", "path": "src", "limit": 1}))
        .await
        .expect("ok");
    assert!(text(&out)
        .ends_with("\n\n[1 results limit reached. Use limit=2 for more, or refine pattern]"));
    assert_eq!(out.details.expect("details")["resultLimitReached"], 1);
    let out = run(&tool, json!({"pattern": "*.zig"})).await.expect("ok");
    assert_eq!(text(&out), "No files found matching pattern");
    let err = run(&tool, json!({"pattern": "*", "path": "nowhere"}))
        .await
        .expect_err("missing");
    assert_eq!(
        err.message,
        format!("Path not found: {}", dir.path().join("nowhere").display())
    );
}

#[tokio::test]
async fn ls_lists_sorted_with_dir_suffixes() {
    let dir = TempDir::new();
    dir.write("b.txt", "");
    dir.write("A.txt", "");
    dir.write(".env", "");
    dir.write("sub/x", "");
    let tool = LsTool::new(dir.path());
    let out = run(&tool, json!({})).await.expect("ok");
    assert_eq!(text(&out), ".env\nA.txt\nb.txt\nsub/");
    let out = run(&tool, json!({"limit": 2})).await.expect("ok");
    assert_eq!(
        text(&out),
        ".env\nA.txt\n\n[2 entries limit reached. Use limit=4 for more]"
    );
    assert_eq!(out.details, Some(json!({"entryLimitReached": 2})));
}

#[tokio::test]
async fn ls_errors_and_empty() {
    let dir = TempDir::new();
    dir.write("file.txt", "");
    std::fs::create_dir_all(dir.path().join("empty")).expect("mkdir");
    let tool = LsTool::new(dir.path());
    let out = run(&tool, json!({"path": "empty"})).await.expect("ok");
    assert_eq!(text(&out), "(empty directory)");
    let err = run(&tool, json!({"path": "nope"}))
        .await
        .expect_err("missing");
    assert_eq!(
        err.message,
        format!("Path not found: {}", dir.path().join("nope").display())
    );
    let err = run(&tool, json!({"path": "file.txt"}))
        .await
        .expect_err("file");
    assert_eq!(
        err.message,
        format!("Not a directory: {}", dir.path().join("file.txt").display())
    );
}

#[tokio::test]
async fn ls_byte_limit() {
    let dir = TempDir::new();
    for i in 0..300 {
        dir.write(&format!("{i:03}_{}", "n".repeat(200)), "");
    }
    let out = run(&LsTool::new(dir.path()), json!({})).await.expect("ok");
    assert!(text(&out).ends_with("\n\n[50.0KB limit reached]"));
    assert_eq!(
        out.details.expect("details")["truncation"]["truncated"],
        true
    );
}

#[tokio::test]
async fn grep_applies_gitignore_only_inside_a_git_repo_like_rg() {
    let outside = tree();
    let out = run(
        &GrepTool::new(outside.path()),
        json!({"pattern": "ignored"}),
    )
    .await
    .expect("ok");
    assert_eq!(
        text(&out),
        "debug.log:1: hello ignored too\ntarget/out.rs:1: hello ignored"
    );
    let inside = git_tree();
    let out = run(&GrepTool::new(inside.path()), json!({"pattern": "ignored"}))
        .await
        .expect("ok");
    assert_eq!(text(&out), "No matches found");
}

#[tokio::test]
async fn aborted_calls_stop_with_operation_aborted() {
    let dir = tree();
    let ctx = rho_agent::ToolContext::detached("a");
    ctx.cancel.cancel();
    let err =
        rho_agent::AgentTool::execute(&GrepTool::new(dir.path()), json!({"pattern": "x"}), ctx)
            .await
            .expect_err("aborted");
    assert_eq!(err.message, "Operation aborted");
}
