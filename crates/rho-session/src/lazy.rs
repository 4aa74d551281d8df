//! Message entries loaded without decoding their message.
//!
//! Opening a long session must not cost what decoding every message costs (in time, and in
//! memory: the decoded conversation is about twice the file). `get_state` needs none of it, and
//! a prompt needs only the current branch. So a `message` line whose message is of a bulk role
//! (`user`, `assistant`, `toolResult`) is read only as far as its envelope (`type`, `id`,
//! `parentId`, `timestamp`) and the message's `role`; the entry's [`StoredMessage`] records
//! where the message's JSON is, and it is decoded when first needed. Messages of the other roles
//! (system prompts, bash runs, summaries: few and small) are decoded at once, as before.
//!
//! What this changes: a bulk-role message whose body is malformed (a field of the wrong type)
//! is no longer found at open (where it was kept verbatim with a warning) but when it is
//! needed: the prompt that would send it fails with an error naming the file and the byte
//! offset, and `get_messages` sends it as stored. An unknown role, a bad envelope, or any
//! other entry type are found at open exactly as before.

use std::sync::Arc;

use rho_protocol::agent::{stored_role, AgentMessage, MessageFile, Origin, StoredMessage};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::decode::{decode_entry, Decoded};
use super::disk_message::lazy_role;
use super::entry::{EntryData, SessionEntry};
use super::error::LineError;
use super::fast_message::RawMessage;

/// A message entry's envelope; the message itself is only delimited.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Envelope<'a> {
    id: Option<String>,
    parent_id: Option<String>,
    timestamp: Option<String>,
    #[serde(borrow)]
    message: Option<&'a RawValue>,
}

/// Decodes the entry `line`, which starts at byte `at` of `file`: a bulk-role message is left
/// on disk (see the module docs), everything else is decoded by [`decode_entry`].
pub(crate) fn decode_entry_at(
    line: &str,
    at: u64,
    file: &Arc<MessageFile>,
) -> Result<Decoded, LineError> {
    if !line.starts_with(r#"{"type":"message","#) {
        return decode_entry(line);
    }
    let Ok(Envelope {
        id: Some(id),
        parent_id,
        timestamp,
        message: Some(raw),
    }) = serde_json::from_str::<Envelope>(line)
    else {
        return decode_entry(line);
    };
    let json = raw.get();
    let start = json.as_ptr() as usize - line.as_ptr() as usize;
    let origin = Origin::new(Arc::clone(file), at + start as u64, json.as_bytes());
    let Some(role) = role_left_on_disk(json) else {
        let decoded = decode_entry(line)?;
        if let EntryData::Message(m) = &decoded.entry.data {
            m.set_origin(origin);
        }
        return Ok(decoded);
    };
    Ok(Decoded {
        entry: SessionEntry {
            id,
            parent_id,
            timestamp: timestamp.unwrap_or_default(),
            data: EntryData::Message(StoredMessage::on_disk(origin, role)),
        },
        warning: None,
    })
}

/// The message's role when it is one left on disk.
fn role_left_on_disk(json: &str) -> Option<&'static str> {
    lazy_role(&stored_role(json).ok()?)
}

/// Where the message's JSON is in a `message` entry line rho serialized: `(offset, length)`.
/// rho writes `message` as the last key, after the envelope's strings, so it is found without
/// parsing the line again: the first `,"message":` is that key (a quote inside a string value
/// is escaped) and the message ends before the line's closing brace.
pub(crate) fn message_span(line: &[u8]) -> Option<(u64, u64)> {
    const KEY: &[u8] = br#","message":"#;
    let start = line.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    let end = line.len().checked_sub(1).filter(|&end| line[end] == b'}')?;
    let len = end.checked_sub(start).filter(|&len| len > 0)?;
    Some((start as u64, len as u64))
}

/// Records that `message`, serialized in `line`, is on disk in `file` with the line at `at`.
pub(crate) fn set_origin(message: &StoredMessage, line: &[u8], file: &Arc<MessageFile>, at: u64) {
    if let Some((start, len)) = message_span(line) {
        let json = &line[start as usize..(start + len) as usize];
        message.set_origin(Origin::new(Arc::clone(file), at + start, json));
    }
}

/// Decodes a stored message's JSON (read back from the file): the single-pass decoder, with
/// serde's own decoding as the authority when it declines.
pub(crate) fn decode_message(json: &str) -> Result<AgentMessage, serde_json::Error> {
    if let Some(m) = serde_json::from_str::<RawMessage>(json)
        .ok()
        .and_then(RawMessage::into_message)
    {
        return Ok(m);
    }
    serde_json::from_str::<AgentMessage>(json)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The span found without parsing is the `message` value a parser finds, also when the
    /// message itself has `message` keys and strings quoting one.
    #[test]
    fn the_message_span_of_a_written_line_is_the_parsed_message() {
        let message = serde_json::json!({
            "role": "user",
            "content": [{"type": "text", "text": "a \",\"message\": inside"}],
            "message": {"message": 1},
            "timestamp": 3,
        });
        let entry = SessionEntry {
            id: "ab12cd34".into(),
            parent_id: Some("message\":".into()),
            timestamp: "2026-12-03T00:00:00.000Z".into(),
            data: EntryData::Message(StoredMessage::new(Arc::new(
                serde_json::from_value(message).unwrap_or_else(|e| panic!("{e}")),
            ))),
        };
        let line = serde_json::to_vec(&entry).unwrap_or_else(|e| panic!("{e}"));
        let (start, len) = message_span(&line).unwrap_or_else(|| panic!("no span"));
        let span = &line[start as usize..(start + len) as usize];
        #[derive(Deserialize)]
        struct Line<'a> {
            #[serde(borrow)]
            message: &'a RawValue,
        }
        let text = std::str::from_utf8(&line).unwrap_or_else(|e| panic!("{e}"));
        let parsed: Line = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(std::str::from_utf8(span).ok(), Some(parsed.message.get()));
    }

    #[test]
    fn the_role_is_read_from_the_first_key_or_found_by_scanning() {
        assert_eq!(
            role_left_on_disk(r#"{"role":"assistant","content":[]}"#),
            Some("assistant")
        );
        assert_eq!(
            role_left_on_disk(r#"{"content":[],"role":"toolResult"}"#),
            Some("toolResult")
        );
        assert_eq!(role_left_on_disk(r#"{"role":"bashExecution"}"#), None);
        assert_eq!(role_left_on_disk(r#"{"content":[]}"#), None);
    }
}
