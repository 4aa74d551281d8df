//! Durability under SIGKILL: a child process (this test binary re-executed with an env flag)
//! appends entries in a loop and reports each append that returned; the parent kills it at
//! random points 50 times. Every file must load and hold every reported entry. Each file is
//! reused for 5 rounds, so later children reopen files that may end in a torn line.
//!
//! A kill rarely lands inside the `write` itself (it is short next to serialization), so in
//! half the rounds the parent also leaves what such a kill leaves: a prefix of one more entry
//! line without its newline. The next child must reopen that file, keep the fragment (closed
//! by a newline, skipped with a warning on every load) and go on appending without losing
//! anything.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use rho_protocol::agent::AgentMessage;
use rho_protocol::{AssistantMessage, ContentBlock, UserMessage};
use rho_session::{load_file, SessionManager};

const CHILD_ENV: &str = "RHO_CORE_KILL_CHILD_FILE";
const ROUNDS: usize = 50;
/// Rounds that continue the same file before a fresh one starts.
const PER_FILE: usize = 5;

/// The child's loop; a no-op unless started by [`appends_survive_sigkill`].
#[test]
fn child_append_loop() {
    let Ok(file) = std::env::var(CHILD_ENV) else {
        return;
    };
    let path = Path::new(&file);
    let mut session = SessionManager::open_or_create(path, "/kill-test").expect("open session");
    let report = |id: &str| println!("APPENDED {id}");
    if !session.is_persisted() {
        let id = session
            .append_message(AgentMessage::User(UserMessage::text("start")))
            .expect("append")
            .id
            .clone();
        report(&id);
        let id = session
            .append_message(assistant("ready".into()))
            .expect("append")
            .id
            .clone();
        report(&id);
    }
    for i in 0u64.. {
        // Every fourth entry is large, so the kill can land inside a multi-page write.
        let size = if i % 4 == 3 { 1 << 20 } else { 200 };
        let text = "x".repeat(size);
        let entry = match i % 3 {
            0 => session.append_message(AgentMessage::User(UserMessage::text(text))),
            1 => session.append_message(assistant(text)),
            _ => session.append_custom("kill-test", Some(serde_json::json!({ "i": i }))),
        };
        let id = entry.expect("append").id.clone();
        report(&id);
    }
}

fn assistant(text: String) -> AgentMessage {
    let mut a = AssistantMessage::empty("openai-responses", "openai", "gpt-5");
    a.content = vec![ContentBlock::text(text)];
    AgentMessage::Assistant(a)
}

/// Runs one child on `path`, kills it after a random number of reported appends, and returns
/// every id it reported.
fn run_and_kill(path: &Path) -> Vec<String> {
    let mut child = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "kill::child_append_loop",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn child");
    let mut lines = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
    let kill_after = fastrand::usize(1..=8);
    let mut reported = Vec::new();
    while reported.len() < kill_after {
        let Some(Ok(line)) = lines.next() else {
            panic!("child exited early: {:?}", child.wait());
        };
        if let Some(id) = line.strip_prefix("APPENDED ") {
            reported.push(id.to_string());
        }
    }
    // Random jitter (not synchronisation): spread the kill over the child's next appends.
    std::thread::sleep(std::time::Duration::from_micros(fastrand::u64(0..3000)));
    child.kill().expect("SIGKILL");
    child.wait().expect("reap child");
    // Lines already in the pipe were also appends that returned.
    reported.extend(
        lines
            .map_while(Result::ok)
            .filter_map(|l| l.strip_prefix("APPENDED ").map(str::to_string)),
    );
    reported
}

/// Appends the first bytes of an entry line (no newline), as a write cut short by a kill would.
fn leave_torn_fragment(path: &Path) {
    use std::io::Write;
    let line = r#"{"type":"message","id":"deadbeef","parentId":null,"timestamp":"2025-03-01T09:15:02.481Z","message":{"role":"user","content":[{"type":"text","text":"never returned"}],"timestamp":1}}"#;
    let cut = fastrand::usize(1..line.len() - 1);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open");
    file.write_all(&line.as_bytes()[..cut])
        .expect("write fragment");
}

#[test]
fn appends_survive_sigkill() {
    let dir = tempfile::tempdir().expect("temp dir");
    let started = std::time::Instant::now();
    let (mut torn, mut simulated) = (0, 0);
    let mut expected: Vec<HashSet<String>> = vec![HashSet::new(); ROUNDS / PER_FILE];
    for round in 0..ROUNDS {
        let path = dir
            .path()
            .join(format!("killed-{}.jsonl", round / PER_FILE));
        let ids = run_and_kill(&path);
        expected[round / PER_FILE].extend(ids);
        let loaded = load_file(&path).unwrap_or_else(|e| panic!("round {round}: {e}"));
        torn += loaded
            .warnings
            .iter()
            .filter(|w| w.message.contains("incomplete last line"))
            .count();
        // A fragment written after a line the kill itself tore would extend that line, not
        // add a second bad one: simulate only on a file that ends with a whole line.
        let ends_whole = std::fs::read(&path).is_ok_and(|b| b.ends_with(b"\n"));
        if round % 2 == 1 && round % PER_FILE != PER_FILE - 1 && ends_whole {
            leave_torn_fragment(&path);
            let torn_load = load_file(&path).unwrap_or_else(|e| panic!("round {round}: {e}"));
            assert_eq!(
                torn_load.warnings.len(),
                loaded.warnings.len() + 1,
                "round {round}: fragment reported"
            );
            assert_eq!(torn_load.entries.len(), loaded.entries.len());
            simulated += 1;
        }
        let present: HashSet<&str> = loaded.entries.iter().map(|e| e.id.as_str()).collect();
        for id in &expected[round / PER_FILE] {
            assert!(
                present.contains(id.as_str()),
                "round {round}: returned append {id} lost"
            );
        }
        // The tree stays intact: every parent exists.
        for e in &loaded.entries {
            if let Some(p) = &e.parent_id {
                assert!(
                    present.contains(p.as_str()),
                    "round {round}: dangling parent {p}"
                );
            }
        }
    }
    eprintln!(
        "{ROUNDS} kills in {:.1}s, {torn} loads after a real kill skipped a torn last line, \
         {simulated} simulated torn writes recovered",
        started.elapsed().as_secs_f64()
    );
}
