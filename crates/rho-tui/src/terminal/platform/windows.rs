//! Windows: crossterm's reader of console input records, and no job control.
//!
//! crossterm's read blocks until the next input record and cannot be interrupted, so the
//! reader is neither paused nor parked: a program the terminal is handed to (an external
//! editor) shares the console's input with it, as it does under pi on Windows.

use std::io;

use crossterm::event::{self, Event, KeyEventKind, KeyModifiers, MouseEventKind};

use crate::input::Input;
use crate::terminal::TerminalEvent;

/// No job control: Ctrl+Z is a key (pi's Windows keys bind it to undo).
pub(in crate::terminal) const JOB_CONTROL: bool = false;

/// The reader reads on while another program has the console (see the module's doc).
pub(in crate::terminal) struct InputPause;

pub(in crate::terminal) fn pause() -> InputPause {
    InputPause
}

pub(in crate::terminal) fn park() {}

/// Never made: there is no SIGTSTP to put at its default.
pub(in crate::terminal) enum DefaultStop {}

pub(in crate::terminal) fn default_stop() -> Option<DefaultStop> {
    None
}

pub(in crate::terminal) fn stop_self() {}

/// Starts a thread handing crossterm's events (legacy keys only) to `deliver` until it
/// returns false or reading fails.
pub(in crate::terminal) fn spawn(
    mut deliver: impl FnMut(TerminalEvent) -> bool + Send + 'static,
) -> io::Result<()> {
    std::thread::Builder::new()
        .name("rho-tty-input".into())
        .spawn(move || loop {
            let input = match event::read() {
                Ok(Event::Key(k)) if k.kind != KeyEventKind::Release => Input::Key(k),
                Ok(Event::Paste(text)) => Input::Paste(text),
                Ok(Event::Resize(w, h)) => Input::Resize(w, h),
                Ok(Event::Mouse(m)) => match m.kind {
                    MouseEventKind::ScrollUp | MouseEventKind::ScrollDown => Input::Wheel {
                        down: m.kind == MouseEventKind::ScrollDown,
                        alt: m.modifiers.contains(KeyModifiers::ALT),
                    },
                    _ => continue,
                },
                Ok(_) => continue,
                Err(_) => return,
            };
            if !deliver(TerminalEvent::Input(input)) {
                return;
            }
        })
        .map(|_| ())
}
