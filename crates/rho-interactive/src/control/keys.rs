//! The app's actions on the main screen (pi's `app.*`, its CustomEditor): interrupt, clear
//! and exit, model and thinking cycling, the expansion toggles, copy, follow-up and dequeue,
//! the session keys. They come after the open dialog, an extension's focused component, the
//! fullscreen transcript's scroll keys and extension shortcuts, and before the editor (the
//! top-level routes them in that order). Every key is looked up in the keymap, so
//! keybindings.json remaps and unbinds them all (see `keybindings`).

use std::time::{Duration, Instant};

use rho_tui::{Action, Input};

use super::commands::copy_last;
use super::{Control, Cx};
use crate::keybindings::APP_ACTIONS;
use crate::screen::Screen;
use crate::shared::Shared;

/// Two Ctrl+C presses closer than this quit.
const DOUBLE_PRESS: Duration = Duration::from_millis(1000);
/// Two Escapes on an empty editor closer than this open `doubleEscapeAction` (pi).
const DOUBLE_ESCAPE: Duration = Duration::from_millis(500);

impl Control {
    /// The app's actions: true when `input` was one.
    pub fn app_key(&mut self, input: &Input, cx: &mut Cx) -> bool {
        let keys = std::sync::Arc::clone(&cx.shared.keymap);
        if !keys.matches(input, Action::Clear) && input.as_key().is_some() {
            self.last_ctrl_c = None;
        }
        if !keys.matches(input, Action::Interrupt) && input.as_key().is_some() {
            self.last_escape = None;
        }
        let completing = cx.screen.editor.is_completing();
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
            self.interrupt(cx);
            return true;
        }
        if keys.matches(input, Action::Exit) && cx.screen.editor.is_empty() {
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
            Action::Clear => self.ctrl_c(&keys, cx.screen),
            Action::Suspend => cx.screen.suspend(),
            Action::ThinkingCycle => self.cycle_thinking(cx.shared),
            Action::ModelCycleForward => self.cycle_model(true, cx.shared),
            Action::ModelCycleBackward => self.cycle_model(false, cx.shared),
            Action::EditorExternal => self.open_external_editor(cx),
            Action::ClipboardPasteImage => self.paste_from_clipboard(),
            Action::ModelSelect => self.open_model_selector(None, cx.shared, cx.screen, cx.dialogs),
            Action::ToolsExpand => cx.screen.toggle_tools(),
            Action::ThinkingToggle => cx.screen.toggle_thinking(),
            Action::MessageCopy => copy_last(cx.shared, cx.screen),
            Action::MessageFollowUp => {
                let text = cx.screen.editor.take_submission();
                self.submit_follow_up(text, cx);
            }
            Action::MessageDequeue => restore_queue(cx.shared, cx.screen),
            Action::SessionNew => self.new_session(cx.shared),
            Action::SessionTree => self.open_tree(cx.shared, cx.screen, cx.dialogs),
            Action::SessionFork => self.open_fork(cx.shared, cx.screen, cx.dialogs),
            Action::SessionResume => self.open_session_picker(cx.shared),
            _ => return false,
        }
        true
    }

    /// Clears a non-empty editor; on an empty one, a second press within a second quits.
    fn ctrl_c(&mut self, keys: &rho_tui::Keymap, screen: &mut Screen) {
        if !screen.editor.is_empty() {
            screen.editor.clear();
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
            let key = keys.display(Action::Clear);
            screen.notice(format!("Press {key} again to exit"), false);
        }
    }

    /// Esc: stops whatever runs. Queued messages come back to the editor (pi), so an
    /// interrupted steer is not lost. When nothing runs, as in pi: a `!` command being typed
    /// is cleared, and twice on an empty editor opens what `doubleEscapeAction` names (`/tree`
    /// by default, `/fork`, or nothing).
    fn interrupt(&mut self, cx: &mut Cx) {
        let (shared, screen) = (&*cx.shared, &mut *cx.screen);
        let session = &shared.session;
        let bash = session.is_bash_running();
        if bash {
            session.abort_bash();
        }
        if !shared.is_busy() {
            if !bash {
                self.idle_escape(cx);
            }
            return;
        }
        restore_queue(shared, screen);
        session.abort_compaction();
        session.abort_branch_summary();
        let session = session.clone();
        tokio::spawn(async move { session.abort().await });
    }

    /// Esc with nothing running (see [`Control::interrupt`]).
    fn idle_escape(&mut self, cx: &mut Cx) {
        let text = cx.screen.editor.text();
        if text.trim_start().starts_with('!') {
            cx.screen.editor.clear();
            return;
        }
        if !text.trim().is_empty() {
            return;
        }
        let action = cx
            .shared
            .session
            .with_settings(|s| s.double_escape_action().to_string());
        if action == "none" {
            return;
        }
        let now = Instant::now();
        if self
            .last_escape
            .take()
            .is_none_or(|t| now.duration_since(t) >= DOUBLE_ESCAPE)
        {
            self.last_escape = Some(now);
            return;
        }
        if action == "fork" {
            self.open_fork(cx.shared, cx.screen, cx.dialogs);
        } else {
            self.open_tree(cx.shared, cx.screen, cx.dialogs);
        }
    }

    fn cycle_thinking(&mut self, shared: &Shared) {
        let models = shared.models.clone();
        let tx = self.notices.clone();
        tokio::spawn(async move {
            let text = match models.cycle_level().await {
                Some(level) => format!("Thinking level: {}", level.as_str()),
                None => "Current model does not support thinking".into(),
            };
            tx.notice(text, false);
        });
    }

    fn cycle_model(&mut self, forward: bool, shared: &Shared) {
        let models = shared.models.clone();
        let tx = self.notices.clone();
        tokio::spawn(async move {
            let (text, error) = match models.cycle_model_toward(forward).await {
                Ok(Some(c)) => (format!("Model: {}/{}", c.model.provider, c.model.id), false),
                Ok(None) => ("Only one model available".into(), false),
                Err(e) => (e.to_string(), true),
            };
            tx.notice(text, error);
        });
    }
}

/// Moves every queued message back into the editor, above what is typed.
fn restore_queue(shared: &Shared, screen: &mut Screen) {
    let queued = shared.session.clear_queue();
    let mut texts: Vec<String> = queued.steering;
    texts.extend(queued.follow_up);
    if texts.is_empty() {
        return;
    }
    let current = screen.editor.text().to_string();
    if !current.is_empty() {
        texts.push(current);
    }
    screen.editor.set_text(&texts.join("\n\n"));
}
