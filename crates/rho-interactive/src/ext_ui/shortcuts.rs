//! pi's `registerShortcut`: extension shortcuts bound on the main screen, in pi's key format
//! (`ctrl+shift+p`, `alt+x`, `f5`, `ctrl+]`). Conflicts resolve as pi's, against the keys in
//! effect (pi's defaults with keybindings.json applied, every action pi defines): a key of one
//! of pi's reserved actions (interrupt, clear, exit, submit, model and thinking keys, ...) is
//! skipped with a warning; another action's key goes to the extension, with a warning naming
//! the action (when several actions share the key, pi names the last in its table); the same
//! key from two extensions goes to the later one, with a warning. Without the kitty keyboard
//! protocol a terminal sends some combinations alike (Ctrl+Shift+P as Ctrl+P).

use rho_extension_host::ShortcutDef;
use rho_tui::keymap::KeyId;
use rho_tui::{Action, Input, Keymap};

/// The actions whose keys extensions may not take (pi's list).
const RESERVED: &[Action] = &[
    Action::Interrupt,
    Action::Clear,
    Action::Exit,
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
    Action::InputSubmit,
    Action::SelectConfirm,
    Action::SelectCancel,
    Action::InputCopy,
    Action::EditorDeleteToLineEnd,
];

/// A bound shortcut.
#[derive(Clone)]
pub struct Binding {
    /// The extension that registered it.
    pub path: String,
    /// What it runs.
    pub def: ShortcutDef,
    key: KeyId,
}

impl Binding {
    /// Whether `input` is this shortcut's key.
    pub fn matches(&self, input: &Input) -> bool {
        input.as_key().is_some_and(|k| self.key.matches(k))
    }
}

/// The built-in action `key` belongs to, and whether it is reserved, as pi works it out: each
/// action in pi's order claims its keys (compared as written, lower case: pi's
/// `shift+ctrl+p` is not `ctrl+shift+p`), a later one replacing an earlier one unless only the
/// earlier is reserved.
fn builtin(keys: &Keymap, key: &str) -> Option<(Action, bool)> {
    let key = key.trim().to_ascii_lowercase();
    let mut found: Option<(Action, bool)> = None;
    for (def, bound) in keys.written() {
        if !bound.contains(&key) {
            continue;
        }
        let reserved = RESERVED.contains(&def.action);
        if found.is_some_and(|(_, earlier)| earlier) && !reserved {
            continue;
        }
        found = Some((def.action, reserved));
    }
    found
}

/// Resolves the registered `(extension path, shortcut)` pairs as pi does against `keys`:
/// what is bound, in registration order, and the warnings pi gives.
pub fn resolve(
    registered: Vec<(String, ShortcutDef)>,
    keys: &Keymap,
) -> (Vec<Binding>, Vec<String>) {
    let mut bound: Vec<Binding> = Vec::new();
    let mut warnings = Vec::new();
    for (path, def) in registered {
        let Ok(key) = KeyId::parse(&def.key) else {
            warnings.push(format!(
                "Extension shortcut '{}' from {path} is not a key. Skipping.",
                def.key
            ));
            continue;
        };
        match builtin(keys, &def.key) {
            Some((_, true)) => {
                warnings.push(format!(
                    "Extension shortcut '{}' from {path} conflicts with built-in shortcut. Skipping.",
                    def.key
                ));
                continue;
            }
            Some((action, false)) => warnings.push(format!(
                "Extension shortcut conflict: '{}' is built-in shortcut for {} and {path}. Using {path}.",
                def.key,
                action.id()
            )),
            None => {}
        }
        let same = |b: &Binding| b.def.key.eq_ignore_ascii_case(&def.key);
        if let Some(at) = bound.iter().position(same) {
            let earlier = bound.remove(at);
            warnings.push(format!(
                "Extension shortcut conflict: '{}' registered by both {} and {path}. Using {path}.",
                def.key, earlier.path
            ));
        }
        bound.push(Binding { path, def, key });
    }
    (bound, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rho_tui::input::{KeyCode, KeyModifiers};
    use rho_tui::keymap::{parse, Platform};
    use std::sync::Arc;

    fn def(key: &str) -> ShortcutDef {
        ShortcutDef {
            key: key.into(),
            description: None,
            handler: Arc::new(|_| Box::pin(async { Ok(()) })),
        }
    }

    fn registered(pairs: &[(&str, &str)]) -> Vec<(String, ShortcutDef)> {
        pairs.iter().map(|(p, k)| (p.to_string(), def(k))).collect()
    }

    #[test]
    fn keys_in_pis_format_match_what_the_terminal_sends() {
        let (bound, _) = resolve(
            registered(&[
                ("a.ts", "alt+s"),
                ("a.ts", "ctrl+shift+p"),
                ("a.ts", "f5"),
                ("a.ts", "shift+tab"),
            ]),
            &Keymap::default(),
        );
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
        let (bound, warnings) = resolve(
            registered(&[
                ("a.ts", "ctrl+c"),
                ("a.ts", "ctrl+a"),
                ("a.ts", "alt+q"),
                ("b.ts", "alt+q"),
            ]),
            &Keymap::default(),
        );
        let keys: Vec<_> = bound
            .iter()
            .map(|b| (b.def.key.as_str(), b.path.as_str()))
            .collect();
        assert_eq!(keys, vec![("ctrl+a", "a.ts"), ("alt+q", "b.ts")]);
        // pi 1.6 names the last action of its table with the key (checked against pi 1.6.0).
        assert_eq!(
            warnings,
            vec![
                "Extension shortcut 'ctrl+c' from a.ts conflicts with built-in shortcut. Skipping.",
                "Extension shortcut conflict: 'ctrl+a' is built-in shortcut for app.tree.filter.all and a.ts. Using a.ts.",
                "Extension shortcut conflict: 'alt+q' registered by both a.ts and b.ts. Using b.ts.",
            ]
        );
    }

    #[test]
    fn conflicts_follow_the_keys_keybindings_json_sets() {
        let parsed = parse(r#"{"app.tools.expand": "f9", "app.tree.filter.cycleForward": []}"#);
        let keys = Keymap::new(Platform::Unix, &parsed.bindings);
        let (bound, warnings) = resolve(registered(&[("a.ts", "ctrl+o"), ("a.ts", "f9")]), &keys);
        let bound: Vec<_> = bound.iter().map(|b| b.def.key.as_str()).collect();
        assert_eq!(
            bound,
            vec!["ctrl+o"],
            "ctrl+o is free, f9 now expands tools"
        );
        assert_eq!(
            warnings,
            vec!["Extension shortcut 'f9' from a.ts conflicts with built-in shortcut. Skipping."]
        );
    }
}
