//! Interactive mode: `rho` with no mode on a terminal. The conversation streams above an
//! editor; tool calls show as they run; slash commands and keys reach every session feature.
//!
//! One task owns the screen. Keyboard input (a reader thread), session events, extension UI
//! requests and the results of session operations (run in their own tasks, so the screen stays
//! live while a prompt runs) all arrive as [`AppMsg`]s on one channel; after each batch the
//! frame is rendered, and the differential renderer writes only what changed.
//!
//! The screen is four parts, each with its own state and input handling, under a small
//! top-level (`app`) that routes keys and messages to them: `screen` (transcript, editor,
//! footer, layout, drawing), `dialogs` (pickers, login, settings, MCP, extension questions),
//! `ext_ui` (what extensions show and the keys they take) and `control` (submitting,
//! commands, session navigation, the app's keys). Each depends only on those listed before
//! it, and on the leaves (`shared`, `outbox`, `options`, `keybindings`, `startup_notes`);
//! `module_graph` checks that no module circle comes back.

mod app;
mod ask;
mod control;
mod dialogs;
mod ext_ui;
mod keybindings;
#[cfg(test)]
mod module_graph;
mod options;
mod outbox;
mod screen;
mod shared;
mod startup_notes;
#[cfg(test)]
mod tests;

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use rho_core::agent_session::AgentSession;
use rho_tui::terminal::{self, TerminalEvent, TerminalGuard};
use tokio::sync::mpsc;

use app::App;
pub use app::AppMsg;
pub use ask::ask_before_start;
use control::ControlMsg;
pub use control::InitialPrompt;
pub use options::{InteractiveHost, InteractiveOptions};
use screen::ScreenMsg;

/// How often the working indicator advances while the agent runs.
const SPINNER_TICK: Duration = Duration::from_millis(screen::SPINNER_TICK_MS);

/// Runs the interactive mode until the user quits.
pub async fn run(
    session: AgentSession,
    options: InteractiveOptions,
    initial: Option<InitialPrompt>,
) -> ExitCode {
    let guard = match TerminalGuard::enter() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("Error: cannot use the terminal for the interactive mode: {e}; use -p");
            return ExitCode::FAILURE;
        }
    };
    let (tx, mut rx) = mpsc::unbounded_channel();
    rho_extension_host::diagnostics::set_sink(Some(diagnostics_sink(tx.clone())));
    let input_tx = tx.clone();
    terminal::spawn_reader(move |event| {
        let msg = match event {
            TerminalEvent::Input(input) => AppMsg::Input(input),
            other => AppMsg::Terminal(other),
        };
        input_tx.send(msg).is_ok()
    });
    session.set_ui(Arc::new(ext_ui::TuiUi::new(tx.clone())));
    session.bind_session_actions();
    let reload_tx = tx.clone();
    session.set_reloader(Arc::new(move |_| {
        let _ = reload_tx.send(AppMsg::Control(ControlMsg::ReloadRequested));
        Box::pin(async {})
    }));
    let mut events = session.subscribe();
    let (width, height) = terminal::size();
    let resume = options.resume;
    let mut app = App::new(session, options, tx.clone(), (width, height));
    app.load_keybindings();
    app.rebuild_header();
    if resume {
        app.open_session_picker();
    }
    // session_start may ask the user (a dialog), so it runs beside the loop; the first
    // prompt waits for it.
    let starting = app.session_handle();
    let started = tx.clone();
    tokio::spawn(async move {
        starting.start("startup").await;
        let _ = started.send(AppMsg::Started(initial));
    });
    let mut out = std::io::stdout();
    app.draw(&mut out);
    let mut tick = tokio::time::interval(SPINNER_TICK);
    // A panic restored the terminal (see `terminal::panicked`): no frame may be drawn after.
    while !app.should_quit() && !terminal::panicked() {
        tokio::select! {
            Some(msg) = rx.recv() => {
                app.handle(msg);
                while let Ok(msg) = rx.try_recv() {
                    app.handle(msg);
                }
            }
            Some(event) = events.recv() => {
                app.apply_event(&event);
                while let Ok(event) = events.try_recv() {
                    app.apply_event(&event);
                }
            }
            _ = tick.tick() => {
                app.tick(&mut out);
                continue;
            }
        }
        if terminal::panicked() {
            break;
        }
        app.draw(&mut out);
    }
    if terminal::panicked() {
        rho_extension_host::diagnostics::set_sink(None);
        return ExitCode::FAILURE;
    }
    app.finish(&mut out);
    rho_extension_host::diagnostics::set_sink(None);
    drop(guard);
    let _ = out.flush();
    if let Some(e) = app.exit_error() {
        eprintln!("{e}");
    }
    if let Some(note) = app.exit_note() {
        println!("{note}");
    }
    ExitCode::SUCCESS
}

/// Warnings and extension stderr as transcript notices while the screen is in raw mode (text
/// written to stderr would be drawn over the frame and garble it).
fn diagnostics_sink(tx: mpsc::UnboundedSender<AppMsg>) -> rho_extension_host::diagnostics::Sink {
    use rho_extension_host::diagnostics::Diagnostic;
    Arc::new(move |d| {
        let (text, error) = match d {
            Diagnostic::Warning(text) => (format!("Warning: {text}"), true),
            Diagnostic::ExtensionOutput { path, line } => {
                let name = std::path::Path::new(&path)
                    .file_name()
                    .map_or(path.clone(), |n| n.to_string_lossy().into_owned());
                (format!("[{name}] {line}"), false)
            }
        };
        let _ = tx.send(AppMsg::Screen(ScreenMsg::Notice { text, error }));
    })
}
