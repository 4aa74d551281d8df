//! The interactive screen's state: transcript, editor or open dialog, extension chrome and
//! footer; what each message does to it; and how a frame is laid out.

use std::collections::VecDeque;
use std::io::Write;
use std::time::Instant;

use rho_core::agent_session::{AgentSession, SessionEvent};
use rho_tui::components::BashExecutionView;
use rho_tui::components::Component;
use rho_tui::dialogs::{StatusBar, WidgetArea};
use rho_tui::editor::Editor;
use rho_tui::fullscreen::{FullscreenOptions, FullscreenView, TuiMode};
use rho_tui::{Input, Keymap, Renderer, Theme, Transcript, View};
use tokio::sync::mpsc::UnboundedSender;

use super::dialogs::ActiveDialog;
use super::ext_ui::UiRequest;
use super::footer::FooterInfo;
use crate::options::InteractiveOptions;
use rho_core::agent_session::ModelControl;
use rho_extension_host::render::ComponentSlot;
use rho_tui::Action;

/// Everything that reaches the interactive loop.
pub enum AppMsg {
    /// A key, paste or resize.
    Input(Input),
    /// A one-line note for the transcript (a command's result or error).
    Notice {
        /// The text.
        text: String,
        /// Shown in the error colour.
        error: bool,
    },
    /// Put this text in the editor (a tree move or fork hands back the chosen message).
    SetEditor(String),
    /// A dialog to open, prepared by a task (e.g. after listing sessions).
    Open(ActiveDialog),
    /// An extension UI request.
    Ui(UiRequest),
    /// Output of the running `!`/`!!` command.
    BashOutput(String),
    /// A `!`/`!!` command finished.
    Bash(rho_protocol::agent::BashExecutionMessage),
    /// A `!`/`!!` command could not run.
    BashFailed(String),
    /// Extensions have seen `session_start`; the command line's prompt, if any, goes now.
    Started(Option<super::InitialPrompt>),
    /// /reload finished, with what it found wrong.
    Reloaded(rho_core::agent_session::ReloadReport),
    /// An extension command called `ctx.reload()` and returned: run /reload.
    ReloadRequested,
    /// Lines an extension drew came back.
    Drawn(super::ext_render::Drawn),
}

/// The interactive mode's state.
pub struct App {
    pub(super) session: AgentSession,
    pub(super) models: ModelControl,
    pub(super) theme: Theme,
    pub(super) transcript: Transcript,
    pub(super) editor: Editor,
    pub(super) dialog: Option<ActiveDialog>,
    /// Dialogs asked for while another was open, in order.
    pub(super) waiting_dialogs: VecDeque<ActiveDialog>,
    pub(super) tx: UnboundedSender<AppMsg>,
    /// Extension status entries, shown under the footer.
    pub(super) statuses: StatusBar,
    /// Extension widgets, shown above the editor.
    pub(super) widgets: WidgetArea,
    /// Extension widgets placed below the editor.
    pub(super) widgets_below: WidgetArea,
    /// What extensions draw themselves.
    pub(super) ext_render: super::ext_render::ExtRender,
    /// When Ctrl+C last cleared an empty editor (a second press soon after quits).
    pub(super) last_ctrl_c: Option<Instant>,
    pub(super) quit: bool,
    /// An extension called `ctx.shutdown()`: quit once the agent is idle (pi's rule).
    pub(super) shutdown_requested: bool,
    pub(super) footer: FooterInfo,
    pub(super) thinking_expanded: bool,
    pub(super) tools_expanded: bool,
    /// The session's [`AgentSession::generation`] the transcript was built from.
    drawn_generation: u64,
    /// The GitHub CLI /share runs.
    pub(super) gh_program: std::path::PathBuf,
    /// The transcript slot of the running `!` command.
    pub(super) running_bash: Option<usize>,
    /// What the binary resolved for this mode (flags, the agent dir) and its services.
    pub(super) options: InteractiveOptions,
    pub(super) renderer: Renderer,
    pub(super) header: Vec<String>,
    spinner: usize,
    /// Whether the last frame drawn shows the working indicator.
    indicator_shown: bool,
    /// The context's size estimated when the transcript was built (the footer's figure until a
    /// reply reports usage; pi's context use from the first frame).
    pub(super) loaded_context_tokens: Option<u64>,
    /// Messages typed during a compaction, sent when it is over.
    pub(super) held: Vec<super::compaction_queue::HeldInput>,
    /// Extensions have seen `session_start`; until then prompts are held.
    pub(super) started: bool,
    /// Why the screen ended, printed after the terminal is given back.
    exit_error: Option<String>,
    /// True while /reload runs (the editor is replaced by a note and keys wait).
    pub(super) reloading: bool,
    /// The extension shortcuts bound on the main screen.
    pub(super) shortcuts: Vec<super::ext_shortcuts::Binding>,
    /// What keys do (pi's defaults, keybindings.json applied).
    pub(super) keymap: std::sync::Arc<Keymap>,
    /// The fullscreen layout, when `tuiMode` chose it.
    pub(super) full: Option<FullscreenView>,
    /// The fullscreen settings (kept while inline, for a switch from /settings).
    pub(super) full_options: FullscreenOptions,
    /// A layout switch asked for, made before the next frame.
    pub(super) pending_mode: Option<TuiMode>,
    /// Said on the normal screen once the terminal is given back (the resume command).
    pub(super) exit_note: Option<String>,
}

/// Frames of the working indicator.
const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

impl App {
    /// The screen for `session`, sized `width` × `height`.
    pub fn new(
        session: AgentSession,
        options: InteractiveOptions,
        tx: UnboundedSender<AppMsg>,
        (width, height): (u16, u16),
    ) -> Self {
        let theme = super::footer::load_theme(&session, &options);
        let mut editor = Editor::new(session.cwd().to_path_buf());
        editor.set_commands(super::commands::completions(&session));
        editor.set_terminal_rows(height as usize);
        let (max_visible, padding, hide_thinking) = session.with_settings(|s| {
            let number = |key: &str, default: u64| {
                s.raw()
                    .get(key)
                    .and_then(serde_json::Value::as_u64)
                    .unwrap_or(default)
            };
            (
                number("autocompleteMaxVisible", 5),
                number("editorPaddingX", 0),
                s.hide_thinking_block(),
            )
        });
        editor.set_autocomplete_max_visible(max_visible as usize);
        editor.set_padding_x(padding as usize);
        let (mode, full_options, mode_warnings) = super::fullscreen::choose(&options, &session);
        let full = (mode == TuiMode::Fullscreen)
            .then(|| FullscreenView::new(width as usize, height as usize, full_options));
        let mut app = Self {
            models: ModelControl::new(session.clone(), options.scoped_models.clone()),
            footer: FooterInfo::read(session.cwd()),
            transcript: Transcript::new(theme.clone()),
            theme,
            editor,
            dialog: None,
            waiting_dialogs: VecDeque::new(),
            tx,
            statuses: StatusBar::new(),
            widgets: WidgetArea::new(),
            widgets_below: WidgetArea::new(),
            ext_render: Default::default(),
            last_ctrl_c: None,
            quit: false,
            shutdown_requested: false,
            thinking_expanded: !hide_thinking,
            tools_expanded: false,
            running_bash: None,
            gh_program: "gh".into(),
            drawn_generation: 0,
            renderer: Renderer::new(width as usize, height as usize),
            header: Vec::new(),
            options,
            spinner: 0,
            indicator_shown: false,
            loaded_context_tokens: None,
            held: Vec::new(),
            started: false,
            exit_error: None,
            reloading: false,
            shortcuts: Vec::new(),
            keymap: Default::default(),
            full,
            full_options,
            pending_mode: None,
            exit_note: None,
            session,
        };
        for w in mode_warnings {
            app.notice(format!("Warning: {w}"), true);
        }
        app.reload();
        app.rebuild_header();
        if let Some(warning) =
            super::startup_notes::model_warning(&app.session, &app.options.agent_dir)
        {
            app.notice(warning, true);
        }
        app.bind_shortcuts();
        app
    }

    /// The session (for tasks the loop starts).
    pub fn session_handle(&self) -> AgentSession {
        self.session.clone()
    }

    /// True once the user asked to leave, or an extension did and the agent is idle (its
    /// queued steering and follow-up messages ran first).
    pub fn should_quit(&self) -> bool {
        self.quit || (self.shutdown_requested && !self.is_busy())
    }

    /// Rebuilds the transcript when the session replaced its conversation (another session,
    /// a tree move, a compaction; also from an extension command). Checked before anything is
    /// added, so a note about the switch lands in the rebuilt transcript.
    fn follow_generation(&mut self) {
        if self.session.generation() != self.drawn_generation {
            self.reload();
        }
    }

    /// Handles one message.
    pub fn handle(&mut self, msg: AppMsg) {
        self.follow_generation();
        match msg {
            AppMsg::Input(Input::Resize(w, h)) => {
                self.renderer.resize(w as usize, h as usize);
                if let Some(full) = self.full.as_mut() {
                    full.resize(w as usize, h as usize);
                }
                self.editor.set_terminal_rows(h as usize);
            }
            // pi's reload box holds the focus: keys wait, except for a dialog an extension
            // opened meanwhile.
            AppMsg::Input(_) if self.reloading && self.dialog.is_none() => {}
            AppMsg::Input(input) => self.handle_input(&input),
            AppMsg::Notice { text, error } => self.notice(text, error),
            AppMsg::SetEditor(text) => self.editor.set_text(&text),
            AppMsg::Open(dialog) => self.open(dialog),
            AppMsg::Ui(request) => self.handle_ui(request),
            AppMsg::BashOutput(chunk) => {
                if let Some(i) = self.running_bash {
                    self.transcript.update(i, |v| {
                        if let View::Bash(b) = v {
                            b.output.push_str(&chunk);
                        }
                    });
                }
            }
            AppMsg::Bash(message) => self.bash_finished(message),
            AppMsg::Started(first) => {
                // session_start may have added skills or templates.
                self.editor
                    .set_commands(super::commands::completions(&self.session));
                self.session_started(first);
            }
            AppMsg::Reloaded(report) => self.reloaded(report),
            AppMsg::ReloadRequested => self.reload_resources(),
            AppMsg::Drawn(drawn) => self.drawn(drawn),
            AppMsg::BashFailed(error) => {
                if let Some(i) = self.running_bash.take() {
                    self.transcript.update(i, |v| *v = View::Empty);
                }
                self.notice(error, true);
            }
        }
        self.close_abandoned_dialogs();
    }

    /// Applies a session event to the transcript.
    pub fn apply_event(&mut self, event: &SessionEvent) {
        self.follow_generation();
        if let SessionEvent::Session(rho_core::agent_session::SessionOnlyEvent::ExtensionError {
            extension_path,
            event,
            error,
        }) = event
        {
            self.notice(
                format!("Extension error ({extension_path}, {event}): {error}"),
                true,
            );
            return;
        }
        self.transcript.apply(event);
        if ends_message(event) {
            // Footers and headers drawn by extensions show session figures.
            self.ext_render.invalidate(None);
        }
        self.release_held();
    }

    /// The loop's timer: advances the working indicator and draws. An idle screen stays
    /// still (nothing is drawn), except once to take the indicator away: a run ends after its
    /// last event (`agent_end` arrives while the session still finishes the run), so the
    /// frame drawn for that event can still show the indicator and no event follows.
    pub fn tick<W: Write>(&mut self, out: &mut W) {
        self.release_held();
        if self.is_busy() {
            self.spinner = (self.spinner + 1) % SPINNER.len();
        } else if !self.indicator_shown && !self.fullscreen_redraw_due() {
            return;
        }
        self.draw(out);
    }

    /// Whether the agent, a compaction or a retry is running.
    pub(super) fn is_busy(&self) -> bool {
        self.session.is_streaming() || self.session.is_compacting()
    }

    /// Adds a status note to the transcript.
    pub(super) fn notice(&mut self, text: String, error: bool) {
        self.transcript
            .push(rho_tui::View::Status(rho_tui::components::StatusView {
                text,
                is_error: error,
            }));
    }

    /// Replaces the live view of the `!` command with its result.
    fn bash_finished(&mut self, message: rho_protocol::agent::BashExecutionMessage) {
        let done = View::Bash(BashExecutionView {
            command: message.command,
            output: message.output,
            exit_code: message.exit_code,
            cancelled: message.cancelled,
            excluded: message.exclude_from_context == Some(true),
        });
        match self.running_bash.take() {
            Some(i) => self.transcript.update(i, |v| *v = done),
            None => {
                self.transcript.push(done);
            }
        }
        self.footer.refresh_branch();
    }

    /// The banner and the list of loaded resources under it.
    pub(super) fn rebuild_header(&mut self) {
        let mut header = header_lines(&self.theme, &self.keymap);
        header.extend(super::startup_notes::resource_lines(
            &self.session,
            &self.theme,
        ));
        self.header = header;
    }

    /// Rebuilds the transcript from the session's messages.
    pub(super) fn reload(&mut self) {
        self.drawn_generation = self.session.generation();
        self.ext_render.restart();
        self.running_bash = None;
        self.transcript.clear();
        self.transcript.load(&self.session.messages());
        self.loaded_context_tokens = self
            .session
            .model()
            .and_then(|m| self.session.context_usage(&m))
            .and_then(|u| u.tokens);
        self.transcript.set_tools_expanded(self.tools_expanded);
        self.transcript
            .set_thinking_expanded(self.thinking_expanded);
        self.editor
            .set_commands(super::commands::completions(&self.session));
    }

    /// The terminal's size as last reported.
    pub(super) fn screen_size(&self) -> (usize, usize) {
        (self.renderer.width(), self.renderer.height())
    }

    /// Draws the frame; writes only what changed.
    pub fn draw<W: Write>(&mut self, out: &mut W) {
        if let Some(mode) = self.pending_mode.take() {
            self.switch_tui_mode(mode, out);
        }
        let width = self.renderer.width();
        self.ask_drawings(width);
        self.indicator_shown = self.is_busy();
        let bottom = self.bottom_lines(width);
        let drawn = if self.full.is_some() {
            self.draw_fullscreen(&bottom, out)
        } else {
            let header = self.ext_render.latest(ComponentSlot::Header);
            let header = header.as_deref().unwrap_or(&self.header);
            let transcript = self.transcript.lines(width);
            let segments: [&[String]; 3] = [header, transcript, &bottom];
            self.renderer.render(&segments, out).map(|_| ())
        };
        if let Err(e) = drawn {
            // Said once the terminal is restored (see `exit_error`): not over the frame.
            self.exit_error = Some(format!("rho: cannot draw: {e}"));
            self.quit = true;
        }
    }

    /// Everything under the transcript: working indicator, queue, widgets, editor or dialog,
    /// footer, extension statuses.
    pub(super) fn bottom_lines(&self, width: usize) -> Vec<String> {
        let theme = &self.theme;
        let mut lines = vec![String::new()];
        if self.is_busy() {
            let what = if self.session.is_compacting() {
                "Compacting..."
            } else {
                "Working..."
            };
            lines.push(format!(
                "{} {}",
                theme.fg(theme.colors.accent, SPINNER[self.spinner]),
                theme.fg(
                    theme.colors.muted,
                    &format!(
                        "{what} ({} to interrupt)",
                        self.keymap.display(Action::Interrupt)
                    ),
                ),
            ));
        }
        lines.extend(self.transcript.queue().render(width, theme));
        lines.extend(self.widgets.render(width, theme));
        lines.extend(self.ext_render.all(ComponentSlot::AboveEditor));
        let component = self.ext_render.latest(ComponentSlot::Editor);
        match &self.dialog {
            Some(d) => lines.extend(d.render(width, theme)),
            None if component.is_some() => lines.extend(component.unwrap_or_default()),
            None if self.reloading => lines.push(theme.fg(
                theme.colors.muted,
                "Reloading extensions, skills, prompts, themes, and context files...",
            )),
            None => lines.extend(self.editor.render(width, theme, self.editor_border())),
        }
        lines.extend(self.widgets_below.render(width, theme));
        lines.extend(self.ext_render.all(ComponentSlot::BelowEditor));
        match self.ext_render.latest(ComponentSlot::Footer) {
            // pi: a custom footer replaces the footer and the statuses in it.
            Some(footer) => lines.extend(footer),
            None => {
                lines.extend(self.footer_view().render(width, theme));
                lines.extend(self.statuses.render(width, theme));
            }
        }
        lines
    }

    /// The editor's rule colour: bash mode for `!`, else the thinking level's colour.
    fn editor_border(&self) -> rho_tui::theme::Color {
        if self.editor.text().starts_with('!') {
            return self.theme.colors.bash_mode;
        }
        let level = match self.session.model() {
            Some(m) if m.reasoning => self.session.thinking_level(),
            _ => rho_ai::ThinkingLevel::Off,
        };
        self.theme.thinking_color(level)
    }

    /// Leaves the last frame in the scrollback and the cursor under it; in fullscreen, leaves
    /// the alternate screen with what `fullscreenExitOutput` keeps.
    pub fn finish<W: Write>(&mut self, out: &mut W) {
        if self.full.is_some() {
            return self.leave_fullscreen(out);
        }
        let _ = self.renderer.stop(out);
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
}

/// Whether `event` ends a message or a run (session figures change).
fn ends_message(event: &SessionEvent) -> bool {
    use rho_protocol::agent::AgentEvent::{AgentEnd, MessageEnd};
    matches!(event, SessionEvent::Agent(e) if matches!(**e, MessageEnd { .. } | AgentEnd { .. }))
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

#[cfg(test)]
impl App {
    /// Draws the whole frame into `out` with a fresh renderer (what a new terminal would show).
    pub fn redraw_into(&mut self, out: &mut Vec<u8>) {
        if let Some(full) = self.full.as_mut() {
            full.invalidate();
            return self.draw(out);
        }
        let fresh = Renderer::new(self.renderer.width(), self.renderer.height());
        let kept = std::mem::replace(&mut self.renderer, fresh);
        self.draw(out);
        self.renderer = kept;
    }

    /// Points the agent dir's files (auth.json, keybindings.json, themes, trust) elsewhere.
    pub fn set_agent_dir(&mut self, dir: &std::path::Path) {
        self.options.agent_dir = dir.to_path_buf();
    }

    /// The editor's text.
    pub fn editor_text(&self) -> String {
        self.editor.text().to_string()
    }

    /// The last frame drawn, as plain text.
    pub fn last_frame(&self) -> String {
        let frame = match &self.full {
            Some(full) => full.frame(),
            None => self.renderer.frame(),
        };
        let lines: Vec<String> = frame.iter().map(|l| rho_tui::ansi::strip_ansi(l)).collect();
        lines.join("\n")
    }

    /// Points /share at another GitHub CLI.
    pub fn set_gh_program(&mut self, program: &std::path::Path) {
        self.gh_program = program.to_path_buf();
    }

    /// Whether a `!` command's live view is open.
    pub fn bash_running(&self) -> bool {
        self.running_bash.is_some()
    }
}
