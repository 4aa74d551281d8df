//! The prompt editor driven by inputs, as the interactive loop drives it: editing, history,
//! pastes and completion, and snapshots of how it draws at 80 and 40 columns.

use rho_tui::editor::{Editor, EditorAction};
use rho_tui::input::{Input, KeyCode, KeyModifiers};

fn editor() -> Editor {
    Editor::new(std::env::temp_dir())
}

fn feed(ed: &mut Editor, inputs: &[Input]) -> Vec<EditorAction> {
    inputs.iter().map(|i| ed.handle(i)).collect()
}

fn key(code: KeyCode) -> Input {
    Input::key(code)
}

#[test]
fn typing_editing_and_submitting() {
    let mut ed = editor();
    feed(&mut ed, &Input::typed("helo"));
    feed(
        &mut ed,
        &[key(KeyCode::Left), Input::char('l'), key(KeyCode::Right)],
    );
    assert_eq!(ed.text(), "hello");
    feed(&mut ed, &[key(KeyCode::Backspace)]);
    let shift_enter = Input::with_mods(KeyCode::Enter, KeyModifiers::SHIFT);
    feed(&mut ed, &[shift_enter, Input::char('x')]);
    assert_eq!(ed.text(), "hell\nx");
    assert_eq!(
        ed.handle(&key(KeyCode::Enter)),
        EditorAction::Submit("hell\nx".into())
    );
    assert!(ed.is_empty());
    assert_eq!(ed.handle(&key(KeyCode::Enter)), EditorAction::Handled);
}
