//! pi 1.6's `before_provider_headers`: extensions see a request's headers as a map of names
//! to values and may add, replace or remove them. Credentials are not shown (a handler can
//! still replace or remove them by name): a key has no business in an extension's logs.

use serde_json::{Map, Value};

use super::AgentSession;

/// Headers an extension is not shown, by lower-cased name.
const CREDENTIALS: [&str; 5] = [
    "authorization",
    "x-api-key",
    "api-key",
    "x-goog-api-key",
    "proxy-authorization",
];

/// `headers` as the session's `before_provider_headers` handlers leave them.
pub(crate) async fn edited(
    session: &AgentSession,
    headers: Vec<(String, String)>,
) -> Vec<(String, String)> {
    let extensions = &session.inner.services.extensions;
    let answer = extensions
        .emit_headers(shown(&headers), &session.ext_ctx())
        .await;
    match answer.as_object() {
        Some(answer) => apply(headers, answer),
        None => headers,
    }
}

/// The headers as extensions see them: every one but the credentials, later ones winning.
fn shown(headers: &[(String, String)]) -> Value {
    let shown = headers
        .iter()
        .filter(|(name, _)| !CREDENTIALS.contains(&name.to_ascii_lowercase().as_str()))
        .map(|(name, value)| (name.clone(), Value::String(value.clone())));
    Value::Object(shown.collect())
}

/// `headers` with the extensions' answer applied: each name set to a string replaces every
/// header of that name (in any case) or is added; each set to null removes them. Names left
/// as shown change nothing; anything else in the answer is ignored.
pub(crate) fn apply(
    mut headers: Vec<(String, String)>,
    answer: &Map<String, Value>,
) -> Vec<(String, String)> {
    for (name, value) in answer {
        let new = match value {
            Value::String(v) => Some(v),
            Value::Null => None,
            _ => continue,
        };
        let same = headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name));
        if new.is_some() && same.is_some_and(|(_, v)| Some(v) == new) {
            continue;
        }
        headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        if let Some(v) = new {
            headers.push((name.clone(), v.clone()));
        }
    }
    headers
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn credentials_are_not_shown() {
        let headers = pairs(&[
            ("Authorization", "Bearer k"),
            ("x-api-key", "k"),
            ("x-one", "1"),
        ]);
        assert_eq!(shown(&headers), json!({"x-one": "1"}));
    }

    #[test]
    fn names_are_added_replaced_or_removed_in_any_case() {
        let headers = pairs(&[
            ("Authorization", "Bearer k"),
            ("X-Title", "rho"),
            ("accept", "a"),
        ]);
        let answer = json!({"x-title": "mine", "authorization": null, "x-new": "n", "accept": "a", "bad": 3});
        let applied = apply(headers, answer.as_object().unwrap());
        assert_eq!(
            applied,
            pairs(&[("accept", "a"), ("x-title", "mine"), ("x-new", "n")])
        );
    }
}
