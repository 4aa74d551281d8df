//! unix: rho's own tty reader, and SIGTSTP for suspending.

pub(in crate::terminal) use super::super::reader::{park, pause, spawn, InputPause};

/// The platform has job control: Ctrl+Z can suspend rho.
pub(in crate::terminal) const JOB_CONTROL: bool = true;

/// SIGTSTP at its default action (stop) while this lives, so a program the terminal is
/// handed to stops rho with it on its own Ctrl+Z; dropping it puts the reader's handler back.
pub(in crate::terminal) struct DefaultStop {
    replaced: libc::sigaction,
}

/// Sets SIGTSTP to its default action (`None` if that failed).
pub(in crate::terminal) fn default_stop() -> Option<DefaultStop> {
    // SAFETY: zeroed sigaction structs are valid; SIG_DFL is a valid handler, and `replaced`
    // receives the previous action.
    unsafe {
        let mut dfl: libc::sigaction = std::mem::zeroed();
        dfl.sa_sigaction = libc::SIG_DFL;
        let mut replaced: libc::sigaction = std::mem::zeroed();
        (libc::sigaction(libc::SIGTSTP, &dfl, &mut replaced) == 0)
            .then_some(DefaultStop { replaced })
    }
}

impl Drop for DefaultStop {
    fn drop(&mut self) {
        // SAFETY: `replaced` is the action sigaction returned for SIGTSTP; putting it back
        // restores the handler the reader registered.
        unsafe { libc::sigaction(libc::SIGTSTP, &self.replaced, std::ptr::null_mut()) };
    }
}

/// Stops rho's process group as the shell's job control expects; returns once continued
/// (`fg`). Call it while a [`DefaultStop`] lives, or the reader's handler catches the signal.
pub(in crate::terminal) fn stop_self() {
    // SAFETY: kill with pid 0 signals our own process group.
    unsafe { libc::kill(0, libc::SIGTSTP) };
}
