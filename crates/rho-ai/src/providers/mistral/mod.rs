//! Mistral's chat completions (`mistral-conversations`, as pi 1.6 names the API): `POST
//! {baseUrl}/v1/chat/completions` with snake_case bodies, 9-character tool-call ids, tool
//! results that carry the tool's name, and usage in the last chunk.
//!
//! [`build_request`] turns a context into the request (pure); [`Parser`] folds the streamed
//! chunks into the reply.

mod parser;
mod request;

pub use parser::Parser;
pub use request::build_request;

use crate::http::StatusFailure;

/// How much of an error body pi 1.6 keeps in Mistral's error text.
const MAX_ERROR_BODY_CHARS: usize = 4000;

/// The error text for an HTTP failure, as pi 1.6 words it: `Mistral API error (<status>):
/// <body>`, the body trimmed and cut at 4,000 characters; an empty body gives the status
/// line's reason instead.
pub fn error_message(failure: &StatusFailure) -> String {
    let status = failure.status;
    let body = failure.body.trim();
    let detail = if body.is_empty() {
        reqwest::StatusCode::from_u16(status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .map_or_else(
                || format!("Request failed with status {status}"),
                str::to_string,
            )
    } else {
        crate::provider::truncate_error_text(body, MAX_ERROR_BODY_CHARS)
    };
    format!("Mistral API error ({status}): {detail}")
}

/// Mistral's tool-call ids are 9 letters and digits.
const TOOL_CALL_ID_LENGTH: usize = 9;

/// Gives every tool-call id of one request a Mistral id, the same one each time it appears
/// (the call and its result), never the same one for two ids (pi 1.6's normaliser: an id
/// that already is 9 letters and digits stays; any other is hashed, again with an attempt
/// counter on a clash).
#[derive(Debug, Default)]
pub(crate) struct ToolCallIds {
    given: std::collections::HashMap<String, String>,
    owners: std::collections::HashMap<String, String>,
}

impl ToolCallIds {
    /// The Mistral id for `id`.
    pub(crate) fn get(&mut self, id: &str) -> String {
        if let Some(existing) = self.given.get(id) {
            return existing.clone();
        }
        let mut attempt = 0;
        loop {
            let candidate = derive_id(id, attempt);
            match self.owners.get(&candidate) {
                Some(owner) if owner != id => attempt += 1,
                _ => {
                    self.given.insert(id.to_string(), candidate.clone());
                    self.owners.insert(candidate.clone(), id.to_string());
                    return candidate;
                }
            }
        }
    }
}

/// pi 1.6's derivation: the id's letters and digits when there are exactly nine (first
/// attempt only), else the first nine letters and digits of the short hash of them (of the
/// id itself when it has none), with `:<attempt>` appended after the first attempt.
pub(crate) fn derive_id(id: &str, attempt: u32) -> String {
    let normalized: String = id.chars().filter(char::is_ascii_alphanumeric).collect();
    if attempt == 0 && normalized.chars().count() == TOOL_CALL_ID_LENGTH {
        return normalized;
    }
    let base = if normalized.is_empty() {
        id
    } else {
        &normalized
    };
    let seed = if attempt == 0 {
        base.to_string()
    } else {
        format!("{base}:{attempt}")
    };
    crate::tool_call_id::short_hash(&seed)
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(TOOL_CALL_ID_LENGTH)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_nine_characters_stable_and_distinct() {
        let mut ids = ToolCallIds::default();
        assert_eq!(ids.get("abcDEF123"), "abcDEF123");
        let long = ids.get("toolu_01ABCdefGHIjkl|fc_99");
        assert_eq!(long.len(), 9);
        assert!(long.chars().all(|c| c.is_ascii_alphanumeric()));
        assert_eq!(ids.get("toolu_01ABCdefGHIjkl|fc_99"), long);
        assert_ne!(ids.get("call_2"), long);
        // "a.b-c_d:e#f1" keeps exactly nine letters and digits: taken as they are.
        assert_eq!(derive_id("a.b-c_d:e#f1g2", 0), "abcdef1g2");
        assert_eq!(derive_id("x", 0), crate::tool_call_id::short_hash("x")[..9]);
    }

    #[test]
    fn a_clash_takes_the_next_attempt() {
        let mut ids = ToolCallIds::default();
        let first = ids.get("abcDEF123");
        // Another id whose letters and digits are the same nine.
        let second = ids.get("abc-DEF-123");
        assert_eq!(first, "abcDEF123");
        assert_ne!(second, first);
        assert_eq!(second, derive_id("abc-DEF-123", 1));
    }

    #[test]
    fn error_texts_follow_pi() {
        let f = |status, body: &str| {
            error_message(&StatusFailure {
                status,
                body: body.into(),
                headers: vec![],
            })
        };
        assert_eq!(
            f(400, " {\"message\":\"bad\"}\n"),
            "Mistral API error (400): {\"message\":\"bad\"}"
        );
        assert_eq!(f(503, ""), "Mistral API error (503): Service Unavailable");
        let long = f(400, &"x".repeat(4010));
        assert!(long.ends_with("... [truncated 10 chars]"), "{long}");
    }
}
