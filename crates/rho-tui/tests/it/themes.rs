//! Snapshots of the built-in themes and of the start-up trust question (pi's selector) drawn in
//! each: the palettes token by token, and the dialog with its colour escapes made visible
//! (`␛`), so a changed colour shows as a changed snapshot. Also the question's keys.

use crate::common::{self, feed, key};
use rho_tui::dialogs::ChoiceDialog;
use rho_tui::input::KeyCode;
use rho_tui::{DialogAction, Input, Keymap, Theme};

/// The trust question as rho asks it for `/work/project`.
fn trust_question() -> ChoiceDialog {
    let answers = [
        "Trust",
        "Trust parent folder (/work)",
        "Trust (this session only)",
        "Do not trust",
        "Do not trust (this session only)",
    ];
    ChoiceDialog::new(
        "Trust project folder?\n/work/project\n\nThis allows rho to load .rho and .pi settings \
         and resources, install missing project packages, and execute project extensions.",
        answers.iter().map(|a| a.to_string()).collect(),
        &Keymap::default(),
    )
}

/// The palette as `token: colour` lines.
fn token_per_line(theme: &Theme) -> String {
    let debug = format!("{:?}", theme.colors);
    let body = debug
        .trim_start_matches("Palette { ")
        .trim_end_matches(" }");
    let field = regex::Regex::new(r", ([a-z_]+): ").expect("regex");
    field.replace_all(body, "\n$1: ").into_owned()
}

#[test]
fn builtin_palettes() {
    for name in ["dark", "light"] {
        let theme = Theme::builtin(name).expect("built in");
        assert_eq!(theme.name, name);
        insta::assert_snapshot!(format!("palette_{name}"), token_per_line(&theme));
    }
    assert_eq!(Theme::builtin("system-ish"), None);
}

#[test]
fn trust_dialog_in_each_theme() {
    let mut dialog = trust_question();
    feed(&mut dialog, &[key(KeyCode::Down)]);
    for name in ["dark", "light"] {
        let theme = Theme::builtin(name).expect("built in");
        let lines = rho_tui::Dialog::render(&dialog, 60, &theme);
        let visible = lines.join("\n").replace('\x1b', "␛");
        insta::assert_snapshot!(format!("trust_dialog_{name}"), visible);
    }
}

#[test]
fn trust_dialog_snapshots() {
    both!("trust_dialog", &trust_question());
}

#[test]
fn the_trust_question_moves_answers_and_cancels_as_pis_selector() {
    let mut dialog = trust_question();
    // Down three times, Up once (arrows), then j and k as in pi's selector.
    feed(
        &mut dialog,
        &[key(KeyCode::Down), key(KeyCode::Down), key(KeyCode::Down)],
    );
    assert_eq!(dialog.selected(), 3);
    feed(
        &mut dialog,
        &[key(KeyCode::Up), Input::char('j'), Input::char('j')],
    );
    assert_eq!(dialog.selected(), 4, "stops at the last answer");
    feed(&mut dialog, &[Input::char('k')]);
    assert_eq!(dialog.selected(), 3);
    assert_eq!(
        feed(&mut dialog, &[key(KeyCode::Enter)]),
        DialogAction::Done(3)
    );
    assert_eq!(
        feed(&mut trust_question(), &[key(KeyCode::Esc)]),
        DialogAction::Cancelled
    );
    assert_eq!(
        feed(
            &mut trust_question(),
            &[key(KeyCode::Up), key(KeyCode::Enter)]
        ),
        DialogAction::Done(0),
        "stops at the first answer"
    );
}
