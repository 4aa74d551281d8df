//! Behaviour and snapshot tests of the `/resume` session picker.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{feed, key, show};
use rho_tui::ansi::visible_width;
use rho_tui::dialogs::*;
use rho_tui::input::KeyCode;
use rho_tui::Keymap;
use rho_tui::{Dialog, DialogAction, Input, Theme};

const NOW: i64 = 1_800_000_000_000;

fn session(
    file: &str,
    cwd: &str,
    name: Option<&str>,
    first: Option<&str>,
    ago_ms: i64,
    count: usize,
) -> rho_protocol::session::SessionSummary {
    rho_protocol::session::SessionSummary {
        path: std::path::PathBuf::from(format!("/sessions/{file}.jsonl")),
        header: rho_protocol::session::SessionHeader {
            version: 3,
            id: file.to_string(),
            timestamp: String::new(),
            cwd: cwd.to_string(),
            parent_session: None,
        },
        name: name.map(str::to_string),
        modified_ms: NOW - ago_ms,
        size: 100,
        message_count: count,
        first_message: first.map(str::to_string),
    }
}

/// `child` forked from `parent`.
fn forked(
    mut child: rho_protocol::session::SessionSummary,
    parent: &str,
) -> rho_protocol::session::SessionSummary {
    child.header.parent_session = Some(format!("/sessions/{parent}.jsonl"));
    child
}

/// This folder: `a` (5 minutes ago), `b` (named, 2 hours), `e` forked from `b` a minute ago.
fn here() -> Vec<rho_protocol::session::SessionSummary> {
    vec![
        forked(
            session(
                "e",
                "/home/me/rho",
                None,
                Some("Follow-up on the notes"),
                60_000,
                3,
            ),
            "b",
        ),
        session(
            "a",
            "/home/me/rho",
            None,
            Some("Fix the parser\npanic on empty input"),
            5 * 60_000,
            12,
        ),
        session(
            "b",
            "/home/me/rho",
            Some("release notes"),
            Some("Draft notes"),
            2 * 3_600_000,
            1,
        ),
    ]
}

fn picker() -> SessionPicker {
    let mut all = here();
    all.push(session(
        "c",
        "/home/me/website",
        None,
        Some("Make the header sticky on scroll for mobile layouts"),
        3 * 86_400_000,
        40,
    ));
    all.push(session("d", "/tmp/scratch", None, None, 30_000, 0));
    SessionPicker::new(here(), all, NOW, &Keymap::default())
        .with_home(Some("/home/me".into()))
        .with_active(Some("/sessions/a.jsonl".into()))
}

fn shown(p: &SessionPicker) -> Vec<String> {
    p.shown_paths()
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect()
}

fn ctrl(c: char) -> Input {
    Input::ctrl(c)
}

#[test]
fn session_picker_threads_forks_under_their_parent_and_cycles_sorts() {
    let mut p = picker();
    assert_eq!(p.scope(), SessionScope::CurrentFolder);
    // Threaded: b's subtree has the newest activity (its fork e), then a.
    assert_eq!(shown(&p), ["b", "e", "a"]);
    let text = show(&p.render(80, &Theme::dark()), 80);
    assert!(text.contains("   └─ Follow-up on the notes"), "{text}");
    assert!(text.contains("Sort: Threaded"), "{text}");
    p.handle(&ctrl('s'), &Keymap::default());
    assert_eq!(p.sort(), SortMode::Recent);
    assert_eq!(shown(&p), ["e", "a", "b"], "newest first, as listed");
    p.handle(&ctrl('s'), &Keymap::default());
    assert_eq!(p.sort(), SortMode::Fuzzy);
    p.handle(&ctrl('s'), &Keymap::default());
    assert_eq!(p.sort(), SortMode::Threaded);
    // Named only.
    p.handle(&ctrl('n'), &Keymap::default());
    assert_eq!(shown(&p), ["b"]);
    let text = show(&p.render(80, &Theme::dark()), 80);
    assert!(text.contains("Name: Named"), "{text}");
    p.handle(&ctrl('n'), &Keymap::default());
    // Tab: every folder, with its folder on the right, `~` for home.
    p.handle(&key(KeyCode::Tab), &Keymap::default());
    assert_eq!(p.scope(), SessionScope::All);
    let text = show(&p.render(80, &Theme::dark()), 80);
    assert!(text.contains("~/website 40 3d"), "{text}");
    assert!(text.contains("/tmp/scratch 0 now"), "{text}");
    // Ctrl+P: the file paths too.
    p.handle(&ctrl('p'), &Keymap::default());
    let text = show(&p.render(120, &Theme::dark()), 120);
    assert!(text.contains("/sessions/c.jsonl ~/website 40 3d"), "{text}");
    assert!(text.contains("path (on)"), "{text}");
}

#[test]
fn session_picker_search_words_phrases_and_regexes() {
    let mut p = picker();
    p.handle(&key(KeyCode::Tab), &Keymap::default());
    feed(&mut p, &Input::typed("website"));
    assert_eq!(shown(&p), ["c"]);
    assert_eq!(
        p.handle(&key(KeyCode::Enter), &Keymap::default()),
        DialogAction::Done(SessionPick::Resume("/sessions/c.jsonl".into()))
    );
    // The query survives the scope toggle.
    p.handle(&key(KeyCode::Tab), &Keymap::default());
    assert_eq!(p.scope(), SessionScope::CurrentFolder);
    assert!(shown(&p).is_empty());
    let text = show(&p.render(80, &Theme::dark()), 80);
    assert!(text.contains("No sessions in current folder. Press Tab to view all."));
    feed(&mut p, &vec![key(KeyCode::Backspace); 7]);
    // A name match beats a first-message match.
    feed(&mut p, &Input::typed("notes"));
    assert_eq!(shown(&p), ["b", "e"]);
    feed(&mut p, &vec![key(KeyCode::Backspace); 5]);
    feed(&mut p, &Input::typed("\"empty input\""));
    assert_eq!(shown(&p), ["a"], "a phrase matches across the line break");
    feed(&mut p, &vec![key(KeyCode::Backspace); 13]);
    feed(&mut p, &Input::typed("re:^fix|^draft"));
    assert_eq!(shown(&p), ["a", "b"], "equal matches, newest first");
    feed(&mut p, &Input::typed("("));
    assert!(
        shown(&p).is_empty(),
        "a regex that does not compile matches nothing"
    );
    assert_eq!(
        p.handle(&key(KeyCode::Esc), &Keymap::default()),
        DialogAction::Cancelled
    );
}

#[test]
fn session_picker_deletes_after_a_confirmation_but_never_the_active_session() {
    let mut p = picker();
    // The active session (a) cannot be deleted.
    feed(&mut p, &[key(KeyCode::Down), key(KeyCode::Down)]);
    assert_eq!(
        p.selected_path(),
        Some(std::path::Path::new("/sessions/a.jsonl"))
    );
    assert_eq!(
        p.handle(&ctrl('d'), &Keymap::default()),
        DialogAction::Pending
    );
    let text = show(&p.render(80, &Theme::dark()), 80);
    assert!(
        text.contains("Cannot delete the currently active session"),
        "{text}"
    );
    // Another one asks first; Esc keeps it.
    p.handle(&key(KeyCode::Up), &Keymap::default());
    p.handle(&ctrl('d'), &Keymap::default());
    both!("session_picker_delete", &p);
    p.handle(&key(KeyCode::Esc), &Keymap::default());
    assert_eq!(shown(&p).len(), 3);
    p.handle(&ctrl('d'), &Keymap::default());
    let picked = p.handle(&key(KeyCode::Enter), &Keymap::default());
    assert_eq!(
        picked,
        DialogAction::Done(SessionPick::Delete("/sessions/e.jsonl".into()))
    );
    p.deleted(
        std::path::Path::new("/sessions/e.jsonl"),
        Ok(Deleted::Trash),
    );
    assert_eq!(
        shown(&p),
        ["a", "b"],
        "b's subtree lost its newest activity"
    );
    let text = show(&p.render(80, &Theme::dark()), 80);
    assert!(text.contains("Session moved to trash"), "{text}");
    p.deleted(
        std::path::Path::new("/sessions/b.jsonl"),
        Err(DeleteError {
            source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, "permission denied"),
            trash: None,
        }),
    );
    let text = show(&p.render(80, &Theme::dark()), 80);
    assert!(
        text.contains("Failed to delete: permission denied"),
        "{text}"
    );
}

#[test]
fn session_picker_renames_with_the_current_name_to_edit() {
    let mut p = picker();
    p.handle(&ctrl('r'), &Keymap::default());
    both!("session_picker_rename", &p);
    // Emptied, Enter does nothing; a name is handed over.
    feed(&mut p, &vec![key(KeyCode::Backspace); 13]);
    assert_eq!(
        p.handle(&key(KeyCode::Enter), &Keymap::default()),
        DialogAction::Pending
    );
    feed(&mut p, &Input::typed("  v2 notes "));
    assert_eq!(
        p.handle(&key(KeyCode::Enter), &Keymap::default()),
        DialogAction::Done(SessionPick::Rename {
            path: "/sessions/b.jsonl".into(),
            name: "v2 notes".into()
        })
    );
    p.renamed(std::path::Path::new("/sessions/b.jsonl"), "v2 notes");
    let text = show(&p.render(80, &Theme::dark()), 80);
    assert!(text.contains("› v2 notes"), "{text}");
}

#[test]
fn session_picker_starts_on_all_when_the_folder_has_none() {
    let p = SessionPicker::new(
        Vec::new(),
        vec![session("x", "/x", Some("n"), None, 0, 2)],
        NOW,
        &Keymap::default(),
    );
    assert_eq!(p.scope(), SessionScope::All);
}

#[test]
fn session_picker_snapshots() {
    let mut p = picker();
    both!("session_picker_current", &p);
    p.handle(&key(KeyCode::Tab), &Keymap::default());
    both!("session_picker_all", &p);
}

#[test]
fn session_picker_fits_tiny_widths() {
    for width in [1, 2, 3, 5, 9] {
        let t = Theme::dark();
        for l in picker().render(width, &t) {
            assert!(visible_width(&l) <= width, "{width}: {l:?}");
        }
    }
}
