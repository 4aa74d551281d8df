//! Tests of the extension UI components: status bar, widget areas, notifications.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::show;
use insta::assert_snapshot;
use rho_tui::components::Component;
use rho_tui::dialogs::*;
use rho_tui::Theme;

fn show_c(c: &dyn Component, width: usize) -> String {
    show(&c.render(width, &Theme::dark()), width)
}

#[test]
fn status_bar_joins_by_key_and_clears() {
    let mut s = StatusBar::new();
    assert!(s.render(80, &Theme::dark()).is_empty());
    s.set("zeta", Some("tests: 12 passed".into()));
    s.set("alpha", Some("git: clean\n".into()));
    s.set("mid", Some("lint: 0 warnings".into()));
    assert_eq!(
        show_c(&s, 80),
        "git: clean  ·  lint: 0 warnings  ·  tests: 12 passed"
    );
    s.set("mid", None);
    s.set("zeta", Some(String::new()));
    assert_eq!(show_c(&s, 80), "git: clean");
    s.set("mid", Some("lint: 0 warnings".into()));
    s.set("zeta", Some("tests: 12 passed".into()));
    assert_snapshot!("status_bar_40", show_c(&s, 40));
}

#[test]
fn widget_area_keeps_first_set_order_and_replaces_in_place() {
    let mut w = WidgetArea::new();
    w.set(
        "todo",
        Some(vec!["☐ write tests".into(), "☑ write code".into()]),
    );
    w.set("timer", Some(vec!["⏱ 00:12".into()]));
    w.set("todo", Some(vec!["☑ write tests".into()]));
    assert_eq!(show_c(&w, 80), "☑ write tests\n⏱ 00:12");
    w.set("todo", None);
    assert_eq!(show_c(&w, 80), "⏱ 00:12");
    w.set("long", Some(vec!["x".repeat(100)]));
    assert_eq!(w.render(40, &Theme::dark())[1], "x".repeat(40));
    assert_eq!(WidgetPlacement::default(), WidgetPlacement::AboveEditor);
}

#[test]
fn notifications_label_and_wrap_by_kind() {
    for kind in ["info", "warning", "error"] {
        let n = Notification {
            kind: NotificationKind::parse(kind),
            text: "The extension could not reach the server; results may be stale.".into(),
        };
        for width in [80, 40] {
            assert_snapshot!(format!("notification_{kind}_{width}"), show_c(&n, width));
        }
    }
    let err = Notification {
        kind: NotificationKind::Error,
        text: "boom".into(),
    };
    let line = &err.render(80, &Theme::dark())[0];
    assert!(
        line.contains(&Theme::dark().colors.error.fg_code()),
        "{line:?}"
    );
}
