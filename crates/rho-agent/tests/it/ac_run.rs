//! AC-1..AC-10 (state, prompt/continue, run lifecycle and failure, streaming, context):
//! one test per rule of session-behavior.md §17 (index: docs/rules.md), against the scripted provider. Where rho
//! follows decisions.md instead of pi 0.73.1 (D4 steering, channel delivery) the test says so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;

use common::*;
use futures_util::future::BoxFuture;
use futures_util::FutureExt;
use rho_agent::{AgentError, AgentEvent, AgentMessage, PromptInput, SessionHooks};
use rho_ai::{ContentBlock, ImageContent, ProviderError, StopReason, UserContent};
use rho_testkit::scripted::{ScriptedProvider, ScriptedReply};
use serde_json::json;

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
            .and_then(|p| p.peek())
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
    agent.set_model(rho_testkit::scripted::scripted_model());
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
    let AgentEvent::AgentEnd { messages, .. } = &*events[4] else {
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
    let AgentEvent::AgentEnd { messages, .. } = &**events.last().expect("end") else {
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
    assert_eq!(agent.messages()[1], *end);
    assert!(
        Arc::ptr_eq(&agent.shared_messages().expect("held")[1], &end),
        "message_end shares the transcript's message"
    );
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

    // A reply failing before `start` (e.g. HTTP 500): message_start right before message_end.
    let failing = rho_agent::Agent::new(rho_agent::AgentOptions::with_stream_fn(Arc::new(
        |model, _, _| {
            let mut error = rho_ai::AssistantMessage::empty(&model.api, &model.provider, &model.id);
            error.stop_reason = StopReason::Error;
            error.error_message = Some("500 boom".into());
            Ok(rho_ai::AssistantStream::from_events([
                rho_ai::AssistantMessageEvent::Error {
                    reason: StopReason::Error,
                    error,
                },
            ]))
        },
    )));
    failing.set_model(rho_testkit::scripted::scripted_model());
    let mut rx = failing.subscribe();
    failing.prompt("x").await.expect("ran");
    let l = labels(&run_events(&mut rx).await);
    assert_eq!(
        &l[4..],
        [
            "message_start:assistant",
            "message_end:assistant",
            "turn_end",
            "agent_end"
        ]
    );
}

#[tokio::test]
async fn ac_9_transform_context_shapes_the_request_not_the_state() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    struct LastOnly;
    impl SessionHooks for LastOnly {
        fn transforms_context(&self) -> bool {
            true
        }
        fn transform_context(
            &self,
            mut msgs: Vec<AgentMessage>,
            _: tokio_util::sync::CancellationToken,
        ) -> BoxFuture<'static, Result<Vec<AgentMessage>, String>> {
            async move { Ok(msgs.split_off(msgs.len() - 1)) }.boxed()
        }
    }
    let agent = agent_with(&provider, |o| o.hooks = Arc::new(LastOnly));
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

/// A turn converts only the messages added since the previous call, so a long transcript is
/// not copied again at every turn; the request still carries the whole conversation.
#[tokio::test]
async fn conversion_hook_sees_only_new_messages_after_the_first_turn() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[(
        "c1",
        "echo",
        json!({"x": 1}),
    )]));
    provider.push(ScriptedReply::text("done"));
    /// Converts as the session does and logs how many messages each call converted.
    struct Counting(Arc<std::sync::Mutex<Vec<usize>>>);
    impl SessionHooks for Counting {
        fn convert_to_llm(&self, messages: &[Arc<AgentMessage>]) -> Vec<rho_ai::Message> {
            self.0.lock().expect("lock").push(messages.len());
            rho_agent::convert_to_llm(messages)
        }
    }
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let hooks = Arc::new(Counting(seen.clone()));
    let agent = agent_with(&provider, move |o| o.hooks = hooks);
    agent.set_tools(vec![TestTool::new("echo", Behavior::Echo).arc()]);
    agent.set_messages(vec![user("earlier"), user("more")]);
    agent.prompt("go").await.expect("ran");
    assert_eq!(*seen.lock().expect("lock"), [3, 2]);
    let requests = provider.requests();
    assert_eq!(
        requests[1].messages.len(),
        5,
        "the second call sends all five"
    );
}
