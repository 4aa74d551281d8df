//! The terminal's echo turned off while a key is typed (`rho login`): termios on unix, the
//! console input mode on Windows. Nothing happens when stdin is no terminal.

use std::io::IsTerminal;

/// Turns the echo off while alive.
pub(crate) struct EchoOff(Option<Saved>);

#[cfg(unix)]
type Saved = libc::termios;
#[cfg(windows)]
type Saved = windows_sys::Win32::System::Console::CONSOLE_MODE;

impl EchoOff {
    pub(crate) fn new() -> Self {
        if !std::io::stdin().is_terminal() {
            return Self(None);
        }
        Self(echo_off())
    }
}

impl Drop for EchoOff {
    fn drop(&mut self) {
        if let Some(saved) = &self.0 {
            restore(saved);
        }
    }
}

#[cfg(unix)]
fn echo_off() -> Option<Saved> {
    // SAFETY: tcgetattr/tcsetattr on fd 0 with a zeroed termios they fill in.
    unsafe {
        let mut term: libc::termios = std::mem::zeroed();
        if libc::tcgetattr(0, &mut term) != 0 {
            return None;
        }
        let saved = term;
        term.c_lflag &= !libc::ECHO;
        libc::tcsetattr(0, libc::TCSANOW, &term);
        Some(saved)
    }
}

#[cfg(unix)]
fn restore(saved: &Saved) {
    // SAFETY: restores the settings read in `echo_off`.
    unsafe {
        libc::tcsetattr(0, libc::TCSANOW, saved);
    }
}

#[cfg(windows)]
fn echo_off() -> Option<Saved> {
    use windows_sys::Win32::System::Console::{
        GetConsoleMode, GetStdHandle, SetConsoleMode, ENABLE_ECHO_INPUT, STD_INPUT_HANDLE,
    };
    // SAFETY: the process's own stdin handle; `mode` outlives the calls.
    unsafe {
        let input = GetStdHandle(STD_INPUT_HANDLE);
        let mut mode = 0;
        if GetConsoleMode(input, &mut mode) == 0 {
            return None;
        }
        SetConsoleMode(input, mode & !ENABLE_ECHO_INPUT);
        Some(mode)
    }
}

#[cfg(windows)]
fn restore(saved: &Saved) {
    use windows_sys::Win32::System::Console::{GetStdHandle, SetConsoleMode, STD_INPUT_HANDLE};
    // SAFETY: restores the mode read in `echo_off` on the process's own stdin handle.
    unsafe {
        SetConsoleMode(GetStdHandle(STD_INPUT_HANDLE), *saved);
    }
}
