//! Failures of pi extensions are reported with the extension's file and the session goes on:
//! a syntax error, a throwing handler, and no usable node.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::pi_support;
use crate::support;

use serde_json::json;
use support::{reply, Start};

const BROKEN: &str = "export default function (pi { pi.on(\"input\", () => {}) }\n";
const THROWS: &str = r#"
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
export default function (pi: ExtensionAPI) {
  pi.on("input", () => { throw new Error("boom in input"); });
}
"#;

fn stderr_file() -> tempfile::NamedTempFile {
    tempfile::NamedTempFile::new().expect("stderr file")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_syntax_error_names_the_file_and_the_other_extensions_still_work() {
    let log = stderr_file();
    let opts = Start {
        stderr_to: Some(log.path().to_path_buf()),
        ..Start::default()
    };
    let Some(mut rpc) =
        pi_support::start_with_files(&["session-name.ts"], &[("broken.ts", BROKEN)], opts).await
    else {
        return;
    };
    rpc.call(json!({"id": "c", "type": "prompt", "message": "/session-name ok"}))
        .await;
    let named = rpc
        .wait(|v| v["method"] == "notify" && v["message"] == "Session named: ok")
        .await;
    // `ctx.ui.notify(text, "info")` reaches the client with its type, as from pi.
    assert_eq!(named["notifyType"], "info", "{named}");
    assert_eq!(rpc.close().await, Some(0));
    let stderr = support::read(log.path());
    let line = stderr
        .lines()
        .find(|l| l.contains("broken.ts"))
        .unwrap_or_else(|| panic!("broken.ts reported: {stderr}"));
    assert!(
        line.contains("was not loaded") && line.contains("SyntaxError"),
        "{line}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_throwing_handler_is_reported_with_its_file_and_the_prompt_runs() {
    let Some(mut rpc) =
        pi_support::start_with_files(&[], &[("throws.ts", THROWS)], Start::default()).await
    else {
        return;
    };
    rpc.server.push(reply("Still here."));
    let text = rpc.prompt_ok("p", "hello").await;
    assert_eq!(text, "Still here.");
    let error = rpc.event("extension_error").await;
    assert_eq!(error["event"], "input");
    let message = error["error"].as_str().unwrap_or_default();
    assert!(
        message.contains("throws.ts") && message.contains("boom in input"),
        "{message}"
    );
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_new_enough_node_pi_extensions_are_skipped_with_a_clear_warning() {
    let log = stderr_file();
    let home = tempfile::tempdir().expect("home");
    let old = home.path().join("old-node");
    std::fs::write(&old, "#!/bin/sh\necho v20.11.0\n").expect("fake node");
    let mut perms = std::fs::metadata(&old).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&old, perms).expect("chmod");
    let ext = home.path().join("x.ts");
    std::fs::write(&ext, THROWS).expect("extension");
    let mut rpc = support::Rpc::start_with(Start {
        stderr_to: Some(log.path().to_path_buf()),
        settings: Some(json!({"nodePath": old})),
        args: vec!["-e".into(), ext.display().to_string()],
        home: Some(home),
        ..Start::default()
    })
    .await;
    rpc.server.push(reply("No extensions, still fine."));
    assert_eq!(rpc.prompt_ok("p", "hi").await, "No extensions, still fine.");
    assert_eq!(rpc.close().await, Some(0));
    let stderr = support::read(log.path());
    assert!(
        stderr.contains("pi extensions need Node.js 22.18 or newer, but")
            && stderr.contains("old-node is v20.11.0")
            && stderr.contains("x.ts"),
        "{stderr}"
    );
}

/// A fake node that leaves a mark when rho runs it (it reports a version too old to go on).
fn marking_node(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let node = dir.join("marking-node");
    let mark = dir.join("node-ran");
    std::fs::write(
        &node,
        format!("#!/bin/sh\ntouch {}\necho v20.11.0\n", mark.display()),
    )
    .expect("fake node");
    let mut perms = std::fs::metadata(&node).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&node, perms).expect("chmod");
    (node, mark)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rho_without_pi_extensions_never_runs_node() {
    for with_pi in [false, true] {
        let home = tempfile::tempdir().expect("home");
        let (node, mark) = marking_node(home.path());
        let mut args = Vec::new();
        if with_pi {
            let ext = home.path().join("x.ts");
            std::fs::write(&ext, THROWS).expect("extension");
            args = vec!["-e".into(), ext.display().to_string()];
        }
        let mut rpc = support::Rpc::start_with(Start {
            settings: Some(json!({"nodePath": node})),
            args,
            home: Some(home),
            ..Start::default()
        })
        .await;
        rpc.call(json!({"id": "s", "type": "get_state"})).await;
        assert_eq!(mark.exists(), with_pi, "node ran only with a pi extension");
        assert_eq!(rpc.close().await, Some(0));
    }
}

const CRASHES: &str = r#"
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
export default function (pi: ExtensionAPI) {
  let pings = 0;
  pi.on("session_start", (event, ctx) => ctx.ui.notify(`started: ${event.reason}`, "info"));
  pi.registerCommand("crash", { handler: async () => process.exit(3) });
  pi.registerCommand("ping", {
    handler: async (_args, ctx) => ctx.ui.notify(`pong ${++pings}`),
  });
}
"#;
const BYSTANDER: &str = "export default function (pi) { pi.on(\"input\", () => undefined); }\n";

/// A host that dies is started again once (its extensions work, their memory is fresh); when
/// it dies again its extensions are unloaded. Both messages name the extension files.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashed_host_is_restarted_once_then_its_extensions_are_unloaded() {
    let files = [("crashes.ts", CRASHES), ("bystander.js", BYSTANDER)];
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, Start::default()).await else {
        return;
    };
    let notice = |v: &serde_json::Value, text: &str| {
        v["method"] == "notify" && v["message"].as_str().is_some_and(|m| m.contains(text))
    };
    rpc.wait(|v| v["message"] == "started: startup").await;
    rpc.call(json!({"id": "p1", "type": "prompt", "message": "/ping"}))
        .await;
    let pong = rpc
        .wait(|v| v["method"] == "notify" && v["message"] == "pong 1")
        .await;
    assert!(pong.get("notifyType").is_none(), "no type given: {pong}");
    rpc.call(json!({"id": "c1", "type": "prompt", "message": "/crash"}))
        .await;
    let restarted = rpc.wait(|v| notice(v, "restarted")).await;
    let text = restarted["message"].as_str().unwrap_or_default();
    assert!(
        text.contains("crashes.ts") && text.contains("bystander.js") && !text.contains("host.mjs"),
        "{text}"
    );
    // What the extensions set up at session_start, they set up again.
    rpc.wait(|v| v["message"] == "started: reload").await;
    rpc.call(json!({"id": "p2", "type": "prompt", "message": "/ping"}))
        .await;
    rpc.wait(|v| v["method"] == "notify" && v["message"] == "pong 1")
        .await;
    rpc.call(json!({"id": "c2", "type": "prompt", "message": "/crash"}))
        .await;
    let unloaded = rpc.wait(|v| notice(v, "are unloaded")).await;
    let text = unloaded["message"].as_str().unwrap_or_default();
    assert!(text.contains("crashes.ts"), "{text}");
    rpc.call(json!({"id": "p3", "type": "prompt", "message": "/ping"}))
        .await;
    let error = rpc
        .wait(|v| {
            v["type"] == "extension_error"
                && v["error"].as_str().is_some_and(|e| e.contains("unloaded"))
        })
        .await;
    assert!(
        error["error"]
            .as_str()
            .unwrap_or_default()
            .contains("crashes.ts"),
        "{error}"
    );
    rpc.server.push(reply("Session goes on."));
    assert_eq!(rpc.prompt_ok("after", "hello").await, "Session goes on.");
    assert_eq!(rpc.close().await, Some(0));
}
