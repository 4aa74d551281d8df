//! Whole-run scenarios: the event sequence of a two-tool turn, steering (D4), follow-ups,
//! abort (D6) during streaming and during a slow tool, invalid tool arguments, and the
//! JSON of the event stream.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use rho_agent::{AgentEvent, AgentMessage, ToolExecution};
use rho_ai::StopReason;
use rho_testkit::scripted::{ScriptedProvider, ScriptedReply, Step};
use serde_json::json;
use tokio::sync::Notify;

const ABORT_BOUND: Duration = Duration::from_millis(100);

fn gated(name: &str) -> (TestTool, Arc<Notify>) {
    let gate = Arc::new(Notify::new());
    (TestTool::new(name, Behavior::Gate(gate.clone())), gate)
}

#[tokio::test]
async fn two_tool_turn_event_sequence() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[
        ("c1", "a", json!({"x": 1})),
        ("c2", "b", json!({"x": 2})),
    ]));
    provider.push(ScriptedReply::text("both done"));
    let agent = agent(&provider);
    let (a, ga) = gated("a");
    let (b, gb) = gated("b");
    agent.set_tools(vec![a.clone().arc(), b.clone().arc()]);
    let all = collect_run(&agent);
    let mut waiter = agent.subscribe();
    let run = tokio::spawn(agent.prompt("go"));
    // Both are running at once: b is released first while a is still blocked.
    a.entered.notified().await;
    b.entered.notified().await;
    gb.notify_one();
    until(&mut waiter, |e| {
        matches!(e, AgentEvent::ToolExecutionEnd { .. })
    })
    .await;
    ga.notify_one();
    run.await.expect("joined").expect("ran");
    let events = all.await.expect("collected");
    assert_eq!(
        labels(&events),
        [
            "agent_start",
            "turn_start",
            "message_start:user",
            "message_end:user",
            "message_start:assistant",
            "message_end:assistant",
            "tool_execution_start:c1",
            "tool_execution_start:c2",
            "tool_execution_end:c2",
            "tool_execution_end:c1",
            "message_start:toolResult",
            "message_end:toolResult",
            "message_start:toolResult",
            "message_end:toolResult",
            "turn_end",
            "turn_start",
            "message_start:assistant",
            "message_end:assistant",
            "turn_end",
            "agent_end",
        ]
    );
    let tool_results = events
        .iter()
        .find_map(|e| match &**e {
            AgentEvent::TurnEnd { tool_results, .. } => Some(tool_results.clone()),
            _ => None,
        })
        .expect("turn_end");
    let ids: Vec<&str> = tool_results
        .iter()
        .map(|t| t.tool_call_id.as_str())
        .collect();
    assert_eq!(ids, ["c1", "c2"]);
}

#[tokio::test]
async fn steering_interrupts_a_streaming_reply_and_discards_the_partial() {
    let provider = ScriptedProvider::new();
    provider.push(
        ScriptedReply::new()
            .with_text(&["I will now"])
            .step(Step::Hang),
    );
    provider.push(ScriptedReply::text("ok, only tests"));
    let agent = agent(&provider);
    let all = collect_run(&agent);
    let mut waiter = agent.subscribe();
    let run = tokio::spawn(agent.prompt("do everything"));
    until(&mut waiter, |e| {
        matches!(e, AgentEvent::MessageUpdate { .. })
    })
    .await;
    agent.steer(user("only the tests"));
    run.await.expect("joined").expect("ran");
    let all_events = all.await.expect("collected");
    let l = labels(&all_events);
    assert_eq!(
        l,
        [
            "agent_start",
            "turn_start",
            "message_start:user",
            "message_end:user",
            "message_start:assistant",
            "message_end:assistant",
            "turn_end",
            "turn_start",
            "message_start:user",
            "message_end:user",
            "message_start:assistant",
            "message_end:assistant",
            "turn_end",
            "agent_end",
        ],
        "the partial is ended and its turn closed, so the stream stays well-formed"
    );
    let events = all_events;
    let discarded = events
        .iter()
        .find_map(|e| match &**e {
            AgentEvent::MessageEnd { message } => message.as_assistant().cloned(),
            _ => None,
        })
        .expect("the partial's message_end");
    assert_eq!(discarded.stop_reason, rho_ai::StopReason::Aborted);
    assert!(rho_agent::is_discarded(&discarded));
    assert_eq!(discarded.text(), "I will now");
    let turn_end = events
        .iter()
        .find_map(|e| match &**e {
            AgentEvent::TurnEnd { message, .. } => Some(message.clone()),
            _ => None,
        })
        .expect("the interrupted turn's turn_end");
    assert_eq!(turn_end, rho_agent::AgentMessage::Assistant(discarded));
    let req = request_texts(&provider.requests()[1]);
    assert_eq!(req, ["user:do everything", "user:only the tests"]);
    let roles: Vec<&str> = agent.messages().iter().map(|m| m.role()).collect();
    assert_eq!(roles, ["user", "user", "assistant"]);
}

#[tokio::test]
async fn steering_mid_tool_run_skips_the_rest() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[
        ("c1", "a", json!({})),
        ("c2", "b", json!({})),
        ("c3", "b", json!({})),
    ]));
    provider.push(ScriptedReply::text("ok"));
    let agent = agent_with(&provider, |o| o.tool_execution = ToolExecution::Sequential);
    let (a, gate) = gated("a");
    let b = TestTool::new("b", Behavior::Echo);
    agent.set_tools(vec![a.clone().arc(), b.clone().arc()]);
    let all = collect_run(&agent);
    let run = tokio::spawn(agent.prompt("x"));
    a.entered.notified().await;
    agent.steer(user("change of plan"));
    gate.notify_one();
    run.await.expect("joined").expect("ran");
    let events = all.await.expect("collected");
    let ends: Vec<(String, bool)> = events
        .iter()
        .filter_map(|e| match &**e {
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                is_error,
                result,
                ..
            } => Some((
                format!(
                    "{tool_call_id}:{}",
                    rho_ai::message::join_text(&result.content)
                ),
                *is_error,
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        ends,
        [
            ("c1:released".to_string(), false),
            ("c2:Skipped due to queued user message.".to_string(), true),
            ("c3:Skipped due to queued user message.".to_string(), true),
        ]
    );
    assert!(b.executions().is_empty(), "skipped calls never execute");
    let l = labels(&events);
    let steer_at = l
        .iter()
        .rposition(|s| s == "message_start:user")
        .expect("steer");
    assert_eq!(&l[steer_at - 2..steer_at], ["turn_end", "turn_start"]);
    let req = request_texts(&provider.requests()[1]);
    assert_eq!(req.last().map(String::as_str), Some("user:change of plan"));
}

#[tokio::test]
async fn parallel_tools_already_running_all_finish_before_steering() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[
        ("c1", "a", json!({})),
        ("c2", "b", json!({})),
    ]));
    provider.push(ScriptedReply::text("ok"));
    let agent = agent(&provider);
    let (a, ga) = gated("a");
    let (b, gb) = gated("b");
    agent.set_tools(vec![a.clone().arc(), b.clone().arc()]);
    let run = tokio::spawn(agent.prompt("x"));
    a.entered.notified().await;
    b.entered.notified().await;
    agent.steer(user("s"));
    ga.notify_one();
    gb.notify_one();
    run.await.expect("joined").expect("ran");
    let req = request_texts(&provider.requests()[1]);
    assert_eq!(
        &req[req.len() - 3..],
        ["toolResult:released", "toolResult:released", "user:s"]
    );
}

#[tokio::test]
async fn follow_up_is_delivered_only_after_the_run_would_stop() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[("c1", "a", json!({}))]));
    provider.push(ScriptedReply::text("tool turn done"));
    provider.push(ScriptedReply::text("follow-up answered"));
    let agent = agent(&provider);
    let (a, gate) = gated("a");
    agent.set_tools(vec![a.clone().arc()]);
    let all = collect_run(&agent);
    let run = tokio::spawn(agent.prompt("x"));
    a.entered.notified().await;
    agent.follow_up(user("and then?"));
    gate.notify_one();
    run.await.expect("joined").expect("ran");
    let l = labels(&all.await.expect("collected"));
    assert_eq!(l.iter().filter(|s| *s == "agent_start").count(), 1);
    let reqs = provider.requests();
    assert_eq!(reqs.len(), 3);
    assert!(!request_texts(&reqs[1]).contains(&"user:and then?".to_string()));
    assert_eq!(
        &request_texts(&reqs[2])[3..],
        ["assistant:tool turn done", "user:and then?"]
    );
}

#[tokio::test]
async fn abort_during_streaming_stops_within_100ms() {
    let provider = ScriptedProvider::new();
    provider.push(
        ScriptedReply::new()
            .with_text(&["partial"])
            .step(Step::Hang),
    );
    let agent = agent(&provider);
    let all = collect_run(&agent);
    let mut waiter = agent.subscribe();
    let run = tokio::spawn(agent.prompt("x"));
    until(&mut waiter, |e| {
        matches!(e, AgentEvent::MessageUpdate { .. })
    })
    .await;
    agent.abort();
    tokio::time::timeout(
        ABORT_BOUND,
        until(&mut waiter, |e| matches!(e, AgentEvent::AgentEnd { .. })),
    )
    .await
    .expect("agent_end within 100 ms of abort()");
    tokio::time::timeout(ABORT_BOUND, agent.wait_for_idle())
        .await
        .expect("idle");
    run.await.expect("joined").expect("ran");
    let l = labels(&all.await.expect("collected"));
    assert_eq!(
        &l[l.len() - 3..],
        ["message_end:assistant", "turn_end", "agent_end"]
    );
    let msgs = agent.messages();
    let a = msgs[1].as_assistant().expect("assistant kept");
    assert_eq!(a.stop_reason, StopReason::Aborted);
    assert_eq!(a.text(), "partial");
    assert_eq!(msgs.len(), 2);
    assert!(!agent.is_streaming());
}

#[tokio::test]
async fn abort_during_a_slow_tool_stops_within_100ms() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[("c1", "slow", json!({}))]));
    let agent = agent(&provider);
    let (slow, _gate) = gated("slow");
    agent.set_tools(vec![slow.clone().arc()]);
    let all = collect_run(&agent);
    let mut waiter = agent.subscribe();
    let run = tokio::spawn(agent.prompt("x"));
    slow.entered.notified().await;
    agent.abort();
    tokio::time::timeout(
        ABORT_BOUND,
        until(&mut waiter, |e| matches!(e, AgentEvent::AgentEnd { .. })),
    )
    .await
    .expect("agent_end within 100 ms of abort()");
    run.await.expect("joined").expect("ran");
    // AB-4: the turn ends with the tool's own abort result; the next call returns aborted
    // at once without reaching the provider.
    let l = labels(&all.await.expect("collected"));
    assert_eq!(
        &l[l.len() - 9..],
        [
            "tool_execution_end:c1",
            "message_start:toolResult",
            "message_end:toolResult",
            "turn_end",
            "turn_start",
            "message_start:assistant",
            "message_end:assistant",
            "turn_end",
            "agent_end",
        ]
    );
    assert_eq!(provider.call_count(), 1);
    let msgs = agent.messages();
    let AgentMessage::ToolResult(t) = &msgs[2] else {
        panic!("tool result")
    };
    assert!(t.is_error);
    assert_eq!(rho_ai::message::join_text(&t.content), "Command aborted");
    let reply = msgs[3].as_assistant().expect("assistant");
    assert_eq!(reply.stop_reason, StopReason::Aborted);
    // pi 1.6 says what its HTTP client says for a call made with a fired signal, and times
    // the reply that ended at once.
    assert_eq!(
        reply.error_message.as_deref(),
        Some("This operation was aborted")
    );
    assert_eq!(reply.duration_ms, Some(0));
    assert_eq!(reply.thinking_level.as_deref(), Some("off"));
}

#[tokio::test]
async fn a_tool_ignoring_abort_is_dropped_after_the_grace_period() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[("c1", "stubborn", json!({}))]));
    let agent = agent_with(&provider, |o| o.abort_grace = Duration::from_millis(20));
    let stubborn = TestTool::new("stubborn", Behavior::Stubborn(Duration::from_secs(30)));
    agent.set_tools(vec![stubborn.clone().arc()]);
    let run = tokio::spawn(agent.prompt("x"));
    stubborn.entered.notified().await;
    agent.abort();
    tokio::time::timeout(ABORT_BOUND, agent.wait_for_idle())
        .await
        .expect("idle within 100 ms despite the tool");
    run.await.expect("joined").expect("ran");
    let AgentMessage::ToolResult(t) = &agent.messages()[2] else {
        panic!("tool result")
    };
    assert_eq!(
        rho_ai::message::join_text(&t.content),
        "Tool execution aborted"
    );
    assert!(t.is_error);
}

#[tokio::test]
async fn prompts_work_normally_after_an_abort() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().step(Step::Hang));
    provider.push(ScriptedReply::text("fresh answer"));
    let agent = agent(&provider);
    let run = tokio::spawn(agent.prompt("one"));
    provider.wait_for_calls(1).await;
    agent.abort();
    agent.wait_for_idle().await;
    run.await.expect("joined").expect("ran");
    agent.prompt("two").await.expect("second prompt accepted");
    let last = agent.messages().pop().expect("reply");
    assert_eq!(
        last.as_assistant().map(|a| a.text()).as_deref(),
        Some("fresh answer")
    );
    assert_eq!(
        last.as_assistant().map(|a| a.stop_reason),
        Some(StopReason::Stop)
    );
    assert!(agent.with_state(|s| s.error_message.is_none()));
    assert_eq!(
        request_texts(&provider.requests()[1]).len(),
        3,
        "user, aborted assistant, user"
    );
}

#[tokio::test]
async fn invalid_tool_arguments_reach_the_model_as_an_error_result() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[(
        "c1",
        "read",
        json!({"offset": "x"}),
    )]));
    provider.push(ScriptedReply::text("let me fix that"));
    let agent = agent(&provider);
    let mut read = TestTool::new("read", Behavior::Echo);
    read.schema = json!({
        "type": "object",
        "properties": {"path": {"type": "string"}, "offset": {"type": "number"}},
        "required": ["path"]
    });
    agent.set_tools(vec![read.clone().arc()]);
    agent.prompt("read it").await.expect("ran");
    assert!(read.executions().is_empty(), "never executed");
    let req = &provider.requests()[1];
    let rho_ai::Message::ToolResult(t) = req.messages.last().expect("result") else {
        panic!("tool result last")
    };
    assert!(t.is_error);
    assert_eq!(
        rho_ai::message::join_text(&t.content),
        "Validation failed for tool \"read\":\n  - path: must have required property 'path'\n  - offset: must be number\n\nReceived arguments:\n{\n  \"offset\": \"x\"\n}"
    );
}

#[tokio::test]
async fn coerced_arguments_reach_the_tool() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[(
        "c1",
        "a",
        json!({"x": "42"}),
    )]));
    provider.push(ScriptedReply::text("ok"));
    let agent = agent(&provider);
    let a = TestTool::new("a", Behavior::Echo);
    agent.set_tools(vec![a.clone().arc()]);
    agent.prompt("x").await.expect("ran");
    assert_eq!(a.executions(), ["c1:{\"x\":42}"]);
}

struct Panicky;
impl rho_agent::AgentTool for Panicky {
    fn name(&self) -> &str {
        "panicky"
    }
    fn label(&self) -> &str {
        "panicky"
    }
    fn description(&self) -> &str {
        "panics"
    }
    fn parameters(&self) -> serde_json::Value {
        json!({"type": "object"})
    }
    fn execute(
        &self,
        _args: serde_json::Value,
        _ctx: rho_agent::ToolContext,
    ) -> futures_util::future::BoxFuture<'static, Result<rho_agent::ToolOutput, rho_agent::ToolError>>
    {
        Box::pin(async { panic!("tool bug") })
    }
}

#[tokio::test]
async fn a_panicking_tool_becomes_an_error_result() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[("c1", "panicky", json!({}))]));
    provider.push(ScriptedReply::text("ok"));
    let agent = agent(&provider);
    agent.set_tools(vec![Arc::new(Panicky)]);
    agent.prompt("x").await.expect("ran");
    let AgentMessage::ToolResult(t) = &agent.messages()[2] else {
        panic!("tool result")
    };
    assert_eq!(rho_ai::message::join_text(&t.content), "tool bug");
    assert!(t.is_error);
    assert_eq!(agent.messages().len(), 4, "the run went on");
}

#[tokio::test]
async fn event_stream_json_matches_the_rpc_shapes() {
    let provider = ScriptedProvider::new();
    provider.push(
        ScriptedReply::new()
            .with_text(&["Hm"])
            .with_tool_call("c1", "p", &json!({"x": 1}))
            .finish(StopReason::ToolUse),
    );
    provider.push(ScriptedReply::new().with_thinking(&["ok"]));
    let agent = agent(&provider);
    agent.set_tools(vec![TestTool::new("p", Behavior::Progress).arc()]);
    let all = collect_run(&agent);
    agent.prompt("hi").await.expect("ran");
    let lines: Vec<String> = all
        .await
        .expect("collected")
        .iter()
        .map(|e| zero_timestamps(&serde_json::to_string(&**e).expect("serializes")))
        .collect();
    insta::assert_snapshot!(lines.join("\n"));
}

#[tokio::test]
async fn a_provider_ignoring_abort_is_ended_by_the_agent_with_the_partial_kept() {
    use rho_ai::{AssistantMessage, AssistantMessageEvent, AssistantStream};
    let sinks = Arc::new(std::sync::Mutex::new(Vec::new()));
    let keep = sinks.clone();
    let stream_fn: rho_agent::StreamFn = Arc::new(move |model, _, _| {
        let (sink, stream) = AssistantStream::channel();
        let partial = AssistantMessage::empty(&model.api, &model.provider, &model.id);
        sink.push(AssistantMessageEvent::Start { partial });
        sink.push(AssistantMessageEvent::TextStart { content_index: 0 });
        sink.push(AssistantMessageEvent::TextDelta {
            content_index: 0,
            delta: "stuck".into(),
        });
        keep.lock().expect("sinks").push(sink); // never ends, ignores the signal
        Ok(stream)
    });
    let agent = rho_agent::Agent::new(rho_agent::AgentOptions {
        abort_grace: Duration::from_millis(20),
        ..rho_agent::AgentOptions::with_stream_fn(stream_fn)
    });
    agent.set_model(rho_testkit::scripted::scripted_model());
    let mut waiter = agent.subscribe();
    let run = tokio::spawn(agent.prompt("x"));
    until(&mut waiter, |e| {
        matches!(e, AgentEvent::MessageUpdate { .. })
    })
    .await;
    agent.abort();
    tokio::time::timeout(ABORT_BOUND, agent.wait_for_idle())
        .await
        .expect("idle within 100 ms");
    run.await.expect("joined").expect("ran");
    let last = agent.messages().pop().expect("assistant");
    let a = last.as_assistant().expect("assistant");
    assert_eq!(
        (a.stop_reason, a.text().as_str()),
        (StopReason::Aborted, "stuck")
    );
    assert_eq!(sinks.lock().expect("sinks").len(), 1);
}

#[tokio::test]
async fn prepare_call_supplies_the_key_and_its_failure_fails_the_run() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = seen.clone();
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let inner = provider.stream_fn();
    /// Sets the key of each call, or fails to find one.
    struct Keys(Option<&'static str>);
    impl rho_agent::SessionHooks for Keys {
        fn prepare_call(
            &self,
            model: &rho_ai::Model,
            mut options: rho_ai::StreamOptions,
        ) -> futures_util::future::BoxFuture<'static, Result<rho_ai::StreamOptions, String>>
        {
            let key = format!("key-for-{}", model.provider);
            let failure = self.0;
            futures_util::FutureExt::boxed(async move {
                if let Some(failure) = failure {
                    return Err(failure.to_string());
                }
                options.api_key = Some(key);
                Ok(options)
            })
        }
    }
    let agent = agent_with(&provider, |o| {
        o.stream_fn = Arc::new(move |m, c, opts| {
            record.lock().expect("seen").push(opts.api_key.clone());
            inner(m, c, opts)
        });
        o.hooks = Arc::new(Keys(None));
    });
    agent.prompt("x").await.expect("ran");
    assert_eq!(
        *seen.lock().expect("seen"),
        [Some("key-for-scripted".to_string())]
    );
    agent.update_options(|o| o.hooks = Arc::new(Keys(Some("OAuth refresh failed"))));
    agent.prompt("y").await.expect("accepted");
    assert_eq!(
        agent.with_state(|s| s.error_message.clone()).as_deref(),
        Some("OAuth refresh failed")
    );
    assert_eq!(provider.call_count(), 1, "no request without a key");
}

/// A virtual model (pi's `registerVirtualModel`): each call goes to the model the owner's
/// `route_call` picks, at its level, and the reply names that model; the selection stays.
/// Without an owner that routes, the run fails with pi's unrouted text.
#[tokio::test]
async fn a_virtual_model_is_routed_before_each_call() {
    let selected = rho_ai::Model {
        id: "auto".into(),
        provider: "router".into(),
        api: rho_protocol::virtual_model::VIRTUAL_MODEL_API.into(),
        ..rho_testkit::scripted::scripted_model()
    };
    /// Routes to the scripted model at `low`, recording the level, message count and user
    /// turn asked.
    type Asked = Vec<(rho_ai::ThinkingLevel, usize, bool)>;
    struct Router(Arc<std::sync::Mutex<Asked>>);
    impl rho_agent::SessionHooks for Router {
        fn route_call(
            &self,
            request: rho_agent::RouteRequest<'_>,
        ) -> futures_util::future::BoxFuture<
            'static,
            Result<(rho_ai::Model, rho_ai::ThinkingLevel), String>,
        > {
            let asked = (request.thinking, request.messages.len(), request.user_turn);
            self.0.lock().expect("asked").push(asked);
            let routed = (
                rho_testkit::scripted::scripted_model(),
                rho_ai::ThinkingLevel::Low,
            );
            futures_util::FutureExt::boxed(std::future::ready(Ok(routed)))
        }
    }
    let asked = Arc::new(std::sync::Mutex::new(Vec::new()));
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("routed"));
    let agent = agent_with(&provider, |o| o.hooks = Arc::new(Router(asked.clone())));
    agent.set_model(selected.clone());
    agent.set_thinking_level(rho_ai::ThinkingLevel::High);
    agent.prompt("x").await.expect("ran");
    assert_eq!(
        *asked.lock().expect("asked"),
        [(rho_ai::ThinkingLevel::High, 1, true)]
    );
    let last = agent.messages().pop().expect("reply");
    let a = last.as_assistant().expect("assistant");
    assert_eq!(
        (
            a.provider.as_str(),
            a.model.as_str(),
            a.thinking_level.as_deref()
        ),
        ("scripted", "scripted-model", Some("low"))
    );
    assert_eq!(agent.with_state(|s| s.model.id.clone()), "auto");

    let bare = agent_with(&provider, |_| {});
    bare.set_model(selected);
    bare.prompt("y").await.expect("accepted");
    assert_eq!(
        bare.with_state(|s| s.error_message.clone()).as_deref(),
        Some("Virtual model router/auto must be routed before streaming")
    );
    assert_eq!(provider.call_count(), 1, "nothing sent unrouted");
}
