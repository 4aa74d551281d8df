//! Behaviour and snapshot tests of the modal dialogs. Snapshots show the visible text with
//! escapes stripped and a `|` at the right edge of full-width lines, at 80 and 40 columns.

use insta::assert_snapshot;
use rho_tui::ansi::{strip_ansi, visible_width};
use rho_tui::dialogs::*;
use rho_tui::input::KeyCode;
use rho_tui::{Dialog, DialogAction, Input, Theme};

/// Visible text of each line; lines are checked to fit `width`.
fn show(lines: &[String], width: usize) -> String {
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

fn both<D: Dialog>(name: &str, d: &D) {
    let t = Theme::dark();
    for width in [80, 40] {
        assert_snapshot!(format!("{name}_{width}"), show(&d.render(width, &t), width));
    }
}

/// Feeds every input, returning the last action.
fn feed<D: Dialog>(d: &mut D, inputs: &[Input]) -> DialogAction<D::Output> {
    let mut last = DialogAction::Pending;
    for i in inputs {
        last = d.handle(i);
    }
    last
}

fn key(code: KeyCode) -> Input {
    Input::key(code)
}

fn fruits() -> Vec<SelectItem> {
    [
        ("apple", "red and round"),
        ("banana", "long and yellow"),
        ("cherry", "small, dark red, with a stone"),
        ("grape", ""),
        ("pineapple", "spiky"),
    ]
    .into_iter()
    .map(|(l, d)| SelectItem::new(l, d))
    .collect()
}

#[test]
fn select_list_enter_returns_the_original_index_after_filtering() {
    let mut l = SelectList::new("Fruit", fruits());
    assert_eq!(feed(&mut l, &Input::typed("apl")), DialogAction::Pending);
    // "apple" is a prefix match and ranks before "pineapple".
    assert_eq!(l.visible_indices(), &[0, 4]);
    assert_eq!(feed(&mut l, &[key(KeyCode::Down)]), DialogAction::Pending);
    assert_eq!(l.handle(&key(KeyCode::Enter)), DialogAction::Done(4));
}

#[test]
fn select_list_filter_is_case_insensitive_and_backspace_widens_it() {
    let mut l = SelectList::new("Fruit", fruits()).with_selected(2);
    feed(&mut l, &Input::typed("GRA"));
    assert_eq!(l.visible_indices(), &[3]);
    feed(&mut l, &[key(KeyCode::Backspace), key(KeyCode::Backspace)]);
    assert_eq!(l.query(), "G");
    assert_eq!(l.visible_indices(), &[3]);
    feed(&mut l, &[key(KeyCode::Backspace)]);
    assert_eq!(l.visible_indices().len(), 5);
    // An empty filter brings the initial selection back.
    assert_eq!(l.selected_index(), Some(2));
}

#[test]
fn select_list_navigation_wraps_and_pages() {
    let items = (0..25)
        .map(|i| SelectItem::new(format!("item {i}"), ""))
        .collect();
    let mut l = SelectList::new("Many", items).with_max_rows(10);
    feed(&mut l, &[key(KeyCode::Up)]);
    assert_eq!(l.selected_index(), Some(24));
    feed(&mut l, &[key(KeyCode::Down)]);
    assert_eq!(l.selected_index(), Some(0));
    feed(&mut l, &[key(KeyCode::PageDown), key(KeyCode::PageDown)]);
    assert_eq!(l.selected_index(), Some(20));
    feed(&mut l, &[key(KeyCode::PageDown)]);
    assert_eq!(l.selected_index(), Some(24));
    feed(&mut l, &[key(KeyCode::PageUp)]);
    assert_eq!(l.selected_index(), Some(14));
    let text = show(&l.render(40, &Theme::dark()), 40);
    assert!(text.contains("(15/25)"), "{text}");
    assert!(text.contains("→ item 14"), "{text}");
}

#[test]
fn select_list_cancels_and_reports_no_matches() {
    let mut l = SelectList::new("Fruit", fruits());
    feed(&mut l, &Input::typed("xyz"));
    assert!(l.selected_index().is_none());
    assert_eq!(l.handle(&key(KeyCode::Enter)), DialogAction::Pending);
    assert!(show(&l.render(40, &Theme::dark()), 40).contains("No matches"));
    assert_eq!(l.handle(&key(KeyCode::Esc)), DialogAction::Cancelled);
    let mut l = SelectList::new("Fruit", fruits());
    assert_eq!(l.handle(&Input::ctrl('c')), DialogAction::Cancelled);
}

#[test]
fn select_list_paste_filters() {
    let mut l = SelectList::new("Fruit", fruits());
    l.handle(&Input::Paste("cher\n".into()));
    assert_eq!(l.visible_indices(), &[2]);
}

#[test]
fn select_list_snapshots() {
    let l = SelectList::new("Pick a fruit", fruits())
        .with_selected(1)
        .with_current(2);
    both("select_list", &l);
    let items = (0..40)
        .map(|i| SelectItem::new(format!("entry-{i:02}"), format!("description number {i}")))
        .collect();
    let mut l = SelectList::new("Scrolling", items).with_max_rows(5);
    feed(&mut l, &[key(KeyCode::PageDown), key(KeyCode::Down)]);
    both("select_list_scrolled", &l);
    let mut l = SelectList::new("Pick a fruit", fruits());
    feed(&mut l, &Input::typed("zz"));
    both("select_list_no_matches", &l);
}
