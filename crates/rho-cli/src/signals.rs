//! Termination signals end the process with pi's exit codes (interfaces spec §3): SIGTERM →
//! 143, SIGHUP → 129 (and SIGINT → 130), after killing every child process group. Session
//! entries are written line by line as they happen, so nothing buffered is lost by exiting.
//! Extensions get `session_shutdown` (reason `quit`) first. On Windows the console's control
//! events stand for the signals as Node maps them: Ctrl+C and Ctrl+Break → 130, the console
//! window closed → 129, log-off or shutdown → 143.

use std::future::Future;
use std::sync::Mutex;

use rho_core::agent_session::AgentSession;

/// The session whose extensions hear `session_shutdown` when a signal ends rho.
static SESSION: Mutex<Option<AgentSession>> = Mutex::new(None);

/// Names the session whose extensions a termination signal shuts down first (as pi, whose
/// exit covers SIGTERM and SIGHUP).
pub fn set_session(session: AgentSession) {
    *SESSION.lock().unwrap_or_else(|p| p.into_inner()) = Some(session);
}

/// Sends `session_shutdown` (reason `quit`) to the named session's extensions and gives
/// them a moment to exit, bounded so a stuck one cannot hold up a signal's exit.
pub async fn shut_down_extensions() {
    let session = SESSION.lock().unwrap_or_else(|p| p.into_inner()).clone();
    if let Some(session) = session {
        session.shut_down_extensions_for_signal().await;
    }
}

/// Registers the handlers now (so a signal arriving at any later point is caught) and
/// returns the task that exits with 128 + the signal number. Must be called inside the
/// runtime. Without these signals (or if registration fails) the default behaviour stays.
pub fn exit_on_termination() -> impl Future<Output = ()> + Send + 'static {
    let termination = termination();
    async move {
        let Some(code) = termination.await else {
            return;
        };
        // Extensions first, before the terminal is touched (their clean-up does not need it).
        shut_down_extensions().await;
        // Children run in their own process groups, so the signal did not reach them: end
        // them before leaving.
        rho_process::end_all_groups();
        // process::exit skips destructors: the interactive mode's terminal guard too.
        rho_tui::terminal::restore();
        std::process::exit(code);
    }
}

/// Registers the handlers and resolves with the exit code of the first signal (`None` when
/// they could not be registered).
#[cfg(unix)]
fn termination() -> impl Future<Output = Option<i32>> + Send + 'static {
    use tokio::signal::unix::{signal, SignalKind};
    let handlers = signal(SignalKind::terminate()).and_then(|term| {
        let hup = signal(SignalKind::hangup())?;
        let int = signal(SignalKind::interrupt())?;
        Ok((term, hup, int))
    });
    async move {
        let (mut term, mut hup, mut int) = handlers.ok()?;
        Some(tokio::select! {
            _ = term.recv() => 143,
            _ = hup.recv() => 129,
            _ = int.recv() => 130,
        })
    }
}

/// Registers the console control handlers and resolves with the exit code of the first
/// event (`None` when they could not be registered, e.g. without a console).
#[cfg(windows)]
fn termination() -> impl Future<Output = Option<i32>> + Send + 'static {
    use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close, ctrl_logoff, ctrl_shutdown};
    let handlers = ctrl_c().and_then(|int| {
        Ok((
            int,
            ctrl_break()?,
            ctrl_close()?,
            ctrl_logoff()?,
            ctrl_shutdown()?,
        ))
    });
    async move {
        let (mut int, mut brk, mut close, mut logoff, mut shutdown) = handlers.ok()?;
        Some(tokio::select! {
            _ = int.recv() => 130,
            _ = brk.recv() => 130,
            _ = close.recv() => 129,
            _ = logoff.recv() => 143,
            _ = shutdown.recv() => 143,
        })
    }
}
