use super::*;
use crate::{AssistantMessage, StopReason};

fn msg() -> AssistantMessage {
    let mut m = AssistantMessage::empty("api", "prov", "m");
    m.timestamp = 7;
    m
}

fn json(event: &AssistantMessageEvent) -> String {
    let partial = AgentMessage::Assistant(msg());
    serde_json::to_string(&AssistantEventJson {
        event,
        partial: Some(&partial),
    })
    .expect("serializes")
}

#[test]
fn terminal_and_start_events_use_pi_field_names() {
    let start = json(&AssistantMessageEvent::Start { partial: msg() });
    assert!(start.starts_with(r#"{"type":"start","partial":{"role":"assistant","#));
    let done = json(&AssistantMessageEvent::Done {
        reason: StopReason::ToolUse,
        message: msg(),
    });
    assert!(done.starts_with(r#"{"type":"done","reason":"toolUse","message":{"role":"assistant","#));
    assert!(!done.contains("partial"));
    let err = json(&AssistantMessageEvent::Error {
        reason: StopReason::Aborted,
        error: msg(),
    });
    assert!(err.starts_with(r#"{"type":"error","reason":"aborted","error":{"role":"assistant","#));
}

#[test]
fn without_a_partial_the_event_is_pi_1x_delta_only_shape() {
    let encode = |event: &AssistantMessageEvent| {
        serde_json::to_string(&AssistantEventJson::<AgentMessage> {
            event,
            partial: None,
        })
        .expect("serializes")
    };
    let start = AssistantMessageEvent::ToolCallStart {
        content_index: 1,
        id: "c1".into(),
        name: "read".into(),
    };
    assert_eq!(
        encode(&start),
        r#"{"type":"toolcall_start","contentIndex":1,"id":"c1","toolName":"read"}"#
    );
    let delta = AssistantMessageEvent::TextDelta {
        content_index: 0,
        delta: "Hi".into(),
    };
    assert_eq!(
        encode(&delta),
        r#"{"type":"text_delta","contentIndex":0,"delta":"Hi"}"#
    );
    // pi 0.73.1 names the call only in `partial`.
    assert!(!json(&start).contains("toolName"));
}

/// `crate::AssistantMessageEvent::type_name` (the provider layer's own name for its events)
/// and the derived wire tag are the same for every event.
#[test]
fn the_wire_tag_is_the_provider_event_name() {
    let call = ToolCall {
        id: "c1".into(),
        name: "read".into(),
        arguments: serde_json::json!({"path": "a"}),
        thought_signature: None,
        namespace: None,
    };
    let text = crate::TextContent {
        text: "hi".into(),
        text_signature: None,
    };
    let thinking = crate::ThinkingContent {
        thinking: "hm".into(),
        thinking_signature: None,
        redacted: None,
    };
    let (content_index, delta) = (0, String::from("x"));
    let events = [
        AssistantMessageEvent::Start { partial: msg() },
        AssistantMessageEvent::TextStart { content_index },
        AssistantMessageEvent::TextDelta {
            content_index,
            delta: delta.clone(),
        },
        AssistantMessageEvent::TextEnd {
            content_index,
            text,
        },
        AssistantMessageEvent::ThinkingStart { content_index },
        AssistantMessageEvent::ThinkingDelta {
            content_index,
            delta: delta.clone(),
        },
        AssistantMessageEvent::ThinkingEnd {
            content_index,
            thinking,
        },
        AssistantMessageEvent::ToolCallStart {
            content_index,
            id: "c1".into(),
            name: "read".into(),
        },
        AssistantMessageEvent::ToolCallDelta {
            content_index,
            delta,
        },
        AssistantMessageEvent::ToolCallEnd {
            content_index,
            tool_call: call,
        },
        AssistantMessageEvent::Done {
            reason: StopReason::Stop,
            message: msg(),
        },
        AssistantMessageEvent::Error {
            reason: StopReason::Error,
            error: msg(),
        },
    ];
    for event in &events {
        let v: serde_json::Value = serde_json::from_str(&json(event)).expect("json");
        assert_eq!(v["type"], event.type_name());
    }
    let end: serde_json::Value = serde_json::from_str(&json(&events[9])).expect("json");
    assert_eq!(
        end["toolCall"],
        serde_json::json!({"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}})
    );
}
