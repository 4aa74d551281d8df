//! Unloading extension processes (/reload, quit): `session_shutdown` first, then the process
//! ends (stdin closed, killed after the grace when it ignores that) and its tools leave the
//! agent; a new set takes their place.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::process_common;
use crate::session_common as common;

use std::path::PathBuf;
use std::time::Duration;

use common::*;
use process_common::*;
use rho_core::agent_session::AgentSession;
use rho_extension_host::process::{ProcessExtension, ProcessOptions};
use rho_extension_host::{ExtensionEvent, ExtensionRunner};
use rho_testkit::scripted::ScriptedProvider;
use std::sync::{Arc, Mutex};

fn process_exists(pid: u32) -> bool {
    PathBuf::from(format!("/proc/{pid}")).exists()
}

fn agent_tool_names(s: &AgentSession) -> Vec<String> {
    s.agent()
        .with_state(|st| st.tools.iter().map(|t| t.name().to_string()).collect())
}

#[tokio::test]
async fn unloading_sends_session_shutdown_then_ends_the_process_and_drops_its_tools() {
    let provider = ScriptedProvider::new();
    let process = load_process(&example("tool_word_count.py"), ProcessOptions::default()).await;
    let pid = process.connection().pid().expect("running");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let watcher = extension_on("watcher", "session_shutdown", move |e, _| {
        if let ExtensionEvent::SessionShutdown { reason, .. } = e {
            record.lock().expect("lock").push(reason);
        }
        Ok(None)
    });
    let mut c = config(&provider);
    c.extensions = vec![watcher, process.extension()];
    let s = AgentSession::new(c);
    assert!(agent_tool_names(&s).contains(&"word_count".to_string()));
    drop(process);

    assert_eq!(s.unload_extensions("reload").await, 2);
    assert_eq!(*seen.lock().expect("lock"), ["reload"]);
    assert!(!process_exists(pid), "the process was reaped");
    assert!(s.extensions().extensions().is_empty());
    assert!(!agent_tool_names(&s).contains(&"word_count".to_string()));

    let again = load(&example("tool_word_count.py"), ProcessOptions::default()).await;
    s.load_extensions(vec![again]);
    assert_eq!(s.extensions().extensions().len(), 1);
    assert_eq!(
        agent_tool_names(&s)
            .iter()
            .filter(|n| *n == "word_count")
            .count(),
        1
    );
}

#[tokio::test]
async fn a_process_that_ignores_end_of_input_is_killed_after_the_grace() {
    let script = r#"read hello; echo '{"type":"register","name":"stubborn"}'; trap '' TERM; while :; do sleep 1; done"#;
    let ext = ProcessExtension::spawn(
        "sh",
        &["-c".into(), script.into()],
        ProcessOptions::default(),
    )
    .await
    .expect("registers");
    let conn = ext.connection().clone();
    let pid = conn.pid().expect("running");
    conn.close(Duration::from_millis(100)).await;
    assert!(!process_exists(pid), "killed and reaped");
    let err = conn
        .request("late", Duration::from_secs(1), None, |id| {
            rho_extension_host::process::wire::Request::Cancel { id }
        })
        .await
        .expect_err("unloaded");
    assert!(err.contains("was unloaded"), "{err}");
}

#[tokio::test]
async fn a_replaced_set_serves_later_emissions_and_clones_share_it() {
    let runner = ExtensionRunner::default();
    let clone = runner.clone();
    let old = runner.replace(vec![extension_on("a", "agent_start", |_, _| Ok(None))]);
    assert!(old.is_empty());
    assert!(clone.has_handlers("agent_start"));
}
