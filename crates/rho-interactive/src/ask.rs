//! A question asked on the terminal before the interactive screen starts (pi asks whether to
//! trust the project folder before anything of it loads, so before the session exists). It
//! takes the terminal, shows pi's selector, and gives the terminal back with the answer; the
//! reader waits, parked, for the screen.

use std::io::Write;
use std::path::Path;

use rho_tui::dialogs::ChoiceDialog;
use rho_tui::terminal::{self, TerminalEvent, TerminalGuard};
use rho_tui::{Dialog, DialogAction, Input, Renderer, Theme};

/// Asks `message` with `options` in `theme` (pi's keys, keybindings.json in `agent_dir`
/// applied); the index of the answer, or `None` when cancelled. Fails when stdin is not a
/// terminal.
pub fn ask_before_start(
    message: &str,
    options: &[String],
    agent_dir: &Path,
    theme: &Theme,
) -> std::io::Result<Option<usize>> {
    let (keys, _) = crate::keybindings::load(agent_dir);
    let guard = TerminalGuard::enter()?;
    let (tx, rx) = std::sync::mpsc::channel();
    terminal::spawn_reader(move |event| tx.send(event).is_ok());
    let mut dialog = ChoiceDialog::new(message, options.to_vec(), &keys);
    let (width, height) = terminal::size();
    let mut renderer = Renderer::new(width as usize, height as usize);
    let mut out = std::io::stdout();
    let answer = loop {
        let lines = dialog.render(renderer.width(), theme);
        renderer.render(&[&lines], &mut out)?;
        let Ok(event) = rx.recv() else {
            break None;
        };
        match event {
            TerminalEvent::Input(Input::Resize(w, h)) => renderer.resize(w as usize, h as usize),
            TerminalEvent::Input(input) => match dialog.handle(&input, &keys) {
                DialogAction::Done(i) => break Some(i),
                DialogAction::Cancelled => break None,
                DialogAction::Pending => {}
            },
            _ => {}
        }
    };
    // The question leaves the screen; the interactive screen draws from here.
    renderer.render(&[&[]], &mut out)?;
    let _ = renderer.stop(&mut out);
    out.flush()?;
    terminal::park_reader();
    drop(guard);
    Ok(answer)
}
