//! Decoding one JSONL line into a header or an entry.
//!
//! Entries decode through one flat struct holding every field any entry type has (pi's field names
//! never clash in type), so serde reads each line in a single pass without buffering, and the
//! required fields of each type are checked afterwards with a message naming what is missing.

use std::sync::Arc;

use rho_protocol::agent::AgentMessage;
use rho_protocol::{Usage, UserContent};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::entry::{CompactionData, EntryData, RawLine, SessionEntry, SessionHeader, UsageData};
use super::error::LineError;
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
    usage: Option<Usage>,
    system_message: Option<Box<AgentMessage>>,
    #[serde(default, deserialize_with = "present")]
    replacement: Option<Value>,
    kind: Option<String>,
    model: Option<String>,
    note: Option<String>,
}

/// `Some` whenever the key is there, `null` included (a context edit's `null` means "omit").
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// Entry types this version understands.
const KNOWN_TYPES: [&str; 11] = [
    "message",
    "thinking_level_change",
    "model_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
    "context_edit",
    "usage",
];

/// Parses line 1. `Err` says what the line is instead of a header.
pub(crate) fn decode_header(line: &str) -> Result<SessionHeader, LineError> {
    let value: Value = serde_json::from_str(line).map_err(LineError::HeaderNotJson)?;
    if value.get("type").and_then(Value::as_str) != Some("session") {
        return Err(LineError::NoSessionType);
    }
    if !value.get("id").is_some_and(Value::is_string) {
        return Err(LineError::HeaderWithoutId);
    }
    serde_json::from_value(value).map_err(LineError::InvalidHeader)
}

/// An entry as decoded, with what was tolerated on the way.
#[derive(Debug)]
pub(crate) struct Decoded {
    /// The entry.
    pub entry: SessionEntry,
    /// Set when the entry is kept verbatim instead of decoded (why, for a load warning).
    pub warning: Option<String>,
}

/// Parses an entry line. A JSON object with a string `type` and `id` always gives an entry:
/// one this version cannot use (unknown type or role, a field of an unexpected type) is kept
/// verbatim with a warning. `Err` is the reason the line is not an entry at all.
pub(crate) fn decode_entry(line: &str) -> Result<Decoded, LineError> {
    let reason = match serde_json::from_str::<RawEntry>(line) {
        Ok(raw) if is_known(&raw.entry_type) => match from_raw(raw) {
            Ok(entry) => return Ok(Decoded::clean(entry)),
            Err(Fallback::Slow) => match decode_message_slowly(line) {
                Ok(entry) => return Ok(Decoded::clean(entry)),
                Err(reason) => Some(reason),
            },
            Err(Fallback::Error(reason)) => Some(reason),
        },
        Ok(_) => None,
        Err(first) => Some(LineError::Json(first)),
    };
    keep_verbatim(line, reason)
}

impl Decoded {
    fn clean(entry: SessionEntry) -> Self {
        Self {
            entry,
            warning: None,
        }
    }
}

fn is_known(entry_type: &str) -> bool {
    KNOWN_TYPES.contains(&entry_type) || entry_type == "session"
}

/// Roles a stored message may have in this version.
const KNOWN_ROLES: [&str; 8] = [
    "system",
    "user",
    "assistant",
    "toolResult",
    "bashExecution",
    "custom",
    "branchSummary",
    "compactionSummary",
];

/// The slow path: keeps a line that is a JSON object with a string `type` and `id` as written.
/// `reason` is why the fast path declined it (`None`: an entry type this version lacks).
fn keep_verbatim(line: &str, reason: Option<LineError>) -> Result<Decoded, LineError> {
    let mut fields = match serde_json::from_str::<Value>(line) {
        Ok(Value::Object(fields)) => fields,
        // `reason` is `None` only for a line serde already read as an object.
        Ok(_) => {
            return Err(LineError::NotAnObject(Box::new(
                reason.unwrap_or(LineError::NoType),
            )))
        }
        Err(e) => {
            let reason = reason.unwrap_or(LineError::Json(e));
            return Err(LineError::NotAnObject(Box::new(reason)));
        }
    };
    let Some(Value::String(entry_type)) = fields.remove("type") else {
        return Err(LineError::NoType);
    };
    if entry_type == "session" {
        return Err(LineError::SecondHeader);
    }
    let (id, parent_id, timestamp) = take_common(&mut fields)?;
    let role = fields
        .get("message")
        .and_then(|m| m.get("role"))
        .and_then(Value::as_str);
    let why = match role {
        _ if !is_known(&entry_type) => format!("unknown entry type \"{entry_type}\""),
        Some(role) if entry_type == "message" && !KNOWN_ROLES.contains(&role) => {
            format!("unknown message role \"{role}\"")
        }
        _ => {
            let reason = reason.map(|r| r.to_string()).unwrap_or_default();
            format!("unexpected {entry_type} entry ({reason})")
        }
    };
    let raw = RawLine::new(line).map_err(LineError::Json)?;
    Ok(Decoded {
        entry: SessionEntry {
            id,
            parent_id,
            timestamp,
            data: EntryData::Unknown { entry_type, raw },
        },
        warning: Some(format!(
            "{why}: kept as written and left out of the context"
        )),
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

fn decode_message_slowly(line: &str) -> Result<SessionEntry, LineError> {
    let slow: SlowMessageEntry = serde_json::from_str(line).map_err(LineError::BadMessage)?;
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
    Error(LineError),
}

impl From<LineError> for Fallback {
    fn from(reason: LineError) -> Self {
        Fallback::Error(reason)
    }
}

type Common = (String, Option<String>, String);

fn take_common(fields: &mut Map<String, Value>) -> Result<Common, LineError> {
    let Some(Value::String(id)) = fields.remove("id") else {
        return Err(LineError::NoId);
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

fn need<T>(value: Option<T>, ty: &str, field: &'static str) -> Result<T, LineError> {
    value.ok_or_else(|| LineError::Missing {
        entry_type: ty.to_string(),
        field,
    })
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
        "compaction" => EntryData::Compaction(Box::new(CompactionData {
            summary: need(raw.summary, ty, "summary")?,
            first_kept_entry_id: need(raw.first_kept_entry_id, ty, "firstKeptEntryId")?,
            tokens_before: need(raw.tokens_before, ty, "tokensBefore")?,
            details: raw.details,
            usage: raw.usage,
            from_hook: raw.from_hook,
            system_message: raw.system_message.map(Arc::from),
        })),
        "branch_summary" => EntryData::BranchSummary {
            from_id: need(raw.from_id, ty, "fromId")?,
            summary: need(raw.summary, ty, "summary")?,
            details: raw.details.map(Box::new),
            usage: raw.usage.map(Box::new),
            from_hook: raw.from_hook,
        },
        "context_edit" => EntryData::ContextEdit {
            target_id: need(raw.target_id, ty, "targetId")?,
            replacement: replacement(need(raw.replacement, ty, "replacement")?)?,
        },
        "usage" => EntryData::Usage(Box::new(UsageData {
            kind: need(raw.kind, ty, "kind")?,
            provider: need(raw.provider, ty, "provider")?,
            model: need(raw.model, ty, "model")?,
            usage: need(raw.usage, ty, "usage")?,
            note: raw.note,
        })),
        "custom" => EntryData::Custom {
            custom_type: need(raw.custom_type, ty, "customType")?,
            data: raw.data.map(Box::new),
        },
        "custom_message" => EntryData::CustomMessage {
            custom_type: need(raw.custom_type, ty, "customType")?,
            content: need(raw.content, ty, "content")?,
            display: raw.display.unwrap_or(false),
            details: raw.details.map(Box::new),
        },
        "label" => EntryData::Label {
            target_id: need(raw.target_id, ty, "targetId")?,
            label: raw.label,
        },
        "session_info" => EntryData::SessionInfo { name: raw.name },
        _ => return Err(Fallback::Error(LineError::SecondHeader)),
    };
    let id = need(raw.id, ty, "id")?;
    Ok(SessionEntry {
        id,
        parent_id: raw.parent_id,
        timestamp: raw.timestamp.unwrap_or_default(),
        data,
    })
}

/// A context edit's `replacement`: `null`, or an object whose `content` is a string or blocks.
fn replacement(value: Value) -> Result<Option<UserContent>, LineError> {
    match value {
        Value::Null => Ok(None),
        Value::Object(mut o) => match o.remove("content").map(serde_json::from_value) {
            Some(Ok(content)) => Ok(Some(content)),
            _ => Err(LineError::ReplacementContent),
        },
        _ => Err(LineError::ReplacementShape),
    }
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
            r#"{"type":"message","id":"0000000b","parentId":"0000000a","timestamp":"t","message":{"role":"system","content":"","sections":{"preamble":"p","cwd":null},"toolsAdded":[{"name":"read","description":"d","parameters":{}}],"timestamp":1}}"#,
            r#"{"type":"context_edit","id":"0000000c","parentId":"0000000b","timestamp":"t","targetId":"a1b2c3d4","replacement":null}"#,
            r#"{"type":"context_edit","id":"0000000d","parentId":"0000000c","timestamp":"t","targetId":"a1b2c3d4","replacement":{"content":[{"type":"text","text":"x"}]}}"#,
            r#"{"type":"usage","id":"0000000e","parentId":"0000000d","timestamp":"t","kind":"cache_warm","provider":"anthropic","model":"m","usage":{"input":0,"output":0,"cacheRead":5,"cacheWrite":0,"totalTokens":5,"cost":{"input":0.0,"output":0.0,"cacheRead":0.5,"cacheWrite":0.0,"total":0.5}}}"#,
            r#"{"type":"compaction","id":"0000000f","parentId":"0000000e","timestamp":"t","summary":"s","firstKeptEntryId":"a1b2c3d4","tokensBefore":1,"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0.0,"output":0.0,"cacheRead":0.0,"cacheWrite":0.0,"total":0.0}},"systemMessage":{"role":"system","content":"c","toolsAdded":[],"timestamp":2}}"#,
        ];
        for line in lines {
            let decoded = decode_entry(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(decoded.warning, None, "{line}");
            assert_eq!(
                serde_json::to_string(&decoded.entry).expect("serializes"),
                line
            );
        }
    }

    /// What this version cannot use is kept as written (spacing included) with a warning.
    #[test]
    fn unusable_entries_are_kept_verbatim() {
        let cases = [
            (
                r#"{"type":"future_thing", "id":"0000000a","parentId":"00000009","timestamp":"t","content":1.50}"#,
                "unknown entry type \"future_thing\"",
            ),
            (
                r#"{"type":"message","id":"x","parentId":null,"timestamp":"t","message":{"role":"critic","content":"hm","timestamp":1}}"#,
                "unknown message role \"critic\"",
            ),
            (
                r#"{"type":"compaction","id":"x","parentId":null,"timestamp":"t","summary":"s","firstKeptEntryId":"a","tokensBefore":"many"}"#,
                "unexpected compaction entry (",
            ),
            (
                r#"{"type":"message","id":"x","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","thinkingLevel":5,"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1}}"#,
                "unexpected message entry (",
            ),
            (
                r#"{"type":"compaction","id":"x","parentId":null,"timestamp":"t","summary":"s","tokensBefore":1}"#,
                "unexpected compaction entry (compaction entry lacks \"firstKeptEntryId\")",
            ),
        ];
        for (line, why) in cases {
            let decoded = decode_entry(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            let warning = decoded.warning.expect("a warning");
            assert!(warning.starts_with(why), "{warning}");
            assert!(matches!(decoded.entry.data, EntryData::Unknown { .. }));
            assert_eq!(
                serde_json::to_string(&decoded.entry).expect("serializes"),
                line
            );
        }
    }

    #[test]
    fn what_is_not_an_entry_is_refused() {
        for line in [
            r#"{"type":"message","parentId":null}"#,
            r#"{"id":"x"}"#,
            r#"[1,2]"#,
            r#"{"type":"session","id":"x"}"#,
        ] {
            assert!(decode_entry(line).is_err(), "{line}");
        }
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
