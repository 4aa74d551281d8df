//! The exported page and JSONL on small session files: structure, every branch present,
//! escaping; the JSONL export opens as a linear session.

use std::path::Path;

use rho_session::{load_file, SessionManager, SessionTree};

use super::{export_live, export_session, page};

const HEADER: &str = r#"{"type":"session","version":3,"id":"s-1","timestamp":"2025-03-01T09:15:00.120Z","cwd":"/home/ana/app"}"#;

fn usage() -> &'static str {
    r#""usage":{"input":120,"output":30,"cacheRead":0,"cacheWrite":0,"totalTokens":150,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.0123}}"#
}

/// A session with a branch: a2 has two replies (a3 on the first branch, b1 on the second),
/// the current leaf is on the second.
fn branched_lines() -> Vec<String> {
    let assistant = |id: &str, parent: &str, content: &str| {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2025-03-01T09:15:04.000Z","message":{{"role":"assistant","content":{content},"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5",{},"stopReason":"toolUse","timestamp":1740820503900}}}}"#,
            usage()
        )
    };
    vec![
        HEADER.to_string(),
        r#"{"type":"model_change","id":"a1","parentId":null,"timestamp":"2025-03-01T09:15:00.200Z","provider":"anthropic","modelId":"claude-sonnet-4-5"}"#.into(),
        r#"{"type":"message","id":"a2","parentId":"a1","timestamp":"2025-03-01T09:15:02.481Z","message":{"role":"user","content":[{"type":"text","text":"List <files> & say \"hi\" <script>alert(1)</script>"}],"timestamp":1740820502481}}"#.into(),
        assistant(
            "a3",
            "a2",
            r#"[{"type":"thinking","thinking":"run ls"},{"type":"toolCall","id":"t1","name":"bash","arguments":{"command":"ls </dev/null"}}]"#,
        ),
        r#"{"type":"message","id":"a4","parentId":"a3","timestamp":"2025-03-01T09:15:04.100Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"bash","content":[{"type":"text","text":"a.rs & b.rs"}],"isError":false,"timestamp":1740820504100}}"#.into(),
        assistant(
            "b1",
            "a2",
            r###"[{"type":"text","text":"## Files\n\n- `a.rs`\n- [docs](javascript:alert(1))\n\n```rust\nfn main() {}\n```"}]"###,
        ),
        r#"{"type":"label","id":"b2","parentId":"b1","timestamp":"2025-03-01T09:15:05.000Z","targetId":"b1","label":"good"}"#.into(),
        r#"{"type":"session_info","id":"b3","parentId":"b2","timestamp":"2025-03-01T09:15:05.500Z","name":"Listing <files>"}"#.into(),
    ]
}

fn write_session(dir: &Path, lines: &[String]) -> std::path::PathBuf {
    let path = dir.join("s.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").expect("write session");
    path
}

#[test]
fn the_page_holds_every_branch_escaped_with_the_current_leaf_selected() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_session(dir.path(), &branched_lines());
    let out = export_session(&path, Some("out.html"), dir.path()).expect("exports");
    let html = std::fs::read_to_string(out).expect("read");
    // Both branches: the tool call branch (a3, a4) and the reply on the other (b1).
    for id in ["a2", "a3", "a4", "b1"] {
        assert!(html.contains(&format!("id=\"e-{id}\"")), "{id} missing");
    }
    // The newest entry shown on the current branch is the leaf the script opens.
    assert!(html.contains("data-leaf=\"b1\""));
    // The branches indent under their branch point; a linear run does not.
    assert!(html.contains("data-id=\"a3\" style=\"--depth:1\""));
    assert!(html.contains("data-id=\"b1\" style=\"--depth:1\""));
    assert!(html.contains("data-id=\"a2\" style=\"--depth:0\""));
    // Nothing the session holds becomes markup.
    assert!(!html.contains("<script>alert"), "user text escaped");
    assert!(!html.contains("javascript:"), "unsafe link neutralised");
    assert!(html.contains("Listing &lt;files&gt;"));
    // One file: no external script, style or image.
    assert!(!html.contains("src=\"http"));
    assert!(!html.contains("<link"));
    let main = html
        .split("<main>")
        .nth(1)
        .and_then(|m| m.split("<script>").next())
        .expect("main element");
    insta::assert_snapshot!(main);
}

#[test]
fn the_live_session_exports_the_same_page_as_its_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_session(dir.path(), &branched_lines());
    let manager = SessionManager::open(&path).expect("opens");
    let loaded = load_file(&path).expect("loads");
    let from_file = page(&loaded.header, &SessionTree::from_entries(loaded.entries));
    assert_eq!(super::live_page(&manager), from_file);
}

#[test]
fn a_jsonl_target_gets_the_current_branch_as_a_session_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_session(dir.path(), &branched_lines());
    let manager = SessionManager::open(&path).expect("opens");
    let out = export_live(&manager, Some("sub/x.jsonl"), dir.path()).expect("exports");
    assert_eq!(out, dir.path().join("sub/x.jsonl"));
    let text = std::fs::read_to_string(&out).expect("read");
    assert!(!text.contains("<html"), "{text}");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(lines[0]["type"], "session");
    assert_eq!(lines[0]["id"], "s-1");
    assert_eq!(lines[0]["cwd"], "/home/ana/app");
    let ids: Vec<&str> = lines[1..].iter().filter_map(|l| l["id"].as_str()).collect();
    assert_eq!(
        ids,
        ["a1", "a2", "b1", "b2", "b3"],
        "the current branch only"
    );
    for pair in lines[1..].windows(2) {
        assert_eq!(pair[1]["parentId"], pair[0]["id"], "linked in order");
    }
    let reopened = SessionManager::open(&out).expect("the export opens as a session");
    assert_eq!(reopened.tree().branch().len(), 5);
}

#[test]
fn an_html_target_of_a_live_session_gets_the_page() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_session(dir.path(), &branched_lines());
    let manager = SessionManager::open(&path).expect("opens");
    let out = export_live(&manager, Some("x.html"), dir.path()).expect("exports");
    let text = std::fs::read_to_string(out).expect("read");
    assert!(text.starts_with("<!DOCTYPE html>"));
}

/// The page's script parses (checked with `node --check` where node is installed; skipped with
/// a notice elsewhere).
#[test]
fn the_viewer_script_is_valid_javascript() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("viewer.js");
    std::fs::write(&script, include_str!("viewer.js")).expect("write");
    match std::process::Command::new("node")
        .arg("--check")
        .arg(&script)
        .output()
    {
        Ok(out) => assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(_) => eprintln!("SKIPPED the_viewer_script_is_valid_javascript: node is not installed"),
    }
}
