//! The entries a boundary proposal (pi 1.6's `turn_end` / `agent_before_settle` drafts)
//! turns into, checked against the branch before anything is appended, and the context the
//! branch would have with them (what handlers see as `event.context`). Pure: the session
//! appends what [`check`] accepted.

use std::collections::HashMap;

use rho_protocol::extension::boundary::{parse_drafts, BoundaryDraft, DraftError};
use rho_protocol::UserContent;
use rho_session::{
    build_context_for_path, CompactionData, EntryData, SessionContext, SessionEntry,
};
use serde_json::Value;

/// Turns a proposal into the entries it appends, in order, or says which draft cannot be
/// applied to `branch` (root→leaf) and why; `tokens_before` gives a compaction draft its
/// context size. Nothing is appended when any draft is refused.
pub(crate) fn check(
    entries: &[Value],
    branch: &[&SessionEntry],
    tokens_before: impl Fn() -> u64,
) -> Result<Vec<EntryData>, DraftError> {
    let drafts = parse_drafts(entries)?;
    let on_branch: HashMap<&str, &&SessionEntry> =
        branch.iter().map(|e| (e.id.as_str(), e)).collect();
    let find = |id: &str| on_branch.get(id).copied();
    drafts
        .into_iter()
        .enumerate()
        .map(|(index, draft)| entry_of(index, draft, &find, &tokens_before))
        .collect()
}

fn entry_of<'a>(
    index: usize,
    draft: BoundaryDraft,
    find: &impl Fn(&str) -> Option<&'a &'a SessionEntry>,
    tokens_before: &impl Fn() -> u64,
) -> Result<EntryData, DraftError> {
    let refuse = |reason: String| DraftError { index, reason };
    Ok(match draft {
        BoundaryDraft::Custom { custom_type, data } => EntryData::Custom {
            custom_type,
            data: data.map(Box::new),
        },
        BoundaryDraft::CustomMessage {
            custom_type,
            content,
            display,
            details,
        } => EntryData::CustomMessage {
            custom_type,
            content,
            display,
            details: details.map(Box::new),
        },
        BoundaryDraft::ContextEdit {
            target_id,
            replacement,
        } => {
            let target = find(&target_id)
                .ok_or_else(|| refuse(format!("Entry {target_id} is not on the active branch")))?;
            let role = editable_role(target).ok_or_else(|| {
                refuse(format!(
                    "Entry {target_id} does not contribute editable model content"
                ))
            })?;
            // pi stores an assistant's or tool result's text replacement as blocks.
            let replacement = replacement.map(|r| match (role, r.content) {
                ("assistant" | "toolResult", UserContent::Text(t)) => {
                    UserContent::Blocks(UserContent::Text(t).to_blocks())
                }
                (_, content) => content,
            });
            EntryData::ContextEdit {
                target_id,
                replacement,
            }
        }
        BoundaryDraft::Compaction {
            summary,
            first_kept_entry_id,
            details,
            usage,
        } => {
            // Without one it keeps nothing (pi's self-retaining compaction): the store names
            // the compaction itself when it writes it.
            let first_kept = first_kept_entry_id.unwrap_or_default();
            if !first_kept.is_empty() && find(&first_kept).is_none() {
                return Err(refuse(format!(
                    "Entry {first_kept} is not on the active branch"
                )));
            }
            EntryData::Compaction(Box::new(CompactionData {
                summary,
                first_kept_entry_id: first_kept,
                tokens_before: tokens_before(),
                details,
                usage,
                from_hook: Some(true),
                system_message: None,
            }))
        }
    })
}

/// The role whose content a `context_edit` may replace: a custom message's or a user,
/// assistant or tool-result message's.
fn editable_role(entry: &SessionEntry) -> Option<&'static str> {
    match &entry.data {
        EntryData::CustomMessage { .. } => Some("custom"),
        EntryData::Message(m) => match m.role() {
            role @ ("user" | "assistant" | "toolResult") => Some(role),
            _ => None,
        },
        _ => None,
    }
}

/// The context `branch` would have with `appended` after its leaf (entries not written).
pub(crate) fn preview(
    branch: &[&SessionEntry],
    appended: Vec<EntryData>,
    now: &str,
) -> SessionContext {
    let mut parent = branch.last().map(|e| e.id.clone());
    let drafts: Vec<SessionEntry> = appended
        .into_iter()
        .enumerate()
        .map(|(i, data)| {
            let id = format!("draft-{i}");
            SessionEntry {
                id: id.clone(),
                parent_id: parent.replace(id),
                timestamp: now.to_string(),
                data,
            }
        })
        .collect();
    let path: Vec<&SessionEntry> = branch.iter().copied().chain(drafts.iter()).collect();
    build_context_for_path(&path)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rho_protocol::agent::AgentMessage;
    use rho_protocol::{AssistantMessage, ContentBlock, TextContent, UserMessage};
    use serde_json::json;

    use super::*;

    fn entry(id: &str, parent: Option<&str>, data: EntryData) -> SessionEntry {
        SessionEntry {
            id: id.into(),
            parent_id: parent.map(str::to_string),
            timestamp: "2026-01-01T00:00:00.000Z".into(),
            data,
        }
    }

    fn message(m: AgentMessage) -> EntryData {
        EntryData::Message(Arc::new(m).into())
    }

    fn branch() -> Vec<SessionEntry> {
        let user = AgentMessage::User(UserMessage {
            content: UserContent::Text("question".into()),
            timestamp: 1,
        });
        let mut reply = AssistantMessage::empty("api", "provider", "model");
        reply.content = vec![ContentBlock::Text(TextContent {
            text: "wrong answer".into(),
            ..Default::default()
        })];
        vec![
            entry("u1", None, message(user)),
            entry("a1", Some("u1"), message(AgentMessage::Assistant(reply))),
            entry(
                "c1",
                Some("a1"),
                EntryData::Custom {
                    custom_type: "state".into(),
                    data: None,
                },
            ),
        ]
    }

    fn texts(ctx: &SessionContext) -> Vec<String> {
        ctx.to_llm()
            .iter()
            .map(|m| serde_json::to_value(m).unwrap()["content"].to_string())
            .collect()
    }

    #[test]
    fn a_context_edit_and_a_custom_message_change_the_preview() {
        let entries = branch();
        let path: Vec<&SessionEntry> = entries.iter().collect();
        let drafts = [
            json!({"type": "context_edit", "targetId": "a1", "replacement": null}),
            json!({"type": "custom_message", "customType": "k", "content": "answer again", "display": false}),
        ];
        let appended = check(&drafts, &path, || 0).unwrap();
        let ctx = preview(&path, appended, "2026-01-01T00:00:01.000Z");
        let texts = texts(&ctx);
        assert_eq!(texts.len(), 2, "{texts:?}");
        assert!(
            texts[0].contains("question") && texts[1].contains("answer again"),
            "{texts:?}"
        );
    }

    #[test]
    fn a_text_replacement_of_a_reply_becomes_blocks() {
        let entries = branch();
        let path: Vec<&SessionEntry> = entries.iter().collect();
        let drafts = [
            json!({"type": "context_edit", "targetId": "a1", "replacement": {"content": "fixed"}}),
        ];
        let appended = check(&drafts, &path, || 0).unwrap();
        let EntryData::ContextEdit {
            replacement: Some(UserContent::Blocks(blocks)),
            ..
        } = &appended[0]
        else {
            panic!("{appended:?}")
        };
        assert_eq!(blocks.len(), 1);
    }

    #[test]
    fn a_bad_draft_refuses_the_whole_proposal_with_its_reason() {
        let entries = branch();
        let path: Vec<&SessionEntry> = entries.iter().collect();
        let cases = [
            (
                json!({"type": "context_edit", "targetId": "nope", "replacement": null}),
                "entries[1]: Entry nope is not on the active branch",
            ),
            (
                json!({"type": "context_edit", "targetId": "c1", "replacement": null}),
                "entries[1]: Entry c1 does not contribute editable model content",
            ),
            (
                json!({"type": "label", "targetId": "a1"}),
                "entries[1]: draft type \"label\" is not allowed",
            ),
            (
                json!({"type": "compaction", "summary": "s", "firstKeptEntryId": "zz"}),
                "entries[1]: Entry zz is not on the active branch",
            ),
        ];
        for (bad, expected) in cases {
            let drafts = [json!({"type": "custom", "customType": "ok"}), bad];
            let err = check(&drafts, &path, || 0).unwrap_err().to_string();
            assert!(err.starts_with(expected), "{err}");
        }
    }

    #[test]
    fn a_compaction_draft_keeps_from_its_first_kept_entry() {
        let entries = branch();
        let path: Vec<&SessionEntry> = entries.iter().collect();
        let drafts =
            [json!({"type": "compaction", "summary": "earlier talk", "firstKeptEntryId": "a1"})];
        let appended = check(&drafts, &path, || 42).unwrap();
        let EntryData::Compaction(c) = &appended[0] else {
            panic!()
        };
        assert_eq!((c.tokens_before, c.from_hook), (42, Some(true)));
        let texts = texts(&preview(&path, appended, "2026-01-01T00:00:01.000Z"));
        assert_eq!(texts.len(), 2, "{texts:?}");
        assert!(
            texts[0].contains("earlier talk") && texts[1].contains("wrong answer"),
            "{texts:?}"
        );
    }

    /// pi's self-retaining compaction: without a first kept entry nothing before it is kept.
    #[test]
    fn a_compaction_draft_without_a_first_kept_entry_keeps_nothing_before_it() {
        let entries = branch();
        let path: Vec<&SessionEntry> = entries.iter().collect();
        let drafts =
            [json!({"type": "compaction", "summary": "all of it", "firstKeptEntryId": null})];
        let appended = check(&drafts, &path, || 7).unwrap();
        let texts = texts(&preview(&path, appended, "2026-01-01T00:00:01.000Z"));
        assert_eq!(texts.len(), 1, "{texts:?}");
        assert!(texts[0].contains("all of it"), "{texts:?}");
    }
}
