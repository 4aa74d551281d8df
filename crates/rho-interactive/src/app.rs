//! The top-level of the interactive mode: it owns the parts and routes to them. Screen
//! (transcript, editor, layout, drawing), dialogs, extension UI and session control each keep
//! their own state and handle their own input and messages; [`App`] routes each message and
//! key to the part it is for, lends a part the others it acts on, and gathers what each shows
//! into a frame. Parts never name the top-level: what their background tasks report comes
//! back through their outboxes, which this file wires to the loop's channel as [`AppMsg`]s.

use std::io::Write;

use rho_core::agent_session::{AgentSession, SessionEvent};
use rho_tui::terminal::TerminalEvent;
use rho_tui::Input;
use tokio::sync::mpsc::UnboundedSender;

use crate::control::{Control, ControlMsg, Cx, InitialPrompt};
use crate::dialogs::{ActiveDialog, Dialogs};
use crate::ext_ui::{Drawn, ExtUi, UiRequest};
use crate::options::InteractiveOptions;
use crate::outbox::Outbox;
use crate::screen::{Chrome, Screen, ScreenMsg};
use crate::shared::Shared;

/// Everything that reaches the interactive loop.
pub enum AppMsg {
    /// A key, paste or resize.
    Input(Input),
    /// Something else from the terminal: a suspend signal, colours, a mouse report.
    Terminal(TerminalEvent),
    /// Extensions have seen `session_start`; the command line's prompt, if any, goes now.
    Started(Option<InitialPrompt>),
    /// For the screen: a notice, the editor's text.
    Screen(ScreenMsg),
    /// A dialog to open, prepared by a task (e.g. after listing sessions).
    Open(Box<ActiveDialog>),
    /// An extension UI request.
    Ui(UiRequest),
    /// Lines an extension drew came back.
    Drawn(Drawn),
    /// For session control: a `!` command's progress, /reload's end or a reload asked for.
    Control(ControlMsg),
}

/// An outbox onto the loop's channel for the messages `wrap` turns into [`AppMsg`]s.
fn outbox<M: 'static>(tx: &UnboundedSender<AppMsg>, wrap: fn(M) -> AppMsg) -> Outbox<M> {
    let tx = tx.clone();
    Outbox::new(move |m| tx.send(wrap(m)).is_ok())
}

/// A dialog a task prepared, for the loop.
fn open(dialog: ActiveDialog) -> AppMsg {
    AppMsg::Open(Box::new(dialog))
}

/// Extension UI requests go to the loop behind the channel (`TuiUi::new(tx)`).
impl From<UnboundedSender<AppMsg>> for Outbox<UiRequest> {
    fn from(tx: UnboundedSender<AppMsg>) -> Self {
        outbox(&tx, AppMsg::Ui)
    }
}

/// The interactive mode: its parts.
pub struct App {
    shared: Shared,
    screen: Screen,
    dialogs: Dialogs,
    ext: ExtUi,
    control: Control,
}

impl App {
    /// The screen for `session`, sized `width` × `height`; the parts' tasks report on `tx`.
    pub fn new(
        session: AgentSession,
        options: InteractiveOptions,
        tx: UnboundedSender<AppMsg>,
        size: (u16, u16),
    ) -> Self {
        let shared = Shared::new(session, options);
        let (screen, warnings) = Screen::new(&shared, size);
        let mut app = Self {
            dialogs: Dialogs::new(outbox(&tx, AppMsg::Screen), outbox(&tx, open)),
            ext: ExtUi::new(outbox(&tx, AppMsg::Drawn)),
            control: Control::new(
                outbox(&tx, AppMsg::Screen),
                outbox(&tx, open),
                outbox(&tx, AppMsg::Control),
            ),
            screen,
            shared,
        };
        for w in warnings {
            app.screen.notice(format!("Warning: {w}"), true);
        }
        app.rebuild();
        app.rebuild_header();
        let session = &app.shared.session;
        if let Some(warning) =
            crate::startup_notes::model_warning(session, &app.shared.options.agent_dir)
        {
            app.screen.notice(warning, true);
        }
        let keys = &app.shared.keymap;
        app.ext.bind_shortcuts(session, keys, &mut app.screen);
        app
    }

    /// The session (for tasks the loop starts).
    pub fn session_handle(&self) -> AgentSession {
        self.shared.session.clone()
    }

    /// Reads keybindings.json from the agent dir (at start and on /reload); problems become
    /// notices.
    pub fn load_keybindings(&mut self) {
        for w in self.shared.load_keybindings() {
            self.screen.notice(format!("Warning: {w}"), true);
        }
    }

    /// The banner and the list of loaded resources under it.
    pub fn rebuild_header(&mut self) {
        self.screen.rebuild_header(&self.shared);
    }

    /// `--resume`: the session picker opens first.
    pub fn open_session_picker(&mut self) {
        self.control.open_session_picker(&self.shared);
    }

    /// True once the user asked to leave, the screen cannot be drawn, or an extension asked
    /// and the agent is idle (its queued steering and follow-up messages ran first).
    pub fn should_quit(&self) -> bool {
        self.control.quit_requested()
            || self.screen.exit_error().is_some()
            || (self.ext.shutdown_requested() && !self.shared.is_busy())
    }

    /// Session control with the other parts it acts on.
    fn control(&mut self) -> (&mut Control, Cx<'_>) {
        let cx = Cx {
            shared: &mut self.shared,
            screen: &mut self.screen,
            dialogs: &mut self.dialogs,
            ext: &mut self.ext,
        };
        (&mut self.control, cx)
    }

    /// Rebuilds the transcript from the session's messages (the drawings of the old one and
    /// a `!` command's live view go with it).
    fn rebuild(&mut self) {
        self.ext.restart();
        self.control.forget_bash();
        self.screen.rebuild(&self.shared.session);
    }

    /// Rebuilds the transcript when the session replaced its conversation (another session,
    /// a tree move, a compaction; also from an extension command). Checked before anything is
    /// added, so a note about the switch lands in the rebuilt transcript.
    fn follow_generation(&mut self) {
        if self.screen.is_stale(&self.shared.session) {
            self.rebuild();
        }
    }

    /// Handles one message.
    pub fn handle(&mut self, msg: AppMsg) {
        self.follow_generation();
        match msg {
            AppMsg::Input(Input::Resize(w, h)) => self.screen.resize(w, h),
            // pi's reload box holds the focus: keys wait, except for a dialog an extension
            // opened meanwhile.
            AppMsg::Input(_) if self.control.reloading() && !self.dialogs.is_open() => {}
            AppMsg::Input(input) => self.handle_input(&input),
            AppMsg::Terminal(event) => self.terminal_event(event),
            AppMsg::Started(first) => {
                // session_start may have added skills or templates.
                self.screen.refresh_completions(&self.shared.session);
                let (control, mut cx) = self.control();
                control.session_started(first, &mut cx);
            }
            AppMsg::Screen(msg) => self.screen.handle(msg),
            AppMsg::Open(dialog) => self.dialogs.open(*dialog),
            AppMsg::Ui(UiRequest::EditorEvent(event)) => {
                let (control, mut cx) = self.control();
                control.editor_event(event, &mut cx);
            }
            AppMsg::Ui(request) => self
                .ext
                .handle_ui(request, &mut self.screen, &mut self.dialogs),
            AppMsg::Drawn(drawn) => self.ext.drawn(drawn, &mut self.screen),
            AppMsg::Control(msg) => {
                let (control, mut cx) = self.control();
                control.handle(msg, &mut cx);
            }
        }
        self.dialogs.close_abandoned();
    }

    /// A key, paste or wheel notch, in pi's order: the open dialog takes every key; an
    /// extension's focused component comes next; in fullscreen the transcript's scroll keys
    /// (`tui.altScreen.*`); then extension shortcuts, then an extension's editor if one
    /// replaced rho's, else the app's actions (pi's `app.*`) and rho's editor.
    fn handle_input(&mut self, input: &Input) {
        if let Input::Wheel { down, alt } = input {
            return self.screen.wheel(*down, *alt);
        }
        if self.dialogs.is_open() {
            let answer = self
                .dialogs
                .handle_input(input, &self.shared, &mut self.screen);
            if let Some(answer) = answer {
                let (control, mut cx) = self.control();
                control.answered(answer, &mut cx);
            }
            return self.dialogs.show_next();
        }
        // A `ctx.ui.custom` component holds every key; an extension's editor stands where
        // rho's does, after the scroll keys and the shortcuts (pi's CustomEditor runs them).
        let editor_replaced = self.ext.editor_replaced();
        if !editor_replaced && self.ext.component_key(input) {
            return;
        }
        let header = self.ext.header();
        let keys = &self.shared.keymap;
        if self.screen.scroll_key(input, keys, header.as_deref()) {
            return;
        }
        if self.ext.shortcut_key(input, &self.shared.session) {
            return self.control.forget_ctrl_c();
        }
        if editor_replaced && self.ext.component_key(input) {
            return;
        }
        let (control, mut cx) = self.control();
        if control.app_key(input, &mut cx) {
            return;
        }
        if let Some(text) = cx.screen.editor_key(input, &cx.shared.keymap) {
            control.submit(text, &mut cx);
        }
        control.complete_arguments(&mut cx);
    }

    /// What the terminal reported besides keys.
    fn terminal_event(&mut self, event: TerminalEvent) {
        match event {
            TerminalEvent::Suspend => self.screen.suspend(),
            TerminalEvent::Input(input) => self.handle(AppMsg::Input(input)),
            TerminalEvent::Mouse(_)
            | TerminalEvent::Colors(_)
            | TerminalEvent::SchemeChanged { .. } => {}
        }
    }

    /// Applies a session event to the transcript.
    pub fn apply_event(&mut self, event: &SessionEvent) {
        self.follow_generation();
        self.screen.apply_event(event);
        if ends_message(event) {
            // Footers and headers drawn by extensions show session figures.
            self.ext.invalidate_components();
        }
    }

    /// The loop's timer: advances the working indicator and draws when something changed.
    pub fn tick<W: Write>(&mut self, out: &mut W) {
        self.screen.follow_commands(&self.shared.session);
        if self.screen.tick(self.shared.is_busy()) {
            self.draw(out);
        }
    }

    /// What the parts show around the editor, for a frame `width` wide.
    fn chrome(&self, width: usize) -> Chrome {
        let theme = self.screen.theme();
        Chrome {
            header: self.ext.header(),
            above_editor: self.ext.above_editor(width, theme),
            editor: self
                .dialogs
                .render(width, theme)
                .or_else(|| self.ext.editor_component()),
            reloading: self.control.reloading(),
            below_editor: self.ext.below_editor(width, theme),
            footer: self.ext.footer(),
            statuses: self.ext.statuses(width, theme),
            working: self.ext.working().clone(),
        }
    }

    /// Draws the frame; writes only what changed.
    pub fn draw<W: Write>(&mut self, out: &mut W) {
        let (width, _) = self.screen.size();
        self.ext
            .ask_drawings(width, &self.shared.session, &mut self.screen.transcript);
        let chrome = self.chrome(width);
        self.screen.draw(&self.shared, &chrome, out);
    }

    /// Leaves the last frame in the scrollback and the cursor under it; in fullscreen, leaves
    /// the alternate screen with what `fullscreenExitOutput` keeps.
    pub fn finish<W: Write>(&mut self, out: &mut W) {
        let (width, _) = self.screen.size();
        let chrome = self.chrome(width);
        self.screen.finish(&self.shared, &chrome, out);
    }

    /// Why the screen ended early (a terminal that cannot be drawn on), if it did.
    pub fn exit_error(&self) -> Option<&str> {
        self.screen.exit_error()
    }

    /// What to say on the normal screen after the terminal is given back (fullscreen's
    /// resume command).
    pub fn exit_note(&self) -> Option<&str> {
        self.screen.exit_note()
    }
}

/// Whether `event` ends a message or a run (session figures change).
fn ends_message(event: &SessionEvent) -> bool {
    use rho_protocol::agent::AgentEvent::{AgentEnd, MessageEnd};
    matches!(event, SessionEvent::Agent(e) if matches!(**e, MessageEnd { .. } | AgentEnd { .. }))
}

#[cfg(test)]
impl App {
    /// Draws the whole frame into `out` with a fresh renderer (what a new terminal would show).
    pub fn redraw_into(&mut self, out: &mut Vec<u8>) {
        let (width, _) = self.screen.size();
        self.ext
            .ask_drawings(width, &self.shared.session, &mut self.screen.transcript);
        let chrome = self.chrome(width);
        self.screen.redraw_into(&self.shared, &chrome, out);
    }

    /// Points the agent dir's files (auth.json, keybindings.json, themes, trust) elsewhere.
    pub fn set_agent_dir(&mut self, dir: &std::path::Path) {
        self.shared.options.agent_dir = dir.to_path_buf();
    }

    /// The editor's text.
    pub fn editor_text(&self) -> String {
        self.screen.editor.text().to_string()
    }

    /// The last frame drawn, as plain text.
    pub fn last_frame(&self) -> String {
        self.screen.last_frame()
    }

    /// Points /share at another GitHub CLI.
    pub fn set_gh_program(&mut self, program: &std::path::Path) {
        self.control.set_gh_program(program);
    }

    /// Whether a `!` command's live view is open.
    pub fn bash_running(&self) -> bool {
        self.control.bash_running()
    }
}
