//! pi 1.x's fullscreen layout behind `tuiMode` / `--tui-mode`: the transcript scrolls in the
//! alternate screen above the editor and footer. The flag wins over the setting; a bad flag
//! stops rho (see `main`), a bad setting is a warning and the default.
//!
//! rho's default is `regular` (the inline mode rho has always had, which leaves everything in
//! the terminal's scrollback where the terminal's own search and selection work); a pi user's
//! `"tuiMode": "fullscreen"` is honoured. On exit, `fullscreenExitOutput` says what stays on
//! the normal screen: the whole conversation (`transcript`, pi's default) or only the command
//! that resumes the session (`resume-hint`).

use std::io::Write;
use std::time::Instant;

use rho_core::agent_session::AgentSession;
use rho_core::settings::SettingsError;
use rho_tui::fullscreen::{FullscreenOptions, FullscreenView, Scroll, TuiMode};
use rho_tui::{Action, Input, Keymap, Renderer};
use serde_json::Value;

use super::{Chrome, Screen};
use crate::keybindings::SCROLL_KEYS;
use crate::shared::Shared;

/// The bar shown while the transcript does not follow the end (pi's text, with the key that
/// goes back).
fn jump_label(keys: &Keymap) -> String {
    let key = keys.display(Action::AltScreenBottom);
    if key.is_empty() {
        return " ↓ Jump to latest message ".into();
    }
    format!(" ↓ Jump to latest message · {} ", capitalized(&key))
}

/// pi's key hints capitalize each part: `Ctrl+End`.
fn capitalized(keys: &str) -> String {
    let part = |p: &str| {
        let mut c = p.chars();
        c.next()
            .map(|first| first.to_uppercase().chain(c).collect())
            .unwrap_or_default()
    };
    let key = |k: &str| k.split('+').map(part).collect::<Vec<String>>().join("+");
    keys.split('/').map(key).collect::<Vec<_>>().join("/")
}

impl Screen {
    /// The mode and fullscreen options the flag and settings choose, with a warning per bad
    /// setting. A bad flag value never gets here (`main` refuses it).
    pub(super) fn layout(shared: &Shared) -> (TuiMode, FullscreenOptions, Vec<String>) {
        shared.session.with_settings(|s| {
            let raw = s.raw();
            let (options, mut warnings) = FullscreenOptions::from_settings(|k| raw.get(k));
            let mode = match (shared.options.tui_mode, raw.get("tuiMode")) {
                (Some(mode), _) => mode,
                (_, Some(value)) => TuiMode::from_setting(value).unwrap_or_else(|e| {
                    warnings.push(format!("settings.json tuiMode: {e}"));
                    TuiMode::default()
                }),
                _ => TuiMode::default(),
            };
            (mode, options, warnings)
        })
    }

    /// The transcript's scroll keys in fullscreen (not while the editor's completion list is
    /// open: it takes the page keys, as pi's lists do). True when `input` was one. `header`
    /// is an extension's header, when one stands in place of the banner.
    pub fn scroll_key(&mut self, input: &Input, keys: &Keymap, header: Option<&[String]>) -> bool {
        if self.full.is_none() || self.editor.is_completing() {
            return false;
        }
        let Some(action) = keys.first_match(input, SCROLL_KEYS) else {
            return false;
        };
        let now = Instant::now();
        let prompts = matches!(
            action,
            Action::AltScreenPreviousPrompt | Action::AltScreenNextPrompt
        );
        let marks = if prompts {
            self.prompt_lines(header)
        } else {
            Vec::new()
        };
        let Some(full) = self.full.as_mut() else {
            return false;
        };
        match action {
            Action::AltScreenPageUp => full.scroll(Scroll::Page(false), now),
            Action::AltScreenPageDown => full.scroll(Scroll::Page(true), now),
            Action::AltScreenHalfPageUp => full.scroll(Scroll::HalfPage(false), now),
            Action::AltScreenHalfPageDown => full.scroll(Scroll::HalfPage(true), now),
            Action::AltScreenLineUp => full.scroll(Scroll::Line(false), now),
            Action::AltScreenLineDown => full.scroll(Scroll::Line(true), now),
            Action::AltScreenPreviousPrompt => full.jump(&marks, false, now),
            Action::AltScreenNextPrompt => full.jump(&marks, true, now),
            Action::AltScreenTop => full.scroll(Scroll::Top, now),
            _ => full.scroll(Scroll::Bottom, now),
        };
        true
    }

    /// Where the messages the user sent start, in the document (banner, then transcript).
    fn prompt_lines(&mut self, header: Option<&[String]>) -> Vec<usize> {
        let width = self.full.as_ref().map_or(80, FullscreenView::content_width);
        let header = header.map_or(self.header.len(), <[String]>::len);
        self.transcript.lines(width);
        let starts = self.transcript.user_message_starts();
        starts.into_iter().map(|s| s + header).collect()
    }

    /// A mouse wheel notch: scrolls the fullscreen transcript (the inline mode never asks the
    /// terminal for mouse reports).
    pub fn wheel(&mut self, down: bool, alt: bool) {
        if let Some(full) = self.full.as_mut() {
            full.wheel(down, alt, Instant::now());
        }
    }

    /// Back to the end of the transcript (a message was sent).
    pub fn follow_end(&mut self) {
        if let Some(full) = self.full.as_mut() {
            full.scroll(Scroll::Bottom, Instant::now());
        }
    }

    /// Draws a fullscreen frame under `bottom` (editor, footer...).
    pub(super) fn draw_fullscreen<W: Write>(
        &mut self,
        (keys, chrome): (&Keymap, &Chrome),
        bottom: &[String],
        out: &mut W,
    ) -> std::io::Result<()> {
        let label = jump_label(keys);
        let Some(full) = self.full.as_mut() else {
            return Ok(());
        };
        let header = chrome.header.as_deref().unwrap_or(&self.header);
        let transcript = self.transcript.lines(full.content_width());
        let document: [&[String]; 2] = [header, transcript];
        full.draw(&document, bottom, &label, &self.theme, Instant::now(), out)?;
        Ok(())
    }

    /// Whether the fullscreen frame must be drawn again although nothing changed.
    pub(super) fn fullscreen_redraw_due(&self) -> bool {
        self.full
            .as_ref()
            .is_some_and(|f| f.redraw_due(Instant::now()))
    }

    /// Switches between the inline and the fullscreen layout (from /settings), before the
    /// next frame: the inline frame stays in the scrollback; leaving fullscreen brings the
    /// normal screen back and draws the inline frame there.
    pub(super) fn switch_tui_mode<W: Write>(&mut self, mode: TuiMode, out: &mut W) {
        let (width, height) = self.size();
        match (mode, self.full.take()) {
            (TuiMode::Fullscreen, None) => {
                let _ = self.renderer.stop(out);
                self.full = Some(FullscreenView::new(width, height, self.full_options));
            }
            (TuiMode::Regular, Some(mut full)) => {
                let _ = full.leave(out);
                self.renderer = Renderer::new(width, height);
            }
            (_, kept) => self.full = kept,
        }
    }

    /// Leaves the alternate screen on exit and leaves what `fullscreenExitOutput` says on the
    /// normal screen; the resume command is said after the terminal is given back.
    pub(super) fn leave_fullscreen<W: Write>(
        &mut self,
        shared: &Shared,
        chrome: &Chrome,
        out: &mut W,
    ) {
        let Some(mut full) = self.full.take() else {
            return;
        };
        let _ = full.leave(out);
        let (width, height) = (full.width(), full.height());
        if full.options().exit_output == rho_tui::fullscreen::ExitOutput::Transcript {
            let bottom = self.bottom_lines(shared, chrome, width);
            let header = chrome.header.as_deref().unwrap_or(&self.header);
            let transcript = self.transcript.lines(width);
            let mut inline = Renderer::new(width, height);
            let _ = inline.render(&[header, transcript, &bottom], out);
            let _ = inline.stop(out);
        }
        self.exit_note = self.resume_hint(&shared.session, shared.options.session_dir.as_deref());
    }

    /// pi's hint for resuming the session, once it has a file (`--session-dir` named again).
    fn resume_hint(&self, session: &AgentSession, session_dir: Option<&str>) -> Option<String> {
        let (path, id) = session.with_session(|s| {
            (
                s.path().map(|p| p.to_path_buf()),
                s.session_id().to_string(),
            )
        });
        if !path.is_some_and(|p| p.exists()) {
            return None;
        }
        let mut command = String::from("rho");
        if let Some(dir) = session_dir {
            command.push_str(&format!(" --session-dir {}", shell_quote(dir)));
        }
        command.push_str(&format!(" --session {id}"));
        Some(format!(
            "{}\n{command}",
            self.theme
                .fg(self.theme.colors.dim, "To resume this session:")
        ))
    }

    /// The fullscreen settings in force (also while inline).
    pub fn fullscreen_options(&self) -> FullscreenOptions {
        self.full_options
    }

    /// Whether the fullscreen layout is on.
    pub fn is_fullscreen(&self) -> bool {
        self.full.is_some()
    }

    /// The fullscreen layout's height, when it is on.
    pub fn fullscreen_height(&self) -> Option<usize> {
        self.full.as_ref().map(FullscreenView::height)
    }

    /// Applies one of /settings' layout settings and saves it to the global settings (`Ok`
    /// for keys that are not theirs).
    pub fn apply_fullscreen_setting(
        &mut self,
        session: &AgentSession,
        key: &str,
        value: &str,
    ) -> Result<(), SettingsError> {
        let setting = match key {
            "tuiMode" => {
                self.pending_mode = TuiMode::parse(value).ok();
                Value::from(value)
            }
            "fullscreenWheelScrollLines" => match value.parse::<u64>() {
                Ok(n) => Value::from(n),
                Err(_) => Value::from(value),
            },
            "fullscreenExitOutput" | "fullscreenScrollbar" => Value::from(value),
            _ => return Ok(()),
        };
        let mut options = self.full_options;
        let read = |v: &Value| FullscreenOptions::from_settings(|k| (k == key).then_some(v));
        let (changed, _) = read(&setting);
        match key {
            "fullscreenExitOutput" => options.exit_output = changed.exit_output,
            "fullscreenScrollbar" => options.scrollbar = changed.scrollbar,
            "fullscreenWheelScrollLines" => options.wheel_lines = changed.wheel_lines,
            _ => {}
        }
        self.full_options = options;
        if let Some(full) = self.full.as_mut() {
            full.set_options(options);
        }
        session.set_global_setting(key, setting)
    }
}

/// `value` quoted for a POSIX shell when it needs it (pi's rule).
fn shell_quote(value: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./~:@".contains(c);
    if !value.is_empty() && value.chars().all(plain) {
        value.to_string()
    } else {
        format!("'{}'", value.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_jump_label_names_the_key_as_pi_does() {
        assert_eq!(
            jump_label(&Keymap::default()),
            " ↓ Jump to latest message · Ctrl+End "
        );
        assert_eq!(capitalized("ctrl+shift+up/alt+g"), "Ctrl+Shift+Up/Alt+G");
        assert_eq!(shell_quote("/tmp/my sessions"), "'/tmp/my sessions'");
        assert_eq!(shell_quote("/tmp/s"), "/tmp/s");
    }
}
