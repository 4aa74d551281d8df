//! The JSON Schema of the RPC protocol (feature `schema`), generated from the types in
//! [`crate::rpc`] and the message types they carry, for client authors: the committed
//! `docs/rpc.schema.json` is this output, and a test keeps it current.
//!
//! The root describes one stdin record (a command, or the answer to an extension dialog);
//! `$defs` holds every shape rho writes back: the response envelope, each command's `data`,
//! extension UI requests, messages, session entries, and the event lines of each dialect
//! (`EventPi1`, `EventPi073`), generated from the event types and pi 1.x's own shapes.

use std::borrow::Cow;

use crate::{Usage, UserContent};
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde_json::{json, Map, Value};

use crate::agent::{AgentEvent, AgentEventKind, AgentMessage};
use crate::rpc::{self, Command};
use crate::session::pi1::Pi1Event;
use crate::session::{SessionEntry, SessionEventKind, SessionOnlyEvent};

/// A command record: the command plus the optional `id` its response echoes.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct CommandRecord {
    /// Echoed in the response (any JSON value; a string by convention).
    id: Option<Value>,
    #[schemars(flatten)]
    command: Command,
}

/// The answer to an `extension_ui_request`: its `id` plus one of `value` (select, input,
/// editor), `confirmed` (confirm) or `cancelled: true`.
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase")]
#[allow(dead_code)]
struct ExtensionUiResponse {
    /// Always `extension_ui_response`.
    #[schemars(rename = "type")]
    kind: ExtensionUiResponseTag,
    /// The `id` of the request being answered.
    id: String,
    value: Option<String>,
    confirmed: Option<bool>,
    cancelled: Option<bool>,
}

#[derive(JsonSchema)]
#[schemars(rename_all = "snake_case")]
#[allow(dead_code)]
enum ExtensionUiResponseTag {
    ExtensionUiResponse,
}

/// Entries are encoded by hand (pi's field order, unknown kinds kept verbatim), so their
/// schema is written here, one variant per kind of [`crate::session::EntryData`] with the
/// fields its encoder writes (pi 1.6's docs/session-format.md); the `rpc_schema` test checks
/// an entry of every kind against it.
impl JsonSchema for SessionEntry {
    fn schema_name() -> Cow<'static, str> {
        "SessionEntry".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let message = generator.subschema_for::<AgentMessage>().to_value();
        let usage = generator.subschema_for::<Usage>().to_value();
        let content = generator.subschema_for::<UserContent>().to_value();
        let string = json!({"type": "string"});
        let any = json!({});
        let kinds: Vec<EntryKind> = vec![
            ("message", "A conversation message of any stored role.",
                vec![("message", message.clone(), true)]),
            ("thinking_level_change", "The thinking level from here on.",
                vec![("thinkingLevel", string.clone(), true)]),
            ("model_change", "The model from here on.",
                vec![("provider", string.clone(), true), ("modelId", string.clone(), true)]),
            ("compaction", "History before `firstKeptEntryId` is replaced by `summary`.", vec![
                ("summary", string.clone(), true),
                ("firstKeptEntryId", string.clone(), true),
                ("tokensBefore", json!({"type": "integer", "minimum": 0}), true),
                ("details", any.clone(), false),
                ("usage", usage.clone(), false),
                ("fromHook", json!({"type": "boolean"}), false),
                ("systemMessage", message.clone(), false),
            ]),
            ("branch_summary", "What an abandoned branch did, attached where the conversation returned.", vec![
                ("fromId", string.clone(), true),
                ("summary", string.clone(), true),
                ("details", any.clone(), false),
                ("usage", usage.clone(), false),
                ("fromHook", json!({"type": "boolean"}), false),
            ]),
            ("context_edit", "pi 1.x: from here on the model sees `targetId` with other content, or (`null`) not at all.", vec![
                ("targetId", string.clone(), true),
                ("replacement", json!({"anyOf": [
                    {"type": "object", "properties": {"content": content.clone()},
                        "required": ["content"], "additionalProperties": false},
                    {"type": "null"}
                ]}), true),
            ]),
            ("usage", "pi 1.x: model usage outside an assistant message (e.g. cache warming).", vec![
                ("kind", string.clone(), true),
                ("provider", string.clone(), true),
                ("model", string.clone(), true),
                ("usage", usage.clone(), true),
                ("note", string.clone(), false),
            ]),
            ("custom", "Extension state, never in context.",
                vec![("customType", string.clone(), true), ("data", any.clone(), false)]),
            ("custom_message", "An extension message that is in context.", vec![
                ("customType", string.clone(), true),
                ("content", content.clone(), true),
                ("display", json!({"type": "boolean"}), true),
                ("details", any.clone(), false),
            ]),
            ("label", "Sets (or without `label` clears) the label of `targetId`.",
                vec![("targetId", string.clone(), true), ("label", string.clone(), false)]),
            ("session_info", "The session's display name (absent: cleared).",
                vec![("name", string.clone(), false)]),
        ];
        let known: Vec<&str> = kinds.iter().map(|(kind, ..)| *kind).collect();
        let mut variants: Vec<Value> = kinds
            .into_iter()
            .map(|(kind, description, fields)| entry_variant(kind, description, fields))
            .collect();
        variants.push(json!({
            "description": "An entry of a kind this version does not know, as it was read.",
            "type": "object",
            "required": ["type"],
            "properties": {"type": {"type": "string", "not": {"enum": known}}}
        }));
        json_schema!({
            "description": "One session file entry (pi's session-format.md): `type`, `id`, `parentId`, `timestamp`, then the kind's own fields.",
            "anyOf": variants
        })
    }
}

/// A field of an entry kind: its name, its schema, whether it is required.
type EntryField = (&'static str, Value, bool);

/// An entry kind: its `type`, a description, its own fields.
type EntryKind = (&'static str, &'static str, Vec<EntryField>);

/// One kind of session entry: the common fields, then `fields` (name, schema, required).
fn entry_variant(kind: &str, description: &str, fields: Vec<EntryField>) -> Value {
    let mut properties = Map::new();
    properties.insert("type".into(), json!({"const": kind}));
    properties.insert("id".into(), json!({"type": "string"}));
    properties.insert("parentId".into(), json!({"type": ["string", "null"]}));
    properties.insert("timestamp".into(), json!({"type": "string"}));
    let mut required = vec!["type", "id", "parentId", "timestamp"];
    for (name, schema, is_required) in fields {
        properties.insert(name.into(), schema);
        if is_required {
            required.push(name);
        }
    }
    json!({
        "description": description,
        "type": "object",
        "required": required,
        "properties": properties,
        "additionalProperties": false
    })
}

/// The event lines of one dialect: the variants of each source's (tagged) schema, less the
/// `type`s that source leaves to another.
fn event_lines(description: &str, sources: Vec<(Schema, &[&str])>) -> Value {
    let mut variants = Vec::new();
    for (source, left_out) in sources {
        let value = source.to_value();
        let list = value
            .get("oneOf")
            .or_else(|| value.get("anyOf"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        variants.extend(list.into_iter().filter(|variant| {
            variant_tag(variant).is_some_and(|tag| !left_out.contains(&tag.as_str()))
        }));
    }
    json!({"description": description, "oneOf": variants})
}

/// The `type` constant of a tagged variant's schema.
pub(crate) fn variant_tag(variant: &Value) -> Option<String> {
    let tag = &variant["properties"]["type"];
    tag["const"]
        .as_str()
        .or_else(|| tag["enum"][0].as_str())
        .map(str::to_string)
}

/// Registers both dialects' event lines (`EventPi1`, `EventPi073`).
fn register_events(g: &mut SchemaGenerator) {
    // pi 1.x writes these in its own shape ([`Pi1Event`]); an assistant's `message_start` is
    // `pending` there, any other message's is the common shape.
    let replaced_agent = [
        AgentEventKind::MessageUpdate.name(),
        AgentEventKind::AgentEnd.name(),
    ];
    let replaced_session = [SessionEventKind::CompactionEnd.into()];
    let pi1 = event_lines(
        "One event line of pi 1.x's dialect (the default; pi 1.6.0 docs/json.md), as RPC and `--mode json` write it.",
        vec![
            (Pi1Event::json_schema(g), &[]),
            (AgentEvent::json_schema(g), &replaced_agent),
            (SessionOnlyEvent::json_schema(g), &replaced_session),
        ],
    );
    let absent_in_073 = [
        SessionEventKind::AgentSettled.into(),
        SessionEventKind::EntryAppended.into(),
    ];
    let pi073 = event_lines(
        "One event line of pi 0.73.1's dialect (`--rpc-dialect 0.73`): `message_update` carries the partial message twice, and there is no `agent_settled` or `entry_appended`.",
        vec![
            (AgentEvent::json_schema(g), &[]),
            (SessionOnlyEvent::json_schema(g), &absent_in_073),
        ],
    );
    g.definitions_mut().insert("EventPi1".into(), pi1);
    g.definitions_mut().insert("EventPi073".into(), pi073);
}

/// The schema document (draft 2020-12) as a JSON value, keys in a stable order.
pub fn rpc_schema() -> Value {
    let mut generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let stdin = [
        generator.subschema_for::<CommandRecord>(),
        generator.subschema_for::<ExtensionUiResponse>(),
    ];
    for_each_output(&mut generator);
    register_events(&mut generator);
    let defs: Map<String, Value> = generator.take_definitions(true).into_iter().collect();
    let mut sorted: Vec<(String, Value)> = defs.into_iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut root = Map::new();
    root.insert(
        "$schema".into(),
        "https://json-schema.org/draft/2020-12/schema".into(),
    );
    root.insert("title".into(), "rho RPC protocol".into());
    root.insert(
        "description".into(),
        "One stdin record of `rho --mode rpc` (both dialects); $defs has what rho writes back (responses, `EventPi1` and `EventPi073` event lines). Generated from crates/rho-protocol; do not edit.".into(),
    );
    root.insert(
        "anyOf".into(),
        Value::Array(stdin.into_iter().map(Value::from).collect()),
    );
    root.insert("$defs".into(), Value::Object(sorted.into_iter().collect()));
    Value::Object(root)
}

/// Registers every output shape in the generator's definitions.
fn for_each_output(g: &mut SchemaGenerator) {
    g.subschema_for::<rpc::Response>();
    g.subschema_for::<rpc::UiRequest>();
    g.subschema_for::<rpc::BashExecutionUpdate>();
    g.subschema_for::<rpc::SessionState>();
    g.subschema_for::<rpc::MessageList<'static, AgentMessage>>();
    g.subschema_for::<rpc::EntryList<'static>>();
    g.subschema_for::<rpc::LastAssistantText>();
    g.subschema_for::<rpc::NullableText>();
    g.subschema_for::<rpc::CommandList>();
    g.subschema_for::<rpc::ModelList>();
    g.subschema_for::<rpc::CycledModel>();
    g.subschema_for::<rpc::ThinkingLevelReply>();
    g.subschema_for::<rpc::ThinkingLevels>();
    g.subschema_for::<rpc::Cancelled>();
    g.subschema_for::<rpc::ForkResult>();
    g.subschema_for::<rpc::ExportedHtml>();
    g.subschema_for::<rpc::CompactReply>();
    g.subschema_for::<rpc::SessionStatsReply>();
    g.subschema_for::<rpc::DispositionReply>();
    g.subschema_for::<rpc::QueueContents>();
}

#[cfg(test)]
mod tests;
