//! One test per AC- rule of session-behavior.md §17, against the scripted provider. Where
//! rho follows decisions.md instead of pi 0.73.1 (D4 steering, event delivery through
//! channels) the test says so.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use futures_util::FutureExt;
use rho_agent::testing::{ScriptedProvider, ScriptedReply, Step};
use rho_agent::{
    AgentError, AgentEvent, AgentMessage, ExecutionMode, PromptInput, QueueMode, ToolCallDecision,
    ToolExecution, ToolResultOverride,
};
use rho_ai::{ContentBlock, ImageContent, ProviderError, StopReason, UserContent};
use serde_json::json;
use tokio::sync::Notify;

fn hang() -> ScriptedReply {
    ScriptedReply::new().with_text(&["par"]).step(Step::Hang)
}

#[tokio::test]
async fn ac_1_fresh_state_has_defaults_and_setters_store_copies() {
    let agent = rho_agent::Agent::default();
    agent.with_state(|s| {
        assert_eq!(s.system_prompt, "");
        assert_eq!(s.model.id, "unknown");
        assert_eq!(s.thinking_level, rho_ai::ThinkingLevel::Off);
        assert!(s.tools.is_empty() && s.messages.is_empty());
        assert!(!s.is_streaming);
        assert!(s.streaming_message.is_none());
        assert!(s.pending_tool_calls.is_empty());
        assert!(s.error_message.is_none());
    });
    let mut mine = vec![user("a")];
    agent.set_messages(mine.clone());
    mine.push(user("b"));
    assert_eq!(agent.messages().len(), 1);
}

#[tokio::test]
async fn ac_2_prompt_during_run_rejects_and_text_becomes_user_message() {
    let provider = ScriptedProvider::new();
    provider.push(hang());
    let agent = agent(&provider);
    let image = ImageContent {
        data: "aGk=".into(),
        mime_type: "image/png".into(),
    };
    let run = tokio::spawn(agent.prompt(PromptInput::Text("look".into(), vec![image.clone()])));
    let second = agent.prompt("again").await;
    assert_eq!(
        second.expect_err("busy").to_string(),
        "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion."
    );
    agent.abort();
    run.await.expect("joined").expect("first prompt ran");
    match &agent.messages()[0] {
        AgentMessage::User(u) => assert_eq!(
            u.content,
            UserContent::Blocks(vec![ContentBlock::text("look"), ContentBlock::Image(image)])
        ),
        other => panic!("expected user, got {}", other.role()),
    }
}

#[tokio::test]
async fn ac_3_continue_preconditions_and_sources() {
    let provider = ScriptedProvider::new();
    let agent = agent(&provider);
    assert_eq!(agent.continue_().await, Err(AgentError::NoMessages));
    assert_eq!(
        AgentError::NoMessages.to_string(),
        "No messages to continue from"
    );

    provider.push(ScriptedReply::text("one"));
    agent.prompt("hi").await.expect("ran");
    let err = agent.continue_().await.expect_err("assistant last");
    assert_eq!(
        err.to_string(),
        "Cannot continue from message role: assistant"
    );

    // Last message assistant + queued follow-up → the follow-up runs as the prompt.
    provider.push(ScriptedReply::text("two"));
    agent.follow_up(user("more"));
    let mut rx = agent.subscribe();
    agent.continue_().await.expect("continued");
    let l = labels(&run_events(&mut rx).await);
    assert_eq!(
        &l[..4],
        [
            "agent_start",
            "turn_start",
            "message_start:user",
            "message_end:user"
        ]
    );
    assert_eq!(
        request_texts(&provider.requests()[1])
            .last()
            .map(String::as_str),
        Some("user:more")
    );

    // Busy.
    provider.push(hang());
    agent.append_message(user("again"));
    let run = tokio::spawn(agent.continue_());
    provider.wait_for_calls(3).await;
    assert_eq!(
        agent.continue_().await.expect_err("busy").to_string(),
        "Agent is already processing. Wait for completion before continuing."
    );
    agent.abort();
    run.await.expect("joined").expect("ran");
}

#[tokio::test]
async fn ac_4_run_lifecycle_flags() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().fail("boom"));
    provider.push(hang());
    let agent = agent(&provider);
    agent.prompt("x").await.expect("ran");
    assert_eq!(
        agent.with_state(|s| s.error_message.clone()).as_deref(),
        Some("boom")
    );
    let mut rx = agent.subscribe();
    let run = tokio::spawn(agent.prompt("y"));
    until(&mut rx, |e| matches!(e, AgentEvent::MessageUpdate { .. })).await;
    agent.with_state(|s| {
        assert!(s.is_streaming);
        assert!(s.error_message.is_none(), "cleared at run start");
        let partial = s
            .streaming_message
            .as_ref()
            .and_then(|p| p.message())
            .expect("streaming");
        assert_eq!(partial.text(), "par");
    });
    agent.abort();
    assert!(
        agent.is_streaming(),
        "AB-2: still streaming right after abort()"
    );
    agent.wait_for_idle().await;
    agent.with_state(|s| {
        assert!(!s.is_streaming);
        assert!(s.streaming_message.is_none());
        assert!(s.pending_tool_calls.is_empty());
    });
    run.await.expect("joined").expect("ran");
}

#[tokio::test]
async fn ac_5_stream_function_error_fails_the_run_with_only_agent_end() {
    let agent = rho_agent::Agent::new(rho_agent::AgentOptions::with_stream_fn(Arc::new(
        |_, _, _| Err(ProviderError::NoApiKey("lab".into())),
    )));
    agent.set_model(rho_agent::testing::scripted_model());
    let mut rx = agent.subscribe();
    agent.prompt("hi").await.expect("accepted");
    let events = run_events(&mut rx).await;
    assert_eq!(
        labels(&events),
        [
            "agent_start",
            "turn_start",
            "message_start:user",
            "message_end:user",
            "agent_end"
        ]
    );
    let AgentEvent::AgentEnd { messages } = &*events[4] else {
        panic!("agent_end")
    };
    let a = messages[0].as_assistant().expect("assistant");
    assert_eq!(messages.len(), 1);
    assert_eq!(a.content, vec![ContentBlock::text("")]);
    assert_eq!(a.stop_reason, StopReason::Error);
    assert_eq!(
        a.error_message.as_deref(),
        Some("No API key for provider: lab")
    );
    assert_eq!(
        (a.api.as_str(), a.model.as_str()),
        ("scripted", "scripted-model")
    );
    assert_eq!(a.usage, rho_ai::Usage::default());
    assert_eq!(
        agent.with_state(|s| s.error_message.clone()).as_deref(),
        Some("No API key for provider: lab")
    );
    assert_eq!(agent.messages().len(), 2, "kept in state");
}

#[tokio::test]
async fn ac_6_prompt_and_continuation_event_prefixes() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("a"));
    provider.push(ScriptedReply::text("b"));
    let agent = agent(&provider);
    let mut rx = agent.subscribe();
    agent.prompt(vec![user("1"), user("2")]).await.expect("ran");
    let l = labels(&run_events(&mut rx).await);
    assert_eq!(
        &l[..7],
        [
            "agent_start",
            "turn_start",
            "message_start:user",
            "message_end:user",
            "message_start:user",
            "message_end:user",
            "message_start:assistant"
        ]
    );
    agent.append_message(user("3"));
    agent.continue_().await.expect("continued");
    let l = labels(&run_events(&mut rx).await);
    assert_eq!(
        &l[..3],
        ["agent_start", "turn_start", "message_start:assistant"]
    );
}

#[tokio::test]
async fn ac_7_tool_turn_then_text_makes_two_turns() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[(
        "c1",
        "echo",
        json!({"x": 1}),
    )]));
    provider.push(ScriptedReply::text("done"));
    let agent = agent(&provider);
    agent.set_tools(vec![TestTool::new("echo", Behavior::Echo).arc()]);
    let mut rx = agent.subscribe();
    agent.prompt("go").await.expect("ran");
    let events = run_events(&mut rx).await;
    let t = types(&events);
    assert_eq!(t.iter().filter(|t| **t == "turn_start").count(), 2);
    assert_eq!(t.iter().filter(|t| **t == "turn_end").count(), 2);
    let AgentEvent::AgentEnd { messages } = &**events.last().expect("end") else {
        panic!()
    };
    let roles: Vec<&str> = messages.iter().map(|m| m.role()).collect();
    assert_eq!(roles, ["user", "assistant", "toolResult", "assistant"]);
}

#[tokio::test]
async fn ac_8_updates_follow_provider_deltas_and_message_end_is_in_state() {
    let provider = ScriptedProvider::new();
    provider.push(
        ScriptedReply::new()
            .with_thinking(&["hm"])
            .with_text(&["Hel", "lo"])
            .with_tool_call("c1", "echo", &json!({"x": 2})),
    );
    let agent = agent(&provider);
    let mut rx = agent.subscribe();
    agent.prompt("x").await.expect("ran");
    let events = run_events(&mut rx).await;
    let updates: Vec<&str> = events
        .iter()
        .filter_map(|e| match &**e {
            AgentEvent::MessageUpdate {
                assistant_message_event,
                ..
            } => Some(assistant_message_event.type_name()),
            _ => None,
        })
        .collect();
    // thinking 3 + text 4 + toolcall 3 provider delta events, none of start/done.
    assert_eq!(
        updates,
        [
            "thinking_start",
            "thinking_delta",
            "thinking_end",
            "text_start",
            "text_delta",
            "text_delta",
            "text_end",
            "toolcall_start",
            "toolcall_delta",
            "toolcall_end"
        ]
    );
    let end = events
        .iter()
        .find_map(|e| match &**e {
            AgentEvent::MessageEnd { message } if message.role() == "assistant" => {
                Some(message.clone())
            }
            _ => None,
        })
        .expect("assistant end");
    assert_eq!(agent.messages()[1], end);
    let start = events
        .iter()
        .find_map(|e| match &**e {
            AgentEvent::MessageStart { message } if message.role() == "assistant" => {
                message.as_assistant().cloned()
            }
            _ => None,
        })
        .expect("assistant start");
    assert!(
        start.content.is_empty(),
        "message_start carries the empty partial"
    );
}

#[tokio::test]
async fn ac_9_transform_context_shapes_the_request_not_the_state() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let agent = agent_with(&provider, |o| {
        o.transform_context = Some(Arc::new(|mut msgs, _cancel| {
            async move { Ok(msgs.split_off(msgs.len() - 1)) }.boxed()
        }))
    });
    agent.set_system_prompt("be brief");
    agent.set_tools(vec![TestTool::new("echo", Behavior::Echo).arc()]);
    agent.set_messages(vec![user("old"), user("older")]);
    agent.prompt("new").await.expect("ran");
    let req = &provider.requests()[0];
    assert_eq!(request_texts(req), ["user:new"]);
    assert_eq!(req.system_prompt.as_deref(), Some("be brief"));
    assert_eq!(req.tools.len(), 1);
    assert_eq!(agent.messages().len(), 4, "state keeps everything");
}

#[tokio::test]
async fn ac_10_error_reply_executes_no_tools_and_polls_no_queue() {
    let provider = ScriptedProvider::new();
    provider.push(
        ScriptedReply::new()
            .with_tool_call("c1", "echo", &json!({}))
            .fail("500 upstream"),
    );
    let agent = agent(&provider);
    let tool = TestTool::new("echo", Behavior::Echo);
    agent.set_tools(vec![tool.clone().arc()]);
    agent.follow_up(user("later"));
    let mut rx = agent.subscribe();
    agent.prompt("x").await.expect("ran");
    let events = run_events(&mut rx).await;
    assert!(!types(&events).contains(&"tool_execution_start"));
    let l = labels(&events);
    assert_eq!(&l[l.len() - 2..], ["turn_end", "agent_end"]);
    assert!(tool.executions().is_empty());
    assert!(agent.has_queued_messages(), "Q-9: follow-up stays queued");
    assert_eq!(provider.call_count(), 1);
}

fn two_calls() -> ScriptedReply {
    ScriptedReply::tool_calls(&[("c1", "a", json!({})), ("c2", "b", json!({}))])
}

const SEQUENTIAL: [&str; 8] = [
    "tool_execution_start:c1",
    "tool_execution_end:c1",
    "message_start:toolResult",
    "message_end:toolResult",
    "tool_execution_start:c2",
    "tool_execution_end:c2",
    "message_start:toolResult",
    "message_end:toolResult",
];

fn tool_slice(l: &[String]) -> Vec<String> {
    l.iter()
        .skip_while(|s| !s.starts_with("tool_execution_start"))
        .take_while(|s| *s != "turn_end")
        .cloned()
        .collect()
}

#[tokio::test]
async fn ac_11_one_sequential_tool_makes_the_batch_sequential() {
    let provider = ScriptedProvider::new();
    provider.push(two_calls());
    provider.push(ScriptedReply::text("ok"));
    let agent = agent(&provider);
    let mut b = TestTool::new("b", Behavior::Echo);
    b.mode = ExecutionMode::Sequential;
    agent.set_tools(vec![TestTool::new("a", Behavior::Echo).arc(), b.arc()]);
    let mut rx = agent.subscribe();
    agent.prompt("x").await.expect("ran");
    assert_eq!(tool_slice(&labels(&run_events(&mut rx).await)), SEQUENTIAL);
}

#[tokio::test]
async fn ac_12_sequential_option_runs_each_call_to_its_result() {
    let provider = ScriptedProvider::new();
    provider.push(two_calls());
    provider.push(ScriptedReply::text("ok"));
    let agent = agent_with(&provider, |o| o.tool_execution = ToolExecution::Sequential);
    agent.set_tools(vec![
        TestTool::new("a", Behavior::Echo).arc(),
        TestTool::new("b", Behavior::Echo).arc(),
    ]);
    let mut rx = agent.subscribe();
    agent.prompt("x").await.expect("ran");
    assert_eq!(tool_slice(&labels(&run_events(&mut rx).await)), SEQUENTIAL);
}

#[tokio::test]
async fn ac_13_parallel_immediate_results_end_right_after_their_start() {
    let provider = ScriptedProvider::new();
    provider.push(two_calls());
    provider.push(ScriptedReply::text("ok"));
    let agent = agent_with(&provider, |o| {
        o.before_tool_call = Some(Arc::new(|_| {
            async {
                Ok(Some(ToolCallDecision {
                    block: true,
                    reason: None,
                }))
            }
            .boxed()
        }))
    });
    agent.set_tools(vec![
        TestTool::new("a", Behavior::Echo).arc(),
        TestTool::new("b", Behavior::Echo).arc(),
    ]);
    let mut rx = agent.subscribe();
    agent.prompt("x").await.expect("ran");
    assert_eq!(
        tool_slice(&labels(&run_events(&mut rx).await)),
        [
            "tool_execution_start:c1",
            "tool_execution_end:c1",
            "tool_execution_start:c2",
            "tool_execution_end:c2",
            "message_start:toolResult",
            "message_end:toolResult",
            "message_start:toolResult",
            "message_end:toolResult",
        ]
    );
}

fn result_texts(agent: &rho_agent::Agent) -> Vec<(String, bool)> {
    agent
        .messages()
        .iter()
        .filter_map(|m| match m {
            AgentMessage::ToolResult(t) => {
                Some((rho_ai::message::join_text(&t.content), t.is_error))
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn ac_14_preflight_errors_become_error_results() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[
        ("c1", "nope", json!({})),
        ("c2", "a", json!({"x": "not a number"})),
        ("c3", "a", json!({"x": 1})),
        ("c4", "a", json!({"x": 2})),
        ("c5", "a", json!({"x": 3})),
    ]));
    provider.push(ScriptedReply::text("ok"));
    let agent = agent_with(&provider, |o| {
        o.before_tool_call = Some(Arc::new(|ctx| {
            async move {
                match ctx.args["x"].as_i64() {
                    Some(1) => Ok(Some(ToolCallDecision {
                        block: true,
                        reason: Some("no ones".into()),
                    })),
                    Some(2) => Ok(Some(ToolCallDecision {
                        block: true,
                        reason: None,
                    })),
                    _ => Err("hook broke".to_string()),
                }
            }
            .boxed()
        }))
    });
    agent.set_tools(vec![TestTool::new("a", Behavior::Echo).arc()]);
    agent.prompt("x").await.expect("ran");
    let results = result_texts(&agent);
    assert_eq!(results[0], ("Tool nope not found".into(), true));
    assert!(results[1]
        .0
        .starts_with("Validation failed for tool \"a\":\n  - x: must be number"));
    assert_eq!(results[2], ("no ones".into(), true));
    assert_eq!(results[3], ("Tool execution was blocked".into(), true));
    assert_eq!(results[4], ("hook broke".into(), true));
    let AgentMessage::ToolResult(t) = &agent.messages()[2] else {
        panic!()
    };
    assert_eq!(t.details, Some(json!({})));
}

#[tokio::test]
async fn ac_15_progress_updates_precede_the_end_and_throws_become_errors() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[
        ("c1", "p", json!({"x": 5})),
        ("c2", "f", json!({})),
    ]));
    provider.push(ScriptedReply::text("ok"));
    let agent = agent(&provider);
    agent.set_tools(vec![
        TestTool::new("p", Behavior::Progress).arc(),
        TestTool::new("f", Behavior::Fail("disk full".into())).arc(),
    ]);
    let mut rx = agent.subscribe();
    agent.prompt("x").await.expect("ran");
    let events = run_events(&mut rx).await;
    let c1: Vec<String> = events
        .iter()
        .filter_map(|e| match &**e {
            AgentEvent::ToolExecutionUpdate {
                tool_call_id,
                args,
                partial_result,
                ..
            } => {
                assert_eq!(args, &json!({"x": 5}));
                Some(format!(
                    "{tool_call_id}:{}",
                    rho_ai::message::join_text(&partial_result.content)
                ))
            }
            AgentEvent::ToolExecutionEnd { tool_call_id, .. } if tool_call_id == "c1" => {
                Some("end".into())
            }
            _ => None,
        })
        .collect();
    assert_eq!(c1, ["c1:1", "c1:1 2", "end"]);
    assert_eq!(result_texts(&agent)[1], ("disk full".into(), true));
}

#[tokio::test]
async fn ac_16_after_tool_call_overrides_field_by_field() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[("c1", "a", json!({"x": 1}))]));
    provider.push(ScriptedReply::text("ok"));
    let agent = agent_with(&provider, |o| {
        o.after_tool_call = Some(Arc::new(|ctx| {
            assert!(!ctx.is_error);
            async {
                Ok(Some(ToolResultOverride {
                    is_error: Some(true),
                    ..Default::default()
                }))
            }
            .boxed()
        }))
    });
    agent.set_tools(vec![TestTool::new("a", Behavior::Echo).arc()]);
    agent.prompt("x").await.expect("ran");
    assert_eq!(result_texts(&agent)[0], ("echo {\"x\":1}".into(), true));
}

#[tokio::test]
async fn ac_17_results_in_call_order_when_tools_finish_in_reverse() {
    let provider = ScriptedProvider::new();
    provider.push(two_calls());
    provider.push(ScriptedReply::text("ok"));
    let agent = agent(&provider);
    let (ga, gb) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let a = TestTool::new("a", Behavior::Gate(ga.clone()));
    let b = TestTool::new("b", Behavior::Gate(gb.clone()));
    agent.set_tools(vec![a.clone().arc(), b.clone().arc()]);
    let mut rx = agent.subscribe();
    let run = tokio::spawn(agent.prompt("x"));
    a.entered.notified().await;
    b.entered.notified().await;
    gb.notify_one();
    until(&mut rx, |e| {
        matches!(e, AgentEvent::ToolExecutionEnd { .. })
    })
    .await;
    ga.notify_one();
    run.await.expect("joined").expect("ran");
    let ids: Vec<String> = agent
        .messages()
        .iter()
        .filter_map(|m| match m {
            AgentMessage::ToolResult(t) => Some(t.tool_call_id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(ids, ["c1", "c2"]);
}

#[tokio::test]
async fn ac_18_all_terminating_results_end_the_run_without_a_request() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[("c1", "a", json!({}))]));
    let agent = agent_with(&provider, |o| {
        o.after_tool_call = Some(Arc::new(|_| {
            async {
                Ok(Some(ToolResultOverride {
                    terminate: Some(true),
                    ..Default::default()
                }))
            }
            .boxed()
        }))
    });
    agent.set_tools(vec![TestTool::new("a", Behavior::Echo).arc()]);
    let mut rx = agent.subscribe();
    agent.prompt("x").await.expect("ran");
    let l = labels(&run_events(&mut rx).await);
    assert_eq!(&l[l.len() - 2..], ["turn_end", "agent_end"]);
    assert_eq!(provider.call_count(), 1);
}

#[tokio::test]
async fn ac_19_should_stop_after_turn_ends_the_run() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[("c1", "a", json!({}))]));
    let agent = agent_with(&provider, |o| {
        o.should_stop_after_turn = Some(Arc::new(|_, _| true))
    });
    agent.set_tools(vec![TestTool::new("a", Behavior::Echo).arc()]);
    agent.follow_up(user("f"));
    let mut rx = agent.subscribe();
    agent.prompt("x").await.expect("ran");
    let l = labels(&run_events(&mut rx).await);
    assert_eq!(&l[l.len() - 2..], ["turn_end", "agent_end"]);
    assert_eq!(provider.call_count(), 1);
    assert!(agent.has_queued_messages(), "no queue poll");
}

#[tokio::test]
async fn ac_20_steering_during_tools_skips_unstarted_calls_then_is_delivered() {
    // D4 (rho): the running tool finishes, calls not yet started are skipped.
    let provider = ScriptedProvider::new();
    provider.push(two_calls());
    provider.push(ScriptedReply::text("ok"));
    let agent = agent_with(&provider, |o| o.tool_execution = ToolExecution::Sequential);
    let gate = Arc::new(Notify::new());
    let a = TestTool::new("a", Behavior::Gate(gate.clone()));
    let b = TestTool::new("b", Behavior::Echo);
    agent.set_tools(vec![a.clone().arc(), b.clone().arc()]);
    let run = tokio::spawn(agent.prompt("x"));
    a.entered.notified().await;
    agent.steer(user("stop that"));
    gate.notify_one();
    run.await.expect("joined").expect("ran");
    assert_eq!(
        result_texts(&agent),
        [
            ("released".to_string(), false),
            (rho_agent::SKIPPED_TEXT.to_string(), true)
        ]
    );
    assert!(b.executions().is_empty());
    let req = request_texts(&provider.requests()[1]);
    assert_eq!(
        &req[req.len() - 3..],
        [
            "toolResult:released",
            "toolResult:Skipped due to queued user message.",
            "user:stop that"
        ]
    );
}

#[tokio::test]
async fn ac_21_queue_modes_and_queue_operations() {
    for (mode, requests) in [(QueueMode::All, 1), (QueueMode::OneAtATime, 2)] {
        let provider = ScriptedProvider::new();
        provider.push(ScriptedReply::text("1"));
        provider.push(ScriptedReply::text("2"));
        let agent = agent(&provider);
        agent.set_steering_mode(mode);
        agent.steer(user("s1"));
        agent.steer(user("s2"));
        assert!(agent.has_queued_messages());
        agent.prompt("p").await.expect("ran");
        assert_eq!(provider.call_count(), requests, "mode {mode:?}");
        assert_eq!(
            request_texts(provider.requests().last().expect("request"))
                .last()
                .map(String::as_str),
            Some("user:s2")
        );
    }
    let agent = rho_agent::Agent::default();
    agent.steer(user("s"));
    agent.follow_up(user("f"));
    assert_eq!(agent.clear_steering_queue().len(), 1);
    assert!(agent.has_queued_messages());
    agent.follow_up(user("g"));
    assert_eq!(agent.clear_follow_up_queue().len(), 2);
    agent.steer(user("s"));
    agent.clear_all_queues();
    assert!(!agent.has_queued_messages());
}

#[tokio::test]
async fn ac_22_signal_exists_during_a_run_and_reaches_tools() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[("c1", "a", json!({}))]));
    let agent = agent(&provider);
    assert!(agent.signal().is_none());
    let a = TestTool::new("a", Behavior::Gate(Arc::new(Notify::new())));
    agent.set_tools(vec![a.clone().arc()]);
    let run = tokio::spawn(agent.prompt("x"));
    a.entered.notified().await;
    let signal = agent.signal().expect("signal during run");
    agent.abort();
    assert!(signal.is_cancelled());
    run.await.expect("joined").expect("ran");
    assert_eq!(
        result_texts(&agent),
        [("Command aborted".to_string(), true)]
    );
    assert!(agent.signal().is_none());
}

#[tokio::test]
async fn ac_23_wait_for_idle_resolves_at_once_when_idle() {
    let agent = rho_agent::Agent::default();
    tokio::time::timeout(Duration::from_millis(100), agent.wait_for_idle())
        .await
        .expect("immediate");
}

#[tokio::test]
async fn ac_24_every_subscriber_gets_every_event_in_order_despite_slow_or_panicking_peers() {
    // rho delivers through unbounded channels (brief item 5): a subscriber never waits for
    // another, and one that panics only loses its own receiver.
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("hello"));
    provider.push(ScriptedReply::text("again"));
    let agent = agent(&provider);
    let mut slow = agent.subscribe();
    let mut fast = agent.subscribe();
    let mut doomed = agent.subscribe();
    let panicker = tokio::spawn(async move {
        doomed.recv().await;
        panic!("subscriber bug");
    });
    agent.prompt("x").await.expect("ran");
    assert!(panicker.await.is_err(), "the subscriber task panicked");
    // `slow` has not read a single event while the run went on to its end.
    let fast_events = run_events(&mut fast).await;
    let slow_events = run_events(&mut slow).await;
    assert_eq!(types(&fast_events), types(&slow_events));
    assert_eq!(
        fast_events.first().map(|e| e.type_name()),
        Some("agent_start")
    );
    agent.prompt("y").await.expect("second run unaffected");
    assert_eq!(types(&run_events(&mut fast).await).len(), fast_events.len());
}

#[tokio::test]
async fn ac_25_turn_end_error_sets_state_error_message() {
    let provider = ScriptedProvider::new();
    provider.push(
        ScriptedReply::new()
            .with_text(&["half"])
            .fail("502 bad gateway"),
    );
    let agent = agent(&provider);
    agent.prompt("x").await.expect("ran");
    assert_eq!(
        agent.with_state(|s| s.error_message.clone()).as_deref(),
        Some("502 bad gateway")
    );
    let last = agent.messages().pop().expect("assistant");
    assert_eq!(
        last.as_assistant().map(|a| a.stop_reason),
        Some(StopReason::Error)
    );
}

#[tokio::test]
async fn ac_26_reset_clears_messages_and_queues() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("a"));
    let agent = agent(&provider);
    agent.prompt("x").await.expect("ran");
    agent.steer(user("s"));
    agent.follow_up(user("f"));
    agent.reset();
    assert!(agent.messages().is_empty());
    assert!(!agent.has_queued_messages());
    assert!(agent.with_state(|s| s.error_message.is_none()));
}

#[tokio::test]
async fn ac_27_default_conversion_keeps_only_llm_roles() {
    let custom = AgentMessage::Custom(rho_agent::CustomMessage {
        custom_type: "note".into(),
        content: UserContent::Text("secret note".into()),
        display: true,
        details: None,
        timestamp: 1,
    });
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("a"));
    provider.push(ScriptedReply::text("b"));
    let agent = agent(&provider);
    agent.set_messages(vec![custom.clone()]);
    agent.prompt("x").await.expect("ran");
    assert_eq!(request_texts(&provider.requests()[0]), ["user:x"]);
    // The session's conversion (§5.5) is an override.
    agent.update_options(|o| o.convert_to_llm = Some(Arc::new(rho_agent::convert_to_llm)));
    agent.prompt("y").await.expect("ran");
    assert_eq!(
        request_texts(&provider.requests()[1])[0],
        "user:secret note"
    );
}

#[tokio::test]
async fn ac_28_defaults_are_one_at_a_time_and_parallel() {
    let agent = rho_agent::Agent::default();
    assert_eq!(agent.steering_mode(), QueueMode::OneAtATime);
    assert_eq!(agent.follow_up_mode(), QueueMode::OneAtATime);
    assert_eq!(
        rho_agent::AgentOptions::default().tool_execution,
        ToolExecution::Parallel
    );
}
