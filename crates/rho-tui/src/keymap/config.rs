//! Reading keybindings.json as pi 1.6 reads it: an object mapping action ids to one key or a
//! list of keys; a configured value replaces the action's defaults and an empty list unbinds
//! it; `$schema` is skipped; pi's pre-1.0 names (`cursorUp`, `followUp`, ...) still work, and
//! the current name wins when a file has both.
//!
//! pi drops what it cannot use without a word. rho drops the same things but says so: each
//! problem becomes a warning naming the entry and what happens instead, and the rest of the
//! file still applies. A file that is not a JSON object gives one warning and the defaults.

use std::collections::BTreeMap;

use serde_json::Value;

use super::actions::{Action, LEGACY_NAMES};
use super::key_id::KeyId;

/// The bindings a file configures: for each action named, its keys as written, lower case
/// (each one a valid [`KeyId`]; empty: unbound).
pub type UserBindings = BTreeMap<Action, Vec<String>>;

/// What the file asked for, and what could not be used.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParsedBindings {
    /// The usable entries.
    pub bindings: UserBindings,
    /// One sentence per problem (without the file's path: the caller names it).
    pub warnings: Vec<String>,
}

/// Parses the text of a keybindings.json.
pub fn parse(text: &str) -> ParsedBindings {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut parsed = ParsedBindings::default();
    let object = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => map,
        Ok(_) => {
            parsed.warnings.push(
                "it must be a JSON object mapping action ids to keys, e.g. {\"app.session.new\": \"ctrl+shift+n\"}; using the default keys"
                    .into(),
            );
            return parsed;
        }
        Err(e) => {
            parsed.warnings.push(format!(
                "it is not valid JSON ({e}); using the default keys"
            ));
            return parsed;
        }
    };
    for (name, value) in &object {
        if name == "$schema" {
            continue;
        }
        let legacy = LEGACY_NAMES.iter().find(|(old, _)| old == name);
        let id = legacy.map_or(name.as_str(), |(_, new)| new);
        if legacy.is_some() && object.contains_key(id) {
            continue;
        }
        let Some(action) = Action::from_id(id) else {
            parsed.warnings.push(format!(
                "\"{name}\" is not an action id (see docs/keybindings.md in pi, or /hotkeys); ignored"
            ));
            continue;
        };
        match keys_of(value) {
            Ok(keys) => {
                parsed.bindings.insert(action, keys);
            }
            Err(problem) => parsed
                .warnings
                .push(format!("\"{name}\": {problem}; its default keys stay")),
        }
    }
    parsed
}

/// The keys of one entry: a key, or a list of keys (duplicates dropped, order kept).
fn keys_of(value: &Value) -> Result<Vec<String>, String> {
    let texts: Vec<&str> = match value {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().ok_or(()))
            .collect::<Result<_, _>>()
            .map_err(|()| "every key in the list must be a string".to_string())?,
        other => {
            return Err(format!(
                "must be a key or a list of keys, not {}",
                json_kind(other)
            ))
        }
    };
    let mut keys: Vec<String> = Vec::with_capacity(texts.len());
    for text in texts {
        KeyId::parse(text).map_err(|e| e.to_string())?;
        let text = text.trim().to_ascii_lowercase();
        if !keys.contains(&text) {
            keys.push(text);
        }
    }
    Ok(keys)
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|k| k.to_string()).collect()
    }

    #[test]
    fn values_replace_defaults_and_an_empty_list_unbinds() {
        let p = parse(
            r#"{"$schema": "https://pi.dev/schemas/keybindings.schema.json",
                "app.session.new": "ctrl+shift+n",
                "app.session.tree": ["ctrl+shift+t", "alt+shift+t", "ctrl+shift+t"],
                "tui.altScreen.pageUp": []}"#,
        );
        assert_eq!(p.warnings, Vec::<String>::new());
        assert_eq!(p.bindings[&Action::SessionNew], keys(&["ctrl+shift+n"]));
        assert_eq!(
            p.bindings[&Action::SessionTree],
            keys(&["ctrl+shift+t", "alt+shift+t"])
        );
        assert_eq!(p.bindings[&Action::AltScreenPageUp], Vec::<String>::new());
    }

    #[test]
    fn legacy_names_are_renamed_and_lose_to_the_current_name() {
        let p =
            parse(r#"{"followUp": "ctrl+q", "cursorUp": "ctrl+k", "tui.editor.cursorUp": "up"}"#);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.bindings[&Action::MessageFollowUp], keys(&["ctrl+q"]));
        assert_eq!(p.bindings[&Action::EditorCursorUp], keys(&["up"]));
    }

    #[test]
    fn each_bad_entry_is_named_and_the_rest_applies() {
        let p = parse(
            r#"{"app.sesion.new": "ctrl+n", "app.exit": "ctrl+shft+q", "app.clear": 3,
                "app.tools.expand": ["ctrl+o", 1], "app.model.select": "ctrl+k"}"#,
        );
        assert_eq!(p.bindings.len(), 1);
        assert_eq!(p.bindings[&Action::ModelSelect], keys(&["ctrl+k"]));
        assert_eq!(p.warnings.len(), 4, "{:?}", p.warnings);
        assert!(p.warnings[0].starts_with("\"app.sesion.new\" is not an action id"));
        assert!(
            p.warnings[1].starts_with("\"app.exit\": \"ctrl+shft+q\" is not a key"),
            "{}",
            p.warnings[1]
        );
        assert!(p.warnings[1].ends_with("its default keys stay"));
        assert!(p.warnings[2]
            .starts_with("\"app.clear\": must be a key or a list of keys, not a number"));
        assert!(p.warnings[3].contains("must be a string"));
    }

    #[test]
    fn a_file_that_is_not_an_object_gives_one_warning_and_no_bindings() {
        for text in ["{\"app.exit\": ", "[\"ctrl+q\"]", ""] {
            let p = parse(text);
            assert!(p.bindings.is_empty());
            assert_eq!(p.warnings.len(), 1, "{text:?}");
            assert!(
                p.warnings[0].ends_with("using the default keys"),
                "{}",
                p.warnings[0]
            );
        }
        assert!(parse("\u{feff}{}").warnings.is_empty(), "a BOM is skipped");
    }
}
