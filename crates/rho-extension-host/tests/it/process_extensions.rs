//! Extensions as real child processes (Python, JavaScript, Rust) driven through AgentSession
//! with the scripted provider (docs/extensions.md; EXT-, IN-, CMD-, CM- rules).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::process_common;
use crate::session_common as common;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use process_common::*;
use rho_agent::AgentMessage;
use rho_ai::ThinkingLevel;
use rho_core::agent_session::{AgentSession, PromptOptions, SessionEvent};
use rho_extension_host::process::tool::TOOL_ABORTED;
use rho_extension_host::process::{ProcessError, ProcessExtension, ProcessOptions};
use rho_extension_host::{Extension, ExtensionContext, ExtensionEvent, NoUi};
use rho_testkit::scripted::{scripted_model, ScriptedProvider, ScriptedReply};
use serde_json::{json, Value};

fn session_with(provider: &ScriptedProvider, extensions: Vec<Extension>) -> AgentSession {
    let mut c = config(provider);
    c.extensions = extensions;
    AgentSession::new(c)
}

fn errors(events: &[SessionEvent]) -> Vec<Value> {
    json_events(events)
        .into_iter()
        .filter(|e| e["type"] == "extension_error")
        .collect()
}

fn tool_results(s: &AgentSession) -> Vec<rho_ai::ToolResultMessage> {
    s.messages()
        .into_iter()
        .filter_map(|m| match m {
            AgentMessage::ToolResult(t) => Some(t),
            _ => None,
        })
        .collect()
}

const ALL_EVENTS: [&str; 27] = [
    "resources_discover",
    "session_start",
    "session_before_switch",
    "session_before_fork",
    "session_before_compact",
    "session_compact",
    "session_shutdown",
    "context",
    "before_agent_start",
    "agent_start",
    "agent_end",
    "turn_start",
    "turn_end",
    "message_start",
    "message_update",
    "message_end",
    "tool_execution_start",
    "tool_execution_update",
    "tool_execution_end",
    "model_select",
    "thinking_level_select",
    "user_bash",
    "input",
    "tool_call",
    "tool_result",
    "session_before_tree",
    "session_tree",
];

#[tokio::test]
async fn ext_3_every_event_type_reaches_the_process_and_results_apply() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("events.log");
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[(
        "t1",
        "probe_tool",
        json!({"n": 2}),
    )]));
    provider.push(ScriptedReply::text("done"));
    provider.push(ScriptedReply::text("SUMMARY"));
    provider.push(ScriptedReply::text("TURN PREFIX SUMMARY"));
    let probe = load(&fixture("probe.py"), with_flags(json!({"log": log}))).await;
    let mut c = config(&provider);
    c.extensions = vec![probe.clone()];
    c.settings = fast_settings(json!({"compaction": {"keepRecentTokens": 1}}));
    c.base_system_prompt = "BASE".into();
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.prompt("tell me the secret", PromptOptions::default())
        .await
        .expect("runs");
    let first = &provider.requests()[0];
    assert_eq!(first.system_prompt.as_deref(), Some("BASE +probe"));
    assert_eq!(
        request_texts(first),
        ["user:tell me the [redacted]", "user:injected by probe"]
    );
    let results = tool_results(&s);
    assert_eq!(
        rho_ai::message::join_text(&results[0].content),
        "patched by probe"
    );
    assert_eq!(results[0].details, Some(json!({"probe": true})));
    let mut other = scripted_model();
    other.id = "other-model".into();
    s.set_model(other).await.expect("model set");
    s.set_thinking_level(ThinkingLevel::High).await;
    s.compact(None).await.expect("compacts");

    let runner = rho_extension_host::ExtensionRunner::new(vec![probe], Arc::new(|_| {}));
    let ctx = ExtensionContext::new(Arc::new(idle_host()), Arc::new(NoUi));
    let reason = |r: &str| r.to_string();
    runner
        .emit(
            ExtensionEvent::ResourcesDiscover {
                cwd: "/work".into(),
                reason: reason("startup"),
            },
            &ctx,
        )
        .await;
    runner
        .emit(
            ExtensionEvent::SessionStart {
                reason: reason("startup"),
                previous_session_file: None,
            },
            &ctx,
        )
        .await;
    let switch = ExtensionEvent::SessionBeforeSwitch {
        reason: reason("new"),
        target_session_file: None,
    };
    let verdict = runner.emit_session_before(switch, &ctx).await;
    assert!(verdict.expect("a result").cancel, "cancel crosses the pipe");
    let fork = ExtensionEvent::SessionBeforeFork {
        entry_id: "e1".into(),
        position: "at".into(),
    };
    assert_eq!(runner.emit_session_before(fork, &ctx).await, None);
    let tree = ExtensionEvent::SessionBeforeTree {
        preparation: rho_extension_host::TreePreparation {
            target_id: "t1".into(),
            old_leaf_id: Some("l1".into()),
            common_ancestor_id: None,
            entries_to_summarize: vec![],
            user_wants_summary: true,
            custom_instructions: None,
            replace_instructions: None,
            label: None,
        },
    };
    let tree_verdict = runner
        .emit_session_before(tree, &ctx)
        .await
        .expect("a result");
    assert_eq!(
        tree_verdict.summary,
        Some(json!({"summary": "from probe", "details": "t1"})),
        "the summary crosses the pipe"
    );
    runner
        .emit(
            ExtensionEvent::SessionTree {
                new_leaf_id: Some("t1".into()),
                old_leaf_id: Some("l1".into()),
                summary_entry: None,
                from_extension: None,
            },
            &ctx,
        )
        .await;
    let bash = ExtensionEvent::UserBash {
        command: "ls".into(),
        exclude_from_context: false,
        cwd: "/work".into(),
    };
    let bash_result = runner.emit_user_bash(bash, &ctx).await;
    assert_eq!(
        bash_result.expect("probe answers")["result"]["output"],
        "from probe"
    );
    runner
        .emit(
            ExtensionEvent::SessionShutdown {
                reason: reason("quit"),
                target_session_file: None,
            },
            &ctx,
        )
        .await;

    let text = std::fs::read_to_string(&log).expect("log written");
    let seen: BTreeSet<&str> = text.lines().filter_map(|l| l.split(' ').next()).collect();
    let all: BTreeSet<&str> = ALL_EVENTS.into_iter().collect();
    assert_eq!(seen, all);
    assert!(text.contains("tool_call input,toolCallId,toolName\n"));
    assert!(text.contains("input source,text\n"));
    assert!(text.contains("session_before_tree preparation\n"));
    assert!(text.contains("session_tree newLeafId,oldLeafId\n"));
    assert!(text.contains("tool_execution_update args,partialResult,toolCallId,toolName\n"));
    assert!(errors(&drain(&mut rx)).is_empty());
}

#[tokio::test]
async fn calls_from_the_process_reach_the_session() {
    let provider = ScriptedProvider::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let probe = load(
        &fixture("probe.py"),
        with_flags(json!({"log": dir.path().join("l")})),
    )
    .await;
    let s = session_with(&provider, vec![probe]);
    let mut rx = s.subscribe();
    s.prompt("/probe-calls abc", PromptOptions::default())
        .await
        .expect("handled");
    assert!(errors(&drain(&mut rx)).is_empty());
    assert_eq!(
        provider.call_count(),
        0,
        "an idle custom message does not run"
    );
    let (name, custom) = s.with_session(|m| {
        let custom: Vec<Value> = m
            .entries()
            .iter()
            .map(|e| serde_json::to_value(e).expect("entry json"))
            .filter(|e| e["type"] == "custom")
            .collect();
        (m.name().map(str::to_string), custom)
    });
    assert_eq!(name.as_deref(), Some("named by probe"));
    assert_eq!(custom[0]["customType"], "probe-data");
    assert_eq!(custom[0]["data"], json!({"args": "abc"}));
    let last = serde_json::to_value(s.messages().last().expect("message")).expect("json");
    assert_eq!(last["customType"], "probe-state");
    let state: Value = serde_json::from_str(last["content"].as_str().expect("text")).expect("json");
    assert_eq!(
        state,
        json!({"isIdle": true, "cwd": "/work", "exec": "hi from exec", "confirm": false})
    );
}

#[tokio::test]
async fn input_examples_handle_transform_and_continue() {
    for script in ["input_transform.py", "input_transform.mjs"] {
        let provider = ScriptedProvider::new();
        provider.push(ScriptedReply::text("a"));
        provider.push(ScriptedReply::text("b"));
        let ext = load(&example(script), ProcessOptions::default()).await;
        let s = session_with(&provider, vec![ext]);
        s.prompt("quiet please", PromptOptions::default())
            .await
            .expect("handled");
        assert_eq!(
            provider.call_count(),
            0,
            "{script}: handled consumes the input"
        );
        s.prompt("shout: hello", PromptOptions::default())
            .await
            .expect("runs");
        s.prompt("plain", PromptOptions::default())
            .await
            .expect("runs");
        let reqs = provider.requests();
        assert_eq!(request_texts(&reqs[0]), ["user:HELLO"], "{script}");
        assert_eq!(
            request_texts(&reqs[1]).last().map(String::as_str),
            Some("user:plain"),
            "{script}"
        );
    }
}

#[tokio::test]
async fn three_languages_chain_in_load_order() {
    let py = load(&fixture("append.py"), with_flags(json!({"suffix": " py"}))).await;
    let js = load(&fixture("append.mjs"), with_flags(json!({"suffix": " js"}))).await;
    let rs = load(&rust_echo(), ProcessOptions::default()).await;
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("one"));
    provider.push(ScriptedReply::text("two"));
    let s = session_with(&provider, vec![py.clone(), js.clone(), rs.clone()]);
    s.prompt("x", PromptOptions::default()).await.expect("runs");
    let s2 = session_with(&provider, vec![rs, js, py]);
    s2.prompt("x", PromptOptions::default())
        .await
        .expect("runs");
    let reqs = provider.requests();
    assert_eq!(request_texts(&reqs[0]), ["user:x py js [echo]"]);
    assert_eq!(request_texts(&reqs[1]), ["user:x [echo] js py"]);
}

#[tokio::test]
async fn guard_examples_block_rm_rf() {
    for script in ["guard_rm_rf.py", "guard_rm_rf.mjs"] {
        let provider = ScriptedProvider::new();
        provider.push(ScriptedReply::tool_calls(&[
            ("t1", "bash", json!({"command": "rm -rf /"})),
            ("t2", "bash", json!({"command": "ls"})),
        ]));
        provider.push(ScriptedReply::text("ok"));
        let mut c = config(&provider);
        c.extensions = vec![load(&example(script), ProcessOptions::default()).await];
        c.tools = vec![Arc::new(EchoBash)];
        let s = AgentSession::new(c);
        s.prompt("clean up", PromptOptions::default())
            .await
            .expect("runs");
        let results = tool_results(&s);
        assert!(results[0].is_error, "{script}");
        assert_eq!(
            rho_ai::message::join_text(&results[0].content),
            "Blocked by guard: rm -rf is not allowed"
        );
        assert!(!results[1].is_error, "{script}: ls runs");
        assert_eq!(rho_ai::message::join_text(&results[1].content), "ran: ls");
    }
}

#[tokio::test]
async fn compaction_examples_supply_the_summary() {
    for script in ["custom_compaction.py", "custom_compaction.mjs"] {
        let provider = ScriptedProvider::new();
        provider.push(ScriptedReply::text("first answer"));
        provider.push(ScriptedReply::text("second answer"));
        let mut c = config(&provider);
        c.extensions = vec![load(&example(script), ProcessOptions::default()).await];
        c.settings = fast_settings(json!({"compaction": {"keepRecentTokens": 1}}));
        let s = AgentSession::new(c);
        for text in ["question", "another question"] {
            s.prompt(text, PromptOptions::default())
                .await
                .expect("runs");
        }
        let result = s.compact(None).await.expect("compacts");
        assert_eq!(
            provider.call_count(),
            2,
            "{script}: no summarisation request"
        );
        assert_eq!(result.summary, "Custom summary of 2 messages.");
        assert_eq!(
            result.details.as_ref().and_then(|d| d["by"].as_str()),
            Some(script)
        );
        let first = serde_json::to_value(&s.messages()[0]).expect("json");
        assert_eq!(first["role"], "compactionSummary");
    }
}

#[tokio::test]
async fn command_examples_send_a_message_that_triggers_a_turn() {
    for script in ["command_turn.py", "command_turn.mjs"] {
        let provider = ScriptedProvider::new();
        provider.push(ScriptedReply::text("because"));
        let s = session_with(
            &provider,
            vec![load(&example(script), ProcessOptions::default()).await],
        );
        let mut rx = s.subscribe();
        s.prompt("/ask why", PromptOptions::default())
            .await
            .expect("handled");
        assert!(errors(&drain(&mut rx)).is_empty(), "{script}");
        assert_eq!(provider.call_count(), 1, "{script}");
        assert_eq!(
            request_texts(&provider.requests()[0]),
            ["user:question: why"]
        );
        let last = s.messages().last().and_then(|m| m.as_assistant().cloned());
        assert_eq!(last.expect("reply").text(), "because");
    }
}

#[tokio::test]
async fn the_model_uses_an_extension_tool_with_streamed_updates() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[(
        "w1",
        "word_count",
        json!({"text": "one two three"}),
    )]));
    provider.push(ScriptedReply::text("three words"));
    let ext = load(&example("tool_word_count.py"), ProcessOptions::default()).await;
    let s = session_with(&provider, vec![ext]);
    let mut rx = s.subscribe();
    s.prompt("count", PromptOptions::default())
        .await
        .expect("runs");
    let tools = &provider.requests()[0].tools;
    assert_eq!(tools[0].name, "word_count");
    assert_eq!(tools[0].parameters["required"], json!(["text"]));
    let result = &tool_results(&s)[0];
    assert!(!result.is_error);
    assert_eq!(rho_ai::message::join_text(&result.content), "3 words");
    assert_eq!(result.details, Some(json!({"words": 3})));
    let updates: Vec<Value> = json_events(&drain(&mut rx))
        .into_iter()
        .filter(|e| e["type"] == "tool_execution_update")
        .collect();
    assert_eq!(
        updates[0]["partialResult"]["content"][0]["text"],
        "counting…"
    );
}

#[tokio::test]
async fn aborting_a_running_extension_tool_cancels_it() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[(
        "w1",
        "word_count",
        json!({"text": "x", "slow": true}),
    )]));
    let ext = load_process(&example("tool_word_count.mjs"), ProcessOptions::default()).await;
    let s = session_with(&provider, vec![ext.extension()]);
    let mut rx = s.subscribe();
    let run = {
        let s = s.clone();
        tokio::spawn(async move { s.prompt("count slowly", PromptOptions::default()).await })
    };
    wait_for(&mut rx, "tool_execution_update").await;
    s.abort().await;
    run.await.expect("join").expect("prompt resolves");
    let result = &tool_results(&s)[0];
    assert!(result.is_error);
    assert_eq!(rho_ai::message::join_text(&result.content), TOOL_ABORTED);
    assert!(
        ext.connection().dead_reason().is_none(),
        "the process lives on"
    );
}

async fn misbehaving(mode: &str, options: ProcessOptions) -> (AgentSession, ScriptedProvider) {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("still here"));
    provider.push(ScriptedReply::text("and again"));
    let script = fixture("misbehave.py");
    let ext = ProcessExtension::spawn("python3", &[script, mode.to_string()], options)
        .await
        .expect("registers");
    (session_with(&provider, vec![ext.extension()]), provider)
}

#[tokio::test]
async fn a_crashing_extension_is_reported_and_the_session_goes_on() {
    let (s, provider) = misbehaving("crash", ProcessOptions::default()).await;
    let mut rx = s.subscribe();
    s.prompt("hello", PromptOptions::default())
        .await
        .expect("runs");
    s.prompt("again", PromptOptions::default())
        .await
        .expect("runs");
    let errs = errors(&drain(&mut rx));
    assert_eq!(errs.len(), 2, "{errs:?}");
    for e in &errs {
        assert_eq!(e["event"], "input");
        assert_eq!(e["extensionPath"], fixture("misbehave.py"));
        assert!(e["error"].as_str().expect("text").contains("exited"), "{e}");
    }
    assert_eq!(provider.call_count(), 2);
    assert_eq!(request_texts(&provider.requests()[0]), ["user:hello"]);
}

#[tokio::test]
async fn a_hanging_extension_hits_its_deadline_and_the_session_goes_on() {
    let options = ProcessOptions {
        event_timeout: Duration::from_millis(300),
        ..ProcessOptions::default()
    };
    let (s, provider) = misbehaving("hang", options).await;
    let mut rx = s.subscribe();
    let started = std::time::Instant::now();
    s.prompt("hello", PromptOptions::default())
        .await
        .expect("runs");
    assert!(started.elapsed() < Duration::from_secs(3));
    let errs = errors(&drain(&mut rx));
    assert_eq!(errs.len(), 1);
    assert_eq!(
        errs[0]["error"],
        format!(
            "extension {} did not answer input within 300 ms; check it for a hang or raise the timeout",
            fixture("misbehave.py")
        )
    );
    assert_eq!(provider.call_count(), 1);
}

/// A command registered after loading keeps the deadline the process was started with, not
/// the default five minutes.
#[tokio::test]
async fn a_late_command_hits_the_deadline_of_its_process() {
    let options = ProcessOptions {
        command_timeout: Duration::from_millis(300),
        ..ProcessOptions::default()
    };
    let (s, _provider) = misbehaving("late-hang", options).await;
    s.prompt("hello", PromptOptions::default())
        .await
        .expect("runs");
    let mut rx = s.subscribe();
    let ran = tokio::time::timeout(
        Duration::from_secs(20),
        s.prompt("/stuck", PromptOptions::default()),
    )
    .await;
    ran.expect("the late command ends at its process's deadline")
        .expect("runs");
    let errs = errors(&drain(&mut rx));
    assert_eq!(errs.len(), 1, "{errs:?}");
    let text = errs[0]["error"].as_str().expect("text");
    assert!(
        text.contains("did not answer command /stuck within 300 ms"),
        "{text}"
    );
}

#[tokio::test]
async fn garbage_output_is_an_error_not_a_hang() {
    let (s, provider) = misbehaving("garbage", ProcessOptions::default()).await;
    let mut rx = s.subscribe();
    s.prompt("hello", PromptOptions::default())
        .await
        .expect("runs");
    let errs = errors(&drain(&mut rx));
    assert_eq!(errs.len(), 1);
    let text = errs[0]["error"].as_str().expect("text");
    assert!(text.contains("invalid protocol line"), "{text}");
    assert!(text.contains("definitely not json"), "{text}");
    assert_eq!(provider.call_count(), 1);
}

#[tokio::test]
async fn failed_starts_are_clear_errors() {
    let script = fixture("misbehave.py");
    let err = ProcessExtension::spawn(
        "python3",
        &[script, "bad-hello".into()],
        ProcessOptions::default(),
    )
    .await
    .err()
    .expect("handshake fails");
    assert!(matches!(err, ProcessError::Handshake { .. }));
    assert!(err.to_string().contains("first line is not JSON"), "{err}");
    let err = ProcessExtension::spawn("/nonexistent/rho-ext", &[], ProcessOptions::default())
        .await
        .err()
        .expect("spawn fails");
    assert!(matches!(err, ProcessError::Spawn { .. }));
}

#[tokio::test]
async fn cm_9_and_ext_22_a_call_before_any_event_gets_the_not_initialized_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("reply.json");
    let ext = ProcessExtension::spawn(
        "python3",
        &[fixture("early_call.py"), out.display().to_string()],
        ProcessOptions::default(),
    )
    .await
    .expect("registers");
    tokio::time::timeout(Duration::from_secs(10), ext.connection().wait_dead())
        .await
        .expect("the extension exits after the reply");
    let reply: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("reply written")).expect("json");
    assert_eq!(reply["id"], 1);
    assert!(reply.get("result").is_none() || reply["result"].is_null());
    assert!(
        reply["error"].as_str().is_some_and(
            |e| e.starts_with(rho_extension_host::process::connection::NOT_INITIALIZED)
        ),
        "{reply}"
    );
}
