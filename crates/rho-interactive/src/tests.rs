//! The interactive loop's behaviour without a terminal: inputs and messages go into an
//! [`App`] over a scripted provider, frames are drawn into a buffer and read as text.

use std::sync::Arc;
use std::time::Duration;

use rho_core::agent_session::{AgentSession, AgentSessionConfig, StaticCredentials};
use rho_extension_host::ExtensionUi;
use rho_testkit::scripted::{scripted_model, ScriptedProvider, ScriptedReply, Step};
use rho_tui::ansi::strip_ansi;
use rho_tui::input::KeyCode;
use rho_tui::Input;
use tokio::sync::mpsc;
use tokio::sync::Notify;

use super::app::{App, AppMsg};
use super::ext_ui::TuiUi;
use crate::options::{InteractiveHost, InteractiveOptions};

/// The binary's side as a test sets it: /reload reports what the test put in `reload_report`
/// (reading the files again is the binary's `session_reload`, tested there).
#[derive(Default)]
pub(crate) struct TestHost {
    pub(crate) reload_report: std::sync::Mutex<Option<rho_core::agent_session::ReloadReport>>,
}

impl InteractiveHost for TestHost {
    fn reload(
        &self,
        _session: AgentSession,
    ) -> futures_util::future::BoxFuture<'static, rho_core::agent_session::ReloadReport> {
        let report = self
            .reload_report
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .unwrap_or_default();
        Box::pin(async move { report })
    }
    fn mcp(&self) -> Option<Arc<rho_mcp::McpManager>> {
        None
    }
    fn theme_file(&self, _name: &str) -> Option<std::path::PathBuf> {
        None
    }
    fn llama_client(&self) -> Option<rho_ai::llama::LlamaClient> {
        None
    }
    fn refresh_llama(
        &self,
    ) -> futures_util::future::BoxFuture<
        'static,
        Result<(), rho_ai::models_store::refresh::RefreshError>,
    > {
        Box::pin(async { Ok(()) })
    }
}

/// Options as `rho` with no flags would get them, with `host`.
pub(crate) fn options(host: Arc<TestHost>) -> InteractiveOptions {
    InteractiveOptions {
        agent_dir: rho_session::paths::agent_dir(),
        session_dir: None,
        scoped_models: None,
        theme: None,
        verbose: false,
        tui_mode: None,
        resume: false,
        host,
    }
}

struct Harness {
    app: App,
    rx: mpsc::UnboundedReceiver<AppMsg>,
    events: mpsc::UnboundedReceiver<rho_core::agent_session::SessionEvent>,
    tx: mpsc::UnboundedSender<AppMsg>,
    session: AgentSession,
    /// The binary's side (what /reload reports).
    host: Arc<TestHost>,
    _dir: tempfile::TempDir,
}

impl Harness {
    fn new(provider: &ScriptedProvider) -> Self {
        Self::sized(provider, 80)
    }

    fn sized(provider: &ScriptedProvider, width: u16) -> Self {
        Self::configured(provider, width, |_| {})
    }

    /// A harness whose session config `adjust` changed first, past `session_start`.
    fn configured(
        provider: &ScriptedProvider,
        width: u16,
        adjust: impl FnOnce(&mut AgentSessionConfig),
    ) -> Self {
        let mut h = Self::unstarted(provider, width, adjust);
        h.app.handle(AppMsg::Started(None));
        h
    }

    /// A harness whose screen runs while extensions have not yet seen `session_start`.
    fn unstarted(
        provider: &ScriptedProvider,
        width: u16,
        adjust: impl FnOnce(&mut AgentSessionConfig),
    ) -> Self {
        Self::unstarted_sized(provider, (width, 24), adjust)
    }

    /// Like `unstarted`, on a terminal of `size` (columns, rows).
    fn unstarted_sized(
        provider: &ScriptedProvider,
        (width, height): (u16, u16),
        adjust: impl FnOnce(&mut AgentSessionConfig),
    ) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut config = AgentSessionConfig::new(dir.path());
        config.model = Some(scripted_model());
        config.credentials = Arc::new(StaticCredentials::new("scripted", "test-key"));
        config.stream_fn = provider.stream_fn();
        adjust(&mut config);
        let session = AgentSession::new(config);
        let (tx, rx) = mpsc::unbounded_channel();
        let events = session.subscribe();
        let host = Arc::new(TestHost::default());
        let app = App::new(
            session.clone(),
            options(host.clone()),
            tx.clone(),
            (width, height),
        );
        Self {
            app,
            rx,
            events,
            tx,
            session,
            host,
            _dir: dir,
        }
    }

    fn keys(&mut self, inputs: Vec<Input>) {
        for input in inputs {
            self.app.handle(AppMsg::Input(input));
        }
    }

    fn key(&mut self, code: KeyCode) {
        self.keys(vec![Input::key(code)]);
    }

    /// Handles every message and event that has arrived.
    fn pump(&mut self) {
        while let Ok(m) = self.rx.try_recv() {
            self.app.handle(m);
        }
        while let Ok(e) = self.events.try_recv() {
            self.app.apply_event(&e);
        }
    }

    /// Waits (bounded) for the next message from a task and handles it.
    async fn next_msg(&mut self) {
        let msg = tokio::time::timeout(Duration::from_secs(5), self.rx.recv())
            .await
            .expect("a message within 5 s")
            .expect("channel open");
        self.app.handle(msg);
    }

    /// Applies session events (bounded wait) until one named `name` has been applied.
    async fn until_event(&mut self, name: &str) {
        self.until_event_where(name, |_| true).await;
    }

    /// Like `until_event`, for the first such event whose JSON satisfies `pred`.
    async fn until_event_where(&mut self, name: &str, pred: impl Fn(&serde_json::Value) -> bool) {
        let wait = async {
            loop {
                let e = self.events.recv().await.expect("session alive");
                self.app.apply_event(&e);
                if e.type_name() == name && pred(&serde_json::to_value(&e).unwrap_or_default()) {
                    return;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(5), wait)
            .await
            .unwrap_or_else(|_| panic!("no matching {name} event within 5 s"));
    }

    /// The current frame as plain text (a fresh renderer draws it whole).
    fn screen(&mut self) -> String {
        self.pump();
        let mut out = Vec::new();
        self.app.redraw_into(&mut out);
        strip_ansi(&String::from_utf8_lossy(&out))
    }
}

#[tokio::test]
async fn extension_select_opens_in_the_tui_and_returns_the_choice() {
    let provider = ScriptedProvider::new();
    let mut h = Harness::new(&provider);
    let ui = TuiUi::new(h.tx.clone());
    let answer = ui.select("Pick a fruit".into(), vec!["apple".into(), "pear".into()]);
    h.pump();
    let screen = h.screen();
    assert!(screen.contains("Pick a fruit"), "{screen}");
    assert!(screen.contains("pear"), "{screen}");
    h.key(KeyCode::Down);
    h.key(KeyCode::Enter);
    assert_eq!(answer.await.as_deref(), Some("pear"));
    assert!(!h.screen().contains("Pick a fruit"));
}

#[tokio::test]
async fn extension_confirm_input_status_and_widget_reach_the_screen() {
    let provider = ScriptedProvider::new();
    let mut h = Harness::new(&provider);
    let ui = TuiUi::new(h.tx.clone());
    let confirm = ui.confirm("Really?".into(), "Delete it all".into());
    let input = ui.input("Your name".into(), Some("type here".into()));
    ui.set_status("ext".into(), Some("indexing 3/9".into()));
    ui.set_widget("todo".into(), Some(vec!["[ ] write tests".into()]));
    let screen = h.screen();
    assert!(screen.contains("Delete it all"), "{screen}");
    assert!(screen.contains("indexing 3/9"), "{screen}");
    assert!(screen.contains("[ ] write tests"), "{screen}");
    h.keys(vec![Input::char('y')]);
    assert!(confirm.await);
    // The input waited behind the confirm and opens now.
    assert!(h.screen().contains("Your name"));
    h.keys(Input::typed("Ada"));
    h.key(KeyCode::Enter);
    assert_eq!(input.await.as_deref(), Some("Ada"));
    ui.set_status("ext".into(), None);
    assert!(!h.screen().contains("indexing"));
}

#[tokio::test]
async fn extension_editor_edits_multi_line_text_and_set_editor_text_fills_the_prompt() {
    let provider = ScriptedProvider::new();
    let mut h = Harness::new(&provider);
    let ui = TuiUi::new(h.tx.clone());
    let edited = ui.editor("Commit message".into(), Some("fix: ".into()));
    assert!(h.screen().contains("Commit message"));
    h.keys(Input::typed("typo"));
    h.key(KeyCode::Enter);
    h.keys(Input::typed("details"));
    h.keys(vec![Input::ctrl('s')]);
    assert_eq!(edited.await.as_deref(), Some("fix: typo\ndetails"));
    ui.set_editor_text("prepared prompt".into());
    h.pump();
    assert_eq!(h.app.editor_text(), "prepared prompt");
}

#[tokio::test]
async fn enter_while_streaming_steers_alt_enter_queues_and_esc_brings_the_queue_back() {
    let provider = ScriptedProvider::new();
    let first = Arc::new(Notify::new());
    let second = Arc::new(Notify::new());
    provider.push(ScriptedReply::text("first").step(Step::Gate(first)));
    provider.push(ScriptedReply::text("second").step(Step::Gate(second)));
    let mut h = Harness::new(&provider);
    h.keys(Input::typed("hello\n"));
    provider.wait_for_calls(1).await;
    // D4: a steering message interrupts the stream and is sent at once.
    h.keys(Input::typed("also this\n"));
    provider.wait_for_calls(2).await;
    let sent = format!("{:?}", provider.requests()[1].messages);
    assert!(sent.contains("also this"), "{sent}");
    // A follow-up waits for the run to end, shown above the editor.
    h.keys(Input::typed("later"));
    h.keys(vec![Input::alt(KeyCode::Enter)]);
    h.until_event_where("queue_update", |e| e["followUp"][0] == "later")
        .await;
    let screen = h.screen();
    assert!(screen.contains("Follow-up: later"), "{screen}");
    assert!(screen.contains("Working..."), "{screen}");
    h.key(KeyCode::Esc);
    assert_eq!(h.app.editor_text(), "later");
    h.until_event("agent_end").await;
    let screen = h.screen();
    assert!(screen.contains("Operation aborted"), "{screen}");
    assert!(!screen.contains("Follow-up: later"), "{screen}");
    assert_eq!(provider.call_count(), 2);
}

#[tokio::test]
async fn ctrl_c_clears_the_editor_then_quits_on_a_second_press() {
    let provider = ScriptedProvider::new();
    let mut h = Harness::new(&provider);
    h.keys(Input::typed("draft"));
    h.keys(vec![Input::ctrl('c')]);
    assert_eq!(h.app.editor_text(), "");
    assert!(!h.app.should_quit());
    h.keys(vec![Input::ctrl('c')]);
    assert!(!h.app.should_quit());
    assert!(h.screen().contains("Press ctrl+c again to exit"));
    h.keys(vec![Input::ctrl('c')]);
    assert!(h.app.should_quit());
}

#[tokio::test]
async fn a_reply_streams_into_the_transcript_with_its_usage_in_the_footer() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("The answer is **42**.").with_usage(1500, 20));
    let mut h = Harness::new(&provider);
    h.keys(Input::typed("question\n"));
    h.until_event("agent_end").await;
    let screen = h.screen();
    assert!(screen.contains("question"), "{screen}");
    assert!(screen.contains("The answer is 42."), "{screen}");
    assert!(screen.contains("↑1.5k ↓20"), "{screen}");
    assert!(screen.contains(&scripted_model().id), "{screen}");
}

/// A prompt typed before extensions have seen `session_start` waits for it (a handler that
/// rebuilds its state there must not see the prompt's tool calls first), then goes.
#[tokio::test]
async fn a_prompt_typed_before_the_session_started_waits_for_the_start() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("Hello back."));
    let mut h = Harness::unstarted(&provider, 80, |_| {});
    h.keys(Input::typed("early\n"));
    // The test runtime has one thread: yielding lets a spawned prompt task run to its end
    // (the scripted provider answers at once), so a prompt sent too early shows here.
    for _ in 0..100 {
        tokio::task::yield_now().await;
    }
    h.pump();
    assert_eq!(
        provider.call_count(),
        0,
        "the prompt went before session_start"
    );
    assert!(h.session.messages().is_empty());
    h.app.handle(AppMsg::Started(None));
    h.until_event("agent_end").await;
    assert_eq!(provider.call_count(), 1);
    assert!(h.screen().contains("Hello back."));
}

#[tokio::test]
async fn bang_command_output_is_shown_and_recorded_for_the_model() {
    let provider = ScriptedProvider::new();
    let mut h = Harness::new(&provider);
    h.keys(Input::typed("!echo from-the-shell\n"));
    h.next_msg().await;
    while h.app.bash_running() {
        h.next_msg().await;
    }
    let screen = h.screen();
    assert!(screen.contains("from-the-shell"), "{screen}");
    let recorded = h.session.messages();
    assert!(
        matches!(recorded.last(), Some(rho_protocol::agent::AgentMessage::BashExecution(b)) if b.output.contains("from-the-shell"))
    );
}

#[tokio::test]
async fn slash_commands_run_built_ins_and_report_unknown_ones_through_the_prompt() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let mut h = Harness::new(&provider);
    h.keys(Input::typed("/name my work\n"));
    assert!(h.screen().contains("Session name set: my work"));
    assert_eq!(
        h.session.with_session(|s| s.name().map(str::to_string)),
        Some("my work".to_string())
    );
    h.keys(Input::typed("/hotkeys\n"));
    assert!(h.screen().contains("Cycle thinking level"));
    h.key(KeyCode::Esc);
    h.keys(Input::typed("/session\n"));
    assert!(h.screen().contains("Session info"));
    // Not built in: goes to the model as text.
    h.keys(Input::typed("/nonsense here\n"));
    h.until_event("agent_end").await;
    let sent = provider.requests();
    assert!(format!("{:?}", sent.last().map(|c| &c.messages)).contains("/nonsense here"));
}

#[tokio::test]
async fn set_api_key_writes_auth_json_and_the_key_is_used_at_once() {
    let agent = tempfile::tempdir().expect("agent dir");
    let provider = ScriptedProvider::new();
    let mut h = Harness::new(&provider);
    h.app.set_agent_dir(agent.path());
    // An older file readable by others: the write replaces it (a new inode) owner-only.
    let auth = agent.path().join("auth.json");
    std::fs::write(&auth, r#"{"openai":{"type":"api_key","key":"sk-old"}}"#).expect("old file");
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    std::fs::set_permissions(&auth, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let old_inode = std::fs::metadata(&auth).expect("metadata").ino();
    h.keys(Input::typed("/set api-key\n"));
    assert!(h.screen().contains("Usage: /set api-key <provider> <key>"));
    h.keys(Input::typed("/set api-key anthropic sk-test-123\n"));
    assert!(h.screen().contains("Logged in to anthropic"));
    let text = std::fs::read_to_string(agent.path().join("auth.json")).expect("auth.json");
    let json: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(json["anthropic"]["key"], "sk-test-123");
    assert_eq!(json["anthropic"]["type"], "api_key");
    assert_eq!(json["openai"]["key"], "sk-old", "other entries stay");
    let meta = std::fs::metadata(&auth).expect("metadata");
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert_ne!(meta.ino(), old_inode, "written beside and renamed over");
    let leftovers: Vec<_> = std::fs::read_dir(agent.path())
        .expect("list")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary file stays");
    h.keys(Input::typed("/logout anthropic\n"));
    assert!(h.screen().contains("Logged out of anthropic"));
    let text = std::fs::read_to_string(agent.path().join("auth.json")).expect("auth.json");
    assert!(!text.contains("sk-test-123"));
}

#[tokio::test]
async fn the_whole_frame_at_two_widths() {
    for width in [80u16, 40] {
        let provider = ScriptedProvider::new();
        provider.push(
            ScriptedReply::new()
                .with_text(&["Use `cargo test`:\n\n```sh\ncargo test -p rho-cli\n```"])
                .with_usage(2100, 35),
        );
        let mut h = Harness::sized(&provider, width);
        h.keys(Input::typed("how do I run the tests?\n"));
        h.until_event("agent_end").await;
        h.keys(Input::typed("next question"));
        let cwd = h.session.cwd().display().to_string();
        let screen = h.screen().replace(&cwd, "<cwd>");
        let trimmed: Vec<&str> = screen.lines().map(str::trim_end).collect();
        insta::assert_snapshot!(format!("frame_{width}"), trimmed.join("\n"));
    }
}

#[tokio::test]
async fn alt_enter_while_idle_works_like_enter() {
    let provider = ScriptedProvider::new();
    let mut h = Harness::new(&provider);
    h.keys(Input::typed("/name from alt enter"));
    h.keys(vec![Input::alt(KeyCode::Enter)]);
    assert_eq!(
        h.session.with_session(|s| s.name().map(str::to_string)),
        Some("from alt enter".to_string())
    );
    assert_eq!(provider.call_count(), 0);
}

#[tokio::test]
async fn the_note_about_a_session_switch_survives_the_rebuild() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("old answer"));
    let mut h = Harness::new(&provider);
    h.keys(Input::typed("old question\n"));
    h.until_event("agent_end").await;
    h.keys(Input::typed("/new\n"));
    h.next_msg().await;
    let screen = h.screen();
    assert!(screen.contains("New session started"), "{screen}");
    assert!(!screen.contains("old answer"), "{screen}");
}

/// How a run is brought to its end in [`the_indicator_leaves_the_screen_when_a_run_ends`].
#[derive(Debug, Clone, Copy)]
enum RunEnd {
    Finishes,
    Esc,
    Steer,
}

/// A frame drawn while the run is busy shows the indicator; once the session is idle (its
/// last event already drawn, none following), the loop's next tick draws a frame without it.
#[tokio::test]
async fn the_indicator_leaves_the_screen_when_a_run_ends() {
    for end in [RunEnd::Finishes, RunEnd::Esc, RunEnd::Steer] {
        let provider = ScriptedProvider::new();
        let gate = Arc::new(Notify::new());
        provider.push(ScriptedReply::text("first").step(Step::Gate(gate.clone())));
        provider.push(ScriptedReply::text("after the steer"));
        let mut h = Harness::new(&provider);
        h.keys(Input::typed("hello\n"));
        h.until_event("message_update").await;
        h.app.draw(&mut std::io::sink());
        assert!(h.app.last_frame().contains("Working..."), "{end:?}");
        match end {
            RunEnd::Finishes => gate.notify_one(),
            RunEnd::Esc => h.key(KeyCode::Esc),
            RunEnd::Steer => h.keys(Input::typed("steer\n")),
        }
        tokio::time::timeout(Duration::from_secs(5), h.session.wait_for_idle())
            .await
            .expect("the run ends within 5 s");
        h.app.tick(&mut std::io::sink());
        let frame = h.app.last_frame();
        assert!(!frame.contains("Working..."), "{end:?}:\n{frame}");
    }
}

#[tokio::test]
async fn without_a_model_the_first_frame_says_what_to_do() {
    let provider = ScriptedProvider::new();
    let mut h = Harness::configured(&provider, 200, |c| c.model = None);
    let screen = h.screen();
    assert!(screen.contains("No model selected."), "{screen}");
    for step in [
        "/login",
        "/set api-key",
        "ANTHROPIC_API_KEY",
        "models.json",
        "/model",
    ] {
        assert!(screen.contains(step), "{step} missing: {screen}");
    }
}

#[tokio::test]
async fn a_model_without_a_key_is_named_at_start() {
    let provider = ScriptedProvider::new();
    let mut h = Harness::configured(&provider, 200, |c| {
        c.credentials = Arc::new(StaticCredentials::new("someone-else", "k"));
    });
    let screen = h.screen();
    assert!(
        screen.contains("No API key found for scripted. Use /login scripted"),
        "{screen}"
    );
    let provider = ScriptedProvider::new();
    let mut h = Harness::new(&provider);
    assert!(!h.screen().contains("No API key"), "no warning with a key");
}

#[tokio::test]
async fn context_use_shows_from_the_first_frame() {
    let provider = ScriptedProvider::new();
    let mut h = Harness::new(&provider);
    let screen = h.screen();
    assert!(screen.contains("0.0%/128k"), "{screen}");
    assert!(screen.contains("(scripted) scripted-model"), "{screen}");
}

#[tokio::test]
async fn export_to_a_jsonl_path_writes_the_session_not_html() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("an answer"));
    let mut h = Harness::new(&provider);
    h.keys(Input::typed("a question\n"));
    h.until_event("agent_end").await;
    h.keys(Input::typed("/export out.jsonl\n"));
    let screen = h.screen();
    assert!(screen.contains("Session exported to:"), "{screen}");
    let text = std::fs::read_to_string(h.session.cwd().join("out.jsonl")).expect("written");
    assert!(!text.contains("<html"), "{text}");
    let first: serde_json::Value =
        serde_json::from_str(text.lines().next().unwrap_or_default()).expect("JSON lines");
    assert_eq!(first["type"], "session");
    assert!(text.contains("an answer"));
}

mod commands;
mod compaction;
mod fullscreen;
mod keybindings;
mod terminal_keys;

/// A command an extension registers while the session runs (pi's `registerCommand` from a
/// handler or a command) joins the `/` completion on the loop's next tick.
#[tokio::test]
async fn a_command_registered_later_joins_the_slash_completion() {
    let provider = ScriptedProvider::new();
    let mut h = Harness::new(&provider);
    h.keys(Input::typed("/lat"));
    assert!(!h.screen().contains("/late-cmd"));
    let command = rho_extension_host::CommandDef {
        complete: None,
        name: "late-cmd".into(),
        description: Some("Registered later".into()),
        handler: Arc::new(|_, _| Box::pin(async { Ok(()) })),
    };
    h.session
        .extensions()
        .add_command(command, "late.ts".into());
    h.app.tick(&mut std::io::sink());
    // The open list filters again with the next key.
    h.keys(Input::typed("e"));
    let screen = h.screen();
    assert!(screen.contains("/late-cmd"), "{screen}");
    assert!(screen.contains("Registered later"), "{screen}");
}
