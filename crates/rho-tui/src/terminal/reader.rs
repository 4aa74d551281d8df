//! The reader thread: reads the terminal's bytes itself (crossterm's reader knows neither
//! xterm's `modifyOtherKeys` keys nor colour replies), cuts them into sequences, and hands on
//! what they mean. Replies to rho's queries are answered here: the keyboard protocol is settled
//! (kitty flags, else `modifyOtherKeys`) and colour replies are gathered until the device
//! attributes reply that ends them.
//!
//! It also wakes for SIGWINCH (a resize) and SIGTSTP sent from outside (a suspend, handled like
//! Ctrl+Z), and can be paused while another program (an external editor, the shell after a
//! suspend) owns the terminal, so it never steals that program's keys. There is one reader for
//! the process: a question asked before the interactive screen starts (project trust) uses it,
//! parks it, and the screen takes it over with a new receiver.

use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

use super::decode::{decode, ColorSlot, Decoded};
use super::split::{Pending, Piece, Splitter};
use super::{protocol, TerminalColors, TerminalEvent};
use crate::input::{Input, KeyEventKind};

/// How long an unfinished sequence waits for the rest (pi's 50 ms).
const SEQUENCE_WAIT: Duration = Duration::from_millis(50);

/// Whether the reader runs, is asked to pause, or is paused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Running,
    PauseAsked,
    Paused,
}

/// Where events go; false when the receiver is gone (the reader then parks).
type Deliver = Box<dyn FnMut(TerminalEvent) -> bool + Send>;

/// What the rest of the process shares with the reader thread.
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
    /// Writing a byte here wakes the thread from its wait.
    wake: UnixStream,
    deliver: Mutex<Deliver>,
}

impl Shared {
    fn lock_state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Asks the thread to stop reading and waits (at most a second) until it has.
    fn stop_reading(&self) {
        let mut state = self.lock_state();
        *state = State::PauseAsked;
        let _ = (&self.wake).write(b"p");
        // Bounded: a reader stuck elsewhere must not hang the caller.
        let _ = self
            .changed
            .wait_timeout_while(state, Duration::from_secs(1), |s| *s == State::PauseAsked);
    }

    fn resume(&self) {
        *self.lock_state() = State::Running;
        self.changed.notify_all();
    }
}

static READER: OnceLock<Arc<Shared>> = OnceLock::new();

/// Keeps the reader away from the terminal until dropped.
#[derive(Debug)]
pub struct InputPause {
    active: bool,
}

/// Stops the reader from reading the terminal (it finishes the read it is in) until the
/// returned guard is dropped. Without a reader it does nothing.
pub fn pause() -> InputPause {
    let Some(shared) = READER.get() else {
        return InputPause { active: false };
    };
    shared.stop_reading();
    InputPause { active: true }
}

impl Drop for InputPause {
    fn drop(&mut self) {
        if let (true, Some(shared)) = (self.active, READER.get()) {
            shared.resume();
        }
    }
}

/// Stops the reader until the next [`spawn`] gives it a receiver (a question asked before the
/// interactive screen starts is answered).
pub fn park() {
    if let Some(shared) = READER.get() {
        shared.stop_reading();
    }
}

/// How long a lone ESC waits to become Escape (pi: 10 ms, 100 ms over SSH, where Alt+key's
/// two bytes can arrive apart).
fn escape_wait() -> Duration {
    let ssh = ["SSH_CONNECTION", "SSH_TTY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
    Duration::from_millis(if ssh { 100 } else { 10 })
}

/// Starts the reader thread, or hands the running one to a new receiver and lets it read
/// again; `deliver` gets every event until it returns false (the reader then parks) or the
/// terminal goes away.
pub fn spawn(deliver: impl FnMut(TerminalEvent) -> bool + Send + 'static) -> io::Result<()> {
    if let Some(shared) = READER.get() {
        *shared.deliver.lock().unwrap_or_else(|p| p.into_inner()) = Box::new(deliver);
        shared.resume();
        return Ok(());
    }
    let (wake_rx, wake_tx) = UnixStream::pair()?;
    wake_rx.set_nonblocking(true)?;
    wake_tx.set_nonblocking(true)?;
    let winch = Arc::new(AtomicBool::new(false));
    let tstp = Arc::new(AtomicBool::new(false));
    use signal_hook::consts::{SIGTSTP, SIGWINCH};
    for (signal, flag) in [(SIGWINCH, &winch), (SIGTSTP, &tstp)] {
        signal_hook::flag::register(signal, Arc::clone(flag))?;
        signal_hook::low_level::pipe::register(signal, wake_tx.try_clone()?)?;
    }
    let shared = Arc::new(Shared {
        state: Mutex::new(State::Running),
        changed: Condvar::new(),
        wake: wake_tx,
        deliver: Mutex::new(Box::new(deliver)),
    });
    let _ = READER.set(Arc::clone(&shared));
    let mut reader = Reader {
        shared,
        wake: wake_rx,
        winch,
        tstp,
        splitter: Splitter::default(),
        colors: TerminalColors::default(),
        palette: Default::default(),
        escape_wait: escape_wait(),
    };
    std::thread::Builder::new()
        .name("rho-tty-input".into())
        .spawn(move || reader.run())?;
    Ok(())
}

struct Reader {
    shared: Arc<Shared>,
    wake: UnixStream,
    winch: Arc<AtomicBool>,
    tstp: Arc<AtomicBool>,
    splitter: Splitter,
    /// Colour replies gathered for the query whose device attributes reply has not come.
    colors: TerminalColors,
    palette: [Option<crate::theme::Rgb>; 16],
    escape_wait: Duration,
}

impl Reader {
    /// Hands `event` to the receiver; when it is gone, the reader parks until the next one.
    fn deliver(&self, event: TerminalEvent) {
        let delivered = (self
            .shared
            .deliver
            .lock()
            .unwrap_or_else(|p| p.into_inner()))(event);
        if !delivered {
            *self.shared.lock_state() = State::PauseAsked;
        }
    }

    fn run(&mut self) {
        let mut buf = [0u8; 4096];
        loop {
            self.wait_while_paused();
            let timeout = match self.splitter.pending() {
                Pending::Nothing | Pending::Unbounded => None,
                Pending::Escape => Some(self.escape_wait),
                Pending::Sequence => Some(SEQUENCE_WAIT),
            };
            let Ok((input_ready, woken)) = poll(self.wake.as_raw_fd(), timeout) else {
                return;
            };
            let mut pieces = Vec::new();
            if woken {
                let mut sink = [0u8; 64];
                while matches!((&self.wake).read(&mut sink), Ok(n) if n > 0) {}
                if self.winch.swap(false, Ordering::SeqCst) {
                    let (w, h) = super::size();
                    self.deliver(TerminalEvent::Input(Input::Resize(w, h)));
                }
                if self.tstp.swap(false, Ordering::SeqCst) {
                    self.deliver(TerminalEvent::Suspend);
                }
                continue;
            }
            match input_ready {
                Readiness::Readable => match io::stdin().lock().read(&mut buf) {
                    Ok(0) => return,
                    Ok(n) => self.splitter.feed(&buf[..n], &mut pieces),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(_) => return,
                },
                Readiness::TimedOut => self.splitter.flush(&mut pieces),
                Readiness::Closed => return,
                Readiness::Nothing => continue,
            }
            for piece in pieces {
                let event = match piece {
                    Piece::Paste(text) => Some(TerminalEvent::Input(Input::Paste(text))),
                    Piece::Seq(seq) => self.understand(&seq),
                };
                if let Some(event) = event {
                    self.deliver(event);
                }
            }
        }
    }

    /// Blocks while another program owns the terminal (or no one receives events).
    fn wait_while_paused(&self) {
        let mut state = self.shared.lock_state();
        if *state != State::PauseAsked {
            return;
        }
        *state = State::Paused;
        self.shared.changed.notify_all();
        let _state = self
            .shared
            .changed
            .wait_while(state, |s| *s == State::Paused)
            .unwrap_or_else(|p| p.into_inner());
    }

    /// One sequence: an event to hand on, or a reply settled here.
    fn understand(&mut self, seq: &[u8]) -> Option<TerminalEvent> {
        match decode(seq, protocol::kitty_active()) {
            Decoded::Key(k) if k.kind == KeyEventKind::Release => None,
            Decoded::Key(k) => Some(TerminalEvent::Input(Input::Key(k))),
            Decoded::Mouse(m) => m
                .wheel()
                .map(|down| TerminalEvent::Input(Input::Wheel { down, alt: m.alt() }))
                .or(Some(TerminalEvent::Mouse(m))),
            Decoded::KittyFlags(flags) => {
                protocol::kitty_reply(flags);
                None
            }
            Decoded::DeviceAttributes => match protocol::device_attributes() {
                Some(protocol::Query::Colors) => {
                    let mut colors = std::mem::take(&mut self.colors);
                    let palette = std::mem::take(&mut self.palette);
                    if palette.iter().all(Option::is_some) {
                        colors.palette = Some(palette.map(|c| c.unwrap_or_default()));
                    }
                    Some(TerminalEvent::Colors(colors))
                }
                _ => None,
            },
            Decoded::Color(slot, rgb) => {
                match slot {
                    ColorSlot::Foreground => self.colors.foreground = rgb,
                    ColorSlot::Background => self.colors.background = rgb,
                    ColorSlot::Palette(i) => {
                        if let Some(entry) = self.palette.get_mut(usize::from(i)) {
                            *entry = rgb;
                        }
                    }
                }
                None
            }
            Decoded::DarkScheme(dark) => Some(TerminalEvent::SchemeChanged { dark }),
            Decoded::Unknown => None,
        }
    }
}

/// What a wait on the terminal found.
enum Readiness {
    Readable,
    TimedOut,
    Closed,
    Nothing,
}

/// Waits for input on stdin or a byte on `wake`, at most `timeout`. Returns the terminal's
/// readiness and whether `wake` woke it.
fn poll(wake: i32, timeout: Option<Duration>) -> io::Result<(Readiness, bool)> {
    let mut fds = [
        libc::pollfd {
            fd: libc::STDIN_FILENO,
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: wake,
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    let ms = timeout.map_or(-1, |t| t.as_millis().min(i32::MAX as u128) as i32);
    // SAFETY: `fds` is a valid array of two pollfd structs for the duration of the call.
    let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, ms) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return if e.kind() == io::ErrorKind::Interrupted {
            Ok((Readiness::Nothing, false))
        } else {
            Err(e)
        };
    }
    if n == 0 {
        return Ok((Readiness::TimedOut, false));
    }
    let woken = fds[1].revents & libc::POLLIN != 0;
    let revents = fds[0].revents;
    let readiness = if revents & libc::POLLIN != 0 {
        Readiness::Readable
    } else if revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
        Readiness::Closed
    } else {
        Readiness::Nothing
    };
    Ok((readiness, woken))
}
