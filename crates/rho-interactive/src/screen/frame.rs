//! Drawing a frame: the banner (or an extension's header), the transcript, and under it the
//! working indicator, the queue, what other parts show around the editor, the editor, the
//! footer. The differential renderer writes only what changed.

use std::io::Write;

use rho_tui::components::{Component, FooterView};
use rho_tui::Action;

use super::{Chrome, Screen, WorkingLine, SPINNER_TICK_MS};
use crate::shared::Shared;

/// Frames of the working indicator.
pub(super) const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

impl Screen {
    /// Draws the frame with `chrome` around the editor; writes only what changed. A layout
    /// switch asked for is made first.
    pub fn draw<W: Write>(&mut self, shared: &Shared, chrome: &Chrome, out: &mut W) {
        if self.handed_over {
            return;
        }
        if let Some(mode) = self.pending_mode.take() {
            self.switch_tui_mode(mode, out);
        }
        let width = self.renderer.width();
        self.indicator_shown = shared.is_busy();
        let bottom = self.bottom_lines(shared, chrome, width);
        let drawn = if self.full.is_some() {
            self.draw_fullscreen((&shared.keymap, chrome), &bottom, out)
        } else {
            let header = chrome.header.as_deref().unwrap_or(&self.header);
            let transcript = self.transcript.lines(width);
            let segments: [&[String]; 3] = [header, transcript, &bottom];
            self.renderer.render(&segments, out).map(|_| ())
        };
        if let Err(e) = drawn {
            // Said once the terminal is restored (see `exit_error`): not over the frame.
            self.exit_error = Some(format!("rho: cannot draw: {e}"));
        }
    }

    /// Leaves the last frame in the scrollback and the cursor under it; in fullscreen, leaves
    /// the alternate screen with what `fullscreenExitOutput` keeps.
    pub fn finish<W: Write>(&mut self, shared: &Shared, chrome: &Chrome, out: &mut W) {
        if self.full.is_some() {
            return self.leave_fullscreen(shared, chrome, out);
        }
        let _ = self.renderer.stop(out);
    }

    /// Draws the whole frame into `out` with a fresh renderer (what a new terminal would show).
    #[cfg(test)]
    pub fn redraw_into(&mut self, shared: &Shared, chrome: &Chrome, out: &mut Vec<u8>) {
        if let Some(full) = self.full.as_mut() {
            full.invalidate();
            return self.draw(shared, chrome, out);
        }
        let fresh = rho_tui::Renderer::new(self.renderer.width(), self.renderer.height());
        let kept = std::mem::replace(&mut self.renderer, fresh);
        self.draw(shared, chrome, out);
        self.renderer = kept;
    }

    /// The line under the transcript while the agent works: rho's spinner and text, or what
    /// extensions set (pi's working message, indicator and visibility; compaction keeps
    /// rho's own).
    fn working_line(&self, shared: &Shared, working: &WorkingLine) -> Option<String> {
        let theme = &self.theme;
        let compacting = shared.session.is_compacting();
        if working.hidden && !compacting {
            return None;
        }
        let own = || {
            let what = if compacting {
                "Compacting..."
            } else {
                "Working..."
            };
            format!(
                "{what} ({} to interrupt)",
                shared.keymap.display(Action::Interrupt)
            )
        };
        let message = match &working.message {
            Some(message) if !compacting => message.clone(),
            _ => own(),
        };
        let message = theme.fg(theme.colors.muted, &message);
        let spinner = || {
            let at = (self.spinner % SPINNER.len() as u64) as usize;
            theme.fg(theme.colors.accent, SPINNER[at])
        };
        let frame = match working.frame(self.spinner * SPINNER_TICK_MS) {
            Some(frame) if !compacting => frame.to_string(),
            _ => spinner(),
        };
        Some(if frame.is_empty() {
            message
        } else {
            format!("{frame} {message}")
        })
    }

    /// Everything under the transcript: working indicator, queue, widgets, editor or what
    /// stands in its place, footer, extension statuses.
    pub(super) fn bottom_lines(
        &self,
        shared: &Shared,
        chrome: &Chrome,
        width: usize,
    ) -> Vec<String> {
        let theme = &self.theme;
        let mut lines = vec![String::new()];
        if shared.is_busy() {
            lines.extend(self.working_line(shared, &chrome.working));
        }
        lines.extend(self.transcript.queue().render(width, theme));
        lines.extend(chrome.above_editor.iter().cloned());
        match &chrome.editor {
            Some(shown) => lines.extend(shown.iter().cloned()),
            None if chrome.reloading => lines.push(theme.fg(
                theme.colors.muted,
                "Reloading extensions, skills, prompts, themes, and context files...",
            )),
            None => lines.extend(self.editor.render(width, theme, self.editor_border(shared))),
        }
        lines.extend(chrome.below_editor.iter().cloned());
        match &chrome.footer {
            Some(footer) => lines.extend(footer.iter().cloned()),
            None => {
                lines.extend(self.footer_view(shared).render(width, theme));
                lines.extend(chrome.statuses.iter().cloned());
            }
        }
        lines
    }

    /// The editor's rule colour: bash mode for `!`, else the thinking level's colour.
    fn editor_border(&self, shared: &Shared) -> rho_tui::theme::Color {
        if self.editor.text().starts_with('!') {
            return self.theme.colors.bash_mode;
        }
        let level = match shared.session.model() {
            Some(m) if m.reasoning => shared.session.thinking_level(),
            _ => rho_ai::ThinkingLevel::Off,
        };
        self.theme.thinking_color(level)
    }

    /// The footer as it stands now.
    fn footer_view(&self, shared: &Shared) -> FooterView {
        let session = &shared.session;
        let model = session.model();
        let (auto_compact, name) = (
            session.with_settings(|s| s.compaction_enabled()),
            session.with_session(|s| s.name().map(str::to_string)),
        );
        FooterView {
            cwd: self.footer.cwd.clone(),
            git_branch: self.footer.git_branch.clone(),
            session_name: name,
            reasoning: model.as_ref().is_some_and(|m| m.reasoning),
            context_window: model.as_ref().map_or(0, |m| m.context_window),
            provider: model.as_ref().map(|m| m.provider.clone()),
            model: model.map(|m| m.id),
            thinking_level: session.thinking_level(),
            usage: self.transcript.usage(),
            context_tokens: self
                .transcript
                .context_tokens()
                .or(self.loaded_context_tokens),
            auto_compact,
        }
    }

    /// Reads the git branch again (after a `!` command, which may have switched it).
    pub fn refresh_branch(&mut self) {
        self.footer.refresh_branch();
    }
}
