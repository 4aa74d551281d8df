//! Key bindings: pi's named actions (`app.session.new`, `tui.editor.cursorUp`, ...), each
//! bound to keys, defaults replaced by what the user's keybindings.json says.
//!
//! Widgets never compare keys themselves: they ask the [`Keymap`] whether an input is an
//! action (`keys.matches(input, Action::SelectUp)`), so a remapped or unbound action behaves
//! the same in the editor, every dialog and the application.

mod actions;
mod config;
mod key_id;

pub use actions::{Action, ActionDef, Platform, ACTIONS, LEGACY_NAMES};
pub use config::{parse, ParsedBindings, UserBindings};
pub use key_id::{BadKey, KeyId};

use crate::input::Input;

/// The keys bound to every action.
#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    /// Indexed by `Action as usize`.
    keys: Vec<Vec<KeyId>>,
    /// The same keys as written (lower case): pi compares extension shortcuts with these.
    written: Vec<Vec<String>>,
    /// The actions the user configured (the rest have their defaults).
    configured: Vec<bool>,
}

impl Default for Keymap {
    /// pi's defaults for Linux and macOS (deterministic: tests use it).
    fn default() -> Self {
        Self::new(Platform::Unix, &UserBindings::new())
    }
}

impl Keymap {
    /// pi's defaults on `platform`, with `user`'s entries replacing them.
    pub fn new(platform: Platform, user: &UserBindings) -> Self {
        let mut keys = Vec::with_capacity(ACTIONS.len());
        let mut written = Vec::with_capacity(ACTIONS.len());
        let mut configured = Vec::with_capacity(ACTIONS.len());
        for def in ACTIONS {
            let texts: Vec<String> = match user.get(&def.action) {
                Some(chosen) => chosen.clone(),
                None => def
                    .defaults_on(platform)
                    .iter()
                    .map(|k| k.to_ascii_lowercase())
                    .collect(),
            };
            configured.push(user.contains_key(&def.action));
            keys.push(texts.iter().filter_map(|k| KeyId::parse(k).ok()).collect());
            written.push(texts);
        }
        Self {
            keys,
            written,
            configured,
        }
    }

    /// The keys bound to `action`, in the order configured (empty: unbound).
    pub fn keys(&self, action: Action) -> &[KeyId] {
        &self.keys[action as usize]
    }

    /// Whether keybindings.json set `action`.
    pub fn is_configured(&self, action: Action) -> bool {
        self.configured[action as usize]
    }

    /// Whether `input` is a key bound to `action`.
    pub fn matches(&self, input: &Input, action: Action) -> bool {
        match input.as_key() {
            Some(k) => self.keys(action).iter().any(|id| id.matches(k)),
            None => false,
        }
    }

    /// The first of `actions` that `input` is bound to.
    pub fn first_match(&self, input: &Input, actions: &[Action]) -> Option<Action> {
        actions.iter().copied().find(|a| self.matches(input, *a))
    }

    /// The keys of `action` as pi's hints write them: `ctrl+o`, several joined by `/`; empty
    /// when unbound.
    pub fn display(&self, action: Action) -> String {
        let keys: Vec<String> = self.keys(action).iter().map(KeyId::to_string).collect();
        keys.join("/")
    }

    /// The first key of `action` as written in keybindings.json (or pi's default), lower
    /// case: pi's compact hints (the tree's help) name keys so.
    pub fn first_written(&self, action: Action) -> Option<&str> {
        self.written[action as usize].first().map(String::as_str)
    }

    /// Every action with its keys as written (lower case), in pi's order.
    pub fn written(&self) -> impl Iterator<Item = (&'static ActionDef, &[String])> {
        ACTIONS.iter().zip(self.written.iter().map(Vec::as_slice))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{KeyCode, KeyModifiers};

    #[test]
    fn a_configured_value_replaces_the_defaults_and_an_empty_one_unbinds() {
        let parsed = parse(r#"{"app.tools.expand": "ctrl+e", "app.interrupt": []}"#);
        let keys = Keymap::new(Platform::Unix, &parsed.bindings);
        assert!(keys.matches(&Input::ctrl('e'), Action::ToolsExpand));
        assert!(!keys.matches(&Input::ctrl('o'), Action::ToolsExpand));
        assert!(!keys.matches(&Input::key(KeyCode::Esc), Action::Interrupt));
        assert_eq!(keys.display(Action::Interrupt), "");
        assert!(keys.is_configured(Action::Interrupt));
        assert!(!keys.is_configured(Action::Clear));
        assert!(
            keys.matches(&Input::ctrl('c'), Action::Clear),
            "others keep theirs"
        );
    }

    #[test]
    fn defaults_are_pis() {
        let keys = Keymap::default();
        assert_eq!(keys.display(Action::EditorCursorLeft), "left/ctrl+b");
        assert_eq!(keys.display(Action::SessionNew), "");
        let alt_enter = Input::with_mods(KeyCode::Enter, KeyModifiers::ALT);
        assert_eq!(
            keys.first_match(&alt_enter, &[Action::InputSubmit, Action::MessageFollowUp]),
            Some(Action::MessageFollowUp)
        );
        assert!(!keys.matches(&Input::Paste("x".into()), Action::InputSubmit));
    }
}
