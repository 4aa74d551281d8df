//! All of pi 1.6's example extensions loaded at once into `rho --mode rpc`: the host loads
//! them in one node process, rho keeps working (commands, a full turn, a clean exit), and
//! whatever rho cannot do is named in a notice that names the extension's file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::pi_support;
use crate::support;

use serde_json::json;
use support::{reply, Start};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_examples_load_without_crashing_rho_or_the_host() {
    let Ok(node) = pi_support::node() else {
        eprintln!("skipped: {:?}", pi_support::node().err());
        return;
    };
    let examples = pi_support::examples(&pi_support::packages(&node));
    let mut names: Vec<String> = std::fs::read_dir(&examples)
        .expect("examples dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "README.md")
        .collect();
    names.sort();
    assert!(
        names.len() >= 78,
        "pi ships 78 example extensions: {names:?}"
    );
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let log = tempfile::NamedTempFile::new().expect("stderr file");
    let opts = Start {
        stderr_to: Some(log.path().to_path_buf()),
        ..Start::default()
    };
    let mut rpc = pi_support::start(&refs, opts)
        .await
        .expect("node found above");
    let commands = rpc.call(json!({"id": "c", "type": "get_commands"})).await;
    let listed = commands["data"]["commands"].to_string();
    for name in ["pirate", "session-name", "emit", "plan", "todos"] {
        assert!(
            listed.contains(&format!("\"{name}\"")),
            "/{name} registered: {listed}"
        );
    }
    rpc.server.push(reply("All fine."));
    let text = rpc.prompt_ok("p", "hello").await;
    assert_eq!(text, "All fine.");
    assert_eq!(rpc.close().await, Some(0));

    let stderr = std::fs::read_to_string(log.path()).expect("stderr");
    for broken in [
        "exited (its stdout closed)",
        "failed the handshake",
        "invalid protocol line",
        "rho pi host: uncaught",
        "did not answer",
    ] {
        assert!(
            !stderr.contains(broken),
            "{broken:?} in rho's stderr:\n{stderr}"
        );
    }
    let notices: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("pi extension "))
        .collect();
    eprintln!("{} notices:\n{}", notices.len(), notices.join("\n"));
    for notice in &notices {
        assert!(
            notice.contains("/exts/"),
            "names the extension's file: {notice}"
        );
    }
    let unloaded: Vec<&&str> = notices
        .iter()
        .filter(|l| l.contains("was not loaded"))
        .collect();
    // gondolin needs a package pi does not ship (its README says to install it).
    assert!(
        unloaded.iter().all(|l| l.contains("/exts/gondolin/")),
        "only gondolin lacks its package: {unloaded:#?}"
    );
}
