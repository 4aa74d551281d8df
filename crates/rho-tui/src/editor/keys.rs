//! The editor's keys: each input is looked up in the [`Keymap`] (pi's `tui.editor.*`,
//! `tui.input.*` and, while a completion popup is open, `tui.select.*` actions), so remapped
//! and unbound actions apply; a key bound to nothing types its character.

use super::edit::{line_end_or_next, line_start_or_prev, Last};
use super::{Editor, EditorAction};
use crate::input::{Input, KeyCode, KeyModifiers};
use crate::keymap::{Action, Keymap};

use EditorAction::{Handled, Ignored};

/// The editor's actions, in the order they are tried (pi: the history actions first).
pub const ACTIONS: &[Action] = &[
    Action::EditorHistoryPrevious,
    Action::EditorHistoryNext,
    Action::InputSubmit,
    Action::InputNewLine,
    Action::InputTab,
    Action::EditorDeleteCharBackward,
    Action::EditorDeleteCharForward,
    Action::EditorDeleteWordBackward,
    Action::EditorDeleteWordForward,
    Action::EditorDeleteToLineStart,
    Action::EditorDeleteToLineEnd,
    Action::EditorYank,
    Action::EditorYankPop,
    Action::EditorUndo,
    Action::EditorCursorLeft,
    Action::EditorCursorRight,
    Action::EditorCursorWordLeft,
    Action::EditorCursorWordRight,
    Action::EditorCursorLineStart,
    Action::EditorCursorLineEnd,
    Action::EditorCursorUp,
    Action::EditorCursorDown,
    Action::EditorPageUp,
    Action::EditorPageDown,
    Action::EditorJumpForward,
    Action::EditorJumpBackward,
];

/// The popup's actions.
const POPUP_ACTIONS: &[Action] = &[
    Action::SelectUp,
    Action::SelectDown,
    Action::SelectPageUp,
    Action::SelectPageDown,
    Action::SelectCancel,
    Action::InputTab,
    Action::SelectConfirm,
];

/// Dispatches one input.
pub(super) fn handle(ed: &mut Editor, input: &Input, keys: &Keymap) -> EditorAction {
    match input {
        Input::Paste(text) => {
            ed.last = Last::Other;
            ed.goal_col = None;
            ed.paste(text);
            Handled
        }
        Input::Resize(_, rows) => {
            ed.set_terminal_rows(usize::from(*rows));
            Ignored
        }
        Input::Key(_) => {
            if ed.completion.is_open() {
                if let Some(action) = keys.first_match(input, POPUP_ACTIONS) {
                    if let Some(done) = popup_key(ed, action) {
                        return done;
                    }
                }
            }
            key(ed, input, keys)
        }
        Input::Wheel { .. } => Ignored,
    }
}

/// What the open popup does with `action`; `None` lets the editor handle the key.
fn popup_key(ed: &mut Editor, action: Action) -> Option<EditorAction> {
    match action {
        Action::SelectUp => ed.completion.select(-1),
        Action::SelectDown => ed.completion.select(1),
        Action::SelectPageUp => ed.completion.page(-1),
        Action::SelectPageDown => ed.completion.page(1),
        Action::SelectCancel => ed.completion.dismiss(),
        Action::InputTab => {
            ed.accept_completion();
        }
        Action::SelectConfirm => {
            if ed.accept_completion() && !ed.is_empty() {
                return Some(EditorAction::Submit(ed.take_submission()));
            }
        }
        _ => return None,
    }
    Some(Handled)
}

/// A typed character: plain or shifted (the case carries the shift).
fn typed_char(input: &Input) -> Option<char> {
    let k = input.as_key()?;
    match k.code {
        KeyCode::Char(c) if (k.modifiers - KeyModifiers::SHIFT).is_empty() => Some(c),
        _ => None,
    }
}

/// The key after a jump key: a character is the jump's target; the jump key again cancels;
/// anything else cancels and does what it does. True when the key is used up.
fn jump_key(ed: &mut Editor, input: &Input, keys: &Keymap) -> bool {
    let Some(forward) = ed.jump.take() else {
        return false;
    };
    let jumps = [Action::EditorJumpForward, Action::EditorJumpBackward];
    if keys.first_match(input, &jumps).is_some() {
        return true;
    }
    match typed_char(input) {
        Some(c) => {
            ed.jump_to(c, forward);
            true
        }
        None => false,
    }
}

fn key(ed: &mut Editor, input: &Input, keys: &Keymap) -> EditorAction {
    if jump_key(ed, input, keys) {
        ed.last = Last::Other;
        return Handled;
    }
    let last = std::mem::replace(&mut ed.last, Last::Other);
    let action = keys.first_match(input, ACTIONS);
    let vertical = [
        Action::EditorCursorUp,
        Action::EditorCursorDown,
        Action::EditorPageUp,
        Action::EditorPageDown,
    ];
    if !action.is_some_and(|a| vertical.contains(&a)) {
        ed.goal_col = None;
    }
    let Some(action) = action else {
        if let Some(c) = typed_char(input) {
            ed.type_char(c, last);
            return Handled;
        }
        return Ignored;
    };
    let b = &ed.buf;
    let cursor = b.cursor;
    let killing = last == Last::Kill;
    match action {
        Action::EditorHistoryPrevious => ed.history_older(),
        Action::EditorHistoryNext => ed.history_newer(),
        Action::InputSubmit => return ed.enter(),
        Action::InputNewLine => ed.insert("\n"),
        Action::InputTab => return ed.complete_path(),
        Action::EditorDeleteCharBackward => {
            ed.delete_to(b.prev(cursor));
        }
        // On an empty editor Ctrl+D is the app's (exit).
        Action::EditorDeleteCharForward if ed.is_empty() => return Ignored,
        Action::EditorDeleteCharForward => {
            ed.delete_to(b.next(cursor));
        }
        Action::EditorDeleteWordBackward => ed.kill_to(b.word_left(), killing),
        Action::EditorDeleteWordForward => ed.kill_to(b.word_right(), killing),
        Action::EditorDeleteToLineStart => ed.kill_to(line_start_or_prev(ed), killing),
        Action::EditorDeleteToLineEnd => ed.kill_to(line_end_or_next(ed), killing),
        Action::EditorYank => ed.yank(),
        Action::EditorYankPop => ed.yank_pop(last),
        Action::EditorUndo => ed.undo(),
        Action::EditorCursorLeft => ed.move_to(b.prev(cursor), false),
        Action::EditorCursorRight => ed.move_to(b.next(cursor), true),
        Action::EditorCursorWordLeft => ed.move_to(b.word_left(), false),
        Action::EditorCursorWordRight => ed.move_to(b.word_right(), true),
        Action::EditorCursorLineStart => ed.move_to(b.line_start(cursor), false),
        Action::EditorCursorLineEnd => ed.move_to(b.line_end(cursor), true),
        Action::EditorCursorUp => ed.up(),
        Action::EditorCursorDown => ed.down(),
        Action::EditorPageUp => ed.page(-1),
        Action::EditorPageDown => ed.page(1),
        Action::EditorJumpForward => ed.jump = Some(true),
        Action::EditorJumpBackward => ed.jump = Some(false),
        _ => return Ignored,
    }
    Handled
}
