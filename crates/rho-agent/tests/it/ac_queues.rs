//! AC-21..AC-28 (queues, abort signal, idle, subscribers, reset, conversion, defaults):
//! one test per rule of session-behavior.md §17 (index: docs/rules.md), against the scripted provider. Where rho
//! follows decisions.md instead of pi 0.73.1 (D4 steering, channel delivery) the test says so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use rho_agent::{AgentEvent, AgentMessage, QueueMode, ToolExecution};
use rho_ai::{StopReason, UserContent};
use rho_testkit::scripted::{ScriptedProvider, ScriptedReply, Step};
use serde_json::json;
use tokio::sync::Notify;

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
    // AB-6: an idle abort emits nothing and keeps the queues.
    let mut rx = agent.subscribe();
    agent.follow_up(user("f"));
    agent.abort();
    assert!(rx.try_recv().is_none());
    assert!(agent.has_queued_messages());
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
    struct SessionConversion;
    impl rho_agent::SessionHooks for SessionConversion {
        fn convert_to_llm(
            &self,
            messages: &[Arc<rho_agent::AgentMessage>],
        ) -> Vec<rho_ai::Message> {
            rho_agent::convert_to_llm(messages)
        }
    }
    agent.update_options(|o| o.hooks = Arc::new(SessionConversion));
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

/// Starts a prompt whose reply hangs, steers `s1` into it, and waits until the answer to
/// `s1` (the provider's second reply) is under way: streaming, or running its tools.
async fn steer_into_a_run(
    agent: &rho_agent::Agent,
    provider: &ScriptedProvider,
) -> tokio::task::JoinHandle<Result<(), rho_agent::AgentError>> {
    let mut rx = agent.subscribe();
    let run = tokio::spawn(agent.prompt("p"));
    until(&mut rx, |e| matches!(e, AgentEvent::MessageUpdate { .. })).await;
    agent.steer(user("s1"));
    until(&mut rx, |e| {
        matches!(e, AgentEvent::MessageStart { .. }) && provider.call_count() == 2
    })
    .await;
    run
}

/// pi's `one-at-a-time` is "one steering message per completed assistant turn": steering
/// sent while the answer to a delivered steering message streams waits for that answer, so
/// two steers sent together each get their own model call. In `all` mode the later steer
/// interrupts that answer, as D4 says.
#[tokio::test]
async fn one_at_a_time_steering_waits_for_the_answer_to_the_one_delivered() {
    for (mode, answered) in [(QueueMode::OneAtATime, true), (QueueMode::All, false)] {
        let provider = ScriptedProvider::new();
        provider.push(
            ScriptedReply::new()
                .with_text(&["working"])
                .step(Step::Hang),
        );
        let gate = Arc::new(Notify::new());
        provider.push(
            ScriptedReply::new()
                .with_text(&["on s1"])
                .step(Step::Gate(gate.clone()))
                .with_text(&["done"]),
        );
        provider.push(ScriptedReply::text("on s2"));
        let agent = agent(&provider);
        agent.set_steering_mode(mode);
        let run = steer_into_a_run(&agent, &provider).await;
        agent.steer(user("s2"));
        gate.notify_one();
        run.await.expect("joined").expect("ran");
        let requests = provider.requests();
        assert_eq!(requests.len(), 3, "mode {mode:?}");
        assert_eq!(request_texts(&requests[1]), ["user:p", "user:s1"]);
        let third = request_texts(&requests[2]);
        let expected: &[&str] = if answered {
            &["user:p", "user:s1", "assistant:on s1\ndone", "user:s2"]
        } else {
            &["user:p", "user:s1", "user:s2"]
        };
        assert_eq!(third, expected, "mode {mode:?}");
    }
}

/// The same for the tool calls of that answer: steering sent while they run skips none of
/// them in `one-at-a-time` mode; it is delivered once the turn is complete.
#[tokio::test]
async fn one_at_a_time_steering_lets_the_answer_finish_its_tool_calls() {
    let provider = ScriptedProvider::new();
    provider.push(
        ScriptedReply::new()
            .with_text(&["working"])
            .step(Step::Hang),
    );
    provider.push(ScriptedReply::tool_calls(&[
        ("c1", "a", json!({})),
        ("c2", "b", json!({})),
    ]));
    provider.push(ScriptedReply::text("on s2"));
    let agent = agent_with(&provider, |o| o.tool_execution = ToolExecution::Sequential);
    let gate = Arc::new(Notify::new());
    let a = TestTool::new("a", Behavior::Gate(gate.clone()));
    let b = TestTool::new("b", Behavior::Echo);
    agent.set_tools(vec![a.clone().arc(), b.clone().arc()]);
    let run = steer_into_a_run(&agent, &provider).await;
    a.entered.notified().await;
    agent.steer(user("s2"));
    gate.notify_one();
    run.await.expect("joined").expect("ran");
    assert_eq!(b.executions().len(), 1, "the second call ran");
    let third = request_texts(&provider.requests()[2]);
    assert_eq!(
        &third[third.len() - 3..],
        ["toolResult:released", "toolResult:echo {}", "user:s2"]
    );
}
