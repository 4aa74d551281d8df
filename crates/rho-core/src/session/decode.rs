//! Decoding one JSONL line into a header or an entry.
//!
//! Entries decode through one flat struct holding every field any entry type has (pi's field names
//! never clash in type), so serde reads each line in a single pass without buffering, and the
//! required fields of each type are checked afterwards with a message naming what is missing.

use rho_agent::AgentMessage;
use rho_ai::UserContent;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::entry::{CompactionData, EntryData, SessionEntry, SessionHeader};
use super::fast_message::RawMessage;

/// Every field of every entry type, all optional.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawEntry {
    #[serde(rename = "type")]
    entry_type: String,
    id: Option<String>,
    parent_id: Option<String>,
    timestamp: Option<String>,
    message: Option<RawMessage>,
    thinking_level: Option<String>,
    provider: Option<String>,
    model_id: Option<String>,
    summary: Option<String>,
    first_kept_entry_id: Option<String>,
    tokens_before: Option<u64>,
    details: Option<Value>,
    from_hook: Option<bool>,
    from_id: Option<String>,
    custom_type: Option<String>,
    data: Option<Value>,
    content: Option<UserContent>,
    display: Option<bool>,
    target_id: Option<String>,
    label: Option<String>,
    name: Option<String>,
}

/// Entry types this version understands.
const KNOWN_TYPES: [&str; 9] = [
    "message",
    "thinking_level_change",
    "model_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
];

/// Parses line 1. `Err` says what the line is instead of a header.
pub(crate) fn decode_header(line: &str) -> Result<SessionHeader, String> {
    let value: Value = serde_json::from_str(line).map_err(|e| format!("is not JSON ({e})"))?;
    if value.get("type").and_then(Value::as_str) != Some("session") {
        return Err("has no \"type\":\"session\"".into());
    }
    if !value.get("id").is_some_and(Value::is_string) {
        return Err("has no string \"id\"".into());
    }
    serde_json::from_value(value).map_err(|e| format!("is not a valid header ({e})"))
}

/// Parses an entry line. `Err` is the reason it is not a valid entry.
pub(crate) fn decode_entry(line: &str) -> Result<SessionEntry, String> {
    match serde_json::from_str::<RawEntry>(line) {
        Ok(raw) if is_known(&raw.entry_type) => from_raw(raw).or_else(|e| match e {
            Fallback::Slow => decode_message_slowly(line),
            Fallback::Error(reason) => Err(reason),
        }),
        Ok(_) => decode_unknown(line, String::new()),
        Err(first) => decode_unknown(line, first.to_string()),
    }
}

fn is_known(entry_type: &str) -> bool {
    KNOWN_TYPES.contains(&entry_type) || entry_type == "session"
}

/// The slow path: a line the flat struct rejects is fine only if its type is one we do not know.
fn decode_unknown(line: &str, first: String) -> Result<SessionEntry, String> {
    let Ok(Value::Object(mut fields)) = serde_json::from_str::<Value>(line) else {
        return Err(format!("not a JSON object: {first}"));
    };
    let Some(Value::String(entry_type)) = fields.remove("type") else {
        return Err("no string \"type\"".into());
    };
    if is_known(&entry_type) {
        return Err(format!("bad {entry_type} entry: {first}"));
    }
    let base = take_common(&mut fields)?;
    Ok(SessionEntry {
        id: base.0,
        parent_id: base.1,
        timestamp: base.2,
        data: EntryData::Unknown { entry_type, fields },
    })
}

/// A `message` entry decoded by serde's own `AgentMessage` impl: the authority whenever the
/// single-pass decoder declines a message.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SlowMessageEntry {
    id: String,
    parent_id: Option<String>,
    timestamp: Option<String>,
    message: AgentMessage,
}

fn decode_message_slowly(line: &str) -> Result<SessionEntry, String> {
    let slow: SlowMessageEntry =
        serde_json::from_str(line).map_err(|e| format!("bad message entry: {e}"))?;
    Ok(SessionEntry {
        id: slow.id,
        parent_id: slow.parent_id,
        timestamp: slow.timestamp.unwrap_or_default(),
        data: EntryData::Message(slow.message.into()),
    })
}

/// Why [`from_raw`] gave up.
enum Fallback {
    /// The message needs serde's decoding (to accept it or to word the error).
    Slow,
    /// The entry is invalid.
    Error(String),
}

impl From<String> for Fallback {
    fn from(reason: String) -> Self {
        Fallback::Error(reason)
    }
}

type Common = (String, Option<String>, String);

fn take_common(fields: &mut Map<String, Value>) -> Result<Common, String> {
    let Some(Value::String(id)) = fields.remove("id") else {
        return Err("entry has no string \"id\"".into());
    };
    let parent_id = match fields.remove("parentId") {
        Some(Value::String(p)) => Some(p),
        _ => None,
    };
    let timestamp = match fields.remove("timestamp") {
        Some(Value::String(t)) => t,
        _ => String::new(),
    };
    Ok((id, parent_id, timestamp))
}

fn need<T>(value: Option<T>, ty: &str, field: &str) -> Result<T, String> {
    value.ok_or_else(|| format!("{ty} entry lacks \"{field}\""))
}

fn from_raw(raw: RawEntry) -> Result<SessionEntry, Fallback> {
    let ty = raw.entry_type.as_str();
    let data = match ty {
        "message" => {
            let message = need(raw.message, ty, "message")?;
            EntryData::Message(message.into_message().ok_or(Fallback::Slow)?.into())
        }
        "thinking_level_change" => EntryData::ThinkingLevelChange {
            thinking_level: need(raw.thinking_level, ty, "thinkingLevel")?,
        },
        "model_change" => EntryData::ModelChange {
            provider: need(raw.provider, ty, "provider")?,
            model_id: need(raw.model_id, ty, "modelId")?,
        },
        "compaction" => EntryData::Compaction(CompactionData {
            summary: need(raw.summary, ty, "summary")?,
            first_kept_entry_id: need(raw.first_kept_entry_id, ty, "firstKeptEntryId")?,
            tokens_before: need(raw.tokens_before, ty, "tokensBefore")?,
            details: raw.details,
            from_hook: raw.from_hook,
        }),
        "branch_summary" => EntryData::BranchSummary {
            from_id: need(raw.from_id, ty, "fromId")?,
            summary: need(raw.summary, ty, "summary")?,
            details: raw.details,
            from_hook: raw.from_hook,
        },
        "custom" => EntryData::Custom {
            custom_type: need(raw.custom_type, ty, "customType")?,
            data: raw.data,
        },
        "custom_message" => EntryData::CustomMessage {
            custom_type: need(raw.custom_type, ty, "customType")?,
            content: need(raw.content, ty, "content")?,
            display: raw.display.unwrap_or(false),
            details: raw.details,
        },
        "label" => EntryData::Label {
            target_id: need(raw.target_id, ty, "targetId")?,
            label: raw.label,
        },
        "session_info" => EntryData::SessionInfo { name: raw.name },
        _ => return Err(Fallback::Error("a second session header".into())),
    };
    let id = need(raw.id, ty, "id")?;
    Ok(SessionEntry {
        id,
        parent_id: raw.parent_id,
        timestamp: raw.timestamp.unwrap_or_default(),
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_round_trips_byte_for_byte() {
        let lines = [
            r#"{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2025-03-01T09:15:02.481Z","message":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1740820502481}}"#,
            r#"{"type":"thinking_level_change","id":"00000001","parentId":"a1b2c3d4","timestamp":"t","thinkingLevel":"high"}"#,
            r#"{"type":"model_change","id":"00000002","parentId":"00000001","timestamp":"t","provider":"openai","modelId":"gpt-5"}"#,
            r#"{"type":"compaction","id":"00000003","parentId":"00000002","timestamp":"t","summary":"s","firstKeptEntryId":"a1b2c3d4","tokensBefore":1234,"details":{"x":1},"fromHook":true}"#,
            r#"{"type":"branch_summary","id":"00000004","parentId":"00000003","timestamp":"t","fromId":"00000003","summary":"b"}"#,
            r#"{"type":"custom","id":"00000005","parentId":"00000004","timestamp":"t","customType":"ext","data":[1,2]}"#,
            r#"{"type":"custom_message","id":"00000006","parentId":"00000005","timestamp":"t","customType":"ext","content":"hello","display":true}"#,
            r#"{"type":"label","id":"00000007","parentId":"00000006","timestamp":"t","targetId":"a1b2c3d4","label":"start"}"#,
            r#"{"type":"label","id":"00000008","parentId":"00000007","timestamp":"t","targetId":"a1b2c3d4"}"#,
            r#"{"type":"session_info","id":"00000009","parentId":"00000008","timestamp":"t","name":"My run"}"#,
            r#"{"type":"future_thing","id":"0000000a","parentId":"00000009","timestamp":"t","content":42}"#,
        ];
        for line in lines {
            let entry = decode_entry(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(serde_json::to_string(&entry).expect("serializes"), line);
        }
    }

    #[test]
    fn missing_required_field_is_named() {
        let err = decode_entry(r#"{"type":"compaction","id":"x","parentId":null,"timestamp":"t","summary":"s","tokensBefore":1}"#)
            .expect_err("must fail");
        assert_eq!(err, "compaction entry lacks \"firstKeptEntryId\"");
        let err = decode_entry(
            r#"{"type":"message","id":"x","parentId":null,"message":{"role":"user"}}"#,
        )
        .expect_err("must fail");
        assert!(err.starts_with("bad message entry"), "{err}");
    }

    #[test]
    fn header_checks() {
        let h = decode_header(r#"{"type":"session","id":"abc","timestamp":"t","cwd":"/x"}"#)
            .expect("header");
        assert_eq!(h.version, 1);
        assert!(decode_header(r#"{"type":"message","id":"abc"}"#).is_err());
        assert!(decode_header(r#"{"type":"session","id":5}"#).is_err());
        assert!(decode_header("hello").is_err());
        let line = r#"{"type":"session","version":3,"id":"abc","timestamp":"t","cwd":"/x","parentSession":"/p.jsonl"}"#;
        let h = decode_header(line).expect("header");
        assert_eq!(serde_json::to_string(&h).expect("serializes"), line);
    }
}
