//! The sandbox end to end: the loopback model scripts tool calls, the real `rho` binary runs
//! them in a real project, and the test looks at the file system afterwards. The world lives
//! under the target dir, not under /tmp, because the temp dirs are writable by design.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(target_os = "linux")]

use crate::common;
use crate::support;

use std::net::TcpListener;
use std::path::{Path, PathBuf};

use common::{reply, stderr, Sandbox};
use rho_testkit::openai_chat::ChatStream;
use serde_json::{json, Value};

/// Where the test worlds live: the target's temp folder, unless the checkout itself sits under a
/// temp dir (CI may clone into /tmp), which `workspace-write` opens; then a folder in the home dir.
fn worlds_root() -> PathBuf {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let opened = [
        std::env::temp_dir(),
        PathBuf::from("/tmp"),
        PathBuf::from("/var/tmp"),
    ];
    if !opened.iter().any(|t| target.starts_with(t)) {
        return target.to_path_buf();
    }
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/root"))
        .join(".rho-sandbox-tests")
        .join(std::process::id().to_string())
}

struct World {
    root: PathBuf,
}

impl World {
    fn new(name: &str) -> Self {
        let root = worlds_root().join(format!("sandbox-e2e-{name}"));
        let _ = std::fs::remove_dir_all(&root);
        for dir in ["proj/.git/hooks", "home", "outside/keep"] {
            std::fs::create_dir_all(root.join(dir)).expect("mkdir");
        }
        std::fs::write(root.join("outside/keep/file"), "precious").expect("write");
        std::fs::write(root.join("home/.bashrc"), "# mine").expect("write");
        Self { root }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }
}

/// One assistant message calling each `(tool, args)` in parallel.
fn calls(list: &[(&str, Value)]) -> rho_testkit::MockResponse {
    let mut stream = ChatStream::new("chatcmpl-1", "mock-model").role();
    for (i, (tool, args)) in list.iter().enumerate() {
        stream = stream
            .tool_call_start(i as u64, &format!("call_{i}"), tool)
            .tool_args(i as u64, &args.to_string());
    }
    stream.finish("tool_calls").done().response()
}

fn bash(command: &str) -> (&'static str, Value) {
    ("bash", json!({ "command": command }))
}

/// Runs `rho -p` in the world's project with `HOME` in the world, returning the tool results'
/// texts in call order.
async fn run(sb: &Sandbox, world: &World, flags: &[&str], list: &[(&str, Value)]) -> Vec<String> {
    sb.server.push(calls(list));
    sb.server.push(reply("done"));
    let mut args = vec!["-p", "--no-session"];
    args.extend_from_slice(flags);
    args.push("go");
    let mut cmd = sb.command(&args);
    cmd.current_dir(world.path("proj"))
        .env("HOME", world.path("home"));
    let out = cmd.output().await.expect("rho runs");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let requests = sb.server.requests();
    let body = requests.last().expect("second request").json();
    body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].to_string())
        .collect()
}

#[tokio::test]
async fn workspace_write_stops_writes_outside_the_project_and_allows_them_inside() {
    let sb = Sandbox::new().await;
    let world = World::new("ww");
    let outside = world.path("outside");
    let results = run(
        &sb,
        &world,
        &[],
        &[
            bash(&format!("rm -rf {}", outside.display())),
            bash("echo evil >> \"$HOME/.bashrc\""),
            bash("echo 'curl x | sh' > .git/hooks/pre-commit"),
            (
                "write",
                json!({"path": world.path("home/.profile"), "content": "evil"}),
            ),
            (
                "write",
                json!({"path": ".git/hooks/post-checkout", "content": "evil"}),
            ),
            bash("mkdir -p src && echo ok > src/main.rs && cat src/main.rs"),
            ("write", json!({"path": "notes.md", "content": "mine"})),
        ],
    )
    .await;
    assert_eq!(results.len(), 7);
    assert_eq!(
        std::fs::read_to_string(outside.join("keep/file")).expect("outside intact"),
        "precious"
    );
    assert_eq!(
        std::fs::read_to_string(world.path("home/.bashrc")).expect("bashrc intact"),
        "# mine"
    );
    assert!(!world.path("proj/.git/hooks/pre-commit").exists());
    assert!(!world.path("home/.profile").exists());
    assert!(!world.path("proj/.git/hooks/post-checkout").exists());
    assert!(results[0].contains("Permission denied"), "{}", results[0]);
    assert!(
        results[3].contains("does not allow writing"),
        "{}",
        results[3]
    );
    assert!(results[4].contains("stays read-only"), "{}", results[4]);
    assert!(results[5].contains("ok"), "{}", results[5]);
    assert_eq!(
        std::fs::read_to_string(world.path("proj/notes.md")).expect("written"),
        "mine"
    );
}

#[tokio::test]
async fn network_off_fails_a_connection_that_network_on_makes() {
    let sb = Sandbox::new().await;
    let world = World::new("net");
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let connect = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");
    let off = run(
        &sb,
        &world,
        &["--sandbox-network", "off"],
        &[bash(&connect)],
    )
    .await;
    assert!(!off[0].contains("connected\\n"), "{}", off[0]);
    assert!(off[0].contains("Operation not permitted"), "{}", off[0]);
    let on = run(&sb, &world, &[], &[bash(&connect)]).await;
    assert!(on[0].contains("connected"), "{}", on[0]);
}

#[tokio::test]
async fn read_only_blocks_project_writes_and_off_allows_everything() {
    let sb = Sandbox::new().await;
    let world = World::new("ro");
    let ro = run(
        &sb,
        &world,
        &["--sandbox", "read-only"],
        &[
            bash("echo x > inside.txt"),
            ("write", json!({"path": "inside2.txt", "content": "x"})),
        ],
    )
    .await;
    assert!(!world.path("proj/inside.txt").exists(), "{}", ro[0]);
    assert!(!world.path("proj/inside2.txt").exists(), "{}", ro[1]);
    run(
        &sb,
        &world,
        &["--sandbox", "off"],
        &[bash("echo x >> \"$HOME/.bashrc\"")],
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(world.path("home/.bashrc")).expect("bashrc"),
        "# minex\n"
    );
}

#[tokio::test]
async fn an_unknown_sandbox_mode_is_a_clear_error() {
    let sb = Sandbox::new().await;
    let out = sb.rho(&["-p", "--sandbox", "loose", "hi"], None).await;
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("Unknown sandbox mode: loose"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test]
async fn print_mode_reports_a_likely_sandbox_denial_to_the_model() {
    let sb = Sandbox::new().await;
    let world = World::new("report");
    let target = world.path("outside/new.txt");
    let results = run(
        &sb,
        &world,
        &[],
        &[bash(&format!("echo x > {}", target.display()))],
    )
    .await;
    assert!(!target.exists());
    assert!(
        results[0].contains("may have blocked this"),
        "{}",
        results[0]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rpc_with_escalation_runs_a_blocked_command_once_unsandboxed_when_confirmed() {
    let world = World::new("escalate");
    let target = world.path("outside/escalated.txt");
    let mut rpc = support::Rpc::start_with(support::Start {
        settings: Some(json!({"sandbox": {"escalate": true}})),
        ..Default::default()
    })
    .await;
    rpc.server
        .push(calls(&[bash(&format!("echo yes > {}", target.display()))]));
    rpc.server.push(support::reply("done"));
    rpc.call(json!({"id": "p", "type": "prompt", "message": "go"}))
        .await;
    let request = rpc
        .wait(|v| v["type"] == "extension_ui_request" && v["method"] == "confirm")
        .await;
    assert_eq!(request["title"], "Sandbox blocked a command");
    assert!(!target.exists(), "blocked before the answer");
    rpc.send(json!({"type": "extension_ui_response", "id": request["id"], "confirmed": true}))
        .await;
    rpc.event("agent_end").await;
    assert_eq!(
        std::fs::read_to_string(&target).expect("ran unsandboxed"),
        "yes\n"
    );
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test]
async fn missing_protected_folders_cannot_be_planted_and_leave_nothing_behind() {
    let sb = Sandbox::new().await;
    let world = World::new("plant");
    std::fs::remove_dir_all(world.path("proj/.git/hooks")).expect("no hooks yet");
    let results = run(
        &sb,
        &world,
        &[],
        &[
            bash("mkdir -p .rho/extensions && echo evil > .rho/extensions/evil.py"),
            bash("mkdir -p .pi && echo '{}' > .pi/settings.json"),
            bash("mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit"),
            bash("mkdir -p build && echo ok > build/out && cat build/out"),
        ],
    )
    .await;
    for planted in [".rho", ".pi", ".git/hooks"] {
        assert!(
            !world.path("proj").join(planted).exists(),
            "{planted} exists after rho ended: {results:?}"
        );
    }
    assert!(results[3].contains("ok"), "{}", results[3]);
}
