//! keybindings.json, as pi 1.6 reads it: `<agent dir>/keybindings.json` only (pi has no
//! project-level file), read at start and again by /reload. Problems in it are notices on the
//! screen (pi says nothing); whatever is usable applies, and the rest keeps pi's defaults.
//! `/hotkeys` lists the keys in effect.

use std::path::Path;

use rho_tui::keymap::{parse, Platform};
use rho_tui::{Action, Keymap};

/// The file's name in the agent dir.
pub const FILE: &str = "keybindings.json";

/// The app's actions on the main screen, tried in pi's order after the special cases (see
/// session control's keys).
pub const APP_ACTIONS: &[Action] = &[
    Action::Clear,
    Action::Suspend,
    Action::ThinkingCycle,
    Action::ModelCycleForward,
    Action::ModelCycleBackward,
    Action::ModelSelect,
    Action::ToolsExpand,
    Action::ThinkingToggle,
    Action::EditorExternal,
    Action::MessageCopy,
    Action::MessageFollowUp,
    Action::MessageDequeue,
    Action::ClipboardPasteImage,
    Action::SessionNew,
    Action::SessionTree,
    Action::SessionFork,
    Action::SessionResume,
];

/// The transcript's keys in fullscreen, tried in pi's order.
pub const SCROLL_KEYS: &[Action] = &[
    Action::AltScreenPageUp,
    Action::AltScreenPageDown,
    Action::AltScreenHalfPageUp,
    Action::AltScreenHalfPageDown,
    Action::AltScreenLineUp,
    Action::AltScreenLineDown,
    Action::AltScreenPreviousPrompt,
    Action::AltScreenNextPrompt,
    Action::AltScreenTop,
    Action::AltScreenBottom,
];

/// The keymap `agent_dir`'s keybindings.json makes, and a warning per problem in it. A
/// missing file is pi's defaults, without a warning.
pub fn load(agent_dir: &Path) -> (Keymap, Vec<String>) {
    let path = agent_dir.join(FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return (
                Keymap::new(Platform::current(), &Default::default()),
                Vec::new(),
            )
        }
        Err(e) => {
            let warning = format!(
                "{}: cannot be read ({e}); using the default keys",
                path.display()
            );
            return (
                Keymap::new(Platform::current(), &Default::default()),
                vec![warning],
            );
        }
    };
    let parsed = parse(&text);
    let warnings = parsed
        .warnings
        .iter()
        .map(|w| format!("{}: {w}", path.display()))
        .collect();
    (Keymap::new(Platform::current(), &parsed.bindings), warnings)
}

/// Keys that are not actions: what typing them at the start of the editor does.
const TYPED: &[(&str, &str)] = &[
    ("/", "Commands"),
    ("@", "Reference a file"),
    ("!", "Run a shell command"),
    ("!!", "Run a shell command, kept out of the context"),
];

/// The rows of /hotkeys: a heading row per section (empty action), then `(keys, what)` for
/// every bound action: the editor's, the app's, and the transcript's in fullscreen. Unbound
/// actions are left out.
pub fn hotkey_rows(keys: &Keymap, fullscreen: bool) -> Vec<(String, String)> {
    let app: Vec<Action> = [Action::Interrupt, Action::Exit]
        .into_iter()
        .chain(APP_ACTIONS.iter().copied())
        .collect();
    let mut sections: Vec<(&str, &[Action])> =
        vec![("Editor", rho_tui::editor::ACTIONS), ("Application", &app)];
    if fullscreen {
        sections.push(("Fullscreen", SCROLL_KEYS));
    }
    let mut rows = Vec::new();
    for (title, actions) in sections {
        rows.push((title.to_string(), String::new()));
        for &action in actions {
            let shown = keys.display(action);
            if !shown.is_empty() {
                rows.push((shown, action.def().description.to_string()));
            }
        }
        if title == "Application" {
            rows.extend(TYPED.iter().map(|(k, d)| (k.to_string(), d.to_string())));
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_the_defaults_and_a_broken_one_warns_with_its_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (keys, warnings) = load(dir.path());
        assert!(warnings.is_empty());
        assert_eq!(keys.display(Action::ToolsExpand), "ctrl+o");
        std::fs::write(dir.path().join(FILE), "{\"app.tools.expand\": \"ctrl+e\",").expect("write");
        let (keys, warnings) = load(dir.path());
        assert_eq!(keys.display(Action::ToolsExpand), "ctrl+o");
        assert_eq!(warnings.len(), 1);
        let path = dir.path().join(FILE).display().to_string();
        assert!(
            warnings[0].starts_with(&format!("{path}: it is not valid JSON")),
            "{}",
            warnings[0]
        );
    }

    #[test]
    fn hotkeys_show_the_keys_in_effect_and_leave_out_unbound_actions() {
        let parsed = parse(r#"{"app.tools.expand": ["ctrl+e", "f2"], "app.thinking.toggle": []}"#);
        let keys = Keymap::new(Platform::Unix, &parsed.bindings);
        let rows = hotkey_rows(&keys, false);
        let find = |what: &str| {
            rows.iter()
                .find(|(_, d)| d.contains(what))
                .map(|(k, _)| k.clone())
        };
        assert_eq!(find("tool output").as_deref(), Some("ctrl+e/f2"));
        assert_eq!(find("thinking blocks"), None);
        assert!(find("Scroll transcript").is_none());
        let full = hotkey_rows(&keys, true);
        assert!(full
            .iter()
            .any(|(k, d)| k == "pageUp" && d.contains("Scroll transcript up")));
    }
}
