//! Driving the real pi 1.6.0 in RPC mode against the loopback server: used to regenerate the
//! committed pi 1.6 session fixture (rho-core) and to check that pi 1.6 opens and continues
//! what rho wrote (rho-cli). pi 1.6 needs node ≥ 22.19: `RHO_PI16_NODE` (else the first `node` under
//! `~/.cache/node24`) and `RHO_PI16_CLI` (else pi's `dist/cli.js` under `~/.cache/pi16`).
//! `.ci/run` installs both; elsewhere the tests that need them skip with a printed reason.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// Why pi 1.6 cannot run here: the text a test prints when it skips, saying what to install.
#[derive(Debug, thiserror::Error)]
pub enum Unavailable {
    /// pi's CLI script is not where `RHO_PI16_CLI` (or the default) points.
    #[error("pi 1.6 is not installed ({} missing)", .0.display())]
    NoCli(PathBuf),
    /// No node binary under `~/.cache/node24` and no `RHO_PI16_NODE`.
    #[error("no node ≥ 22.19 under ~/.cache/node24")]
    NoNode,
    /// The node binary does not run.
    #[error("cannot run {}: {source}", .node.display())]
    NodeRun {
        /// The node binary.
        node: PathBuf,
        /// Why it did not start.
        #[source]
        source: std::io::Error,
    },
    /// The node binary is older than pi 1.6 needs.
    #[error("{} is node {version:?}; pi 1.6 needs ≥ 22.19", .node.display())]
    OldNode {
        /// The node binary.
        node: PathBuf,
        /// What `node --version` printed.
        version: String,
    },
    /// pi itself did not start.
    #[error("cannot start pi 1.6: {0}")]
    Start(#[source] std::io::Error),
}

/// The node binary and pi's CLI script, or why pi 1.6 cannot run here.
pub fn pi16() -> Result<(PathBuf, PathBuf), Unavailable> {
    let home = PathBuf::from(std::env::var("HOME").unwrap_or_default());
    let cli = std::env::var_os("RHO_PI16_CLI")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            home.join(".cache/pi16/node_modules/@earendil-works/pi-coding-agent/dist/cli.js")
        });
    if !cli.is_file() {
        return Err(Unavailable::NoCli(cli));
    }
    let node = match std::env::var_os("RHO_PI16_NODE") {
        Some(n) => PathBuf::from(n),
        None => find_node(&home.join(".cache/node24")).ok_or(Unavailable::NoNode)?,
    };
    node_is_new_enough(&node)?;
    Ok((node, cli))
}

/// pi 1.6 needs node ≥ 22.19; an older one fails in ways that look like rho's fault.
fn node_is_new_enough(node: &Path) -> Result<(), Unavailable> {
    let out = std::process::Command::new(node)
        .arg("--version")
        .output()
        .map_err(|source| Unavailable::NodeRun {
            node: node.to_path_buf(),
            source,
        })?;
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let mut parts = version.trim_start_matches('v').split('.');
    let mut number = || {
        parts
            .next()
            .and_then(|p| p.parse::<u32>().ok())
            .unwrap_or(0)
    };
    let (major, minor) = (number(), number());
    if (major, minor) < (22, 19) {
        return Err(Unavailable::OldNode {
            node: node.to_path_buf(),
            version,
        });
    }
    Ok(())
}

fn find_node(dir: &Path) -> Option<PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if path.is_dir() && !path.is_symlink() {
            if let Some(found) = find_node(&path) {
                return Some(found);
            }
        } else if path.file_name().is_some_and(|n| n == "node") && path.is_file() {
            return Some(path);
        }
    }
    None
}

/// Writes pi's agent folder: models.json naming the loopback server, settings, an extension.
pub fn write_agent_dir(agent: &Path, base_url: &str) {
    std::fs::create_dir_all(agent.join("extensions")).expect("agent dir");
    let models = json!({"providers": {"loop": {
        "baseUrl": base_url, "api": "openai-completions", "apiKey": "loopback-key",
        "models": [{"id": "loop-model", "name": "Loop", "reasoning": true,
                    "contextWindow": 128000, "maxTokens": 4096}]}}});
    std::fs::write(agent.join("models.json"), models.to_string()).expect("models.json");
    let settings = json!({"compaction": {"keepRecentTokens": 1}, "quietStartup": true});
    std::fs::write(agent.join("settings.json"), settings.to_string()).expect("settings");
    std::fs::write(agent.join("extensions/fixture.ts"), EXTENSION).expect("extension");
}

/// A tiny extension: `/fixture-state` writes a custom entry and a custom message,
/// `/fixture-branch` navigates back to the first question with a label.
const EXTENSION: &str = r#"export default function (pi) {
  pi.registerCommand("fixture-state", {
    description: "record fixture state",
    handler: async () => {
      pi.appendEntry("fixture-ext", { count: 1 });
      pi.sendMessage({ customType: "fixture-note", content: "note from the extension", display: true });
    },
  });
  pi.registerCommand("fixture-branch", {
    description: "go back to the first question",
    handler: async (_args, ctx) => {
      await ctx.waitForIdle();
      const first = ctx.sessionManager.getBranch().find((e) => e.type === "message" && e.message.role === "user");
      await ctx.navigateTree(first.id, { summarize: false, label: "first-question" });
    },
  });
  pi.registerCommand("fixture-edit", {
    description: "edit the last exchange in the model's context",
    handler: async (_args, ctx) => {
      await ctx.waitForIdle();
      const branch = ctx.sessionManager.getBranch().filter((e) => e.type === "message");
      const reply = branch.filter((e) => e.message.role === "assistant").pop();
      const asked = branch.filter((e) => e.message.role === "user").pop();
      ctx.sessionManager.appendContextEdit(reply.id, { content: "Edited reply." });
      ctx.sessionManager.appendContextEdit(asked.id, null);
    },
  });
}
"#;

/// A running `pi --mode rpc`.
pub struct Pi {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    next_id: u64,
}

impl Pi {
    /// Starts pi in `cwd` with `args` after `--mode rpc`; `Err` says why pi 1.6 cannot run.
    pub fn start(home: &Path, cwd: &Path, args: &[&str]) -> Result<Pi, Unavailable> {
        let (node, cli) = pi16()?;
        let mut child = Command::new(node)
            .arg(cli)
            .args(["--mode", "rpc"])
            .args(args)
            .current_dir(cwd)
            .env("HOME", home)
            .env("PI_CODING_AGENT_DIR", home.join("agent"))
            .env("PI_OFFLINE", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(Unavailable::Start)?;
        let stdin = child.stdin.take().expect("piped");
        let lines = BufReader::new(child.stdout.take().expect("piped")).lines();
        Ok(Pi {
            child,
            stdin,
            lines,
            next_id: 0,
        })
    }

    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(60), self.lines.next_line())
            .await
            .expect("pi 1.6 answers within a minute")
            .expect("pi's stdout")
            .expect("pi 1.6 exited early");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("pi wrote {line:?}: {e}"))
    }

    /// Sends a command and returns its response (events before it are dropped).
    pub async fn call(&mut self, command: Value) -> Value {
        self.call_and_see(command, |_| true).await
    }

    /// Sends a command and returns its response once a line `seen` accepts has come too,
    /// before or after the response (what an extension command it ran tells, say).
    pub async fn call_and_see(
        &mut self,
        mut command: Value,
        seen: impl Fn(&Value) -> bool,
    ) -> Value {
        self.next_id += 1;
        let id = format!("r{}", self.next_id);
        command["id"] = json!(id);
        let line = format!("{command}\n");
        self.stdin
            .write_all(line.as_bytes())
            .await
            .expect("pi stdin");
        let (mut response, mut saw) = (None, false);
        loop {
            let v = self.next().await;
            if v["type"] == "response" && v["id"] == json!(id) {
                assert_eq!(v["success"], true, "pi 1.6 refused {command}: {v}");
                response = Some(v);
            } else if seen(&v) {
                saw = true;
            }
            if let Some(r) = response.take_if(|r| saw || seen(r)) {
                return r;
            }
        }
    }

    /// Sends a command without waiting for anything (read what follows with
    /// [`Pi::lines_until`]).
    pub async fn send(&mut self, mut command: Value) {
        self.next_id += 1;
        command["id"] = json!(format!("r{}", self.next_id));
        let line = format!("{command}\n");
        self.stdin
            .write_all(line.as_bytes())
            .await
            .expect("pi stdin");
    }

    /// Waits for the event `name`.
    pub async fn wait_for(&mut self, name: &str) -> Value {
        loop {
            let v = self.next().await;
            if v["type"] == name {
                return v;
            }
        }
    }

    /// Every line until (and with) the first event `name`.
    pub async fn lines_until(&mut self, name: &str) -> Vec<Value> {
        let mut lines = Vec::new();
        loop {
            let v = self.next().await;
            let done = v["type"] == name;
            lines.push(v);
            if done {
                return lines;
            }
        }
    }

    /// Sends a prompt and waits until the agent settles.
    pub async fn prompt(&mut self, text: &str) {
        self.call(json!({"type": "prompt", "message": text})).await;
        self.wait_for("agent_end").await;
    }

    /// Ends pi.
    pub async fn stop(mut self) {
        drop(self.stdin);
        let _ = tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await;
    }
}
