//! The screen built and kept in step with the session: the transcript rebuilt when the session
//! replaces its conversation, notices, the banner, theme and expansion toggles, and the keys
//! the screen itself takes (the editor's, the transcript's in fullscreen).

use rho_core::agent_session::{AgentSession, SessionEvent, SessionOnlyEvent};
use rho_tui::components::StatusView;
use rho_tui::editor::{Editor, EditorAction};
use rho_tui::fullscreen::{FullscreenView, TuiMode};
use rho_tui::{Action, Input, Keymap, Renderer, Theme, Transcript, View};

use super::{argument_commands, completions, footer, Screen, ScreenMsg};
use crate::shared::Shared;

impl Screen {
    /// The screen for `shared`'s session, sized `width` × `height`, with a warning per bad
    /// layout setting.
    pub fn new(shared: &Shared, (width, height): (u16, u16)) -> (Self, Vec<String>) {
        let session = &shared.session;
        let theme = footer::load_theme(session, &shared.options);
        let mut editor = Editor::new(session.cwd().to_path_buf());
        let commands_seen = session.extensions().command_generation();
        editor.set_commands(completions(session));
        editor.set_argument_commands(argument_commands(session));
        editor.set_terminal_rows(height as usize);
        let (max_visible, padding, hide_thinking) = session.with_settings(|s| {
            (
                s.autocomplete_max_visible(),
                s.editor_padding_x(),
                s.hide_thinking_block(),
            )
        });
        editor.set_autocomplete_max_visible(max_visible as usize);
        editor.set_padding_x(padding as usize);
        let (mode, full_options, warnings) = Self::layout(shared);
        let full = (mode == TuiMode::Fullscreen)
            .then(|| FullscreenView::new(width as usize, height as usize, full_options));
        let screen = Self {
            commands_seen,
            arguments_asked: None,
            footer: footer::FooterInfo::read(session.cwd()),
            transcript: Transcript::new(theme.clone()),
            theme,
            editor,
            renderer: Renderer::new(width as usize, height as usize),
            header: Vec::new(),
            thinking_expanded: !hide_thinking,
            tools_expanded: false,
            drawn_generation: 0,
            spinner: 0,
            indicator_shown: false,
            loaded_context_tokens: None,
            full,
            full_options,
            pending_mode: None,
            exit_error: None,
            exit_note: None,
            handed_over: false,
        };
        (screen, warnings)
    }

    /// Handles a task's message.
    pub fn handle(&mut self, msg: ScreenMsg) {
        match msg {
            ScreenMsg::Notice { text, error } => self.notice(text, error),
            ScreenMsg::SetEditor(text) => self.editor.set_text(&text),
            ScreenMsg::ArgumentCompletions {
                command,
                prefix,
                items,
            } => self.editor.set_argument_completions(command, prefix, items),
        }
    }

    /// Adds a status note to the transcript.
    pub fn notice(&mut self, text: String, error: bool) {
        self.transcript.push(View::Status(StatusView {
            text,
            is_error: error,
        }));
    }

    /// Applies a session event to the transcript (an extension's error as a notice).
    pub fn apply_event(&mut self, event: &SessionEvent) {
        if let SessionEvent::Session(SessionOnlyEvent::ExtensionError {
            extension_path,
            event,
            error,
        }) = event
        {
            let text = format!("Extension error ({extension_path}, {event}): {error}");
            return self.notice(text, true);
        }
        self.transcript.apply(event);
    }

    /// Whether the session replaced its conversation (another session, a tree move, a
    /// compaction; also from an extension command) since the transcript was built.
    pub fn is_stale(&self, session: &AgentSession) -> bool {
        session.generation() != self.drawn_generation
    }

    /// Rebuilds the transcript from the session's messages.
    pub fn rebuild(&mut self, session: &AgentSession) {
        self.drawn_generation = session.generation();
        self.transcript.clear();
        self.transcript
            .load_with_entries(&session.messages(), custom_entries(session));
        self.loaded_context_tokens = session
            .usage_model()
            .and_then(|m| session.context_usage(&m))
            .and_then(|u| u.tokens);
        self.transcript.set_tools_expanded(self.tools_expanded);
        self.transcript
            .set_thinking_expanded(self.thinking_expanded);
        self.refresh_completions(session);
    }

    /// The editor's completion list again (extensions, skills or templates changed).
    pub fn refresh_completions(&mut self, session: &AgentSession) {
        self.commands_seen = session.extensions().command_generation();
        self.editor.set_commands(completions(session));
        self.editor
            .set_argument_commands(argument_commands(session));
    }

    /// The command and prefix to ask argument completions for: the editor's query when it
    /// changed since the last ask.
    pub fn argument_request(&mut self) -> Option<(String, String)> {
        let query = self.editor.argument_query();
        if query == self.arguments_asked {
            return None;
        }
        self.arguments_asked.clone_from(&query);
        query
    }

    /// Lists the commands again when an extension registered one since (pi's
    /// `registerCommand` from a handler or a command).
    pub fn follow_commands(&mut self, session: &AgentSession) {
        if session.extensions().command_generation() != self.commands_seen {
            self.refresh_completions(session);
        }
    }

    /// The banner and the list of loaded resources under it, as `quietStartup` allows
    /// (`--verbose` shows both).
    pub fn rebuild_header(&mut self, shared: &Shared) {
        let quiet = shared.session.with_settings(|s| s.quiet_startup());
        let (no_banner, no_list) = match shared.options.verbose {
            true => (false, false),
            false => quiet,
        };
        let mut header = Vec::new();
        if !no_banner {
            header.extend(header_lines(&self.theme, &shared.keymap));
        }
        if !no_list {
            header.extend(crate::startup_notes::resource_lines(
                &shared.session,
                &self.theme,
            ));
        }
        self.header = header;
    }

    /// The theme as the flags and settings name it now (after /reload).
    pub fn reload_theme(&mut self, shared: &Shared) {
        self.set_theme(footer::load_theme(&shared.session, &shared.options));
    }

    /// Draws in `theme` from now on.
    pub fn set_theme(&mut self, theme: Theme) {
        self.theme = theme.clone();
        self.transcript.set_theme(theme);
    }

    /// The colours everything is drawn in.
    pub fn theme(&self) -> &Theme {
        &self.theme
    }

    /// Shows or collapses tool output.
    pub fn toggle_tools(&mut self) {
        self.tools_expanded = !self.tools_expanded;
        self.transcript.set_tools_expanded(self.tools_expanded);
    }

    /// Shows or collapses thinking blocks.
    pub fn toggle_thinking(&mut self) {
        self.set_thinking_expanded(!self.thinking_expanded);
    }

    /// Shows thinking blocks (the `hideThinkingBlock` setting turned off) or collapses them.
    pub fn set_thinking_expanded(&mut self, expanded: bool) {
        self.thinking_expanded = expanded;
        self.transcript.set_thinking_expanded(expanded);
    }

    /// The terminal was resized.
    pub fn resize(&mut self, width: u16, height: u16) {
        self.renderer.resize(width as usize, height as usize);
        if let Some(full) = self.full.as_mut() {
            full.resize(width as usize, height as usize);
        }
        self.editor.set_terminal_rows(height as usize);
    }

    /// Another program takes the terminal (the external editor): no frame is drawn until
    /// [`Screen::retake`].
    pub fn hand_over(&mut self) {
        self.handed_over = true;
    }

    /// The terminal is rho's again after another program had it (the external editor, the
    /// shell after a suspend): the next frame is drawn whole, in fullscreen on the alternate
    /// screen again.
    pub fn retake(&mut self) {
        self.handed_over = false;
        self.renderer.invalidate();
        if let Some(full) = self.full.as_mut() {
            full.retaken();
        }
    }

    /// Ctrl+Z (or SIGTSTP): suspends to the shell's job control; `fg` brings rho back, drawn
    /// whole. Where there is no job control, a notice says so (pi's text).
    pub fn suspend(&mut self) {
        if rho_tui::terminal::suspend() {
            self.retake();
        } else {
            self.notice(
                "Suspend to background is not supported on Windows".into(),
                false,
            );
        }
    }

    /// Puts `text` on the system clipboard through the terminal (OSC 52, which works over ssh
    /// and in tmux with `set-clipboard on`).
    pub fn copy_to_clipboard(&self, text: &str) {
        use std::io::Write;
        let osc = format!(
            "\x1b]52;c;{}\x07",
            rho_tools::image::encode_base64(text.as_bytes())
        );
        let mut out = std::io::stdout();
        let _ = out.write_all(osc.as_bytes());
        let _ = out.flush();
    }

    /// The terminal's size as last reported.
    pub fn size(&self) -> (usize, usize) {
        (self.renderer.width(), self.renderer.height())
    }

    /// The editor's keys; the text when one submitted it.
    pub fn editor_key(&mut self, input: &Input, keys: &Keymap) -> Option<String> {
        match self.editor.handle(input, keys) {
            EditorAction::Submit(text) => Some(text),
            EditorAction::Handled | EditorAction::Ignored => None,
        }
    }

    /// The loop's timer: advances the working indicator while `busy`. False when nothing
    /// needs drawing: an idle screen stays still, except once to take the indicator away (a
    /// run ends after its last event, so the frame drawn for that event can still show the
    /// indicator and no event follows).
    pub fn tick(&mut self, busy: bool) -> bool {
        if busy {
            self.spinner = self.spinner.wrapping_add(1);
            return true;
        }
        self.indicator_shown || self.fullscreen_redraw_due()
    }

    /// Why the screen ended early (a terminal that cannot be drawn on), if it did.
    pub fn exit_error(&self) -> Option<&str> {
        self.exit_error.as_deref()
    }

    /// What to say on the normal screen after the terminal is given back (fullscreen's
    /// resume command).
    pub fn exit_note(&self) -> Option<&str> {
        self.exit_note.as_deref()
    }

    /// The last frame drawn, as plain text.
    #[cfg(test)]
    pub fn last_frame(&self) -> String {
        let frame = match &self.full {
            Some(full) => full.frame(),
            None => self.renderer.frame(),
        };
        let lines: Vec<String> = frame.iter().map(|l| rho_tui::ansi::strip_ansi(l)).collect();
        lines.join("\n")
    }
}

/// The banner at the top of the screen: name, version and the keys worth knowing.
fn header_lines(theme: &Theme, keys: &Keymap) -> Vec<String> {
    let c = &theme.colors;
    vec![
        format!(
            "{} {}",
            theme.fg(c.accent, &rho_tui::theme::bold("rho")),
            theme.fg(c.dim, concat!("v", env!("CARGO_PKG_VERSION")))
        ),
        theme.fg(
            c.dim,
            &format!(
                "{} interrupt · {} clear/exit · / commands · ! bash · /hotkeys for more",
                keys.display(Action::Interrupt),
                keys.display(Action::Clear)
            ),
        ),
    ]
}

/// The `custom` entries of the session's branch (what extensions appended), with their times,
/// for the transcript to show where extensions draw them.
fn custom_entries(session: &AgentSession) -> Vec<(i64, serde_json::Value)> {
    use rho_session::entry::EntryData;
    session.with_session(|store| {
        store
            .tree()
            .branch()
            .into_iter()
            .filter(|e| matches!(e.data, EntryData::Custom { .. }))
            .filter_map(|e| {
                let at = rho_session::time::parse_iso(&e.timestamp)?;
                Some((at, serde_json::to_value(e).ok()?))
            })
            .collect()
    })
}
