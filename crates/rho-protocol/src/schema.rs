//! The JSON Schema of the RPC protocol (feature `schema`), generated from the types in
//! [`crate::rpc`] and the message types they carry, for client authors: the committed
//! `docs/rpc.schema.json` is this output, and a test keeps it current.
//!
//! The root describes one stdin record (a command, or the answer to an extension dialog);
//! `$defs` holds every shape rho writes back (the response envelope, each command's `data`,
//! extension UI requests, messages, session entries). Session events have hand-written
//! encodings per dialect and are described by pi's docs/json.md, not here.

use std::borrow::Cow;

use crate::agent::AgentMessage;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value};

use crate::rpc::{self, Command};
use crate::session::SessionEntry;

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

/// Entries are encoded by hand (pi's field order, unknown kinds kept verbatim): the common
/// fields here, each kind's own fields as pi 1.6's docs/session-format.md defines them.
impl JsonSchema for SessionEntry {
    fn schema_name() -> Cow<'static, str> {
        "SessionEntry".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let message = generator.subschema_for::<AgentMessage>();
        json_schema!({
            "type": "object",
            "description": "One session file entry (pi's session-format.md); `message` entries carry `message`, other kinds their own fields.",
            "required": ["type", "id", "parentId", "timestamp"],
            "properties": {
                "type": {
                    "type": "string",
                    "examples": ["message", "thinking_level_change", "model_change", "compaction",
                        "branch_summary", "context_edit", "usage", "custom", "custom_message",
                        "label", "session_info"]
                },
                "id": {"type": "string"},
                "parentId": {"type": ["string", "null"]},
                "timestamp": {"type": "string"},
                "message": message
            },
            "additionalProperties": true
        })
    }
}

/// The schema document (draft 2020-12) as a JSON value, keys in a stable order.
pub fn rpc_schema() -> Value {
    let mut generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let stdin = [
        generator.subschema_for::<CommandRecord>(),
        generator.subschema_for::<ExtensionUiResponse>(),
    ];
    for_each_output(&mut generator);
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
        "One stdin record of `rho --mode rpc` (both dialects); $defs has what rho writes back. Generated from crates/rho-protocol; do not edit.".into(),
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
