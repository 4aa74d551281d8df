//! The extension UI part: what extensions show and take on the screen. Their requests
//! (`ctx.ui.*`) arrive as [`UiRequest`]s: questions open dialogs, the rest changes the chrome
//! kept here (statuses under the footer, widgets around the editor, components extensions
//! draw themselves, the window title). Keys reach an extension's focused component and the
//! shortcuts extensions registered. What it shows reaches each frame as pieces of the
//! screen's chrome.

mod render;
mod requests;
mod shortcuts;

use rho_core::agent_session::AgentSession;
use rho_extension_host::render::ComponentSlot;
use rho_tui::components::Component;
use rho_tui::dialogs::{StatusBar, WidgetArea};
use rho_tui::{Input, Keymap, Theme, Transcript};

pub use render::Drawn;
use render::ExtRender;
pub use requests::{TuiUi, UiRequest};
use shortcuts::Binding;

use crate::dialogs::{ActiveDialog, Dialogs};
use crate::outbox::Outbox;
use crate::screen::{Screen, WorkingLine};

/// What extensions show and which keys they take.
pub struct ExtUi {
    /// Extension status entries, shown under the footer.
    statuses: StatusBar,
    /// Extension widgets, shown above the editor.
    widgets: WidgetArea,
    /// Extension widgets placed below the editor.
    widgets_below: WidgetArea,
    /// What extensions draw themselves.
    render: ExtRender,
    /// Where drawings come back.
    drawn_tx: Outbox<Drawn>,
    /// The extension shortcuts bound on the main screen.
    shortcuts: Vec<Binding>,
    /// An extension called `ctx.shutdown()`: quit once the agent is idle (pi's rule).
    shutdown_requested: bool,
    /// The working line as extensions set it.
    working: WorkingLine,
}

impl ExtUi {
    /// Nothing shown yet; drawings come back through `drawn_tx`.
    pub fn new(drawn_tx: Outbox<Drawn>) -> Self {
        Self {
            statuses: StatusBar::new(),
            widgets: WidgetArea::new(),
            widgets_below: WidgetArea::new(),
            render: ExtRender::default(),
            drawn_tx,
            shortcuts: Vec::new(),
            shutdown_requested: false,
            working: WorkingLine::default(),
        }
    }

    /// Shows an extension's request: a question opens a dialog.
    pub fn handle_ui(&mut self, request: UiRequest, screen: &mut Screen, dialogs: &mut Dialogs) {
        match request {
            UiRequest::Select {
                title,
                options,
                reply,
            } => dialogs.open(ActiveDialog::ext_select(title, options, reply)),
            UiRequest::Confirm {
                title,
                message,
                reply,
            } => dialogs.open(ActiveDialog::ext_confirm(title, message, reply)),
            UiRequest::Input {
                title,
                placeholder,
                reply,
            } => dialogs.open(ActiveDialog::ext_input(title, placeholder, reply)),
            UiRequest::Editor {
                title,
                prefill,
                reply,
            } => dialogs.open(ActiveDialog::ext_editor(title, prefill, reply)),
            UiRequest::SetEditorText(text) => screen.editor.set_text(&text),
            UiRequest::Notify { message, kind } => screen.notice(message, kind == "error"),
            UiRequest::Status { key, text } => self.statuses.set(key, text),
            UiRequest::Widget {
                key,
                lines,
                below: false,
            } => self.widgets.set(key, lines),
            UiRequest::Widget { key, lines, .. } => self.widgets_below.set(key, lines),
            UiRequest::Component { key, slot } => self.render.place(key, slot),
            UiRequest::Redraw(key) => self.render.invalidate(Some(&key)),
            UiRequest::Shutdown => self.shutdown_requested = true,
            UiRequest::Working(update) => {
                if let Some(label) = self.working.apply(update) {
                    screen.transcript.set_hidden_thinking_label(label);
                }
            }
            UiRequest::Title(title) => {
                use std::io::Write;
                let clean: String = title.chars().filter(|c| !c.is_control()).collect();
                let mut out = std::io::stdout();
                let _ = write!(out, "\x1b]0;{clean}\x07");
                let _ = out.flush();
            }
        }
    }

    /// Whether an extension asked rho to quit (`ctx.shutdown()`).
    pub fn shutdown_requested(&self) -> bool {
        self.shutdown_requested
    }

    /// Asks for every extension drawing missing or stale at `width`.
    pub fn ask_drawings(
        &mut self,
        width: usize,
        session: &AgentSession,
        transcript: &mut Transcript,
    ) {
        self.render.ask(width, session, transcript, &self.drawn_tx);
    }

    /// Puts a drawing that came back in place.
    pub fn drawn(&mut self, drawn: Drawn, screen: &mut Screen) {
        self.render.drawn(drawn, &mut screen.transcript);
    }

    /// The transcript was rebuilt: its drawings are asked for again.
    pub fn restart(&mut self) {
        self.render.restart();
    }

    /// Session figures changed: footers and headers extensions draw are drawn again.
    pub fn invalidate_components(&mut self) {
        self.render.invalidate(None);
    }

    /// /reload: the old extensions' statuses and widgets go with them (pi's
    /// resetExtensionUI).
    pub fn clear_chrome(&mut self) {
        self.statuses = StatusBar::new();
        self.widgets = WidgetArea::new();
        self.working = WorkingLine::default();
    }

    /// The working line as extensions set it.
    pub fn working(&self) -> &WorkingLine {
        &self.working
    }

    /// A key for the component holding the keyboard, if one does: true when it took it.
    pub fn component_key(&mut self, input: &Input) -> bool {
        let Some(key) = self.render.focused() else {
            return false;
        };
        self.render.component_key(key, input, &self.drawn_tx);
        true
    }

    /// Binds what the loaded extensions registered (at start and after /reload) against
    /// `keys`; pi's conflict warnings go to the screen.
    pub fn bind_shortcuts(&mut self, session: &AgentSession, keys: &Keymap, screen: &mut Screen) {
        let (bound, warnings) = shortcuts::resolve(session.extensions().shortcuts(), keys);
        self.shortcuts = bound;
        for w in warnings {
            screen.notice(format!("Warning: {w}"), true);
        }
    }

    /// Runs the extension shortcut `input` is, if it is one (in a task: the handler may open
    /// dialogs, which need this loop).
    pub fn shortcut_key(&mut self, input: &Input, session: &AgentSession) -> bool {
        let Some(binding) = self.shortcuts.iter().find(|b| b.matches(input)).cloned() else {
            return false;
        };
        let session = session.clone();
        tokio::spawn(async move { session.run_shortcut(&binding.path, &binding.def).await });
        true
    }

    /// The bound shortcuts for /hotkeys: key, and the description or the extension's file.
    pub fn shortcut_rows(&self) -> Vec<(String, String)> {
        self.shortcuts
            .iter()
            .map(|b| {
                let what = b.def.description.clone().unwrap_or_else(|| b.path.clone());
                (b.def.key.clone(), what)
            })
            .collect()
    }

    /// An extension's header, in place of the banner.
    pub fn header(&self) -> Option<Vec<String>> {
        self.render.latest(ComponentSlot::Header)
    }

    /// Widgets and components above the editor.
    pub fn above_editor(&self, width: usize, theme: &Theme) -> Vec<String> {
        let mut lines = self.widgets.render(width, theme);
        lines.extend(self.render.all(ComponentSlot::AboveEditor));
        lines
    }

    /// An extension's component in the editor's place.
    pub fn editor_component(&self) -> Option<Vec<String>> {
        self.render.latest(ComponentSlot::Editor)
    }

    /// Widgets and components below the editor.
    pub fn below_editor(&self, width: usize, theme: &Theme) -> Vec<String> {
        let mut lines = self.widgets_below.render(width, theme);
        lines.extend(self.render.all(ComponentSlot::BelowEditor));
        lines
    }

    /// An extension's footer, in place of the footer and the statuses.
    pub fn footer(&self) -> Option<Vec<String>> {
        self.render.latest(ComponentSlot::Footer)
    }

    /// The statuses under the footer.
    pub fn statuses(&self, width: usize, theme: &Theme) -> Vec<String> {
        self.statuses.render(width, theme)
    }
}
