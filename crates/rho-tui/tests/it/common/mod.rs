//! Helpers shared by the dialog test files: plain-text views of rendered lines, snapshotting at
//! both widths, and feeding inputs.
#![allow(dead_code)] // each test file uses a subset

use rho_tui::ansi::{strip_ansi, visible_width};
use rho_tui::input::KeyCode;
use rho_tui::Keymap;
use rho_tui::{Dialog, DialogAction, Input};

/// Visible text of each line; lines are checked to fit `width`.
pub fn show(lines: &[String], width: usize) -> String {
    for l in lines {
        assert!(visible_width(l) <= width, "line wider than {width}: {l:?}");
    }
    lines
        .iter()
        .map(|l| {
            let plain = strip_ansi(l);
            if visible_width(&plain) == width {
                format!("{}|", plain.trim_end())
            } else {
                plain.trim_end().to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Snapshots `$d` rendered at 80 and 40 columns as `<name>_<width>` (a macro so the snapshot
/// is named after the calling test file).
#[macro_export]
macro_rules! both {
    ($name:expr, $d:expr $(,)?) => {{
        let t = rho_tui::Theme::dark();
        for width in [80, 40] {
            insta::assert_snapshot!(
                format!("{}_{width}", $name),
                common::show(&rho_tui::Dialog::render($d, width, &t), width)
            );
        }
    }};
}

/// Feeds every input, returning the last action.
pub fn feed<D: Dialog>(d: &mut D, inputs: &[Input]) -> DialogAction<D::Output> {
    let mut last = DialogAction::Pending;
    for i in inputs {
        last = d.handle(i, &Keymap::default());
    }
    last
}

pub fn key(code: KeyCode) -> Input {
    Input::key(code)
}
