//! The writer against an in-memory pipe: coalescing keeps the delta stream whole, other
//! events and lines keep their order, and `message_update` lines are byte-identical to a
//! plain serde encoding of the event.

use std::sync::Arc;

use rho_ai::{AssistantMessage, AssistantMessageEvent, PartialMessage};
use rho_core::agent_session::{SessionEvent, SessionOnlyEvent};
use rho_protocol::agent::{AgentEvent, AgentMessage};
use serde_json::Value;
use tokio::io::AsyncReadExt;
use tokio::sync::mpsc;

use rho_protocol::rpc::Dialect;

use super::{run, Out, WriterConfig};

/// The events of one streamed reply: start, `n` text deltas, a thinking block's start and
/// one delta, then the end; each update carries its delta (and usage), as the agent emits it.
fn reply_events(n: usize) -> Vec<AgentEvent> {
    let start = AssistantMessage::empty("openai-completions", "mock", "mock-model");
    let mut partial = PartialMessage::new();
    partial.apply(&AssistantMessageEvent::Start {
        partial: start.clone(),
    });
    let mut events = vec![AgentEvent::MessageStart {
        message: AgentMessage::Assistant(start),
    }];
    let mut provider = vec![AssistantMessageEvent::TextStart { content_index: 0 }];
    provider.extend((0..n).map(|i| AssistantMessageEvent::TextDelta {
        content_index: 0,
        delta: format!("t{i} \"q\"\n"),
    }));
    provider.push(AssistantMessageEvent::ThinkingStart { content_index: 1 });
    provider.push(AssistantMessageEvent::ThinkingDelta {
        content_index: 1,
        delta: "hm".into(),
    });
    for e in provider {
        partial.apply(&e);
        events.push(AgentEvent::MessageUpdate {
            usage: Default::default(),
            assistant_message_event: e,
        });
    }
    let end = partial.message().cloned().expect("started");
    events.push(AgentEvent::MessageEnd {
        message: AgentMessage::Assistant(end).into(),
    });
    events
}

fn full_text(n: usize) -> String {
    (0..n).map(|i| format!("t{i} \"q\"\n")).collect()
}

/// Queues `events` (and a response line once the first `split` of them are queued) before the writer
/// starts, as a reader that fell behind would leave them, then reads every line.
async fn write_all_queued(events: Vec<SessionEvent>, split: usize) -> Vec<Value> {
    write_all_queued_in(Dialect::Pi073, events, split).await
}

/// [`write_all_queued`] in `dialect`.
async fn write_all_queued_in(
    dialect: Dialect,
    events: Vec<SessionEvent>,
    split: usize,
) -> Vec<Value> {
    let (tx, rx) = mpsc::unbounded_channel();
    for (i, e) in events.into_iter().enumerate() {
        if i == split {
            tx.send(Out::Line(r#"{"type":"response"}"#.into()))
                .expect("queued");
        }
        tx.send(Out::Event(e)).expect("queued");
    }
    tx.send(Out::Finish).expect("queued");
    let (sink, mut source) = tokio::io::duplex(4096);
    let config = WriterConfig {
        dialect,
        keep: |_| true,
    };
    let writer = tokio::spawn(run(sink, rx, config));
    let mut bytes = Vec::new();
    source.read_to_end(&mut bytes).await.expect("read");
    writer.await.expect("writer ends");
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("each line is JSON"))
        .collect()
}

fn agent(events: Vec<AgentEvent>) -> Vec<SessionEvent> {
    events
        .into_iter()
        .map(|e| SessionEvent::Agent(Arc::new(e)))
        .collect()
}

#[tokio::test]
async fn a_backlog_of_deltas_is_written_as_one_update_carrying_all_of_them() {
    let n = 2000;
    let mut events = agent(reply_events(n));
    let queue = SessionEvent::Session(SessionOnlyEvent::QueueUpdate {
        steering: vec!["s".into()],
        follow_up: vec![],
    });
    events.push(queue);
    let lines = write_all_queued(events, usize::MAX).await;
    let types: Vec<String> = lines
        .iter()
        .map(|l| {
            let inner = l["assistantMessageEvent"]["type"].as_str().unwrap_or("");
            format!("{} {inner}", l["type"].as_str().unwrap_or(""))
        })
        .map(|t| t.trim().to_string())
        .collect();
    assert_eq!(
        types,
        [
            "message_start",
            "message_update text_start",
            "message_update text_delta",
            "message_update thinking_start",
            "message_update thinking_delta",
            "message_end",
            "queue_update"
        ]
    );
    let update = &lines[2];
    assert_eq!(
        update["assistantMessageEvent"]["delta"],
        full_text(n).as_str()
    );
    assert_eq!(
        update["message"]["content"][0]["text"],
        full_text(n).as_str()
    );
    assert_eq!(
        update["message"],
        update["assistantMessageEvent"]["partial"]
    );
    assert_eq!(
        lines[5]["message"]["content"][0]["text"],
        full_text(n).as_str()
    );
}

/// A line goes out where it was sent among the events, even with a backlog: the deltas
/// before it and after it are joined on their own side of it, never across it.
#[tokio::test]
async fn a_line_is_written_where_it_was_sent_among_the_events() {
    let events = agent(reply_events(3));
    let lines = write_all_queued(events, 3).await;
    let types: Vec<&str> = lines.iter().filter_map(|l| l["type"].as_str()).collect();
    assert_eq!(
        types,
        [
            "message_start",
            "message_update",
            "message_update",
            "response",
            "message_update",
            "message_update",
            "message_update",
            "message_end",
        ]
    );
    let deltas: Vec<&str> = lines
        .iter()
        .filter_map(|l| l["assistantMessageEvent"]["delta"].as_str())
        .collect();
    assert_eq!(deltas, ["t0 \"q\"\n", "t1 \"q\"\nt2 \"q\"\n", "hm"]);
}

/// Each line is what serde writes for the event, a 0.73.1 `message_update` being
/// [`rho_protocol::agent::pi073_update`] of the reply folded through it, whether the update
/// is written as it came or as a (coalesced) backlog item.
#[tokio::test]
async fn updates_are_encoded_exactly_as_serde_encodes_the_event() {
    let mut reply = PartialMessage::new();
    let (mut as_events, mut as_items) = (
        super::encode::Encoder::new(Dialect::Pi073),
        super::encode::Encoder::new(Dialect::Pi073),
    );
    for event in reply_events(2) {
        let expected = match &event {
            AgentEvent::MessageStart {
                message: AgentMessage::Assistant(m),
            } => {
                reply = PartialMessage::starting(m.clone());
                serde_json::to_string(&event)
            }
            AgentEvent::MessageUpdate {
                assistant_message_event: e,
                ..
            } => {
                reply.apply(e);
                let m = AgentMessage::Assistant(reply.message().cloned().expect("started"));
                let line = serde_json::to_string(&rho_protocol::agent::pi073_update(&m, e));
                line
            }
            _ => serde_json::to_string(&event),
        }
        .expect("serializes");
        let item = match &event {
            AgentEvent::MessageUpdate {
                usage,
                assistant_message_event,
            } => super::backlog::Item::Update {
                usage: *usage,
                merged: assistant_message_event.clone(),
            },
            _ => super::backlog::Item::Event(SessionEvent::Agent(Arc::new(event.clone()))),
        };
        for (encoder, item) in [
            (
                &mut as_events,
                super::backlog::Item::Event(SessionEvent::Agent(Arc::new(event.clone()))),
            ),
            (&mut as_items, item),
        ] {
            let mut out = Vec::new();
            encoder.encode(item, &mut out);
            assert_eq!(
                String::from_utf8(out).expect("utf-8"),
                format!("{expected}\n")
            );
        }
    }
}

/// A tool call's arguments in a 0.73.1 partial are parsed from all the JSON so far, as they
/// were when the agent parsed them per delta.
#[test]
fn a_pi073_partial_carries_the_tool_arguments_parsed_so_far() {
    let mut encoder = super::encode::Encoder::new(Dialect::Pi073);
    let mut out = Vec::new();
    let start = AssistantMessage::empty("a", "p", "m");
    let events = [
        AgentEvent::MessageStart {
            message: AgentMessage::Assistant(start),
        },
        update(AssistantMessageEvent::ToolCallStart {
            content_index: 0,
            id: "c1".into(),
            name: "read".into(),
        }),
        update(AssistantMessageEvent::ToolCallDelta {
            content_index: 0,
            delta: "{\"path\": \"src/ma".into(),
        }),
    ];
    for e in events {
        out.clear();
        encoder.encode(
            super::backlog::Item::Event(SessionEvent::Agent(Arc::new(e))),
            &mut out,
        );
    }
    let line: Value = serde_json::from_slice(&out).expect("JSON");
    assert_eq!(
        line["message"]["content"][0]["arguments"],
        serde_json::json!({"path": "src/ma"})
    );
    assert_eq!(line["message"], line["assistantMessageEvent"]["partial"]);
}

fn update(e: AssistantMessageEvent) -> AgentEvent {
    AgentEvent::MessageUpdate {
        usage: Default::default(),
        assistant_message_event: e,
    }
}

#[tokio::test]
async fn in_pi_1x_a_reader_that_keeps_up_gets_one_update_per_delta() {
    let n = 50;
    let lines = write_all_queued_in(Dialect::Pi1, agent(reply_events(n)), usize::MAX).await;
    let deltas = lines
        .iter()
        .filter(|l| l["assistantMessageEvent"]["type"] == "text_delta")
        .count();
    assert_eq!(deltas, n);
    assert_eq!(lines[0]["message"]["stopReason"], "pending");
}

#[test]
fn in_pi_1x_deltas_queued_while_behind_are_one_delta_only_update_with_all_the_text() {
    let n = 2000;
    let mut backlog = super::backlog::Backlog::new(super::delivery_v1);
    for e in agent(reply_events(n)) {
        backlog.push_event(e, true);
    }
    let mut encoder = super::encode::Encoder::new(Dialect::Pi1);
    let mut out = Vec::new();
    while let Some(item) = backlog.pop() {
        encoder.encode(item, &mut out);
    }
    let lines: Vec<Value> = out
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("JSON"))
        .collect();
    let types: Vec<&str> = lines.iter().filter_map(|l| l["type"].as_str()).collect();
    assert_eq!(types.len(), 6, "{types:?}");
    let update = &lines[2];
    assert_eq!(
        update["assistantMessageEvent"],
        serde_json::json!({"type": "text_delta", "contentIndex": 0, "delta": full_text(n)})
    );
    assert!(update.get("message").is_none(), "delta-only: {update}");
    assert_eq!(update["usage"]["totalTokens"], 0);
    assert_eq!(
        lines[5]["message"]["content"][0]["text"],
        full_text(n).as_str()
    );
}

#[tokio::test]
async fn in_pi_1x_each_update_is_written_without_its_partial() {
    let events = agent(reply_events(2));
    let sizes: Vec<usize> = {
        let mut out = Vec::new();
        let mut encoder = super::encode::Encoder::new(Dialect::Pi1);
        events
            .into_iter()
            .map(|e| {
                out.clear();
                encoder.encode(super::backlog::Item::Event(e), &mut out);
                out.len()
            })
            .collect()
    };
    // Every update line is the same size whatever the reply so far: no partial in it.
    assert_eq!(sizes[2], sizes[3], "{sizes:?}");
}

#[tokio::test]
async fn agent_settled_is_not_written_in_pi_0_73() {
    let settled = SessionEvent::Session(SessionOnlyEvent::AgentSettled { aborted: false });
    let lines = write_all_queued(vec![settled], usize::MAX).await;
    assert!(lines.is_empty(), "{lines:?}");
}
