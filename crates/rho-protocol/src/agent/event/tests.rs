use super::*;
use crate::{AssistantMessage, Usage, UserMessage};
use strum::IntoEnumIterator;

fn reply() -> AgentMessage {
    AgentMessage::Assistant(AssistantMessage::empty("api", "p", "m"))
}

/// One event of every kind.
pub(crate) fn one_of_each() -> Vec<AgentEvent> {
    let result = ToolExecutionResult {
        content: vec![ContentBlock::text("ok")],
        details: None,
    };
    vec![
        AgentEvent::AgentStart,
        AgentEvent::AgentEnd {
            messages: vec![],
            will_retry: true,
        },
        AgentEvent::TurnStart,
        AgentEvent::TurnEnd {
            message: reply(),
            tool_results: vec![],
        },
        AgentEvent::MessageStart {
            message: AgentMessage::User(UserMessage::text("hi")),
        },
        AgentEvent::MessageUpdate {
            usage: Usage::default(),
            assistant_message_event: AssistantMessageEvent::TextStart { content_index: 0 },
        },
        AgentEvent::MessageEnd {
            message: Arc::new(reply()),
        },
        AgentEvent::ToolExecutionStart {
            tool_call_id: "c1".into(),
            tool_name: "bash".into(),
            args: Value::Null,
            parent_tool_call_id: None,
        },
        AgentEvent::ToolExecutionUpdate {
            tool_call_id: "c1".into(),
            tool_name: "bash".into(),
            args: Value::Null,
            partial_result: result.clone(),
            parent_tool_call_id: Some("c0".into()),
        },
        AgentEvent::tool_execution_end("c1", "bash", result, false),
    ]
}

#[test]
fn the_kind_names_the_serialized_type_of_every_event() {
    let events = one_of_each();
    assert_eq!(events.len(), AgentEventKind::iter().count());
    for event in &events {
        let v = serde_json::to_value(event).expect("serializes");
        assert_eq!(v["type"], event.type_name(), "{v}");
        assert_eq!(event.kind().name(), event.type_name());
    }
}

#[test]
fn tool_events_and_error_results() {
    let end = AgentEvent::tool_execution_end(
        "c1",
        "bash",
        ToolExecutionResult {
            content: vec![ContentBlock::text("Tool x not found")],
            details: Some(Value::Object(Default::default())),
        },
        true,
    );
    assert_eq!(
        serde_json::to_string(&end).expect("serializes"),
        r#"{"type":"tool_execution_end","toolCallId":"c1","toolName":"bash","result":{"content":[{"type":"text","text":"Tool x not found"}],"details":{}},"isError":true}"#
    );
    assert_eq!(
        serde_json::to_string(&AgentEvent::AgentStart).expect("serializes"),
        r#"{"type":"agent_start"}"#
    );
    let nested = AgentEvent::ToolExecutionStart {
        tool_call_id: "c1/1".into(),
        tool_name: "read".into(),
        args: Value::Null,
        parent_tool_call_id: Some("c1".into()),
    };
    assert_eq!(
        serde_json::to_string(&nested).expect("serializes"),
        r#"{"type":"tool_execution_start","toolCallId":"c1/1","toolName":"read","args":null,"parentToolCallId":"c1"}"#
    );
}

#[test]
fn pi_0_73_writes_no_will_retry_and_tags_tool_results() {
    let end = AgentEvent::AgentEnd {
        messages: vec![],
        will_retry: true,
    };
    assert_eq!(
        serde_json::to_string(&end).expect("serializes"),
        r#"{"type":"agent_end","messages":[]}"#
    );
    let turn = AgentEvent::TurnEnd {
        message: reply(),
        tool_results: vec![serde_json::from_value(serde_json::json!({
            "toolCallId": "c1", "toolName": "bash", "content": [], "isError": false, "timestamp": 3
        }))
        .expect("a tool result")],
    };
    let v = serde_json::to_value(&turn).expect("serializes");
    assert_eq!(v["toolResults"][0]["role"], "toolResult");
    assert_eq!(v["toolResults"][0]["toolCallId"], "c1");
}

/// An event carries the delta only (as pi 1.x writes it); pi 0.73.1's line carries the
/// partial message twice, as `message` and as the provider event's `partial`.
#[test]
fn message_update_is_delta_only_and_pi_0_73_repeats_the_message_as_partial() {
    let event = AssistantMessageEvent::TextStart { content_index: 0 };
    let update = AgentEvent::MessageUpdate {
        usage: Usage::default(),
        assistant_message_event: event.clone(),
    };
    let usage = serde_json::to_string(&Usage::default()).expect("serializes");
    assert_eq!(
        serde_json::to_string(&update).expect("serializes"),
        format!(
            r#"{{"type":"message_update","usage":{usage},"assistantMessageEvent":{{"type":"text_start","contentIndex":0}}}}"#
        )
    );
    let held = reply();
    let text = serde_json::to_string(&pi073_update(&held, &event)).expect("serializes");
    let message = serde_json::to_string(&held).expect("serializes");
    assert_eq!(
        text,
        format!(
            r#"{{"type":"message_update","message":{message},"assistantMessageEvent":{{"type":"text_start","contentIndex":0,"partial":{message}}}}}"#
        )
    );
    let AgentMessage::Assistant(reply) = &held else {
        unreachable!("reply() is an assistant message")
    };
    assert_eq!(
        serde_json::to_string(&crate::agent::AssistantAsAgent(reply)).expect("serializes"),
        message,
        "an assistant message written as the agent message holding it"
    );
}
