//! A real terminal for the interactive mode: `rho` runs in a detached tmux pane of its own
//! server (so tests neither share state nor touch a user's tmux), keys go in with
//! `send-keys`, and the screen comes back as plain text from `capture-pane`. Waiting is
//! always for a condition, polled, with a deadline that fails the test showing the screen.
#![allow(dead_code)] // each test file uses a subset

use std::future::Future;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::common::Sandbox;
use rho_testkit::openai_chat::ChatStream;
use rho_testkit::MockResponse;

/// How long any awaited condition may take.
const DEADLINE: Duration = Duration::from_secs(10);
/// How often a condition is checked.
const POLL: Duration = Duration::from_millis(20);

static SERVERS: AtomicUsize = AtomicUsize::new(0);

/// Whether tmux can be run here. Tests skip (saying so) when it cannot.
pub fn tmux_available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// True (after printing a notice) when tmux is missing and the calling test must skip.
pub fn skip_without_tmux(test: &str) -> bool {
    if tmux_available() {
        return false;
    }
    eprintln!("SKIPPED {test}: tmux is not installed");
    true
}

/// One rho in one tmux pane (100 × 40); the tmux server dies with the guard.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `rho args` in the sandbox's project dir with the sandbox's environment only.
    /// The pane stays after rho exits, so its exit can be observed.
    pub fn start(sandbox: &Sandbox, args: &[&str]) -> Tmux {
        Tmux::start_with_env(sandbox, &[], args)
    }

    /// [`Tmux::start`] with `env` added to the sandbox's environment.
    pub fn start_with_env(sandbox: &Sandbox, env: &[(&str, &str)], args: &[&str]) -> Tmux {
        Tmux::start_program(sandbox, env, env!("CARGO_BIN_EXE_rho"), args)
    }

    /// [`Tmux::start_with_env`] running `program` instead of rho (pi beside it).
    pub fn start_program(
        sandbox: &Sandbox,
        env: &[(&str, &str)],
        program: &str,
        args: &[&str],
    ) -> Tmux {
        let mut line = vec![program];
        line.extend(args);
        Tmux::launch(sandbox, env, &line, false)
    }

    /// [`Tmux::start`] in a tmux with `extended-keys on` (as pi's tmux.md asks): keys with
    /// modifiers reach rho when it asks for them (`modifyOtherKeys`).
    pub fn start_extended(sandbox: &Sandbox, env: &[(&str, &str)], args: &[&str]) -> Tmux {
        let mut program = vec![env!("CARGO_BIN_EXE_rho")];
        program.extend(args);
        Tmux::launch(sandbox, env, &program, true)
    }

    /// An interactive `bash` (prompt `$ `) in the sandbox's environment plus `env`, with
    /// `extended-keys on`: the test types the commands (rho, then `fg`, `stty` ...).
    pub fn shell(sandbox: &Sandbox, env: &[(&str, &str)]) -> Tmux {
        let mut env = env.to_vec();
        env.push(("PS1", "$ "));
        Tmux::launch(
            sandbox,
            &env,
            &["bash", "--norc", "--noprofile", "-i"],
            true,
        )
    }

    /// `program` in a new pane of a new tmux server (`extended_keys`: that option on).
    fn launch(
        sandbox: &Sandbox,
        env: &[(&str, &str)],
        program: &[&str],
        extended_keys: bool,
    ) -> Tmux {
        let n = SERVERS.fetch_add(1, Ordering::SeqCst);
        let tmux = Tmux {
            socket: format!("rho-e2e-{}-{n}", std::process::id()),
        };
        let agent = sandbox.agent.path().display().to_string();
        let path = std::env::var("PATH").unwrap_or_default();
        let cwd = sandbox.cwd.display().to_string();
        let keys = if extended_keys { "on" } else { "off" };
        let mut cmd: Vec<String> = [
            "start-server",
            ";",
            "set-option",
            "-g",
            "remain-on-exit",
            "on",
            ";",
            "set-option",
            "-s",
            "extended-keys",
            keys,
            ";",
            "new-session",
            "-d",
            "-x",
            "100",
            "-y",
            "40",
            "-c",
            &cwd,
            "env",
            "-i",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        cmd.extend([
            format!("PATH={path}"),
            format!("HOME={agent}"),
            format!("RHO_CODING_AGENT_DIR={agent}"),
            "TERM=xterm-256color".to_string(),
            "LANG=C.UTF-8".to_string(),
        ]);
        cmd.extend(env.iter().map(|(k, v)| format!("{k}={v}")));
        cmd.extend(program.iter().map(|s| s.to_string()));
        // tmux 3.3 closes a pane whose program has exited at once, dropping output it has not
        // read yet (a transcript written just before exit), unless the pane is piped: then it
        // reads the pane dry first. The pipe keeps every byte of a last write on screen.
        cmd.extend([";", "pipe-pane", "-t", "0", "cat > /dev/null"].map(String::from));
        let out = tmux.run(&cmd.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(
            out.status.success(),
            "tmux new-session failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        tmux
    }

    /// Appends everything the pane's program writes to the terminal to `log` from now on (in
    /// place of the pipe every pane has, see [`Tmux::launch`]).
    pub fn record(&self, log: &std::path::Path) {
        let command = format!("cat >> '{}'", log.display());
        let out = self.run(&["pipe-pane", "-t", "0", &command]);
        assert!(out.status.success(), "pipe-pane failed");
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("run tmux")
    }

    /// Sends tmux key names (`Enter`, `Escape`, `C-c`, `M-Enter`, `Up`), one key each.
    pub fn send_keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "0"];
        args.extend(keys);
        let out = self.run(&args);
        assert!(out.status.success(), "send-keys {keys:?} failed");
    }

    /// Types `text` literally (no key-name lookup).
    pub fn type_text(&self, text: &str) {
        let out = self.run(&["send-keys", "-t", "0", "-l", text]);
        assert!(out.status.success(), "send-keys -l {text:?} failed");
    }

    /// Types `text`, then Enter.
    pub fn submit(&self, text: &str) {
        self.type_text(text);
        self.send_keys(&["Enter"]);
    }

    /// Resizes the window (rho sees a terminal resize).
    pub fn resize(&self, columns: u16, rows: u16) {
        let (x, y) = (columns.to_string(), rows.to_string());
        let out = self.run(&["resize-window", "-t", "0", "-x", &x, "-y", &y]);
        assert!(out.status.success(), "resize-window failed");
    }

    /// The visible screen as plain text, one line per row, trailing blanks trimmed.
    pub fn screen(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-t", "0"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The scrollback and the visible screen, oldest line first.
    pub fn history(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-S", "-", "-t", "0"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Sends `bytes` to rho as the terminal would (escape sequences such as mouse reports).
    pub fn send_bytes(&self, bytes: &[u8]) {
        let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let mut args = vec!["send-keys", "-t", "0", "-H"];
        args.extend(hex.iter().map(String::as_str));
        let out = self.run(&args);
        assert!(out.status.success(), "send-keys -H failed");
    }

    /// The visible screen with its colours (SGR escapes) kept.
    pub fn styled_screen(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-e", "-t", "0"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The pid of the pane's program (the shell, for [`Tmux::shell`]).
    pub fn pane_pid(&self) -> u32 {
        let out = self.run(&["display-message", "-p", "-t", "0", "#{pane_pid}"]);
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("tmux names the pane's pid")
    }

    /// Whether rho has exited (the pane is dead).
    pub fn exited(&self) -> bool {
        let out = self.run(&["display-message", "-p", "-t", "0", "#{pane_dead}"]);
        String::from_utf8_lossy(&out.stdout).trim() == "1"
    }

    /// Waits until the screen satisfies `holds`; returns that screen. Panics with the screen
    /// after the deadline.
    pub async fn wait_for(&self, what: &str, holds: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if holds(&screen) {
                return screen;
            }
            if start.elapsed() > DEADLINE {
                panic!("timed out waiting for {what}; the screen:\n{screen}");
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Waits until `text` is on screen.
    pub async fn wait_for_text(&self, text: &str) -> String {
        self.wait_for(&format!("{text:?} on screen"), |s| s.contains(text))
            .await
    }

    /// Waits until `text` has left the screen.
    /// Waits until `text` is off the screen in a settled frame: tmux 3.3 does not hold back
    /// a frame sent as one synchronized update, so a capture can fall between the erasing of
    /// a dialog and the drawing of what replaces it. Absent in two identical captures a poll
    /// apart is gone (or absent for the whole deadline on a screen that never settles, such as
    /// one with a spinner).
    pub async fn wait_for_gone(&self, text: &str) -> String {
        let what = format!("{text:?} to leave the screen");
        let start = Instant::now();
        loop {
            let gone = self.wait_for(&what, |s| !s.contains(text)).await;
            tokio::time::sleep(POLL).await;
            let again = self.screen();
            if again == gone || (!again.contains(text) && start.elapsed() > DEADLINE) {
                return again;
            }
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

/// The footer of a screen: its last two non-blank rows (location; tokens and model).
pub fn footer(screen: &str) -> String {
    let rows: Vec<&str> = screen.lines().filter(|l| !l.trim().is_empty()).collect();
    rows[rows.len().saturating_sub(2)..].join("\n")
}

/// The editor's rows: those between the last two horizontal rules, trimmed, blank ones left
/// out (empty when the editor is closed or empty).
pub fn editor(screen: &str) -> Vec<String> {
    let rows: Vec<&str> = screen.lines().collect();
    let is_rule = |l: &str| l.trim_start().starts_with("───");
    let rules: Vec<usize> = (0..rows.len()).filter(|&i| is_rule(rows[i])).collect();
    let [.., top, bottom] = rules.as_slice() else {
        return Vec::new();
    };
    rows[top + 1..*bottom]
        .iter()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Polls `holds` until it is true; panics naming `what` after the deadline.
pub async fn until(what: &str, mut holds: impl FnMut() -> bool) {
    let start = Instant::now();
    while !holds() {
        assert!(start.elapsed() < DEADLINE, "timed out waiting for {what}");
        tokio::time::sleep(POLL).await;
    }
}

/// Awaits `future` (an event such as a request arriving), failing after the deadline.
pub async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(DEADLINE, future).await {
        Ok(v) => v,
        Err(_) => panic!("timed out waiting for {what}"),
    }
}

/// The user texts of request `i` the mock provider received.
pub fn user_texts(sb: &Sandbox, i: usize) -> Vec<String> {
    crate::common::chat_messages(&sb.server.requests()[i].json())
        .into_iter()
        .filter(|(role, _)| role == "user")
        .map(|(_, text)| text)
        .collect()
}

/// A reply streamed in one delta per piece.
pub fn streamed(pieces: &[&str]) -> MockResponse {
    let mut stream = ChatStream::new("chatcmpl-e2e", "mock-model").role();
    for p in pieces {
        stream = stream.text(p);
    }
    stream.finish("stop").usage(40, 9, None).done().response()
}

/// A reply that calls one tool.
pub fn tool_call(name: &str, args: &str) -> MockResponse {
    ChatStream::new("chatcmpl-t", "mock-model")
        .role()
        .tool_call_start(0, "call_1", name)
        .tool_args(0, args)
        .finish("tool_calls")
        .usage(50, 10, None)
        .done()
        .response()
}

/// rho on the mock model, once its first frame (with the footer) is drawn.
pub async fn start(sb: &Sandbox) -> Tmux {
    let tmux = Tmux::start(sb, &["--model", "mock-model"]);
    tmux.wait_for("the footer", |s| footer(s).contains("mock-model"))
        .await;
    tmux
}
