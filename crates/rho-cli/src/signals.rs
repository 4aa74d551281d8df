//! Termination signals end the process with pi's exit codes (interfaces spec §3): SIGTERM →
//! 143, SIGHUP → 129 (and SIGINT → 130), after killing every child process group. Session
//! entries are written line by line as they happen, so nothing buffered is lost by exiting.
//! Extensions get `session_shutdown` (reason `quit`) first.

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
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let handlers = signal(SignalKind::terminate()).and_then(|term| {
            let hup = signal(SignalKind::hangup())?;
            let int = signal(SignalKind::interrupt())?;
            Ok((term, hup, int))
        });
        async move {
            let Ok((mut term, mut hup, mut int)) = handlers else {
                return;
            };
            let code = tokio::select! {
                _ = term.recv() => 143,
                _ = hup.recv() => 129,
                _ = int.recv() => 130,
            };
            // Extensions first, before the terminal is touched (their clean-up does not
            // need it).
            shut_down_extensions().await;
            // Children run in their own process groups, so the signal did not reach them:
            // end them before leaving.
            rho_process::end_all_groups();
            // process::exit skips destructors: the interactive mode's terminal guard too.
            rho_tui::terminal::restore();
            std::process::exit(code);
        }
    }
    #[cfg(not(unix))]
    {
        std::future::ready(())
    }
}
