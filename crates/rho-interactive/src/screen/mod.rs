//! The screen: the transcript, the editor, the banner, the footer and the layout (inline or
//! fullscreen), and drawing a frame of them. Other parts do not draw: what they show around
//! the editor (an open dialog, extension widgets, statuses, a custom footer) reaches a frame
//! as [`Chrome`], gathered by the top-level. The transcript and the editor are the screen's;
//! other parts write into them (a `!` command's live view, a queued message brought back).
//!
//! This file holds the state; its behaviour is in the files beside it (`state`: building and
//! rebuilding, notices, the screen's keys; `frame`: drawing; `fullscreen`: the fullscreen
//! layout).

mod completions;
mod footer;
mod frame;
mod fullscreen;
mod state;
mod working;

use rho_tui::editor::Editor;
use rho_tui::fullscreen::{FullscreenOptions, FullscreenView, TuiMode};
use rho_tui::{Renderer, Theme, Transcript};

use crate::outbox::Outbox;
pub use completions::{argument_commands, completions};
use footer::FooterInfo;
pub use working::WorkingLine;

/// How often the working indicator moves (the interactive loop's timer).
pub(crate) const SPINNER_TICK_MS: u64 = 100;

/// What tasks tell the screen.
pub enum ScreenMsg {
    /// A one-line note for the transcript (a command's result or error).
    Notice {
        /// The text.
        text: String,
        /// Shown in the error colour.
        error: bool,
    },
    /// Put this text in the editor (a tree move or fork hands back the chosen message).
    SetEditor(String),
    /// The completions of `command`'s arguments for `prefix` (an extension's
    /// `getArgumentCompletions`), shown if the editor still asks for them.
    ArgumentCompletions {
        /// The command.
        command: String,
        /// What was typed after it.
        prefix: String,
        /// The completions.
        items: Vec<rho_tui::editor::CompletionItem>,
    },
}

impl Outbox<ScreenMsg> {
    /// Sends a notice for the transcript.
    pub fn notice(&self, text: impl Into<String>, error: bool) {
        self.send(ScreenMsg::Notice {
            text: text.into(),
            error,
        });
    }
}

/// What the other parts show around the editor, gathered for each frame.
#[derive(Default)]
pub struct Chrome {
    /// An extension's header, in place of the banner.
    pub header: Option<Vec<String>>,
    /// Extension widgets and components above the editor.
    pub above_editor: Vec<String>,
    /// What shows in the editor's place (an open dialog, an extension's component);
    /// `None` leaves the editor (or the reload note).
    pub editor: Option<Vec<String>>,
    /// /reload runs: a note stands in the editor's place and keys wait.
    pub reloading: bool,
    /// Extension widgets and components below the editor.
    pub below_editor: Vec<String>,
    /// An extension's footer, in place of the footer and the statuses in it (pi).
    pub footer: Option<Vec<String>>,
    /// Extension statuses, under the footer.
    pub statuses: Vec<String>,
    /// The working line as extensions set it.
    pub working: WorkingLine,
}

/// The screen's state.
pub struct Screen {
    /// The extension commands' generation the completion list was built from.
    commands_seen: u64,
    /// The command and prefix whose argument completions were last asked for.
    arguments_asked: Option<(String, String)>,
    /// The colours everything is drawn in.
    theme: Theme,
    /// The conversation as drawn.
    pub transcript: Transcript,
    /// The prompt editor.
    pub editor: Editor,
    renderer: Renderer,
    /// The banner and the resources loaded under it.
    header: Vec<String>,
    footer: FooterInfo,
    thinking_expanded: bool,
    tools_expanded: bool,
    /// The session's `AgentSession::generation` the transcript was built from.
    drawn_generation: u64,
    /// Timer ticks while busy (the working indicator's frame).
    spinner: u64,
    /// Whether the last frame drawn shows the working indicator.
    indicator_shown: bool,
    /// The context's size estimated when the transcript was built (the footer's figure until a
    /// reply reports usage; pi's context use from the first frame).
    loaded_context_tokens: Option<u64>,
    /// The fullscreen layout, when `tuiMode` chose it.
    full: Option<FullscreenView>,
    /// The fullscreen settings (kept while inline, for a switch from /settings).
    full_options: FullscreenOptions,
    /// A layout switch asked for, made before the next frame.
    pending_mode: Option<TuiMode>,
    /// Why the screen ended, printed after the terminal is given back.
    exit_error: Option<String>,
    /// Said on the normal screen once the terminal is given back (the resume command).
    exit_note: Option<String>,
    /// Another program (the external editor) has the terminal: nothing is drawn.
    handed_over: bool,
}
