//! One pi example extension observed in RPC mode, the same way for pi 1.6.0 and for rho: a
//! fresh home whose models.json points a custom provider at a loopback server, the example
//! copied in and loaded with `-e`, then a fixed script (the commands list, one prompt, each of
//! the extension's commands, end of input). Every dialog is cancelled. What was seen is kept
//! per phase, with the run's own home path and long numbers (timestamps) masked, so two runs
//! compare as values.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use rho_testkit::openai_chat::ChatStream;
use rho_testkit::MockServer;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::mpsc;

/// How long any one answer may take (pi loads heavy examples in seconds on a busy machine).
const WAIT: Duration = Duration::from_secs(60);

/// pi's own built-in extension commands, which rho does not ship (README, "What pi has that
/// rho does not").
pub const PI_BUILTIN_COMMANDS: [&str; 2] = ["llama", "mcp"];

/// Which program runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    Pi,
    Rho,
}

/// What runs and where its parts are.
pub struct Setup {
    /// node ≥ 22.19.
    pub node: PathBuf,
    /// pi 1.6's `dist/cli.js`.
    pub pi_cli: PathBuf,
    /// The npm prefix with pi's packages (rho's host links its `node_modules`).
    pub packages: PathBuf,
    /// pi's `examples/extensions/`.
    pub examples: PathBuf,
    /// Per example with npm dependencies, the folder holding its installed `node_modules`.
    pub deps: BTreeMap<String, PathBuf>,
}

/// One phase of the script: the extension UI requests written during it (masked, without
/// ids) and how many model requests it made.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Phase {
    pub ui: Vec<Value>,
    pub requests: usize,
}

/// Everything one run showed.
#[derive(Clone, Debug, Default)]
pub struct Observed {
    /// `get_commands`, without pi's built-in extension commands: name, description, source.
    pub commands: Vec<Value>,
    /// The tools of the first model request: name, description, parameters.
    pub tools: Vec<Value>,
    /// Per phase: `start`, `prompt`, `/<command>`, `shutdown`.
    pub phases: BTreeMap<String, Phase>,
    /// The exit code, `None` when the process had to be killed.
    pub exit: Option<i32>,
    /// Why the script stopped early, if it did.
    pub stopped: Option<String>,
    /// stderr, masked.
    pub stderr: String,
}

fn copy_tree(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).expect("mkdir");
        for entry in std::fs::read_dir(from).expect("read dir").flatten() {
            if entry.file_name() != "node_modules" {
                copy_tree(&entry.path(), &to.join(entry.file_name()));
            }
        }
    } else {
        std::fs::copy(from, to).expect("copy");
    }
}

fn reply() -> rho_testkit::MockResponse {
    ChatStream::new("chatcmpl-1", "loop-model")
        .role()
        .text("All fine.")
        .finish("stop")
        .usage(20, 5, None)
        .done()
        .response()
}

/// Masks what differs between any two runs: the home folder and long numbers.
fn mask(text: &str, home: &str) -> String {
    let text = text.replace(home, "<home>");
    let mut out = String::with_capacity(text.len());
    let mut digits = String::new();
    for c in text.chars().chain(std::iter::once('\0')) {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        if digits.len() >= 10 {
            out.push_str("<n>");
        } else {
            out.push_str(&digits);
        }
        digits.clear();
        if c != '\0' {
            out.push(c);
        }
    }
    out
}

fn mask_value(v: &Value, home: &str) -> Value {
    serde_json::from_str(&mask(&v.to_string(), home)).unwrap_or_else(|_| v.clone())
}

/// A running agent and its stdout lines.
struct Proc {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::UnboundedReceiver<Value>,
    next: u64,
}

impl Proc {
    async fn send(&mut self, v: Value) {
        if let Some(stdin) = self.stdin.as_mut() {
            let _ = stdin.write_all(format!("{v}\n").as_bytes()).await;
            let _ = stdin.flush().await;
        }
    }

    /// The next line, `None` at end of output or after [`WAIT`].
    async fn line(&mut self) -> Option<Value> {
        tokio::time::timeout(WAIT, self.lines.recv())
            .await
            .ok()
            .flatten()
    }
}

/// One run's state: the process, the phase now, what each phase saw.
struct Run<'a> {
    proc: Proc,
    server: &'a MockServer,
    home: String,
    phase: String,
    phases: BTreeMap<String, Phase>,
    counted: usize,
}

impl Run<'_> {
    fn enter(&mut self, phase: &str) {
        self.close_phase();
        self.phase = phase.to_string();
        self.phases.entry(self.phase.clone()).or_default();
    }

    fn close_phase(&mut self) {
        let now = self.server.requests().len();
        let seen = now - self.counted;
        self.counted = now;
        self.phases.entry(self.phase.clone()).or_default().requests += seen;
    }

    /// Reads lines until one matches `done`; UI requests are recorded, dialogs cancelled.
    async fn until(&mut self, done: impl Fn(&Value) -> bool) -> Result<Value, String> {
        loop {
            let Some(line) = self.proc.line().await else {
                return Err(format!("no more output in phase {}", self.phase));
            };
            if line["type"] == "extension_ui_request" {
                if ["select", "confirm", "input", "editor"]
                    .contains(&line["method"].as_str().unwrap_or_default())
                {
                    let answer = json!({"type": "extension_ui_response", "id": line["id"], "cancelled": true});
                    self.proc.send(answer).await;
                }
                let mut shown = line.clone();
                if let Some(o) = shown.as_object_mut() {
                    o.remove("id");
                    o.remove("type");
                }
                let shown = mask_value(&shown, &self.home);
                self.phases
                    .entry(self.phase.clone())
                    .or_default()
                    .ui
                    .push(shown);
            }
            if done(&line) {
                return Ok(line);
            }
        }
    }

    async fn call(&mut self, mut command: Value) -> Result<Value, String> {
        self.proc.next += 1;
        let id = format!("c{}", self.proc.next);
        command["id"] = json!(id);
        self.proc.send(command).await;
        self.until(move |v| v["type"] == "response" && v["id"] == json!(id))
            .await
    }

    /// Waits until nothing runs: no prompt streaming, nothing queued.
    async fn idle(&mut self) -> Result<(), String> {
        for _ in 0..2000 {
            let state = self.call(json!({"type": "get_state"})).await?;
            let data = &state["data"];
            if data["isStreaming"] == false
                && data["isCompacting"] != true
                && data["pendingMessageCount"].as_u64().unwrap_or(0) == 0
            {
                return Ok(());
            }
            tokio::task::yield_now().await;
        }
        Err("never idle".into())
    }
}

/// Runs the script against `who` with `example` loaded.
pub async fn observe(setup: &Setup, who: Who, example: &str) -> Observed {
    let server = MockServer::start().await;
    for _ in 0..40 {
        server.push(reply());
    }
    let home = tempfile::tempdir().expect("home");
    let agent = home.path().join("agent");
    let work = home.path().join("work");
    std::fs::create_dir_all(&agent).expect("agent dir");
    std::fs::create_dir_all(&work).expect("work dir");
    let models = json!({"providers": {"loop": {
        "baseUrl": format!("{}/v1", server.url()), "api": "openai-completions",
        "apiKey": "loopback-key",
        "models": [{"id": "loop-model", "name": "Loop", "reasoning": true,
                    "contextWindow": 128000, "maxTokens": 4096}]}}});
    std::fs::write(agent.join("models.json"), models.to_string()).expect("models.json");
    let settings = json!({"quietStartup": true, "nodePath": setup.node});
    std::fs::write(agent.join("settings.json"), settings.to_string()).expect("settings");
    let ext = home.path().join("exts").join(example);
    std::fs::create_dir_all(ext.parent().expect("parent")).expect("exts dir");
    copy_tree(&setup.examples.join(example), &ext);
    if let Some(deps) = setup.deps.get(example) {
        std::os::unix::fs::symlink(deps.join("node_modules"), ext.join("node_modules"))
            .expect("node_modules link");
    }
    let mut cmd = match who {
        Who::Pi => {
            let mut c = tokio::process::Command::new(&setup.node);
            c.arg(&setup.pi_cli);
            c
        }
        Who::Rho => {
            let host = agent.join("pi-host");
            std::fs::create_dir_all(&host).expect("pi-host");
            std::os::unix::fs::symlink(
                setup.packages.join("node_modules"),
                host.join("node_modules"),
            )
            .expect("packages link");
            tokio::process::Command::new(env!("CARGO_BIN_EXE_rho"))
        }
    };
    let node_dir = setup.node.parent().expect("node's folder");
    let path = format!(
        "{}:{}",
        node_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    cmd.args([
        "--mode",
        "rpc",
        "--no-session",
        "--model",
        "loop/loop-model",
        "-e",
    ])
    .arg(&ext)
    .env_clear()
    .env("PATH", path)
    .env("HOME", home.path())
    .env("TMPDIR", home.path())
    .env("PI_CODING_AGENT_DIR", &agent)
    .env("RHO_CODING_AGENT_DIR", &agent)
    .env("PI_OFFLINE", "1")
    .current_dir(&work)
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .kill_on_drop(true);
    let mut child = cmd.spawn().expect("the agent starts");
    let stdout = child.stdout.take().expect("stdout");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, lines) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut reader = BufReader::new(stdout).lines();
        while let Ok(Some(line)) = reader.next_line().await {
            let v = serde_json::from_str(&line).unwrap_or_else(|_| json!({"notJson": line}));
            if tx.send(v).is_err() {
                break;
            }
        }
    });
    let stderr_task = tokio::spawn(async move {
        let mut text = String::new();
        let _ =
            tokio::io::AsyncReadExt::read_to_string(&mut BufReader::new(stderr), &mut text).await;
        text
    });
    let home_text = home.path().to_string_lossy().into_owned();
    let mut run = Run {
        proc: Proc {
            stdin: child.stdin.take(),
            child,
            lines,
            next: 0,
        },
        server: &server,
        home: home_text.clone(),
        phase: "start".into(),
        phases: BTreeMap::new(),
        counted: 0,
    };
    let mut observed = Observed::default();
    let script = script(&mut run, &mut observed).await;
    observed.stopped = script.err();
    run.enter("shutdown");
    drop(run.proc.stdin.take());
    let _ = run.until(|_| false).await;
    let exit = tokio::time::timeout(WAIT, run.proc.child.wait()).await;
    observed.exit = match exit {
        Ok(Ok(status)) => status.code(),
        _ => {
            let _ = run.proc.child.kill().await;
            None
        }
    };
    run.close_phase();
    observed.phases = run.phases;
    observed.tools = first_tools(&server);
    observed.stderr = mask(&stderr_task.await.unwrap_or_default(), &home_text);
    observed
}

/// The fixed script; `Err` says where it stopped (the agent exited or never answered).
async fn script(run: &mut Run<'_>, observed: &mut Observed) -> Result<(), String> {
    let commands = run.call(json!({"type": "get_commands"})).await?;
    let mut own: Vec<String> = Vec::new();
    for c in commands["data"]["commands"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let name = c["name"].as_str().unwrap_or_default();
        if PI_BUILTIN_COMMANDS.contains(&name) {
            continue;
        }
        if c["source"] == "extension" {
            own.push(name.to_string());
        }
        observed.commands.push(json!({
            "name": name, "description": c["description"], "source": c["source"],
        }));
    }
    observed.commands.sort_by_key(Value::to_string);
    own.sort();
    run.enter("prompt");
    let r = run
        .call(json!({"type": "prompt", "message": "hello"}))
        .await?;
    if r["success"] == true {
        run.until(|v| v["type"] == "agent_settled").await?;
    }
    run.idle().await?;
    for name in own {
        run.enter(&format!("/{name}"));
        run.call(json!({"type": "prompt", "message": format!("/{name}")}))
            .await?;
        run.idle().await?;
    }
    Ok(())
}

/// The tools the first model request offered.
fn first_tools(server: &MockServer) -> Vec<Value> {
    let Some(first) = server.requests().first().map(|r| r.json()) else {
        return Vec::new();
    };
    first["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            let f = &t["function"];
            json!({"name": f["name"], "description": f["description"], "parameters": f["parameters"]})
        })
        .collect()
}
