//! The transcript fed by session events: streaming updates only the last component, tool calls
//! go from pending to done, queue and compaction events show up, and the rendered frame matches.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use insta::assert_snapshot;
use rho_protocol::agent::{AgentEvent, AgentMessage, ToolExecutionResult};
use rho_protocol::session::{CompactionReason, CompactionResult, SessionEvent, SessionOnlyEvent};
use rho_protocol::{AssistantMessage, AssistantMessageEvent, ContentBlock, ToolCall, UserMessage};
use rho_tui::ansi::strip_ansi;
use rho_tui::components::{Component, ToolStatus};
use rho_tui::{Renderer, Theme, Transcript, View};
use serde_json::json;

fn agent(e: AgentEvent) -> SessionEvent {
    SessionEvent::Agent(Arc::new(e))
}

fn reply(text: &str) -> AssistantMessage {
    let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", "m");
    if !text.is_empty() {
        m.content.push(ContentBlock::text(text));
    }
    m
}

/// A text delta of the streaming reply's first block (events carry the delta, and the
/// transcript folds the reply itself).
fn update(delta: &str) -> SessionEvent {
    stream(AssistantMessageEvent::TextDelta {
        content_index: 0,
        delta: delta.into(),
    })
}

fn stream(event: AssistantMessageEvent) -> SessionEvent {
    agent(AgentEvent::MessageUpdate {
        usage: Default::default(),
        assistant_message_event: event,
    })
}

fn plain(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| strip_ansi(l).trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn start_conversation(t: &mut Transcript) {
    t.apply(&agent(AgentEvent::MessageStart {
        message: AgentMessage::User(UserMessage::text("Explain the bug")),
    }));
    t.apply(&agent(AgentEvent::MessageStart {
        message: AgentMessage::Assistant(reply("")),
    }));
}

/// [`start_conversation`], the reply streaming a text block.
fn start_streaming_text(t: &mut Transcript) {
    start_conversation(t);
    t.apply(&stream(AssistantMessageEvent::TextStart {
        content_index: 0,
    }));
}

#[test]
fn a_streamed_token_re_renders_only_the_last_component() {
    let mut t = Transcript::new(Theme::dark());
    start_streaming_text(&mut t);
    t.apply(&update("The"));
    let before: Vec<*const u8> = t.lines(60).iter().map(|l| l.as_ptr()).collect();
    let user_lines = 4; // spacer, padding, text, padding
    t.apply(&update(" parser"));
    let after: Vec<*const u8> = t.lines(60).iter().map(|l| l.as_ptr()).collect();
    assert_eq!(
        before[..user_lines],
        after[..user_lines],
        "user message lines reused as they were"
    );
    assert_eq!(plain(t.lines(60)).lines().last(), Some(" The parser"));
    t.apply(&update(""));
    let same: Vec<*const u8> = t.lines(60).iter().map(|l| l.as_ptr()).collect();
    assert_eq!(
        after, same,
        "an update that changes nothing renders nothing"
    );
}

#[test]
fn the_renderer_rewrites_only_the_streaming_line() {
    let mut t = Transcript::new(Theme::dark());
    start_streaming_text(&mut t);
    t.apply(&update("Hello"));
    let mut r = Renderer::new(60, 20);
    let editor = vec!["─".repeat(60), String::new(), "─".repeat(60)];
    r.render(&[t.lines(60), &editor], &mut Vec::new())
        .expect("write");
    t.apply(&update(" world"));
    let mut out = Vec::new();
    let stats = r.render(&[t.lines(60), &editor], &mut out).expect("write");
    assert_eq!(stats.lines_written, 1);
    let bytes = String::from_utf8(out).expect("utf-8");
    assert!(
        bytes.contains(" Hello world") && !bytes.contains("Explain"),
        "{bytes:?}"
    );
}

#[test]
fn a_tool_call_runs_from_pending_to_done() {
    let mut t = Transcript::new(Theme::dark());
    start_conversation(&mut t);
    let mut m = reply("Let me look.");
    m.content.push(ContentBlock::ToolCall(ToolCall {
        namespace: None,
        id: "c1".into(),
        name: "bash".into(),
        arguments: json!({"command": "ls"}),
        thought_signature: None,
    }));
    t.apply(&agent(AgentEvent::MessageEnd {
        message: AgentMessage::Assistant(m).into(),
    }));
    t.apply(&agent(AgentEvent::ToolExecutionStart {
        tool_call_id: "c1".into(),
        tool_name: "bash".into(),
        args: json!({"command": "ls"}),
        parent_tool_call_id: None,
    }));
    t.apply(&agent(AgentEvent::ToolExecutionUpdate {
        tool_call_id: "c1".into(),
        tool_name: "bash".into(),
        args: json!({"command": "ls"}),
        partial_result: ToolExecutionResult {
            content: vec![ContentBlock::text("Cargo.toml")],
            details: None,
        },
        parent_tool_call_id: None,
    }));
    let tool = |t: &Transcript| {
        t.views()
            .find_map(|v| match v {
                View::Tool(x) => Some(x.clone()),
                _ => None,
            })
            .expect("a tool view")
    };
    assert_eq!(tool(&t).status, ToolStatus::Pending);
    assert_eq!(tool(&t).output, "Cargo.toml");
    t.apply(&agent(AgentEvent::tool_execution_end(
        "c1",
        "bash",
        ToolExecutionResult {
            content: vec![ContentBlock::text("Cargo.toml\nsrc")],
            details: None,
        },
        false,
    )));
    assert_eq!(tool(&t).status, ToolStatus::Success);
    assert_eq!(t.views().filter(|v| matches!(v, View::Tool(_))).count(), 1);
    // The run's duration is real time: only its presence is snapshotted.
    let shown = plain(t.lines(60));
    let took = shown
        .lines()
        .find_map(|l| l.trim().strip_prefix("Took "))
        .expect("a finished bash call says how long it took");
    assert!(took.ends_with('s'), "{took}");
    assert_snapshot!("tool_flow_60", shown.replace(took, "<duration>"));
}

#[test]
fn queue_compaction_and_retry_events() {
    let mut t = Transcript::new(Theme::dark());
    t.apply(&SessionEvent::Session(SessionOnlyEvent::QueueUpdate {
        steering: vec!["stop".into()],
        follow_up: vec![],
    }));
    assert_eq!(t.queue().steering, vec!["stop".to_string()]);
    t.apply(&SessionEvent::Session(SessionOnlyEvent::CompactionStart {
        reason: CompactionReason::Manual,
    }));
    assert!(plain(t.lines(50)).contains("Compacting context..."));
    t.apply(&SessionEvent::Session(SessionOnlyEvent::CompactionEnd {
        reason: CompactionReason::Manual,
        result: Some(CompactionResult {
            summary: "did things".into(),
            first_kept_entry_id: "e1".into(),
            tokens_before: 5000,
            details: None,
        }),
        aborted: false,
        will_retry: false,
        error_message: None,
        after: None,
    }));
    let text = plain(t.lines(50));
    assert!(!text.contains("Compacting context..."), "{text}");
    assert!(
        text.contains("Compacted from 5,000 tokens (ctrl+o to expand)"),
        "{text}"
    );
    t.set_tools_expanded(true);
    assert!(plain(t.lines(50)).contains("did things"));
    t.apply(&SessionEvent::Session(SessionOnlyEvent::AutoRetryStart {
        attempt: 1,
        max_attempts: 3,
        delay_ms: 2000,
        error_message: "overloaded".into(),
    }));
    assert!(plain(t.lines(50)).contains("Retrying (1/3) in 2s... overloaded"));
    t.apply(&SessionEvent::Session(SessionOnlyEvent::AutoRetryEnd {
        success: true,
        attempt: 1,
        final_error: None,
    }));
    assert!(!plain(t.lines(50)).contains("Retrying"));
}

#[test]
fn usage_totals_and_width_changes() {
    let mut t = Transcript::new(Theme::dark());
    start_conversation(&mut t);
    let mut m = reply("A long enough answer to wrap differently at two widths, surely.");
    m.usage.input = 100;
    m.usage.output = 20;
    m.usage.cache_read = 1000;
    m.usage.cost.total = 0.5;
    t.apply(&agent(AgentEvent::MessageEnd {
        message: AgentMessage::Assistant(m).into(),
    }));
    assert_eq!(t.usage().input, 100);
    assert_eq!(t.usage().cost, 0.5);
    assert_eq!(t.context_tokens(), Some(1120));
    let wide = t.lines(80).len();
    let narrow = t.lines(30).len();
    assert!(narrow > wide, "{narrow} > {wide}");
    assert!(t
        .lines(30)
        .iter()
        .all(|l| rho_tui::ansi::visible_width(l) <= 30));
}

#[test]
fn thinking_and_tool_output_toggle_everywhere() {
    let mut t = Transcript::new(Theme::dark());
    start_conversation(&mut t);
    let mut m = reply("");
    m.content = vec![
        ContentBlock::Thinking(rho_protocol::ThinkingContent {
            thinking: "secret plan".into(),
            ..Default::default()
        }),
        ContentBlock::text("Answer"),
    ];
    t.apply(&agent(AgentEvent::MessageEnd {
        message: AgentMessage::Assistant(m).into(),
    }));
    t.apply(&agent(AgentEvent::tool_execution_end(
        "c9",
        "read",
        ToolExecutionResult {
            content: vec![ContentBlock::text(
                (1..=12)
                    .map(|i| format!("l{i}"))
                    .collect::<Vec<_>>()
                    .join("\n"),
            )],
            details: None,
        },
        false,
    )));
    let text = plain(t.lines(50));
    assert!(text.contains("secret plan") && text.contains("(2 more lines, ctrl+o to expand)"));
    t.set_thinking_expanded(false);
    let text = plain(t.lines(50));
    assert!(
        !text.contains("secret plan") && text.contains("Thinking..."),
        "{text}"
    );
    t.set_tools_expanded(true);
    let text = plain(t.lines(50));
    assert!(
        text.contains("l12") && !text.contains("more lines"),
        "{text}"
    );
}

/// Streams a partial reply "Working on" that announces a bash call.
fn stream_partial(t: &mut Transcript) -> AssistantMessage {
    start_streaming_text(t);
    let mut partial = reply("Working on");
    partial.content.push(ContentBlock::ToolCall(ToolCall {
        namespace: None,
        id: "call_9".into(),
        name: "bash".into(),
        arguments: json!({"command": "ls -la"}),
        thought_signature: None,
    }));
    t.apply(&update("Working on"));
    t.apply(&stream(AssistantMessageEvent::ToolCallStart {
        content_index: 1,
        id: "call_9".into(),
        name: "bash".into(),
    }));
    t.apply(&stream(AssistantMessageEvent::ToolCallDelta {
        content_index: 1,
        delta: r#"{"command": "ls -la"}"#.into(),
    }));
    assert!(plain(t.lines(60)).contains("Working on"));
    partial
}

/// The steering message that follows the cut-off reply.
fn steer(t: &mut Transcript) -> String {
    t.apply(&agent(AgentEvent::MessageStart {
        message: AgentMessage::User(UserMessage::text("only the unit tests")),
    }));
    plain(t.lines(200))
}

#[test]
fn a_reply_cut_off_by_steering_stays_marked_as_interrupted_without_its_calls() {
    // As the session emits it today: the steering message starts before the partial reply
    // ever ended (decision D4 discards it from the context).
    let mut t = Transcript::new(Theme::dark());
    stream_partial(&mut t);
    let shown = steer(&mut t);
    assert!(shown.contains("Working on"), "{shown}");
    assert!(shown.contains("Interrupted by your message"), "{shown}");
    assert!(
        !shown.contains("ls -la"),
        "the announced call never ran: {shown}"
    );
    assert!(shown.contains("only the unit tests"), "{shown}");
    assert!(shown.contains("Explain the bug"), "{shown}");
}

#[test]
fn a_discarded_reply_closed_by_message_end_stays_marked_with_its_reason() {
    // With the partial reply closed by message_end (aborted, saying it was discarded).
    let mut t = Transcript::new(Theme::dark());
    let mut partial = stream_partial(&mut t);
    partial.stop_reason = rho_protocol::StopReason::Aborted;
    partial.error_message = Some("Discarded: interrupted by a steering message".into());
    t.apply(&agent(AgentEvent::MessageEnd {
        message: AgentMessage::Assistant(partial).into(),
    }));
    let shown = steer(&mut t);
    assert!(shown.contains("Working on"), "{shown}");
    assert!(
        shown.contains("Discarded: interrupted by a steering message"),
        "{shown}"
    );
    assert!(
        !shown.contains("ls -la"),
        "the announced call never ran: {shown}"
    );
    assert!(shown.contains("only the unit tests"), "{shown}");
}

/// A session's `custom` entries take their place among the messages by time, show nothing
/// until their extension draws them, and follow the ctrl+o expansion.
#[test]
fn custom_entries_sit_between_the_messages_written_around_them() {
    let mut t = Transcript::new(Theme::dark());
    let mut first = UserMessage::text("first");
    first.timestamp = 1_000;
    let mut second = UserMessage::text("second");
    second.timestamp = 3_000;
    let messages = [AgentMessage::User(first), AgentMessage::User(second)];
    let card = |n: u32| json!({"type": "custom", "customType": "card", "data": {"n": n}});
    t.load_with_entries(&messages, vec![(2_000, card(1)), (4_000, card(2))]);
    let kinds: Vec<String> = t
        .views()
        .map(|v| match v {
            View::User(u) => u.text.clone(),
            View::Entry(e) => format!("card {}", e.entry["data"]["n"]),
            _ => "other".into(),
        })
        .collect();
    assert_eq!(kinds, ["first", "card 1", "second", "card 2"]);
    let Some(View::Entry(e)) = t.views().nth(1) else {
        panic!("an entry")
    };
    assert!(e.render(40, &Theme::dark()).is_empty(), "undrawn: nothing");
    assert!(!e.expanded);
    t.set_tools_expanded(true);
    let Some(View::Entry(e)) = t.views().nth(1) else {
        panic!("an entry")
    };
    assert!(e.expanded);
}

/// pi 1.6's boundary drafts: a shown `custom_message` entry appears as it is appended; a
/// hidden one does not.
#[test]
fn an_appended_custom_message_entry_is_shown_when_it_asks_to_be() {
    use rho_protocol::session::entry::{EntryData, SessionEntry};
    let mut t = Transcript::new(Theme::dark());
    let appended = |text: &str, display: bool| {
        SessionEvent::Session(SessionOnlyEvent::EntryAppended {
            entry: Box::new(SessionEntry {
                id: "e1".into(),
                parent_id: None,
                timestamp: "2026-01-01T00:00:00.000Z".into(),
                data: EntryData::CustomMessage {
                    custom_type: "review-reminder".into(),
                    content: rho_protocol::UserContent::Text(text.into()),
                    display,
                    details: None,
                },
            }),
        })
    };
    t.apply(&appended("hidden reminder", false));
    t.apply(&appended("Review the final diff.", true));
    let text = plain(t.lines(50));
    assert!(text.contains("Review the final diff."), "{text}");
    assert!(!text.contains("hidden reminder"), "{text}");
}
