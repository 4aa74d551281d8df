//! pi 1.6's actionable boundaries (`turn_end`, `agent_before_settle`): what a handler may
//! return ([`BoundaryResult`]) and the session entries it may propose ([`BoundaryDraft`]).
//! Handlers see the proposal so far in the event and return a field to replace it; the
//! session validates the whole proposal and appends it in list order after all handlers.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Usage, UserContent};

/// A boundary handler's result: each field present replaces that field of the proposal;
/// an absent one keeps it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BoundaryResult {
    /// The whole list of proposed entries (drafts, checked only after every handler ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entries: Option<Vec<Value>>,
    /// Whether to ensure one more provider request for this boundary.
    #[serde(default, rename = "continue", skip_serializing_if = "Option::is_none")]
    pub continue_: Option<bool>,
    /// Failures of handlers an extension process ran for this one result (a process such as
    /// the pi host runs several extensions' handlers in one request): the runner reports
    /// each, and the result stands for the handlers that did not fail.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<BoundaryHandlerError>,
}

/// One failed handler inside an extension process's boundary result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BoundaryHandlerError {
    /// The extension whose handler failed.
    pub extension_path: String,
    /// The error text.
    pub error: String,
}

/// One proposed session entry (pi 1.6's `SessionBoundaryDraft`). Only these four types are
/// allowed; anything else makes the proposal invalid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum BoundaryDraft {
    /// Extension state, never in the model's context.
    Custom {
        custom_type: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<Value>,
    },
    /// An extension message the model sees (as a user message).
    CustomMessage {
        custom_type: String,
        content: UserContent,
        display: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        details: Option<Value>,
    },
    /// Replaces (or, with `null`, omits) an earlier entry's content in the model's context.
    ContextEdit {
        target_id: String,
        replacement: Option<Replacement>,
    },
    /// A compaction: history before `firstKeptEntryId` is replaced by `summary`.
    Compaction {
        summary: String,
        first_kept_entry_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        details: Option<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
    },
}

/// A `context_edit` draft's replacement content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Replacement {
    /// The content the model sees instead.
    pub content: UserContent,
}

/// Why a proposal cannot be applied: its first bad draft, by position in the list. The text
/// is what the extension reads in `extension_error` (after `Invalid boundary entries: `).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("entries[{index}]: {reason}")]
pub struct DraftError {
    /// The draft's position in `entries`.
    pub index: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// Reads a proposal's drafts; the error names the first bad one.
pub fn parse_drafts(entries: &[Value]) -> Result<Vec<BoundaryDraft>, DraftError> {
    entries
        .iter()
        .enumerate()
        .map(|(index, value)| {
            let refuse = |reason: String| DraftError { index, reason };
            match value.get("type").and_then(Value::as_str) {
                Some("custom" | "custom_message" | "context_edit" | "compaction") => {
                    serde_json::from_value(value.clone()).map_err(|e| refuse(e.to_string()))
                }
                Some(other) => Err(refuse(format!(
                    "draft type \"{other}\" is not allowed (allowed: custom, custom_message, context_edit, compaction)"
                ))),
                None => Err(refuse("a draft needs a \"type\"".into())),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_four_draft_types_parse() {
        let drafts = parse_drafts(&[
            json!({"type": "custom", "customType": "k", "data": {"a": 1}}),
            json!({"type": "custom_message", "customType": "k", "content": "hi", "display": false}),
            json!({"type": "context_edit", "targetId": "abcd1234", "replacement": null}),
            json!({"type": "context_edit", "targetId": "abcd1234", "replacement": {"content": "x"}}),
            json!({"type": "compaction", "summary": "s", "firstKeptEntryId": "abcd1234"}),
        ])
        .unwrap();
        assert_eq!(drafts.len(), 5);
        assert!(matches!(
            &drafts[2],
            BoundaryDraft::ContextEdit {
                replacement: None,
                ..
            }
        ));
        assert!(matches!(
            &drafts[3],
            BoundaryDraft::ContextEdit {
                replacement: Some(Replacement {
                    content: UserContent::Text(t)
                }),
                ..
            } if t == "x"
        ));
    }

    #[test]
    fn another_type_is_refused_by_position() {
        let err = parse_drafts(&[
            json!({"type": "custom", "customType": "k"}),
            json!({"type": "label", "targetId": "x"}),
        ])
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("entries[1]: draft type \"label\" is not allowed"),
            "{err}"
        );
    }

    #[test]
    fn a_draft_missing_a_field_is_refused() {
        let err =
            parse_drafts(&[json!({"type": "custom_message", "customType": "k", "content": "x"})])
                .unwrap_err();
        assert_eq!(err.index, 0);
        let err = err.to_string();
        assert!(
            err.contains("entries[0]") && err.contains("display"),
            "{err}"
        );
        let err = parse_drafts(&[json!({"customType": "k"})]).unwrap_err();
        assert_eq!(err.to_string(), "entries[0]: a draft needs a \"type\"");
    }

    #[test]
    fn a_result_replaces_only_the_fields_it_has() {
        let r: BoundaryResult = serde_json::from_value(json!({"continue": true})).unwrap();
        assert_eq!(r.continue_, Some(true));
        assert_eq!(r.entries, None);
        let r: BoundaryResult = serde_json::from_value(json!({"entries": []})).unwrap();
        assert_eq!((r.entries, r.continue_), (Some(vec![]), None));
    }
}
