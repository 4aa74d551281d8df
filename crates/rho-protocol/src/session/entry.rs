//! The session file's records: the header (line 1) and the entries that follow, with pi's exact
//! field names and key order (`type`, `id`, `parentId`, `timestamp`, then the type's fields).
//!
//! Serialization is hand-written so the key order matches pi and unset optional fields are left
//! out; decoding lives in `decode.rs`.

use std::sync::Arc;

use crate::agent::{AgentMessage, StoredMessage};
use crate::{Usage, UserContent};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

/// The session format version rho writes.
pub const CURRENT_VERSION: u32 = 3;

/// Line 1 of a session file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionHeader {
    /// Format version; absent means 1.
    #[serde(default = "version_one")]
    pub version: u32,
    /// The session id (a UUIDv7 for sessions rho creates).
    pub id: String,
    /// Creation time (ISO).
    #[serde(default)]
    pub timestamp: String,
    /// The working directory the session belongs to.
    #[serde(default)]
    pub cwd: String,
    /// Path of the session this one was forked or cloned from.
    #[serde(default)]
    pub parent_session: Option<String>,
}

fn version_one() -> u32 {
    1
}

impl Serialize for SessionHeader {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("type", "session")?;
        map.serialize_entry("version", &self.version)?;
        map.serialize_entry("id", &self.id)?;
        map.serialize_entry("timestamp", &self.timestamp)?;
        map.serialize_entry("cwd", &self.cwd)?;
        if let Some(p) = &self.parent_session {
            map.serialize_entry("parentSession", p)?;
        }
        map.end()
    }
}

/// One entry: the fields every entry has, plus what its type carries.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionEntry {
    /// 8 lowercase hex characters (or a full UUID), unique within the file.
    pub id: String,
    /// The parent in the entry tree; `None` for a root.
    pub parent_id: Option<String>,
    /// When the entry was written (ISO).
    pub timestamp: String,
    /// The type-specific part.
    pub data: EntryData,
}

/// The type-specific part of an entry (interfaces spec §4.3). Nearly every entry of a long
/// session is a `message`, so the rare large payloads (a compaction, summaries' usage, JSON
/// details) are boxed: an entry takes 144 bytes instead of 336, and a 50,000-entry session
/// 9 MB less memory.
#[derive(Debug, Clone, PartialEq)]
pub enum EntryData {
    /// `message`: a conversation message of any stored role. A cell shared with the agent's
    /// transcript (rebuilding the context copies nothing); once the line is on disk the
    /// decoded message is kept only while in use (see [`StoredMessage`]).
    Message(StoredMessage),
    /// `thinking_level_change`: the thinking level from here on.
    ThinkingLevelChange {
        /// `off`, `minimal`, `low`, `medium`, `high`, `xhigh` or `max` (kept as written).
        thinking_level: String,
    },
    /// `model_change`: the model from here on.
    ModelChange {
        /// Provider name.
        provider: String,
        /// Model id within the provider.
        model_id: String,
    },
    /// `compaction`: history before `first_kept_entry_id` is replaced by `summary`.
    Compaction(Box<CompactionData>),
    /// `branch_summary`: what an abandoned branch did, attached where the conversation returned.
    BranchSummary {
        /// The navigation target (or `"root"`).
        from_id: String,
        /// The summary text (empty → not in context).
        summary: String,
        /// Built-in: `{readFiles, modifiedFiles}`.
        details: Option<Box<Value>>,
        /// pi 1.x: usage of generating the summary (counted in session totals).
        usage: Option<Box<Usage>>,
        /// True when an extension produced it.
        from_hook: Option<bool>,
    },
    /// `context_edit` (pi 1.x): from here on the branch, the model sees `target_id` with other
    /// content, or (with `None`) not at all. The target entry itself is never changed.
    ContextEdit {
        /// The edited entry.
        target_id: String,
        /// The replacement content; `None` (`"replacement": null`) omits the target.
        replacement: Option<UserContent>,
    },
    /// `usage` (pi 1.x): model usage outside an assistant message (e.g. cache warming); counted
    /// in session totals, never in context or the conversation.
    Usage(Box<UsageData>),
    /// `custom`: extension state, never in context.
    Custom {
        /// The extension's type tag.
        custom_type: String,
        /// Its data.
        data: Option<Box<Value>>,
    },
    /// `custom_message`: an extension message that is in context.
    CustomMessage {
        /// The extension's type tag.
        custom_type: String,
        /// What the model sees.
        content: UserContent,
        /// Whether UIs show it.
        display: bool,
        /// Extension data, never sent.
        details: Option<Box<Value>>,
    },
    /// `label`: sets (or with `None` clears) the label of `target_id`.
    Label {
        /// The labelled entry.
        target_id: String,
        /// The label; `None` clears it.
        label: Option<String>,
    },
    /// `session_info`: the session's display name (`None` clears it).
    SessionInfo {
        /// The trimmed name.
        name: Option<String>,
    },
    /// An entry this version cannot use (an unknown type, an unknown message role, or a field
    /// of an unexpected type): kept as the exact line read, written back byte for byte, and
    /// never in context.
    Unknown {
        /// Its `type`.
        entry_type: String,
        /// The whole line as read.
        raw: RawLine,
    },
}

/// A line kept exactly as read (valid JSON), written back byte for byte.
#[derive(Debug, Clone)]
pub struct RawLine(Box<RawValue>);

impl RawLine {
    /// Keeps `line` (which must be valid JSON).
    pub fn new(line: &str) -> Result<Self, serde_json::Error> {
        RawValue::from_string(line.to_string()).map(Self)
    }

    /// The line's text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// The line as a JSON value, for readers that want its fields.
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.get()).unwrap_or(Value::Null)
    }
}

impl PartialEq for RawLine {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl Serialize for RawLine {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// The fields of a `usage` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageData {
    /// What the usage was for (`cache_warm`, …; any string).
    pub kind: String,
    /// Provider name.
    pub provider: String,
    /// Model id.
    pub model: String,
    /// Tokens and cost.
    pub usage: Usage,
    /// Optional free text.
    pub note: Option<String>,
}

/// The fields of a `compaction` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionData {
    /// The summary that replaces the dropped history.
    pub summary: String,
    /// The first entry kept after the summary.
    pub first_kept_entry_id: String,
    /// Context tokens before compaction.
    pub tokens_before: u64,
    /// Extension/built-in data.
    pub details: Option<Value>,
    /// pi 1.x: usage of generating the summary (counted in session totals).
    pub usage: Option<Usage>,
    /// True when an extension produced it.
    pub from_hook: Option<bool>,
    /// pi 1.x: the `system` message replaying the prompt and tools at the compaction boundary
    /// (the context's first message after the compaction; the model gets its replay).
    pub system_message: Option<Arc<AgentMessage>>,
}

impl EntryData {
    /// The `type` string written for this entry.
    pub fn type_name(&self) -> &str {
        match self {
            EntryData::Message(_) => "message",
            EntryData::ThinkingLevelChange { .. } => "thinking_level_change",
            EntryData::ModelChange { .. } => "model_change",
            EntryData::Compaction(_) => "compaction",
            EntryData::BranchSummary { .. } => "branch_summary",
            EntryData::ContextEdit { .. } => "context_edit",
            EntryData::Usage(_) => "usage",
            EntryData::Custom { .. } => "custom",
            EntryData::CustomMessage { .. } => "custom_message",
            EntryData::Label { .. } => "label",
            EntryData::SessionInfo { .. } => "session_info",
            EntryData::Unknown { entry_type, .. } => entry_type,
        }
    }

    /// Writes the type's own fields, in pi's order, leaving out unset optionals.
    fn serialize_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        match self {
            EntryData::Message(m) => map.serialize_entry("message", m)?,
            EntryData::ThinkingLevelChange { thinking_level } => {
                map.serialize_entry("thinkingLevel", thinking_level)?
            }
            EntryData::ModelChange { provider, model_id } => {
                map.serialize_entry("provider", provider)?;
                map.serialize_entry("modelId", model_id)?;
            }
            EntryData::Compaction(c) => {
                map.serialize_entry("summary", &c.summary)?;
                map.serialize_entry("firstKeptEntryId", &c.first_kept_entry_id)?;
                map.serialize_entry("tokensBefore", &c.tokens_before)?;
                opt(map, "details", &c.details)?;
                opt(map, "usage", &c.usage)?;
                opt(map, "fromHook", &c.from_hook)?;
                opt(map, "systemMessage", &c.system_message.as_deref())?;
            }
            EntryData::BranchSummary {
                from_id,
                summary,
                details,
                usage,
                from_hook,
            } => {
                map.serialize_entry("fromId", from_id)?;
                map.serialize_entry("summary", summary)?;
                opt(map, "details", details)?;
                opt(map, "usage", usage)?;
                opt(map, "fromHook", from_hook)?;
            }
            EntryData::ContextEdit {
                target_id,
                replacement,
            } => {
                map.serialize_entry("targetId", target_id)?;
                map.serialize_entry("replacement", &replacement.as_ref().map(Replacement))?;
            }
            EntryData::Usage(u) => {
                map.serialize_entry("kind", &u.kind)?;
                map.serialize_entry("provider", &u.provider)?;
                map.serialize_entry("model", &u.model)?;
                map.serialize_entry("usage", &u.usage)?;
                opt(map, "note", &u.note)?;
            }
            EntryData::Custom { custom_type, data } => {
                map.serialize_entry("customType", custom_type)?;
                opt(map, "data", data)?;
            }
            EntryData::CustomMessage {
                custom_type,
                content,
                display,
                details,
            } => {
                map.serialize_entry("customType", custom_type)?;
                map.serialize_entry("content", content)?;
                map.serialize_entry("display", display)?;
                opt(map, "details", details)?;
            }
            EntryData::Label { target_id, label } => {
                map.serialize_entry("targetId", target_id)?;
                opt(map, "label", label)?;
            }
            EntryData::SessionInfo { name } => opt(map, "name", name)?,
            EntryData::Unknown { .. } => unreachable!("unknown entries are written verbatim"),
        }
        Ok(())
    }
}

/// A context edit's `replacement` object: `{"content": …}`.
struct Replacement<'a>(&'a UserContent);

impl Serialize for Replacement<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry("content", self.0)?;
        map.end()
    }
}

fn opt<M: SerializeMap, T: Serialize>(
    map: &mut M,
    key: &'static str,
    value: &Option<T>,
) -> Result<(), M::Error> {
    match value {
        Some(v) => map.serialize_entry(key, v),
        None => Ok(()),
    }
}

impl Serialize for SessionEntry {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if let EntryData::Unknown { raw, .. } = &self.data {
            return raw.serialize(s);
        }
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("type", self.data.type_name())?;
        map.serialize_entry("id", &self.id)?;
        map.serialize_entry("parentId", &self.parent_id)?;
        map.serialize_entry("timestamp", &self.timestamp)?;
        self.data.serialize_fields(&mut map)?;
        map.end()
    }
}

impl SessionEntry {
    /// The message of a `message` entry, decoded (read back from the session file if it was
    /// released; `None` also when that fails: callers that must not skip it use
    /// [`Self::stored_message`]).
    pub fn message(&self) -> Option<Arc<AgentMessage>> {
        self.stored_message().and_then(|m| m.get().ok())
    }

    /// The cell of a `message` entry (nothing decoded).
    pub fn stored_message(&self) -> Option<&StoredMessage> {
        match &self.data {
            EntryData::Message(m) => Some(m),
            _ => None,
        }
    }

    /// The role of a `message` entry's message (known without decoding it).
    pub fn message_role(&self) -> Option<&'static str> {
        self.stored_message().map(StoredMessage::role)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A large payload added inline to any variant would grow every entry of every session.
    #[test]
    fn an_entry_stays_small() {
        assert!(std::mem::size_of::<EntryData>() <= 72);
        assert!(std::mem::size_of::<SessionEntry>() <= 144);
    }
}
