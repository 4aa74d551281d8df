//! Cost of pi extensions in rho: the host's start-up (spawn to `register`) for one extension
//! without pi imports, one importing pi-ai and TypeBox, and all of pi's examples; then one
//! `input` event round trip rho → host → pi handler → rho through `ExtensionRunner::emit_input`
//! (the host asks rho for its state and the new session entries per event, so both are included;
//! this host's session has no entries); then one `render` round trip of a custom message drawn
//! by a pi-tui `Text` (what the interactive mode asks per drawn message or tool); then one
//! key typed into modal-editor.ts's editor (pi's `setEditorComponent`): the `component_input`
//! round trip and the `render` of the editor that follows it, as the interactive mode does per
//! key.
//!
//! Needs node ≥ 22.18 (`RHO_NODE` or `~/.cache/node24`) and pi's packages in
//! `~/.cache/rho-pi-test/npm` (the rho-cli pi tests install both). Run:
//! `cargo bench -p rho-pi-host --bench pi_host`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use rho_extension_host::process::{ProcessExtension, ProcessOptions};
use rho_extension_host::HostError;
use rho_extension_host::{
    CustomMessageInput, DeliverAs, ExtensionContext, ExtensionHost, ExtensionRunner, InputOutcome,
    NoUi, SendOptions,
};
use serde_json::Value;

const STARTS: usize = 5;
const WARMUP: usize = 200;
const EVENTS: usize = 2_000;

/// Answers the host's `get_state`; refuses everything else.
struct BenchHost;

impl ExtensionHost for BenchHost {
    fn cwd(&self) -> PathBuf {
        PathBuf::from(".")
    }
    fn model(&self) -> Option<rho_protocol::Model> {
        None
    }
    fn is_idle(&self) -> bool {
        true
    }
    fn has_pending_messages(&self) -> bool {
        false
    }
    fn system_prompt(&self) -> String {
        String::new()
    }
    fn abort(&self) {}
    fn send_message(
        &self,
        _: CustomMessageInput,
        _: SendOptions,
    ) -> BoxFuture<'static, Result<(), HostError>> {
        Box::pin(async { Err(HostError::Unsupported("is a bench host")) })
    }
    fn send_user_message(
        &self,
        _: String,
        _: Vec<rho_protocol::ImageContent>,
        _: Option<DeliverAs>,
    ) -> BoxFuture<'static, Result<(), HostError>> {
        Box::pin(async { Err(HostError::Unsupported("is a bench host")) })
    }
    fn append_entry(&self, _: String, _: Option<Value>) -> Result<(), HostError> {
        Err(HostError::Unsupported("is a bench host"))
    }
    fn set_session_name(&self, _: String) -> Result<(), HostError> {
        Err(HostError::Unsupported("is a bench host"))
    }
    fn session_entries(&self, from: usize) -> Result<Value, HostError> {
        Ok(
            serde_json::json!({"sessionId": "bench", "sessionFile": null, "header": null,
            "leafId": null, "total": from, "entries": []}),
        )
    }
}

struct Setup {
    node: rho_pi_host::Node,
    entry: PathBuf,
    packages: PathBuf,
    agent: tempfile::TempDir,
}

fn setup() -> Result<Setup, String> {
    let home = PathBuf::from(std::env::var("HOME").map_err(|_| "HOME unset")?);
    if std::env::var_os("RHO_NODE").is_none() {
        let out = std::process::Command::new("find")
            .arg(home.join(".cache/node24"))
            .args(["-name", "node", "-type", "f"])
            .output()
            .map_err(|e| e.to_string())?;
        let found = String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .map(str::to_string);
        if let Some(node) = found {
            std::env::set_var("RHO_NODE", node);
        }
    }
    let node = rho_pi_host::find_node(None).map_err(|e| e.to_string())?;
    let packages = home.join(".cache/rho-pi-test/npm");
    if !rho_pi_host::packages_ready(&packages) {
        return Err(format!(
            "{} has no pi packages: run `cargo test -p rho-cli --test it pi_extensions::` first",
            packages.display()
        ));
    }
    let agent = tempfile::tempdir().map_err(|e| e.to_string())?;
    let entry =
        rho_pi_host::install_host(&agent.path().join("pi-host")).map_err(|e| e.to_string())?;
    Ok(Setup {
        node,
        entry,
        packages,
        agent,
    })
}

async fn spawn(s: &Setup, extensions: &[PathBuf]) -> ProcessExtension {
    spawn_with(s, extensions, ProcessOptions::default()).await
}

async fn spawn_with(s: &Setup, extensions: &[PathBuf], base: ProcessOptions) -> ProcessExtension {
    let paths = rho_pi_host::HostPaths {
        node: &s.node,
        entry: &s.entry,
        packages: &s.packages,
        agent_dir: s.agent.path(),
    };
    let (program, args) = rho_pi_host::command(&paths, extensions);
    let options = ProcessOptions {
        handshake_timeout: Duration::from_secs(60),
        ..base
    };
    ProcessExtension::spawn(&program, &args, options)
        .await
        .expect("host starts")
}

fn median(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q) as usize];
    (at(0.5), at(0.9))
}

fn examples(s: &Setup) -> PathBuf {
    s.packages
        .join("node_modules/@earendil-works/pi-coding-agent/examples/extensions")
}

fn all_examples(dir: &Path) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    all.retain(|p| !p.ends_with("README.md"));
    all.sort();
    all
}

async fn startup(s: &Setup, label: &str, extensions: &[PathBuf]) {
    let mut samples = Vec::new();
    for _ in 0..STARTS {
        let start = Instant::now();
        let ext = spawn(s, extensions).await;
        samples.push(start.elapsed());
        drop(ext);
    }
    let (med, p90) = median(samples);
    println!(
        "pi host start-up, {label}: median {:.0} ms, p90 {:.0} ms over {STARTS} starts",
        med.as_secs_f64() * 1e3,
        p90.as_secs_f64() * 1e3
    );
}

async fn roundtrip(s: &Setup) {
    let ext = spawn(s, &[examples(s).join("input-transform.ts")]).await;
    let runner = ExtensionRunner::new(vec![ext.extension()], Arc::new(|e| panic!("{e:?}")));
    let ctx = ExtensionContext::new(Arc::new(BenchHost), Arc::new(NoUi));
    let mut samples = Vec::with_capacity(EVENTS);
    for i in 0..WARMUP + EVENTS {
        let start = Instant::now();
        let out = runner.emit_input("?quick hi", &[], "rpc", None, &ctx).await;
        let elapsed = start.elapsed();
        assert!(matches!(out, InputOutcome::Transform { ref text, .. } if text.ends_with(": hi")));
        if i >= WARMUP {
            samples.push(elapsed);
        }
    }
    let (med, p90) = median(samples);
    println!(
        "pi host input event round trip (input-transform.ts): median {:.0} µs, p90 {:.0} µs over {EVENTS} events",
        med.as_secs_f64() * 1e6,
        p90.as_secs_f64() * 1e6
    );
}

async fn render_roundtrip(s: &Setup) {
    use rho_extension_host::render::RenderTarget;
    let file = s.agent.path().join("note-renderer.ts");
    std::fs::write(
        &file,
        "import { Text } from \"@earendil-works/pi-tui\";\n\
         export default function (pi: any) {\n\
           pi.registerMessageRenderer(\"note\", (m: any, _o: any, theme: any) =>\n\
             new Text(theme.fg(\"accent\", String(m.content)), 0, 0));\n\
         }\n",
    )
    .expect("extension file");
    let ext = spawn(s, &[file]).await.extension();
    let renderer = ext.renderer().expect("a renderer").clone();
    let mut samples = Vec::with_capacity(EVENTS);
    for i in 0..WARMUP + EVENTS {
        let target = RenderTarget::Message {
            custom_type: "note".into(),
            content: Value::String(format!("note {i}")),
            details: None,
            expanded: false,
        };
        let start = Instant::now();
        let drawn = renderer.render(target, 80).await.expect("renders");
        let elapsed = start.elapsed();
        assert!(drawn
            .and_then(|d| d.lines)
            .is_some_and(|l| l[0].contains("note")));
        if i >= WARMUP {
            samples.push(elapsed);
        }
    }
    let (med, p90) = median(samples);
    println!(
        "pi host render round trip (a message drawn by pi-tui Text): median {:.0} µs, p90 {:.0} µs over {EVENTS} renders",
        med.as_secs_f64() * 1e6,
        p90.as_secs_f64() * 1e6
    );
}

/// A terminal UI that draws every component it is told of, and says when one is placed.
struct PlacingUi(tokio::sync::mpsc::UnboundedSender<String>);

impl rho_extension_host::ExtensionUi for PlacingUi {
    fn has_ui(&self) -> bool {
        true
    }
    fn set_component(
        &self,
        key: String,
        slot: Option<rho_extension_host::render::ComponentSlot>,
    ) -> bool {
        if slot.is_some() {
            let _ = self.0.send(key);
        }
        true
    }
}

async fn editor_keystroke(s: &Setup) {
    use rho_extension_host::render::RenderTarget;
    let options = ProcessOptions {
        has_ui: true,
        mode: Some("tui".into()),
        ..ProcessOptions::default()
    };
    let ext = spawn_with(s, &[examples(s).join("modal-editor.ts")], options).await;
    let renderer = ext.extension().renderer().expect("a renderer").clone();
    let runner = ExtensionRunner::new(vec![ext.extension()], Arc::new(|e| panic!("{e:?}")));
    let (placed, mut placements) = tokio::sync::mpsc::unbounded_channel();
    let ctx = ExtensionContext::new(Arc::new(BenchHost), Arc::new(PlacingUi(placed)));
    let start = rho_extension_host::ExtensionEvent::SessionStart {
        reason: "startup".into(),
        previous_session_file: None,
    };
    runner.emit(start, &ctx).await;
    let key = placements.recv().await.expect("the editor is placed");
    let mut samples = Vec::with_capacity(EVENTS);
    for i in 0..WARMUP + EVENTS {
        // Typing, with a backspace now and then so the line stays short.
        let data = if i % 20 == 19 { "\x7f" } else { "a" };
        let start = Instant::now();
        renderer
            .input(key.clone(), data.into())
            .await
            .expect("takes the key");
        let target = RenderTarget::Component { key: key.clone() };
        let drawn = renderer.render(target, 80).await.expect("renders");
        let elapsed = start.elapsed();
        assert!(drawn.and_then(|d| d.lines).is_some_and(|l| l.len() >= 3));
        if i >= WARMUP {
            samples.push(elapsed);
        }
    }
    let (med, p90) = median(samples);
    println!(
        "pi host custom editor keystroke (modal-editor.ts: key, then its render): median {:.0} µs, p90 {:.0} µs over {EVENTS} keys",
        med.as_secs_f64() * 1e6,
        p90.as_secs_f64() * 1e6
    );
}

fn main() {
    let s = match setup() {
        Ok(s) => s,
        Err(why) => {
            println!("pi_host bench skipped: {why}");
            return;
        }
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let ex = examples(&s);
        startup(
            &s,
            "input-transform.ts (no pi imports)",
            &[ex.join("input-transform.ts")],
        )
        .await;
        startup(&s, "hello.ts (pi-ai + TypeBox)", &[ex.join("hello.ts")]).await;
        let all = all_examples(&ex);
        startup(&s, &format!("all {} examples", all.len()), &all).await;
        roundtrip(&s).await;
        render_roundtrip(&s).await;
        editor_keystroke(&s).await;
    });
}
