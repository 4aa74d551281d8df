//! What keys do on the main screen, in pi's order: the open dialog takes every key; an
//! extension's focused component comes next; in fullscreen the transcript's scroll keys
//! (`tui.altScreen.*`); then extension shortcuts, then the app's actions (pi's `app.*`), and
//! what is left goes to the editor. Every key is looked up in the keymap, so
//! keybindings.json remaps and unbinds them all (see `keybindings`).

use std::time::{Duration, Instant};

use rho_tui::editor::EditorAction;
use rho_tui::{Action, Input};

use super::app::{App, AppMsg};

/// Two Ctrl+C presses closer than this quit.
const DOUBLE_PRESS: Duration = Duration::from_millis(1000);

/// The app's actions on the main screen, tried in pi's order after the special cases.
pub(super) const APP_ACTIONS: &[Action] = &[
    Action::Clear,
    Action::ThinkingCycle,
    Action::ModelCycleForward,
    Action::ModelSelect,
    Action::ToolsExpand,
    Action::ThinkingToggle,
    Action::MessageCopy,
    Action::MessageFollowUp,
    Action::MessageDequeue,
    Action::SessionNew,
    Action::SessionTree,
    Action::SessionFork,
    Action::SessionResume,
];

impl App {
    /// Handles a key, paste or wheel notch.
    pub(super) fn handle_input(&mut self, input: &Input) {
        if let Input::Wheel { down, alt } = input {
            return self.wheel(*down, *alt);
        }
        if self.dialog.is_some() {
            self.dialog_input(input);
            return;
        }
        if let Some(key) = self.ext_render.focused() {
            return self.component_key(key, input);
        }
        if self.fullscreen_key(input) || self.shortcut_key(input) || self.app_key(input) {
            return;
        }
        match self.editor.handle(input, &self.keymap) {
            EditorAction::Submit(text) => self.submit(text),
            EditorAction::Handled | EditorAction::Ignored => {}
        }
    }

    /// The app's actions (pi's CustomEditor): true when `input` was one.
    fn app_key(&mut self, input: &Input) -> bool {
        let keys = std::sync::Arc::clone(&self.keymap);
        if !keys.matches(input, Action::Clear) && input.as_key().is_some() {
            self.last_ctrl_c = None;
        }
        let completing = self.editor.is_completing();
        if completing
            && keys
                .first_match(input, &[Action::SelectPageUp, Action::SelectPageDown])
                .is_some()
        {
            return false;
        }
        if keys.matches(input, Action::Interrupt) {
            if completing {
                return false;
            }
            self.interrupt();
            return true;
        }
        if keys.matches(input, Action::Exit) && self.editor.is_empty() {
            self.quit = true;
            return true;
        }
        let history = [Action::EditorHistoryPrevious, Action::EditorHistoryNext];
        if keys.first_match(input, &history).is_some() {
            return false;
        }
        let Some(action) = keys.first_match(input, APP_ACTIONS) else {
            return false;
        };
        match action {
            Action::Clear => self.ctrl_c(),
            Action::ThinkingCycle => self.cycle_thinking(),
            Action::ModelCycleForward => self.cycle_model(),
            Action::ModelSelect => self.open_model_selector(None),
            Action::ToolsExpand => {
                self.tools_expanded = !self.tools_expanded;
                self.transcript.set_tools_expanded(self.tools_expanded);
            }
            Action::ThinkingToggle => {
                self.thinking_expanded = !self.thinking_expanded;
                self.transcript
                    .set_thinking_expanded(self.thinking_expanded);
            }
            Action::MessageCopy => self.copy_last(),
            Action::MessageFollowUp => {
                let text = self.editor.take_submission();
                self.submit_follow_up(text);
            }
            Action::MessageDequeue => self.restore_queue(),
            Action::SessionNew => self.new_session(),
            Action::SessionTree => self.open_tree(),
            Action::SessionFork => self.open_fork(),
            _ => self.open_session_picker(),
        }
        true
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
            let key = self.keymap.display(Action::Clear);
            self.notice(format!("Press {key} again to exit"), false);
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
