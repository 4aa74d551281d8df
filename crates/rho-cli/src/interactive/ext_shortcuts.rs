//! pi's `registerShortcut`: extension shortcuts bound on the main screen, in pi's key format
//! (`ctrl+shift+p`, `alt+x`, `f5`, `ctrl+]`). Conflicts resolve as pi's: a key of one of pi's
//! reserved actions (interrupt, clear, exit, submit, model and thinking keys, ...) is skipped
//! with a warning; another built-in key (an editor key) goes to the extension, with a warning;
//! the same key from two extensions goes to the later one, with a warning. Without the kitty
//! keyboard protocol a terminal sends some combinations alike (Ctrl+Shift+P as Ctrl+P).

use rho_core::extensions::ShortcutDef;
use rho_tui::input::{KeyCode, KeyModifiers};
use rho_tui::Input;

/// pi's default keys of the actions extensions may not take.
const RESERVED: &[(&str, &str)] = &[
    ("escape", "app.interrupt"),
    ("ctrl+c", "app.clear"),
    ("ctrl+d", "app.exit"),
    ("ctrl+z", "app.suspend"),
    ("shift+tab", "app.thinking.cycle"),
    ("ctrl+p", "app.model.cycleForward"),
    ("shift+ctrl+p", "app.model.cycleBackward"),
    ("ctrl+l", "app.model.select"),
    ("ctrl+o", "app.tools.expand"),
    ("ctrl+t", "app.thinking.toggle"),
    ("ctrl+g", "app.editor.external"),
    ("ctrl+x", "app.message.copy"),
    ("alt+enter", "app.message.followUp"),
    ("enter", "tui.input.submit"),
    ("ctrl+k", "tui.editor.deleteToLineEnd"),
];

/// pi's default keys of the actions an extension shortcut overrides (with a warning).
const OVERRIDABLE: &[(&str, &str)] = &[
    ("up", "tui.editor.cursorUp"),
    ("down", "tui.editor.cursorDown"),
    ("left", "tui.editor.cursorLeft"),
    ("ctrl+b", "tui.editor.cursorLeft"),
    ("right", "tui.editor.cursorRight"),
    ("ctrl+f", "tui.editor.cursorRight"),
    ("alt+left", "tui.editor.cursorWordLeft"),
    ("ctrl+left", "tui.editor.cursorWordLeft"),
    ("alt+b", "tui.editor.cursorWordLeft"),
    ("alt+right", "tui.editor.cursorWordRight"),
    ("ctrl+right", "tui.editor.cursorWordRight"),
    ("alt+f", "tui.editor.cursorWordRight"),
    ("home", "tui.editor.cursorLineStart"),
    ("ctrl+a", "tui.editor.cursorLineStart"),
    ("end", "tui.editor.cursorLineEnd"),
    ("ctrl+e", "tui.editor.cursorLineEnd"),
    ("ctrl+]", "tui.editor.jumpForward"),
    ("pageup", "tui.editor.pageUp"),
    ("pagedown", "tui.editor.pageDown"),
    ("backspace", "tui.editor.deleteCharBackward"),
    ("delete", "tui.editor.deleteCharForward"),
    ("ctrl+w", "tui.editor.deleteWordBackward"),
    ("alt+backspace", "tui.editor.deleteWordBackward"),
    ("alt+d", "tui.editor.deleteWordForward"),
    ("ctrl+u", "tui.editor.deleteToLineStart"),
    ("ctrl+y", "tui.editor.yank"),
    ("alt+y", "tui.editor.yankPop"),
    ("ctrl+-", "tui.editor.undo"),
    ("shift+enter", "tui.input.newLine"),
    ("ctrl+j", "tui.input.newLine"),
    ("tab", "tui.input.tab"),
    ("alt+up", "app.message.dequeue"),
    ("ctrl+v", "app.clipboard.pasteImage"),
];

/// A bound shortcut.
#[derive(Clone)]
pub struct Binding {
    /// The extension that registered it.
    pub path: String,
    /// What it runs.
    pub def: ShortcutDef,
    code: KeyCode,
    mods: KeyModifiers,
}

impl Binding {
    /// Whether `input` is this shortcut's key.
    pub fn matches(&self, input: &Input) -> bool {
        let Some(k) = input.as_key() else {
            return false;
        };
        match (k.code, self.code) {
            (KeyCode::Char(got), KeyCode::Char(want)) => {
                let mut mods = k.modifiers;
                if got.is_ascii_alphabetic() && got.is_ascii_uppercase() {
                    mods |= KeyModifiers::SHIFT;
                } else if !got.is_ascii_alphanumeric() {
                    // A symbol's shift is part of the symbol.
                    mods -= KeyModifiers::SHIFT;
                }
                got.to_ascii_lowercase() == want && mods == self.mods
            }
            (KeyCode::BackTab, KeyCode::Tab) => self.mods == KeyModifiers::SHIFT,
            (got, want) => got == want && k.modifiers == self.mods,
        }
    }
}

/// The key `id` in pi's format as crossterm reports it, if it names one.
pub fn parse_key(id: &str) -> Option<(KeyCode, KeyModifiers)> {
    let id = id.to_ascii_lowercase();
    let (mods_part, key) = match id.strip_suffix("++") {
        Some(rest) => (rest, "+"),
        None => id.rsplit_once('+').unwrap_or(("", id.as_str())),
    };
    let mut mods = KeyModifiers::NONE;
    for m in mods_part.split('+').filter(|m| !m.is_empty()) {
        mods |= match m {
            "ctrl" => KeyModifiers::CONTROL,
            "shift" => KeyModifiers::SHIFT,
            "alt" => KeyModifiers::ALT,
            "super" => KeyModifiers::SUPER,
            _ => return None,
        };
    }
    let code = match key {
        "escape" | "esc" => KeyCode::Esc,
        "enter" | "return" => KeyCode::Enter,
        "tab" => KeyCode::Tab,
        "space" => KeyCode::Char(' '),
        "backspace" => KeyCode::Backspace,
        "delete" => KeyCode::Delete,
        "insert" => KeyCode::Insert,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "pageup" => KeyCode::PageUp,
        "pagedown" => KeyCode::PageDown,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        f if f.len() > 1 && f.starts_with('f') => match f[1..].parse::<u8>() {
            Ok(n @ 1..=12) => KeyCode::F(n),
            _ => return None,
        },
        c if c.chars().count() == 1 => KeyCode::Char(c.chars().next()?),
        _ => return None,
    };
    Some((code, mods))
}

/// Resolves the registered `(extension path, shortcut)` pairs as pi does: what is bound, in
/// registration order, and the warnings pi gives.
pub fn resolve(registered: Vec<(String, ShortcutDef)>) -> (Vec<Binding>, Vec<String>) {
    let mut bound: Vec<Binding> = Vec::new();
    let mut warnings = Vec::new();
    for (path, def) in registered {
        let key = def.key.to_ascii_lowercase();
        let builtin = |table: &[(&str, &'static str)]| {
            table.iter().find(|(k, _)| *k == key).map(|(_, id)| *id)
        };
        if builtin(RESERVED).is_some() {
            warnings.push(format!(
                "Extension shortcut '{}' from {path} conflicts with built-in shortcut. Skipping.",
                def.key
            ));
            continue;
        }
        if let Some(action) = builtin(OVERRIDABLE) {
            warnings.push(format!(
                "Extension shortcut conflict: '{}' is built-in shortcut for {action} and {path}. Using {path}.",
                def.key
            ));
        }
        let Some((code, mods)) = parse_key(&key) else {
            warnings.push(format!(
                "Extension shortcut '{}' from {path} is not a key. Skipping.",
                def.key
            ));
            continue;
        };
        if let Some(at) = bound
            .iter()
            .position(|b| b.def.key.to_ascii_lowercase() == key)
        {
            let earlier = bound.remove(at);
            warnings.push(format!(
                "Extension shortcut conflict: '{}' registered by both {} and {path}. Using {path}.",
                def.key, earlier.path
            ));
        }
        bound.push(Binding {
            path,
            def,
            code,
            mods,
        });
    }
    (bound, warnings)
}

impl super::app::App {
    /// Binds what the loaded extensions registered (at start and after /reload); pi's
    /// conflict warnings go to the screen.
    pub(super) fn bind_shortcuts(&mut self) {
        let (bound, warnings) = resolve(self.session.extensions().shortcuts());
        self.shortcuts = bound;
        for w in warnings {
            self.notice(format!("Warning: {w}"), true);
        }
    }

    /// Runs the extension shortcut `input` is, if it is one (in a task: the handler may open
    /// dialogs, which need this loop).
    pub(super) fn shortcut_key(&mut self, input: &Input) -> bool {
        let Some(binding) = self.shortcuts.iter().find(|b| b.matches(input)).cloned() else {
            return false;
        };
        self.last_ctrl_c = None;
        let session = self.session.clone();
        tokio::spawn(async move { session.run_shortcut(&binding.path, &binding.def).await });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn def(key: &str) -> ShortcutDef {
        ShortcutDef {
            key: key.into(),
            description: None,
            handler: Arc::new(|_| Box::pin(async { Ok(()) })),
        }
    }

    #[test]
    fn keys_in_pis_format_match_what_the_terminal_sends() {
        let (bound, _) = resolve(vec![
            ("a.ts".into(), def("alt+s")),
            ("a.ts".into(), def("ctrl+shift+p")),
            ("a.ts".into(), def("f5")),
            ("a.ts".into(), def("shift+tab")),
        ]);
        let alt_s = Input::with_mods(KeyCode::Char('s'), KeyModifiers::ALT);
        assert!(bound[0].matches(&alt_s));
        assert!(!bound[0].matches(&Input::char('s')));
        let ctrl_shift_p = Input::with_mods(
            KeyCode::Char('P'),
            KeyModifiers::CONTROL | KeyModifiers::SHIFT,
        );
        assert!(bound[1].matches(&ctrl_shift_p));
        assert!(!bound[1].matches(&Input::ctrl('p')));
        assert!(bound[2].matches(&Input::key(KeyCode::F(5))));
        assert_eq!(bound.len(), 3, "shift+tab is reserved");
    }

    #[test]
    fn conflicts_resolve_and_warn_as_pi() {
        let (bound, warnings) = resolve(vec![
            ("a.ts".into(), def("ctrl+c")),
            ("a.ts".into(), def("ctrl+a")),
            ("a.ts".into(), def("alt+q")),
            ("b.ts".into(), def("alt+q")),
        ]);
        let keys: Vec<_> = bound
            .iter()
            .map(|b| (b.def.key.as_str(), b.path.as_str()))
            .collect();
        assert_eq!(keys, vec![("ctrl+a", "a.ts"), ("alt+q", "b.ts")]);
        assert_eq!(
            warnings,
            vec![
                "Extension shortcut 'ctrl+c' from a.ts conflicts with built-in shortcut. Skipping.",
                "Extension shortcut conflict: 'ctrl+a' is built-in shortcut for tui.editor.cursorLineStart and a.ts. Using a.ts.",
                "Extension shortcut conflict: 'alt+q' registered by both a.ts and b.ts. Using b.ts.",
            ]
        );
    }
}
