//! The session file's records: the header (line 1) and the entries that follow, with pi's exact
//! field names and key order (`type`, `id`, `parentId`, `timestamp`, then the type's fields).
//!
//! Serialization is hand-written so the key order matches pi and unset optional fields are left
//! out; decoding lives in `decode.rs`.

use std::sync::Arc;

use rho_agent::AgentMessage;
use rho_ai::UserContent;
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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

/// The type-specific part of an entry (interfaces spec §4.3).
#[derive(Debug, Clone, PartialEq)]
pub enum EntryData {
    /// `message`: a conversation message of any stored role. Shared (like pi's message objects)
    /// so rebuilding the context does not copy the conversation.
    Message(Arc<AgentMessage>),
    /// `thinking_level_change`: the thinking level from here on.
    ThinkingLevelChange {
        /// `off`, `minimal`, `low`, `medium`, `high` or `xhigh` (kept as written).
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
    Compaction(CompactionData),
    /// `branch_summary`: what an abandoned branch did, attached where the conversation returned.
    BranchSummary {
        /// The navigation target (or `"root"`).
        from_id: String,
        /// The summary text (empty → not in context).
        summary: String,
        /// Built-in: `{readFiles, modifiedFiles}`.
        details: Option<Value>,
        /// True when an extension produced it.
        from_hook: Option<bool>,
    },
    /// `custom`: extension state, never in context.
    Custom {
        /// The extension's type tag.
        custom_type: String,
        /// Its data.
        data: Option<Value>,
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
        details: Option<Value>,
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
    /// An entry type this version does not know: kept (fields included) and never in context.
    Unknown {
        /// Its `type`.
        entry_type: String,
        /// Its fields other than the common ones.
        fields: Map<String, Value>,
    },
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
    /// True when an extension produced it.
    pub from_hook: Option<bool>,
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
            EntryData::Message(m) => map.serialize_entry("message", &**m)?,
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
                opt(map, "fromHook", &c.from_hook)?;
            }
            EntryData::BranchSummary {
                from_id,
                summary,
                details,
                from_hook,
            } => {
                map.serialize_entry("fromId", from_id)?;
                map.serialize_entry("summary", summary)?;
                opt(map, "details", details)?;
                opt(map, "fromHook", from_hook)?;
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
            EntryData::Unknown { fields, .. } => {
                for (k, v) in fields {
                    map.serialize_entry(k, v)?;
                }
            }
        }
        Ok(())
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
    /// The stored message, for `message` entries.
    pub fn message(&self) -> Option<&AgentMessage> {
        match &self.data {
            EntryData::Message(m) => Some(m),
            _ => None,
        }
    }
}
