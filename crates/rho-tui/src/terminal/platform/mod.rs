//! The operating system's side of the terminal, one file per platform, so the rest of the
//! module speaks only of a reader, its pauses and job control:
//!
//! - unix: rho reads the tty itself ([`super::reader`]: modifyOtherKeys keys, colour replies,
//!   SIGWINCH and SIGTSTP), and Ctrl+Z stops the process group as shells expect.
//! - Windows: crossterm reads the console's input records (legacy keys, paste, resize, the
//!   wheel); there is no job control, so Ctrl+Z is a key like any other (pi's Windows keys
//!   bind it to undo).

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub(super) use unix::*;

#[cfg(not(unix))]
mod windows;
#[cfg(not(unix))]
pub(super) use windows::*;
