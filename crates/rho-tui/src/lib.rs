//! rho's interactive terminal UI, rendering layer: a differential renderer that keeps the
//! terminal's scrollback, markdown with simple syntax highlighting, the transcript components
//! (messages, tool calls, notices, editor, footer, queue indicator), a [`Transcript`] model fed by
//! session events, and the dark and light themes.
//!
//! The UI sees the session only through data types (`rho_protocol`'s message model, agent
//! messages, events and `session::SessionEvent`); it depends on neither the agent loop, the
//! session engine nor the provider layer (so it links no HTTP stack), and never reaches into
//! the session's internals.

#![warn(missing_docs)]

pub mod ansi;
pub mod components;
pub mod dialogs;
pub mod editor;
pub mod fullscreen;
pub mod fuzzy;
pub mod highlight;
pub mod incremental;
pub mod input;
pub mod keymap;
pub mod markdown;
pub mod renderer;
pub mod table;
pub mod terminal;
pub mod theme;
pub mod transcript;

pub use input::{Dialog, DialogAction, Input};
pub use keymap::{Action, Keymap};
pub use renderer::{RenderStats, Renderer};
pub use theme::Theme;
pub use transcript::{Transcript, View};
