//! The real terminal: raw mode, bracketed paste and the keyboard protocols for the lifetime of
//! a guard, handing the terminal to another program (an external editor, the shell on Ctrl+Z)
//! and taking it back, its size, and a reader thread that turns what it sends into
//! [`TerminalEvent`]s. Everything else in this crate works on lines and inputs and never
//! touches the terminal.
//!
//! Every mode rho turns on is turned off by [`restore`], which runs on every way out: the
//! guard's drop, a termination signal (the binary calls it before exiting), a panic (a hook
//! installed with the guard) and a suspend.

mod decode;
mod platform;
pub mod protocol;
#[cfg(unix)]
mod reader;
mod split;

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::terminal;

pub use decode::{decode, ColorSlot, Decoded, MouseAction, MouseReport};
pub use split::{Pending, Piece, Splitter};

use crate::fullscreen::{LEAVE, MOUSE_OFF};
use crate::input::Input;
use crate::renderer::SHOW_CURSOR;
use crate::theme::Rgb;

/// Whether the fullscreen mode holds the alternate screen (and the mouse): [`restore`] then
/// gives both back.
static FULLSCREEN: AtomicBool = AtomicBool::new(false);
/// A panic restored the terminal: the interactive loop stops drawing and ends.
static PANICKED: AtomicBool = AtomicBool::new(false);

/// Something the terminal (or a signal about it) delivered.
#[derive(Debug, Clone, PartialEq)]
pub enum TerminalEvent {
    /// A key, paste, resize or wheel notch.
    Input(Input),
    /// A mouse report other than the wheel (the fullscreen selection uses the left button).
    Mouse(MouseReport),
    /// SIGTSTP from outside (`kill -TSTP`): suspend as Ctrl+Z does.
    Suspend,
    /// The replies to a colour query ([`protocol::query_colors`]).
    Colors(TerminalColors),
    /// The terminal switched to a dark or light scheme (colour-scheme reports are on).
    SchemeChanged {
        /// The new scheme is dark.
        dark: bool,
    },
}

/// The colours a terminal reported; `None` for those it did not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TerminalColors {
    /// The default foreground (OSC 10).
    pub foreground: Option<Rgb>,
    /// The default background (OSC 11).
    pub background: Option<Rgb>,
    /// ANSI colours 0-15 (OSC 4), when all sixteen were reported.
    pub palette: Option<[Rgb; 16]>,
}

/// Records that the fullscreen mode entered (or left) the alternate screen, so an exit that
/// skips the normal shutdown still leaves it.
pub fn set_fullscreen(active: bool) {
    FULLSCREEN.store(active, Ordering::SeqCst);
}

/// Puts the terminal in raw mode with bracketed paste and the keyboard protocols on; dropping
/// it restores the terminal, also when the interactive loop returns early with an error.
#[derive(Debug)]
pub struct TerminalGuard {
    _private: (),
}

impl TerminalGuard {
    /// Enters raw mode. Fails when stdin is not a terminal.
    pub fn enter() -> io::Result<Self> {
        terminal::enable_raw_mode()?;
        install_panic_hook();
        protocol::start();
        Ok(Self { _private: () })
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Restores the terminal before a panic's message is printed (on any thread), so the message
/// is readable and the shell usable; the interactive loop sees [`panicked`] and ends.
fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if terminal::is_raw_mode_enabled().unwrap_or(false) {
                PANICKED.store(true, Ordering::SeqCst);
                restore();
            }
            previous(info);
        }));
    });
}

/// Whether a panic restored the terminal (the interactive loop must not draw again).
pub fn panicked() -> bool {
    PANICKED.load(Ordering::SeqCst)
}

/// Gives the terminal back to the shell (progress and colour-scheme reports, paste mode and
/// the keyboard protocols off, the alternate screen left, cursor shown, raw mode off) if a
/// [`TerminalGuard`] put it in raw mode; otherwise writes nothing, so piped output stays clean.
/// For exits that skip destructors (a termination signal calling `process::exit`).
pub fn restore() {
    if !terminal::is_raw_mode_enabled().unwrap_or(false) {
        return;
    }
    let mut seq = String::new();
    if FULLSCREEN.swap(false, Ordering::SeqCst) {
        seq.push_str(MOUSE_OFF);
        seq.push_str(LEAVE);
    }
    seq.push_str(&protocol::stop_sequence());
    seq.push_str(SHOW_CURSOR);
    let mut out = io::stdout().lock();
    let _ = out.write_all(seq.as_bytes());
    let _ = out.flush();
    drop(out);
    let _ = terminal::disable_raw_mode();
}

/// The terminal handed to another program: the reader paused, the modes off, raw mode off,
/// and SIGTSTP at its default (so the program's own Ctrl+Z stops rho with it). Dropping it
/// takes the terminal back (raw mode and the keyboard protocols again); the caller redraws,
/// re-entering the alternate screen in fullscreen.
pub struct Handover {
    was_raw: bool,
    _pause: platform::InputPause,
    default_stop: Option<platform::DefaultStop>,
}

/// Hands the terminal over (see [`Handover`]). Without raw mode (tests, no terminal) only the
/// reader is paused.
pub fn hand_over() -> Handover {
    let pause = platform::pause();
    let was_raw = terminal::is_raw_mode_enabled().unwrap_or(false);
    restore();
    Handover {
        was_raw,
        _pause: pause,
        default_stop: if was_raw {
            platform::default_stop()
        } else {
            None
        },
    }
}

impl Drop for Handover {
    fn drop(&mut self) {
        // The reader's SIGTSTP handler first, before raw mode is back.
        self.default_stop = None;
        if self.was_raw && terminal::enable_raw_mode().is_ok() {
            protocol::start();
        }
    }
}

/// Ctrl+Z: gives the terminal back, stops rho's process group as the shell's job control
/// expects (`fg` continues it), and takes the terminal back once continued. The caller redraws
/// everything. Returns false where there is no job control (Windows).
pub fn suspend() -> bool {
    if !platform::JOB_CONTROL {
        return false;
    }
    let handover = hand_over();
    // SIGTSTP is at its default (stop) while `handover` lives, so this returns after SIGCONT.
    platform::stop_self();
    drop(handover);
    true
}

/// The terminal's size in columns and rows (80×24 when it cannot be read).
pub fn size() -> (u16, u16) {
    terminal::size().unwrap_or((80, 24))
}

/// Stops the reader until the next [`spawn_reader`] (a question asked before the interactive
/// screen was answered; the screen takes the reader over).
pub fn park_reader() {
    platform::park();
}

/// Starts the thread that reads the terminal (or hands the one running to `deliver`), which
/// hands each event to `deliver` until it returns false or reading fails (the terminal went
/// away). Key releases are dropped.
pub fn spawn_reader(deliver: impl FnMut(TerminalEvent) -> bool + Send + 'static) {
    if let Err(e) = platform::spawn(deliver) {
        eprintln!("rho: cannot start the terminal reader: {e}");
    }
}
