//! AC-11..AC-20 (tool execution, preflight, progress, hooks, ordering, steering):
//! one test per rule of session-behavior.md §17 (index: docs/rules.md), against the scripted provider. Where rho
//! follows decisions.md instead of pi 0.73.1 (D4 steering, channel delivery) the test says so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;

use common::*;
use futures_util::future::BoxFuture;
use futures_util::FutureExt;
use rho_agent::{
    AfterToolCallContext, AgentEvent, AgentMessage, BeforeToolCallContext, ExecutionMode,
    SessionHooks, ToolCallDecision, ToolExecution, ToolResultOverride,
};
use rho_ai::{AssistantMessage, ToolResultMessage};
use rho_testkit::scripted::{ScriptedProvider, ScriptedReply};
use serde_json::json;
use tokio::sync::Notify;

/// An owner whose `after_tool_call` overrides every result with what the function makes of it.
struct AfterTool(fn(&AfterToolCallContext) -> ToolResultOverride);

impl SessionHooks for AfterTool {
    fn after_tool_call(
        &self,
        ctx: AfterToolCallContext,
    ) -> BoxFuture<'static, Result<Option<ToolResultOverride>, String>> {
        let verdict = (self.0)(&ctx);
        async { Ok(Some(verdict)) }.boxed()
    }
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
    struct BlockAll;
    impl SessionHooks for BlockAll {
        fn before_tool_call(
            &self,
            _: BeforeToolCallContext,
        ) -> BoxFuture<'static, Result<Option<ToolCallDecision>, String>> {
            let block = ToolCallDecision {
                block: true,
                reason: None,
            };
            async { Ok(Some(block)) }.boxed()
        }
    }
    let agent = agent_with(&provider, |o| o.hooks = Arc::new(BlockAll));
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
    struct ByArgument;
    impl SessionHooks for ByArgument {
        fn before_tool_call(
            &self,
            ctx: BeforeToolCallContext,
        ) -> BoxFuture<'static, Result<Option<ToolCallDecision>, String>> {
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
        }
    }
    let agent = agent_with(&provider, |o| o.hooks = Arc::new(ByArgument));
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
        o.hooks = Arc::new(AfterTool(|ctx| {
            assert!(!ctx.is_error);
            ToolResultOverride {
                is_error: Some(true),
                ..Default::default()
            }
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
        o.hooks = Arc::new(AfterTool(|_| ToolResultOverride {
            terminate: Some(true),
            ..Default::default()
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
    struct StopAfterEachTurn;
    impl SessionHooks for StopAfterEachTurn {
        fn stop_after_turn(&self, _: &AssistantMessage, _: &[ToolResultMessage]) -> bool {
            true
        }
    }
    let agent = agent_with(&provider, |o| o.hooks = Arc::new(StopAfterEachTurn));
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

/// pi 1.x: a tool that ran reports how long it ran, on `tool_execution_end` and on its
/// result message; a call that never ran (unknown tool) has no duration.
#[tokio::test]
async fn a_tool_that_ran_has_a_duration_and_one_that_never_ran_has_none() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[
        ("c1", "a", json!({"x": 1})),
        ("c2", "missing", json!({})),
    ]));
    provider.push(ScriptedReply::text("ok"));
    let agent = agent(&provider);
    agent.set_tools(vec![TestTool::new("a", Behavior::Echo).arc()]);
    let mut rx = agent.subscribe();
    agent.prompt("x").await.expect("ran");
    let events = run_events(&mut rx).await;
    let mut ends: Vec<(String, bool, bool)> = events
        .iter()
        .filter_map(|e| match &**e {
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                duration_ms,
                ..
            } => {
                let json = serde_json::to_value(&**e).expect("serializes");
                Some((
                    tool_call_id.clone(),
                    duration_ms.is_some(),
                    json.get("durationMs").is_some(),
                ))
            }
            _ => None,
        })
        .collect();
    ends.sort();
    assert_eq!(
        ends,
        [("c1".into(), true, true), ("c2".into(), false, false)]
    );
    let durations: Vec<bool> = agent
        .messages()
        .iter()
        .filter_map(|m| match m {
            AgentMessage::ToolResult(r) => Some(r.duration_ms.is_some()),
            _ => None,
        })
        .collect();
    assert_eq!(durations, [true, false]);
}
