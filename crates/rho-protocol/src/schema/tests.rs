//! The hand-assembled parts of the schema (session entries, the event lines of each dialect)
//! describe what the encoders write: each encoded value has the `type`, the required keys and
//! no keys but those of its variant.

use std::sync::Arc;

use crate::{AssistantMessage, AssistantMessageEvent, Usage, UserContent, UserMessage};
use serde::Serialize;
use serde_json::{json, Value};
use strum::IntoEnumIterator;

use super::{rpc_schema, variant_tag};
use crate::agent::event::tests::one_of_each;
use crate::agent::{pi073_update, AgentEvent, AgentEventKind, AgentMessage};
use crate::session::pi1::Pi1Event;
use crate::session::{
    CompactionData, CompactionReason, EntryData, SessionEntry, SessionEventKind, SessionOnlyEvent,
    UsageData,
};

fn variants<'a>(schema: &'a Value, def: &str) -> &'a [Value] {
    let def = &schema["$defs"][def];
    def["oneOf"]
        .as_array()
        .or_else(|| def["anyOf"].as_array())
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// Whether a variant of `def` with `value`'s `type` has all of its required keys and knows
/// each of its keys (checked one level deep, which is where encoders differ).
fn described(schema: &Value, def: &str, value: &impl Serialize) -> Result<(), String> {
    let value = serde_json::to_value(value).map_err(|e| e.to_string())?;
    let tag = value["type"].as_str().ok_or("no type")?;
    let keys: Vec<&String> = value.as_object().ok_or("not an object")?.keys().collect();
    let fits = |variant: &Value| {
        let required = variant["required"].as_array().cloned().unwrap_or_default();
        let properties = variant["properties"].as_object();
        required
            .iter()
            .all(|r| keys.iter().any(|k| Some(k.as_str()) == r.as_str()))
            && keys
                .iter()
                .all(|k| properties.is_some_and(|p| p.contains_key(*k)))
    };
    let candidates: Vec<&Value> = variants(schema, def)
        .iter()
        .filter(|v| variant_tag(v).as_deref() == Some(tag))
        .collect();
    // The catch-all of unknown kinds: any `type` but the listed ones, any fields.
    let other_kind = variants(schema, def).iter().any(|v| {
        variant_tag(v).is_none()
            && v["properties"]["type"]["not"]["enum"]
                .as_array()
                .is_some_and(|known| !known.iter().any(|k| k == tag))
    });
    if other_kind || candidates.iter().any(|v| fits(v)) {
        Ok(())
    } else {
        Err(format!("{def} does not describe {value}"))
    }
}

fn entry(data: EntryData) -> SessionEntry {
    SessionEntry {
        id: "a1b2c3d4".into(),
        parent_id: None,
        timestamp: "2026-01-01T00:00:00.000Z".into(),
        data,
    }
}

fn every_entry_kind() -> Vec<SessionEntry> {
    let message = Arc::new(AgentMessage::User(UserMessage::text("hi")));
    vec![
        entry(EntryData::Message(message.clone().into())),
        entry(EntryData::ThinkingLevelChange {
            thinking_level: "high".into(),
        }),
        entry(EntryData::ModelChange {
            provider: "anthropic".into(),
            model_id: "m".into(),
        }),
        entry(EntryData::Compaction(Box::new(CompactionData {
            summary: "s".into(),
            first_kept_entry_id: "e".into(),
            tokens_before: 5,
            details: Some(json!({})),
            usage: Some(Usage::default()),
            from_hook: Some(true),
            system_message: Some(message),
        }))),
        entry(EntryData::BranchSummary {
            from_id: "root".into(),
            summary: "s".into(),
            details: Some(Box::new(json!({}))),
            usage: Some(Box::default()),
            from_hook: Some(false),
        }),
        entry(EntryData::ContextEdit {
            target_id: "e".into(),
            replacement: Some(UserContent::Text("x".into())),
        }),
        entry(EntryData::ContextEdit {
            target_id: "e".into(),
            replacement: None,
        }),
        entry(EntryData::Usage(Box::new(UsageData {
            kind: "cache_warm".into(),
            provider: "p".into(),
            model: "m".into(),
            usage: Usage::default(),
            note: Some("n".into()),
        }))),
        entry(EntryData::Custom {
            custom_type: "t".into(),
            data: Some(Box::new(json!(1))),
        }),
        entry(EntryData::CustomMessage {
            custom_type: "t".into(),
            content: UserContent::Text("x".into()),
            display: true,
            details: Some(Box::new(json!({}))),
        }),
        entry(EntryData::Label {
            target_id: "e".into(),
            label: Some("l".into()),
        }),
        entry(EntryData::SessionInfo { name: None }),
    ]
}

#[test]
fn every_entry_kind_is_described_by_its_variant() {
    let schema = rpc_schema();
    for entry in every_entry_kind() {
        described(&schema, "SessionEntry", &entry).unwrap_or_else(|e| panic!("{e}"));
    }
    // A kind this version does not know is still an entry; a known kind with a field it does
    // not have is not.
    let unknown = json!({"type": "from_the_future", "id": "x"});
    described(&schema, "SessionEntry", &unknown).unwrap_or_else(|e| panic!("{e}"));
    let extra = json!({"type": "label", "id": "x", "parentId": null, "timestamp": "t",
        "targetId": "e", "colour": "red"});
    assert!(described(&schema, "SessionEntry", &extra).is_err());
}

#[test]
fn each_dialect_lists_the_events_it_writes() {
    let schema = rpc_schema();
    let tags = |def: &str| -> Vec<String> {
        let mut tags: Vec<String> = variants(&schema, def)
            .iter()
            .filter_map(variant_tag)
            .collect();
        tags.sort();
        tags.dedup();
        tags
    };
    let mut all: Vec<String> = AgentEventKind::iter()
        .map(|k| k.name().to_string())
        .chain(SessionEventKind::iter().map(|k| <&str>::from(k).to_string()))
        .collect();
    all.sort();
    assert_eq!(tags("EventPi1"), all);
    all.retain(|t| t != "agent_settled" && t != "entry_appended");
    assert_eq!(tags("EventPi073"), all);
}

#[test]
fn the_event_lines_describe_what_the_encoders_write() {
    let schema = rpc_schema();
    let partial = AgentMessage::Assistant(AssistantMessage::empty("api", "p", "m"));
    for event in one_of_each() {
        // pi 0.73.1's update line carries the partial, which the encoder folds itself.
        let line = match &event {
            AgentEvent::MessageUpdate {
                assistant_message_event,
                ..
            } => serde_json::to_value(pi073_update(&partial, assistant_message_event)),
            _ => serde_json::to_value(&event),
        };
        let line = line.expect("serializes");
        described(&schema, "EventPi073", &line).unwrap_or_else(|e| panic!("{e}"));
    }
    let reply = AssistantMessage::empty("api", "p", "m");
    let usage = Usage::default();
    let delta = AssistantMessageEvent::ToolCallStart {
        content_index: 0,
        id: "c1".into(),
        name: "read".into(),
    };
    let compaction_end = SessionOnlyEvent::CompactionEnd {
        reason: CompactionReason::Manual,
        result: None,
        aborted: false,
        will_retry: false,
        error_message: Some("x".into()),
        after: None,
    };
    let pi1 = [
        Pi1Event::reply_start(&reply),
        Pi1Event::message_update(&usage, &delta),
        Pi1Event::agent_end(&[], true),
        Pi1Event::compaction_end(&compaction_end).expect("a compaction end"),
    ];
    for event in &pi1 {
        described(&schema, "EventPi1", event).unwrap_or_else(|e| panic!("{e}"));
    }
    let settled = SessionOnlyEvent::AgentSettled { aborted: false };
    described(&schema, "EventPi1", &settled).unwrap_or_else(|e| panic!("{e}"));
    assert!(described(&schema, "EventPi073", &settled).is_err());
    // 0.73.1's `agent_end` has no `willRetry`.
    assert!(described(&schema, "EventPi073", &pi1[2]).is_err());
}
