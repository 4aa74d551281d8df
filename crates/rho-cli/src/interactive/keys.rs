//! What keys do on the main screen (pi's bindings): the open dialog takes every key; otherwise
//! extension shortcuts come first (see `ext_shortcuts`), then the editor gets its pick and the
//! keys it leaves are the app's.
//!
//! | key | action |
//! |---|---|
//! | Enter | send; while the agent runs, queue a steering message |
//! | Alt+Enter | queue a follow-up (sent when the agent would stop) |
//! | Esc | interrupt the agent, a compaction, a retry wait or a `!` command |
//! | Ctrl+C | clear the editor; twice on an empty editor, quit |
//! | Ctrl+D | quit when the editor is empty |
//! | Ctrl+O / Ctrl+T | expand tool output / thinking blocks |
//! | Shift+Tab / Ctrl+P | next thinking level / next model |
//! | Ctrl+L | model selector |
//! | Alt+Up | take the queued messages back into the editor |

use std::time::{Duration, Instant};

use rho_tui::editor::EditorAction;
use rho_tui::input::{KeyCode, KeyModifiers};
use rho_tui::Input;

use super::app::{App, AppMsg};

/// Two Ctrl+C presses closer than this quit.
const DOUBLE_PRESS: Duration = Duration::from_millis(1000);

/// The rows of /hotkeys: key, action.
pub const HOTKEYS: &[(&str, &str)] = &[
    ("enter", "send (while working: steer)"),
    ("alt+enter", "queue a follow-up message"),
    ("shift+enter, ctrl+j", "new line"),
    ("esc", "interrupt"),
    ("ctrl+c", "clear editor (twice: exit)"),
    ("ctrl+d", "exit (empty editor)"),
    ("ctrl+o", "expand/collapse tool output"),
    ("ctrl+t", "show/hide thinking blocks"),
    ("shift+tab", "cycle thinking level"),
    ("ctrl+p", "cycle models"),
    ("ctrl+l", "select model"),
    ("alt+up", "edit queued messages"),
    ("tab", "complete path or command"),
    ("@", "reference a file"),
    ("!cmd / !!cmd", "run bash (!! keeps it out of the context)"),
    ("/", "commands"),
];

impl App {
    /// Handles a key or paste.
    pub(super) fn handle_input(&mut self, input: &Input) {
        if self.dialog.is_some() {
            self.dialog_input(input);
            return;
        }
        if let Some(key) = self.ext_render.focused() {
            return self.component_key(key, input);
        }
        if self.shortcut_key(input) {
            return;
        }
        match self.editor.handle(input) {
            EditorAction::Handled => self.last_ctrl_c = None,
            EditorAction::Submit(text) => self.submit(text),
            EditorAction::Ignored => self.app_key(input),
        }
    }

    fn app_key(&mut self, input: &Input) {
        if input.is_ctrl('c') {
            return self.ctrl_c();
        }
        self.last_ctrl_c = None;
        if input.is_plain(KeyCode::Esc) {
            self.interrupt();
        } else if input.is(KeyCode::Enter, KeyModifiers::ALT) {
            let text = self.editor.take_submission();
            self.submit_follow_up(text);
        } else if input.is_ctrl('d') {
            if self.editor.is_empty() {
                self.quit = true;
            }
        } else if input.is_ctrl('o') {
            self.tools_expanded = !self.tools_expanded;
            self.transcript.set_tools_expanded(self.tools_expanded);
        } else if input.is_ctrl('t') {
            self.thinking_expanded = !self.thinking_expanded;
            self.transcript
                .set_thinking_expanded(self.thinking_expanded);
        } else if input.is(KeyCode::BackTab, KeyModifiers::SHIFT)
            || input.is_plain(KeyCode::BackTab)
        {
            self.cycle_thinking();
        } else if input.is_ctrl('p') {
            self.cycle_model();
        } else if input.is_ctrl('l') {
            self.open_model_selector(None);
        } else if input.is(KeyCode::Up, KeyModifiers::ALT) {
            self.restore_queue();
        }
    }

    /// Clears a non-empty editor; on an empty one, a second press within a second quits.
    fn ctrl_c(&mut self) {
        if !self.editor.is_empty() {
            self.editor.clear();
            self.last_ctrl_c = None;
            return;
        }
        let now = Instant::now();
        if self
            .last_ctrl_c
            .is_some_and(|t| now.duration_since(t) < DOUBLE_PRESS)
        {
            self.quit = true;
        } else {
            self.last_ctrl_c = Some(now);
            self.notice("Press ctrl+c again to exit".into(), false);
        }
    }

    /// Esc: stops whatever runs. Queued messages come back to the editor (pi), so an
    /// interrupted steer is not lost.
    fn interrupt(&mut self) {
        if self.session.is_bash_running() {
            self.session.abort_bash();
        }
        if !self.is_busy() {
            return;
        }
        self.restore_queue();
        self.session.abort_compaction();
        self.session.abort_branch_summary();
        let session = self.session.clone();
        tokio::spawn(async move { session.abort().await });
    }

    /// Moves every queued message back into the editor, above what is typed.
    fn restore_queue(&mut self) {
        let queued = self.session.clear_queue();
        let mut texts: Vec<String> = queued.steering;
        texts.extend(queued.follow_up);
        if texts.is_empty() {
            return;
        }
        let current = self.editor.text().to_string();
        if !current.is_empty() {
            texts.push(current);
        }
        self.editor.set_text(&texts.join("\n\n"));
    }

    fn cycle_thinking(&mut self) {
        let models = self.models.clone();
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let text = match models.cycle_level().await {
                Some(level) => format!("Thinking level: {}", level.as_str()),
                None => "Current model does not support thinking".into(),
            };
            let _ = tx.send(AppMsg::Notice { text, error: false });
        });
    }

    fn cycle_model(&mut self) {
        let models = self.models.clone();
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let (text, error) = match models.cycle_model().await {
                Ok(Some(c)) => (format!("Model: {}/{}", c.model.provider, c.model.id), false),
                Ok(None) => ("Only one model available".into(), false),
                Err(e) => (e.to_string(), true),
            };
            let _ = tx.send(AppMsg::Notice { text, error });
        });
    }
}
