//! `/resume` and `/tree` with the real binary in tmux, as pi 1.6 has them: renaming, sorting,
//! filtering and deleting sessions from the list; continuing or forking a session whose folder
//! is gone; labelling an entry and switching the tree's filter. Skipped (with a notice) where
//! tmux is not installed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::tui;

use std::path::Path;

use common::{read_jsonl, Sandbox};
use tui::{skip_without_tmux, start, streamed, until};

/// Runs one print-mode prompt, making a session file; returns it.
async fn make_session(sb: &Sandbox, prompt: &str, reply: &str) -> std::path::PathBuf {
    let before = sb.session_files();
    sb.server.push(streamed(&[reply]));
    let out = sb.rho(&["--model", "mock-model", "-p", prompt], None).await;
    assert!(out.status.success(), "{}", common::stderr(&out));
    sb.session_files()
        .into_iter()
        .find(|f| !before.contains(f))
        .expect("a new session file")
}

/// The `/tree` rows on screen, trimmed, the position line last.
fn tree_rows(screen: &str) -> Vec<String> {
    let lines: Vec<&str> = screen.lines().map(str::trim).collect();
    let Some(search) = lines.iter().position(|l| l.starts_with("Type to search:")) else {
        return Vec::new();
    };
    lines[search + 2..]
        .iter()
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty() && !l.starts_with("───"))
        .map(|l| l.to_string())
        .collect()
}

fn entry_types(path: &Path) -> Vec<String> {
    read_jsonl(path)
        .iter()
        .map(|e| e["type"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_renames_sorts_filters_and_deletes_sessions() {
    if skip_without_tmux("/resume actions") {
        return;
    }
    let sb = Sandbox::new().await;
    let first = make_session(&sb, "about otters", "Otters float.").await;
    let second = make_session(&sb, "about beavers", "Beavers build.").await;
    let tmux = start(&sb).await;
    tmux.submit("/resume");
    tmux.wait_for_text("Resume Session (Current Folder)").await;
    // Newest first: "about beavers" is selected; rename it.
    tmux.wait_for("beavers selected", |s| s.contains("› about beavers"))
        .await;
    tmux.send_keys(&["C-r"]);
    tmux.wait_for_text("Rename Session").await;
    tmux.type_text("dam builders");
    tmux.send_keys(&["Enter"]);
    tmux.wait_for("the new name listed", |s| s.contains("› dam builders"))
        .await;
    until("the name in the file", || {
        read_jsonl(&second)
            .iter()
            .any(|e| e["type"] == "session_info" && e["name"] == "dam builders")
    })
    .await;
    // Named only, then back; the sort cycles.
    tmux.send_keys(&["C-n"]);
    let screen = tmux
        .wait_for("the named filter", |s| s.contains("Name: Named"))
        .await;
    assert!(!screen.contains("about otters"), "{screen}");
    tmux.send_keys(&["C-n", "C-s"]);
    tmux.wait_for("the recent sort", |s| {
        s.contains("Name: All") && s.contains("Sort: Recent")
    })
    .await;
    // Delete the otters session: asked first, then gone from the list and the disk.
    tmux.send_keys(&["Down", "C-d"]);
    tmux.wait_for_text("Delete session?").await;
    tmux.send_keys(&["Enter"]);
    let screen = tmux
        .wait_for("the deletion said", |s| {
            s.contains("Session deleted") || s.contains("Session moved to trash")
        })
        .await;
    assert!(!screen.contains("about otters"), "{screen}");
    assert!(!first.exists(), "the file is gone");
    assert!(second.exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_whose_folder_is_gone_is_forked_here_or_continued() {
    if skip_without_tmux("missing cwd") {
        return;
    }
    let sb = Sandbox::new().await;
    let orphan = make_session(&sb, "from a deleted folder", "Still here.").await;
    // Point its header at a folder that does not exist.
    let text = std::fs::read_to_string(&orphan).unwrap();
    let cwd = sb.cwd.display().to_string();
    let moved = text.replacen(
        &format!("\"cwd\":\"{cwd}\""),
        "\"cwd\":\"/nonexistent/gone\"",
        1,
    );
    assert_ne!(text, moved, "the header names the project folder");
    std::fs::write(&orphan, moved).unwrap();
    let tmux = start(&sb).await;
    // Continue first: the file keeps its folder, so the question comes again.
    tmux.submit("/resume");
    tmux.wait_for_text("from a deleted folder").await;
    tmux.send_keys(&["Enter"]);
    let screen = tmux
        .wait_for_text("Session cwd does not exist: /nonexistent/gone")
        .await;
    assert!(
        screen.contains(&format!("Continue in {cwd} (asks again next time)")),
        "{screen}"
    );
    assert!(
        screen.contains(&format!("Fork into {cwd} (new session ID, original kept)")),
        "{screen}"
    );
    tmux.send_keys(&["Enter"]);
    tmux.wait_for_text(&format!("Resumed session in {cwd}"))
        .await;
    tmux.wait_for_text("Still here.").await;
    assert_eq!(read_jsonl(&orphan)[0]["cwd"], "/nonexistent/gone");
    // Then fork it into this folder: a new file, the original kept.
    tmux.submit("/resume");
    tmux.wait_for_text("Resume Session").await;
    tmux.send_keys(&["Enter"]);
    tmux.wait_for_text("Session cwd does not exist: /nonexistent/gone")
        .await;
    tmux.send_keys(&["Down", "Enter"]);
    tmux.wait_for_text("Forked into new session").await;
    until("the fork's file", || sb.session_files().len() == 2).await;
    let fork = sb
        .session_files()
        .into_iter()
        .find(|f| *f != orphan)
        .unwrap();
    let header = &read_jsonl(&fork)[0];
    assert_eq!(header["cwd"].as_str(), Some(cwd.as_str()));
    assert_eq!(
        read_jsonl(&orphan)[0]["cwd"],
        "/nonexistent/gone",
        "the original is kept as it was"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tree_labels_an_entry_and_switches_filters() {
    if skip_without_tmux("/tree actions") {
        return;
    }
    let sb = Sandbox::new().await;
    sb.server.push(streamed(&["Quokkas are marsupials."]));
    sb.server.push(streamed(&["Wombats dig."]));
    let tmux = start(&sb).await;
    tmux.submit("tell me about quokkas");
    tmux.wait_for_text("Quokkas are marsupials.").await;
    tmux.submit("and wombats");
    tmux.wait_for_text("Wombats dig.").await;
    tmux.submit("/tree");
    tmux.wait_for_text("Session Tree").await;
    // Up to the second question, label it.
    tmux.send_keys(&["Up"]);
    tmux.wait_for("the question selected", |s| {
        s.contains("› • user: and wombats")
    })
    .await;
    tmux.send_keys(&["S-l"]);
    tmux.wait_for_text("Label (empty to remove):").await;
    tmux.type_text("digging");
    tmux.send_keys(&["Enter"]);
    tmux.wait_for("the label shown", |s| {
        s.contains("› • [digging] user: and wombats")
    })
    .await;
    let files = sb.session_files();
    until("the label in the file", || {
        entry_types(&files[0]).contains(&"label".to_string())
    })
    .await;
    // Only user messages, then only labelled ones.
    tmux.send_keys(&["C-u"]);
    tmux.wait_for("the user messages only", |s| {
        tree_rows(s)
            == [
                "• user: tell me about quokkas",
                "› • [digging] user: and wombats",
                "(2/2) [user]",
            ]
    })
    .await;
    tmux.send_keys(&["C-l"]);
    tmux.wait_for("the labelled entries only", |s| {
        tree_rows(s) == ["› • [digging] user: and wombats", "(1/1) [labeled]"]
    })
    .await;
    tmux.send_keys(&["Escape"]);
    tmux.wait_for_gone("Session Tree").await;
}
