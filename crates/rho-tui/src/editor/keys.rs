//! The editor's key bindings: pi's defaults, as crossterm decodes them from a terminal without
//! keyboard enhancements (so Ctrl+J is `Char('j')` with Ctrl, and Ctrl+- arrives as Ctrl+7).

use super::edit::{line_end_or_next, line_start_or_prev, Last};
use super::{Editor, EditorAction};
use crate::input::{Input, KeyCode, KeyModifiers};

use EditorAction::{Handled, Ignored};

const NONE: KeyModifiers = KeyModifiers::NONE;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;
const ALT: KeyModifiers = KeyModifiers::ALT;
const SHIFT: KeyModifiers = KeyModifiers::SHIFT;

/// Dispatches one input.
pub(super) fn handle(ed: &mut Editor, input: &Input) -> EditorAction {
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
                if let Some(action) = popup_key(ed, input) {
                    return action;
                }
            }
            key(ed, input)
        }
    }
}

/// Keys the open popup takes; `None` lets the editor handle the key.
fn popup_key(ed: &mut Editor, input: &Input) -> Option<EditorAction> {
    if input.is_plain(KeyCode::Up) {
        ed.completion.select(-1);
    } else if input.is_plain(KeyCode::Down) {
        ed.completion.select(1);
    } else if input.is_plain(KeyCode::PageUp) {
        ed.completion.page(-1);
    } else if input.is_plain(KeyCode::PageDown) {
        ed.completion.page(1);
    } else if input.is_plain(KeyCode::Esc) {
        ed.completion.dismiss();
    } else if input.is_plain(KeyCode::Tab) {
        ed.accept_completion();
    } else if input.is_plain(KeyCode::Enter) {
        if ed.accept_completion() && !ed.is_empty() {
            return Some(EditorAction::Submit(ed.take_submission()));
        }
    } else {
        return None;
    }
    Some(Handled)
}

/// A typed character: plain or shifted (the case carries the shift).
fn typed_char(input: &Input) -> Option<char> {
    let k = input.as_key()?;
    match k.code {
        KeyCode::Char(c) if (k.modifiers - SHIFT).is_empty() => Some(c),
        _ => None,
    }
}

fn key(ed: &mut Editor, input: &Input) -> EditorAction {
    let last = std::mem::replace(&mut ed.last, Last::Other);
    let vertical = [
        KeyCode::Up,
        KeyCode::Down,
        KeyCode::PageUp,
        KeyCode::PageDown,
    ];
    if !vertical.iter().any(|&code| input.is_plain(code)) {
        ed.goal_col = None;
    }
    if let Some(c) = typed_char(input) {
        ed.type_char(c, last);
        return Handled;
    }
    let Some(k) = input.as_key() else {
        return Ignored;
    };
    let b = &ed.buf;
    let cursor = b.cursor;
    let killing = last == Last::Kill;
    match (k.code, k.modifiers) {
        (KeyCode::Enter, NONE) => return ed.enter(),
        (KeyCode::Enter, SHIFT) | (KeyCode::Char('j'), CTRL) => ed.insert("\n"),
        (KeyCode::Backspace, NONE) | (KeyCode::Char('h'), CTRL) => {
            ed.delete_to(b.prev(cursor));
        }
        (KeyCode::Delete, NONE) => {
            ed.delete_to(b.next(cursor));
        }
        (KeyCode::Char('d'), CTRL) if !ed.is_empty() => {
            ed.delete_to(b.next(cursor));
        }
        (KeyCode::Backspace, ALT) | (KeyCode::Char('w'), CTRL) => {
            ed.kill_to(b.word_left(), killing)
        }
        (KeyCode::Delete, ALT) | (KeyCode::Char('d'), ALT) => ed.kill_to(b.word_right(), killing),
        (KeyCode::Char('u'), CTRL) => ed.kill_to(line_start_or_prev(ed), killing),
        (KeyCode::Char('k'), CTRL) => ed.kill_to(line_end_or_next(ed), killing),
        (KeyCode::Char('y'), CTRL) => ed.yank(),
        (KeyCode::Char('y'), ALT) => ed.yank_pop(last),
        (KeyCode::Char('-' | '_' | '7'), CTRL) => ed.undo(),
        (KeyCode::Left, NONE) | (KeyCode::Char('b'), CTRL) => ed.move_to(b.prev(cursor), false),
        (KeyCode::Right, NONE) | (KeyCode::Char('f'), CTRL) => ed.move_to(b.next(cursor), true),
        (KeyCode::Left, ALT | CTRL) | (KeyCode::Char('b'), ALT) => ed.move_to(b.word_left(), false),
        (KeyCode::Right, ALT | CTRL) | (KeyCode::Char('f'), ALT) => {
            ed.move_to(b.word_right(), true)
        }
        (KeyCode::Home, NONE) | (KeyCode::Char('a'), CTRL) => {
            ed.move_to(b.line_start(cursor), false)
        }
        (KeyCode::End, NONE) | (KeyCode::Char('e'), CTRL) => ed.move_to(b.line_end(cursor), true),
        (KeyCode::Tab, NONE) => return ed.complete_path(),
        (KeyCode::Up, NONE) => ed.up(),
        (KeyCode::Down, NONE) => ed.down(),
        (KeyCode::PageUp, NONE) => ed.page(-1),
        (KeyCode::PageDown, NONE) => ed.page(1),
        _ => return Ignored,
    }
    Handled
}
