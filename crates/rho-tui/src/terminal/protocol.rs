//! The terminal modes rho asks for and must give back: the kitty keyboard protocol (flags
//! pushed on start and popped on every exit), xterm's `modifyOtherKeys` (the fallback when a
//! terminal answers the device attributes query but not the kitty one, as tmux does with
//! `extended-keys on`), colour-scheme change reports and the progress indicator. What is on
//! is kept in process-wide flags so an exit that skips destructors (a signal, a panic) still
//! turns it off. pi 1.6's terminal layer asks for and restores the same modes.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Pushes kitty keyboard flags 7 (disambiguate, event types, alternate keys), asks which flags
/// are in force, and asks for the device attributes, which every terminal answers after the
/// replies before it: a DA reply with no kitty reply first means no kitty protocol.
pub const KEYBOARD_QUERY: &str = "\x1b[>7u\x1b[?u\x1b[c";
/// Pops the kitty keyboard flags pushed.
pub const KITTY_OFF: &str = "\x1b[<u";
/// xterm `modifyOtherKeys` level 2: modified keys as `CSI 27 ; m ; k ~`.
pub const MODIFY_OTHER_KEYS_ON: &str = "\x1b[>4;2m";
/// `modifyOtherKeys` back to the terminal's default.
pub const MODIFY_OTHER_KEYS_OFF: &str = "\x1b[>4;0m";
/// Bracketed paste on.
pub const PASTE_ON: &str = "\x1b[?2004h";
/// Bracketed paste off.
pub const PASTE_OFF: &str = "\x1b[?2004l";
/// Asks for the default foreground and background and the 16 palette colours, then the
/// device attributes that end the replies.
pub fn color_query() -> String {
    let mut q = String::from("\x1b]10;?\x07\x1b]11;?\x07");
    for i in 0..16 {
        q.push_str(&format!("\x1b]4;{i};?\x07"));
    }
    q.push_str("\x1b[c");
    q
}
/// Colour-scheme change reports (`CSI ? 997 ; 1|2 n`) on and off.
pub const SCHEME_REPORTS_ON: &str = "\x1b[?2031h";
/// See [`SCHEME_REPORTS_ON`].
pub const SCHEME_REPORTS_OFF: &str = "\x1b[?2031l";
/// OSC 9;4 progress: indeterminate.
pub const PROGRESS_ON: &str = "\x1b]9;4;3\x07";
/// OSC 9;4 progress: cleared.
pub const PROGRESS_OFF: &str = "\x1b]9;4;0\x07";

static KITTY_PUSHED: AtomicBool = AtomicBool::new(false);
static KITTY_ACTIVE: AtomicBool = AtomicBool::new(false);
static MODIFY_OTHER_KEYS: AtomicBool = AtomicBool::new(false);
static SCHEME_REPORTS: AtomicBool = AtomicBool::new(false);
static PROGRESS: AtomicBool = AtomicBool::new(false);

/// What a device attributes reply answers, oldest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Query {
    /// The keyboard protocol query sent on start.
    Keyboard,
    /// A colour query.
    Colors,
}

static QUERIES: Mutex<VecDeque<Query>> = Mutex::new(VecDeque::new());

fn write(seq: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(seq.as_bytes());
    let _ = out.flush();
}

fn owe(query: Query) {
    QUERIES
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push_back(query);
}

/// Whether the terminal confirmed the kitty keyboard protocol.
pub fn kitty_active() -> bool {
    KITTY_ACTIVE.load(Ordering::SeqCst)
}

/// Asks for the keyboard protocols (see [`KEYBOARD_QUERY`]) and bracketed paste.
pub fn start() {
    KITTY_PUSHED.store(true, Ordering::SeqCst);
    owe(Query::Keyboard);
    let scheme = if SCHEME_REPORTS.load(Ordering::SeqCst) {
        SCHEME_REPORTS_ON
    } else {
        ""
    };
    write(&format!("{PASTE_ON}{KEYBOARD_QUERY}{scheme}"));
}

/// The sequence that turns off everything [`start`] and the replies turned on, and records
/// that it is off. Colour-scheme reports are remembered and come back on the next start.
pub fn stop_sequence() -> String {
    let mut seq = String::new();
    if PROGRESS.swap(false, Ordering::SeqCst) {
        seq.push_str(PROGRESS_OFF);
    }
    if SCHEME_REPORTS.load(Ordering::SeqCst) {
        seq.push_str(SCHEME_REPORTS_OFF);
    }
    seq.push_str(PASTE_OFF);
    if KITTY_PUSHED.swap(false, Ordering::SeqCst) {
        seq.push_str(KITTY_OFF);
    }
    KITTY_ACTIVE.store(false, Ordering::SeqCst);
    if MODIFY_OTHER_KEYS.swap(false, Ordering::SeqCst) {
        seq.push_str(MODIFY_OTHER_KEYS_OFF);
    }
    seq
}

/// The terminal said which kitty flags are in force: non-zero means the protocol is on (and
/// `modifyOtherKeys`, if a DA reply turned it on first, goes off); zero means fall back.
pub fn kitty_reply(flags: u16) {
    if flags == 0 {
        return enable_modify_other_keys();
    }
    if MODIFY_OTHER_KEYS.swap(false, Ordering::SeqCst) {
        write(MODIFY_OTHER_KEYS_OFF);
    }
    KITTY_ACTIVE.store(true, Ordering::SeqCst);
}

fn enable_modify_other_keys() {
    if !KITTY_PUSHED.load(Ordering::SeqCst) || kitty_active() {
        return;
    }
    if !MODIFY_OTHER_KEYS.swap(true, Ordering::SeqCst) {
        write(MODIFY_OTHER_KEYS_ON);
    }
}

/// A device attributes reply: ends the oldest query. After the keyboard query without a
/// kitty reply, `modifyOtherKeys` goes on. Returns the query it ended.
pub fn device_attributes() -> Option<Query> {
    let query = QUERIES
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .pop_front();
    if query == Some(Query::Keyboard) && !kitty_active() {
        enable_modify_other_keys();
    }
    query
}

/// Asks the terminal for its colours; they arrive as one [`super::TerminalEvent::Colors`].
pub fn query_colors() {
    owe(Query::Colors);
    write(&color_query());
}

/// Turns colour-scheme change reports on or off (and remembers it across a suspend).
pub fn set_scheme_reports(on: bool) {
    if SCHEME_REPORTS.swap(on, Ordering::SeqCst) != on {
        write(if on {
            SCHEME_REPORTS_ON
        } else {
            SCHEME_REPORTS_OFF
        });
    }
}

/// Shows (`true`) or clears the terminal's progress indicator (OSC 9;4).
pub fn set_progress(on: bool) {
    PROGRESS.store(on, Ordering::SeqCst);
    write(if on { PROGRESS_ON } else { PROGRESS_OFF });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stop_sequence_undoes_what_is_on_and_only_that() {
        // One test owns the process-wide flags (tests run in threads).
        KITTY_PUSHED.store(true, Ordering::SeqCst);
        MODIFY_OTHER_KEYS.store(true, Ordering::SeqCst);
        let seq = stop_sequence();
        assert_eq!(
            seq,
            format!("{PASTE_OFF}{KITTY_OFF}{MODIFY_OTHER_KEYS_OFF}")
        );
        assert_eq!(stop_sequence(), PASTE_OFF, "nothing is on any more");
        assert!(color_query().ends_with("\x1b]4;15;?\x07\x1b[c"));
    }
}
