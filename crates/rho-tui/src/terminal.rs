//! The real terminal: raw mode and bracketed paste for the lifetime of a guard, its size, and a
//! reader thread that turns crossterm's events into [`Input`]s. Everything else in this crate
//! works on lines and inputs and never touches the terminal.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::event::{self, Event, KeyEventKind, KeyModifiers, MouseEventKind};
use crossterm::terminal;

use crate::fullscreen::{LEAVE, MOUSE_OFF};
use crate::input::Input;
use crate::renderer::SHOW_CURSOR;

/// Whether the fullscreen mode holds the alternate screen (and the mouse): [`restore`] then
/// gives both back.
static FULLSCREEN: AtomicBool = AtomicBool::new(false);

/// Records that the fullscreen mode entered (or left) the alternate screen, so an exit that
/// skips the normal shutdown still leaves it.
pub fn set_fullscreen(active: bool) {
    FULLSCREEN.store(active, Ordering::SeqCst);
}

/// Puts the terminal in raw mode with bracketed paste on; dropping it restores the terminal,
/// also when the interactive loop returns early with an error or panics.
#[derive(Debug)]
pub struct TerminalGuard {
    _private: (),
}

impl TerminalGuard {
    /// Enters raw mode. Fails when stdin is not a terminal.
    pub fn enter() -> io::Result<Self> {
        terminal::enable_raw_mode()?;
        let mut out = io::stdout();
        crossterm::execute!(out, event::EnableBracketedPaste)?;
        Ok(Self { _private: () })
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Gives the terminal back to the shell (paste mode off, cursor shown, raw mode off) if a
/// [`TerminalGuard`] put it in raw mode; otherwise writes nothing, so piped output stays clean.
/// For exits that skip destructors (a termination signal calling `process::exit`).
pub fn restore() {
    if !terminal::is_raw_mode_enabled().unwrap_or(false) {
        return;
    }
    let mut out = io::stdout();
    if FULLSCREEN.swap(false, Ordering::SeqCst) {
        let _ = out.write_all(format!("{MOUSE_OFF}{LEAVE}").as_bytes());
    }
    let _ = crossterm::execute!(out, event::DisableBracketedPaste);
    let _ = out.write_all(SHOW_CURSOR.as_bytes());
    let _ = out.flush();
    let _ = terminal::disable_raw_mode();
}

/// The terminal's size in columns and rows (80×24 when it cannot be read).
pub fn size() -> (u16, u16) {
    terminal::size().unwrap_or((80, 24))
}

/// Starts a thread that reads terminal events and hands each input to `deliver` until it
/// returns false or reading fails (the terminal went away). Key releases are dropped, and of
/// the mouse only wheel notches are kept (the fullscreen mode scrolls with them).
pub fn spawn_reader(mut deliver: impl FnMut(Input) -> bool + Send + 'static) {
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
            if !deliver(input) {
                return;
            }
        })
        .map(|_| ())
        .unwrap_or_else(|e| eprintln!("rho: cannot start the terminal reader: {e}"));
}
