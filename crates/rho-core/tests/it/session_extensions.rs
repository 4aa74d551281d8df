//! Extension events through AgentSession (session-behavior §18, EXT- rules).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::session_common as common;

use std::sync::{Arc, Mutex};

use common::*;
use rho_core::agent_session::{AgentSession, PromptOptions};
use rho_extension_host::{Extension, ExtensionEvent};
use rho_testkit::scripted::{scripted_model, ScriptedProvider, ScriptedReply};
use serde_json::json;

/// An extension that logs `label:<event type>` for each of `events`.
fn logger(path: &str, label: &'static str, events: &[&str], log: Log) -> Extension {
    let mut e = Extension::new(path);
    for ev in events {
        let log = log.clone();
        e.on(
            ev,
            handler(move |event, _| {
                log.lock()
                    .expect("lock")
                    .push(format!("{label}:{}", event.type_name()));
                Ok(None)
            }),
        );
    }
    e
}

#[tokio::test]
async fn ext_1_and_ext_2_order_and_isolation() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let log: Log = Default::default();
    let mut a = logger("a", "h1", &["turn_start"], log.clone());
    let l2 = log.clone();
    a.on(
        "turn_start",
        handler(move |_, _| {
            l2.lock().expect("lock").push("h2:turn_start".into());
            Err("h2 failed".into())
        }),
    );
    let b = logger("b", "h3", &["turn_start"], log.clone());
    let mut c = config(&provider);
    c.extensions = vec![a, b];
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.prompt("x", PromptOptions::default()).await.expect("runs");
    assert_eq!(
        *log.lock().expect("lock"),
        ["h1:turn_start", "h2:turn_start", "h3:turn_start"]
    );
    let err = json_events(&drain(&mut rx))
        .into_iter()
        .find(|e| e["type"] == "extension_error")
        .expect("reported");
    assert_eq!(
        err,
        json!({"type": "extension_error", "extensionPath": "a", "event": "turn_start", "error": "h2 failed"})
    );
}

#[tokio::test]
async fn ext_5_context_handler_changes_only_the_request() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("one"));
    provider.push(ScriptedReply::text("two"));
    let mut c = config(&provider);
    c.extensions = vec![extension_on("a", "context", |e, _| {
        let ExtensionEvent::Context { messages } = e else {
            return Ok(None);
        };
        let last = messages.last().cloned();
        Ok(Some(json!({"messages": [last]})))
    })];
    let s = AgentSession::new(c);
    s.prompt("first", PromptOptions::default())
        .await
        .expect("runs");
    s.prompt("second", PromptOptions::default())
        .await
        .expect("runs");
    assert_eq!(request_texts(&provider.requests()[1]), ["user:second"]);
    assert_eq!(s.messages().len(), 4, "agent state is untouched");
}

#[tokio::test]
async fn ext_7_and_ext_14_before_agent_start_once_agent_end_per_run() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().fail("503 Service Unavailable"));
    provider.push(ScriptedReply::text("ok"));
    let log: Log = Default::default();
    let mut c = config(&provider);
    c.extensions = vec![logger(
        "a",
        "a",
        &["before_agent_start", "agent_end", "agent_start"],
        log.clone(),
    )];
    let s = AgentSession::new(c);
    s.prompt("x", PromptOptions::default()).await.expect("runs");
    assert_eq!(
        *log.lock().expect("lock"),
        [
            "a:before_agent_start",
            "a:agent_start",
            "a:agent_end",
            "a:agent_start",
            "a:agent_end"
        ]
    );
}

#[tokio::test]
async fn ext_9_message_events_reach_handlers_but_not_idle_custom_messages() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[("t1", "missing", json!({}))]));
    provider.push(ScriptedReply::text("done"));
    let roles: Log = Default::default();
    let r2 = roles.clone();
    let mut c = config(&provider);
    c.extensions = vec![extension_on("a", "message_start", move |e, _| {
        if let ExtensionEvent::MessageStart { message } = e {
            r2.lock().expect("lock").push(message.role().to_string());
        }
        Ok(None)
    })];
    let s = AgentSession::new(c);
    s.prompt("x", PromptOptions::default()).await.expect("runs");
    s.send_custom_message(
        rho_extension_host::CustomMessageInput {
            custom_type: "n".into(),
            content: rho_ai::UserContent::Text("idle".into()),
            display: true,
            details: None,
        },
        Default::default(),
    )
    .await
    .expect("appended");
    assert_eq!(
        *roles.lock().expect("lock"),
        ["user", "assistant", "toolResult", "assistant"]
    );
}

#[tokio::test]
async fn ext_13_turn_index_restarts_each_run() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[("t1", "missing", json!({}))]));
    provider.push(ScriptedReply::text("done"));
    provider.push(ScriptedReply::text("again"));
    let idx: Arc<Mutex<Vec<(String, u32)>>> = Default::default();
    let mut ext = Extension::new("a");
    for name in ["turn_start", "turn_end"] {
        let idx = idx.clone();
        ext.on(
            name,
            handler(move |e, _| {
                let entry = match e {
                    ExtensionEvent::TurnStart { turn_index, .. } => {
                        ("start".to_string(), turn_index)
                    }
                    ExtensionEvent::TurnEnd { turn_index, .. } => ("end".to_string(), turn_index),
                    _ => return Ok(None),
                };
                idx.lock().expect("lock").push(entry);
                Ok(None)
            }),
        );
    }
    let mut c = config(&provider);
    c.extensions = vec![ext];
    let s = AgentSession::new(c);
    s.prompt("x", PromptOptions::default()).await.expect("runs");
    s.prompt("y", PromptOptions::default()).await.expect("runs");
    let got: Vec<(String, u32)> = idx.lock().expect("lock").clone();
    let expected: Vec<(String, u32)> = [
        ("start", 0),
        ("end", 0),
        ("start", 1),
        ("end", 1),
        ("start", 0),
        ("end", 0),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), *b))
    .collect();
    assert_eq!(got, expected);
}

#[tokio::test]
async fn ext_15_model_select_only_on_change_and_thinking_level_events() {
    let provider = ScriptedProvider::new();
    let log: Log = Default::default();
    let mut c = config(&provider);
    c.thinking_level = rho_ai::ThinkingLevel::High;
    c.extensions = vec![logger(
        "a",
        "a",
        &["model_select", "thinking_level_select"],
        log.clone(),
    )];
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.set_model(scripted_model()).await.expect("same model");
    assert!(
        log.lock().expect("lock").is_empty(),
        "no model_select for the current model"
    );
    let mut other = scripted_model();
    other.id = "other".into();
    other.reasoning = false;
    s.set_model(other).await.expect("switched");
    assert_eq!(
        *log.lock().expect("lock"),
        ["a:thinking_level_select", "a:model_select"]
    );
    let events = json_events(&drain(&mut rx));
    assert!(events.contains(&json!({"type": "thinking_level_changed", "level": "off"})));
    let entries: Vec<String> = s.with_session(|m| {
        m.entries()
            .iter()
            .map(|e| e.data.type_name().to_string())
            .collect()
    });
    assert!(
        entries.contains(&"model_change".to_string())
            && entries.contains(&"thinking_level_change".to_string())
    );
}

#[tokio::test]
async fn ext_17_session_compact_fires_before_compaction_end() {
    let provider = ScriptedProvider::from_fn(|_| ScriptedReply::text("SUMMARY"));
    let order: Log = Default::default();
    let o2 = order.clone();
    let mut c = config(&provider);
    c.stream_fn = provider.stream_fn();
    c.settings = fast_settings(json!({"compaction": {"keepRecentTokens": 1}}));
    c.extensions = vec![extension_on("a", "session_compact", move |e, _| {
        if let ExtensionEvent::SessionCompact {
            compaction_entry,
            from_extension,
            reason,
            will_retry,
        } = e
        {
            assert_eq!(compaction_entry["type"], "compaction");
            assert!(!from_extension && !will_retry);
            assert_eq!(reason, "manual");
            o2.lock().expect("lock").push("session_compact".into());
        }
        Ok(None)
    })];
    let s = AgentSession::new(c);
    s.prompt("a", PromptOptions::default()).await.expect("runs");
    s.prompt("b", PromptOptions::default()).await.expect("runs");
    let mut rx = s.subscribe();
    s.compact(None).await.expect("compacted");
    assert_eq!(*order.lock().expect("lock"), ["session_compact"]);
    assert_eq!(types(&drain(&mut rx)).last(), Some(&"compaction_end"));
}

/// pi 1.6: a compaction that fails reaches extensions as `session_compact_failed` (after
/// `compaction_end`, whose `errorMessage` it repeats); a transient summary failure is first
/// retried with `summarization_retry_*` events.
#[tokio::test]
async fn a_failed_compaction_reaches_extensions_and_retries_are_reported() {
    // Two exchanges, then the summary request (the split turn's prefix: nothing older to
    // summarise): two transient failures, then one for good.
    let provider = ScriptedProvider::from_fn(|call| match call {
        1 => ScriptedReply::text("one"),
        2 => ScriptedReply::text("two"),
        3 | 4 => ScriptedReply::new().fail("503 Service Unavailable"),
        _ => ScriptedReply::new().fail("400 summary refused"),
    });
    let failed: Log = Default::default();
    let f2 = failed.clone();
    let mut c = config(&provider);
    c.stream_fn = provider.stream_fn();
    c.settings = fast_settings(json!({"compaction": {"keepRecentTokens": 1},
        "retry": {"maxRetries": 2, "baseDelayMs": 1}}));
    c.extensions = vec![extension_on("a", "session_compact_failed", move |e, _| {
        let v = serde_json::to_value(&e).expect("json");
        f2.lock().expect("lock").push(v.to_string());
        Ok(None)
    })];
    let s = AgentSession::new(c);
    s.prompt("a", PromptOptions::default()).await.expect("runs");
    s.prompt("b", PromptOptions::default()).await.expect("runs");
    let mut rx = s.subscribe();
    let err = s.compact(None).await.expect_err("the summary fails");
    assert!(err.to_string().contains("400 summary refused"), "{err}");
    let events = json_events(&drain(&mut rx));
    let scheduled = |attempt: u32, delay: u32| {
        json!({"type": "summarization_retry_scheduled", "attempt": attempt, "maxAttempts": 2,
            "delayMs": delay, "errorMessage": "503 Service Unavailable"})
    };
    let attempt_start = json!({"type": "summarization_retry_attempt_start",
        "source": "compaction", "reason": "manual"});
    let message = "Compaction failed: Turn prefix summarization failed: 400 summary refused";
    assert_eq!(
        events,
        [
            json!({"type": "compaction_start", "reason": "manual"}),
            scheduled(1, 1),
            attempt_start.clone(),
            scheduled(2, 2),
            attempt_start,
            json!({"type": "summarization_retry_finished"}),
            json!({"type": "compaction_end", "reason": "manual", "aborted": false,
                "willRetry": false, "errorMessage": message}),
        ]
    );
    let heard: Vec<serde_json::Value> = failed
        .lock()
        .expect("lock")
        .iter()
        .map(|t| serde_json::from_str(t).expect("json"))
        .collect();
    assert_eq!(
        heard,
        [json!({"type": "session_compact_failed", "reason": "manual",
            "errorMessage": message, "aborted": false, "willRetry": false,
            "fromExtension": false})]
    );
}

#[tokio::test]
async fn ext_18_error_report_paths_for_commands_and_runtime() {
    let provider = ScriptedProvider::new();
    let mut ext = Extension::new("e");
    ext.register_command(rho_extension_host::CommandDef {
        complete: None,
        name: "boom".into(),
        description: None,
        handler: Arc::new(|_, _| Box::pin(async { Err("kaput".to_string()) })),
    });
    let mut c = config(&provider);
    c.extensions = vec![ext];
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.prompt("/boom", PromptOptions::default())
        .await
        .expect("handled");
    let e = json_events(&drain(&mut rx)).pop().expect("report");
    assert_eq!(
        (e["extensionPath"].as_str(), e["event"].as_str()),
        (Some("command:boom"), Some("command"))
    );
}

#[tokio::test]
async fn ext_24_extension_tools_join_the_agent_tool_list() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let mut ext = Extension::new("tools.ext");
    ext.register_tool(StubTool::new("ext_tool", "ran"));
    let mut c = config(&provider);
    c.extensions = vec![ext];
    let s = AgentSession::new(c);
    s.prompt("x", PromptOptions::default()).await.expect("runs");
    let names: Vec<String> = provider.requests()[0]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(names, ["ext_tool"]);
}

#[tokio::test]
async fn ext_8_agent_events_do_not_wait_for_slow_handlers_without_hooks() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[("t1", "probe", json!({}))]).with_text(&["a", "b"]));
    provider.push(ScriptedReply::text("done"));
    let (open, gate) = tokio::sync::watch::channel(false);
    let ran = Arc::new(tokio::sync::Notify::new());
    let mut ext = Extension::new("slow");
    ext.on(
        "message_update",
        Arc::new(move |_, _| {
            let mut gate = gate.clone();
            Box::pin(async move {
                let _ = gate.wait_for(|open| *open).await;
                Ok(None)
            })
        }),
    );
    let mut c = config(&provider);
    c.extensions = vec![ext];
    c.tools = vec![StubTool::notifying("probe", ran.clone())];
    let s = AgentSession::new(c);
    let run = {
        let s = s.clone();
        tokio::spawn(async move { s.prompt("x", PromptOptions::default()).await })
    };
    tokio::time::timeout(std::time::Duration::from_secs(5), ran.notified())
        .await
        .expect("the tool ran while the message_update handler was still blocked");
    open.send_replace(true);
    run.await.expect("join").expect("runs");
}

#[tokio::test]
async fn ext_20_and_ext_21_and_se_2_context_is_per_emission_and_reports_session_state() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[("t1", "probe", json!({}))]));
    provider.push(ScriptedReply::text("done"));
    provider.push(ScriptedReply::text("again"));
    let seen: Arc<Mutex<Vec<String>>> = Default::default();
    let s2 = seen.clone();
    let mut tool_call = extension_on("a", "tool_call", move |_, ctx| {
        s2.lock().expect("lock").push(format!(
            "idle={} ui={}",
            ctx.host.is_idle(),
            ctx.ui.has_ui()
        ));
        Ok(None)
    });
    let s3 = seen.clone();
    tool_call.on(
        "agent_start",
        handler(move |_, ctx| {
            s3.lock().expect("lock").push(format!(
                "model={}",
                ctx.host.model().map(|m| m.id).unwrap_or_default()
            ));
            Ok(None)
        }),
    );
    let mut c = config(&provider);
    c.extensions = vec![tool_call];
    c.tools = vec![StubTool::new("probe", "ran")];
    let s = AgentSession::new(c);
    s.prompt("x", PromptOptions::default()).await.expect("runs");
    let mut other = scripted_model();
    other.id = "other".into();
    s.set_model(other).await.expect("switched");
    s.prompt("y", PromptOptions::default()).await.expect("runs");
    assert_eq!(
        *seen.lock().expect("lock"),
        ["model=scripted-model", "idle=false ui=false", "model=other"]
    );
}

#[tokio::test]
async fn ext_23_a_captured_context_fails_cleanly_after_the_session_is_gone() {
    let provider = ScriptedProvider::new();
    let captured: Arc<Mutex<Option<rho_extension_host::ExtensionContext>>> = Default::default();
    let c2 = captured.clone();
    let mut ext = Extension::new("keeper");
    ext.register_command(rho_extension_host::CommandDef {
        complete: None,
        name: "keep".into(),
        description: None,
        handler: Arc::new(move |_, ctx| {
            *c2.lock().expect("lock") = Some(ctx);
            Box::pin(async { Ok(()) })
        }),
    });
    let mut c = config(&provider);
    c.extensions = vec![ext];
    let s = AgentSession::new(c);
    s.prompt("/keep", PromptOptions::default())
        .await
        .expect("handled");
    drop(s);
    let ctx = captured.lock().expect("lock").take().expect("captured");
    let err = ctx.host.append_entry("x".into(), None).expect_err("stale");
    assert!(err.to_string().contains("stale"), "{err}");
    assert!(ctx.host.is_idle());
}

#[tokio::test]
async fn an_appended_custom_entry_is_announced_to_listeners() {
    let provider = ScriptedProvider::new();
    let mut ext = Extension::new("recorder");
    ext.register_command(rho_extension_host::CommandDef {
        complete: None,
        name: "record".into(),
        description: None,
        handler: Arc::new(move |_, ctx| {
            Box::pin(async move { Ok(ctx.host.append_entry("rec".into(), Some(json!({"n": 1})))?) })
        }),
    });
    let mut c = config(&provider);
    c.extensions = vec![ext];
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.prompt("/record", PromptOptions::default())
        .await
        .expect("handled");
    let appended = wait_for(&mut rx, "entry_appended").await;
    let v = serde_json::to_value(&appended).expect("serializes");
    assert_eq!(v["entry"]["type"], "custom");
    assert_eq!(v["entry"]["customType"], "rec");
    assert_eq!(v["entry"]["data"], json!({"n": 1}));
    let stored = s.with_session(|m| m.entries().last().map(|e| e.id.clone()));
    assert_eq!(v["entry"]["id"].as_str(), stored.as_deref());
}

#[tokio::test]
async fn ext_16_resources_discover_after_session_start_adds_skills_to_the_prompt() {
    let provider = ScriptedProvider::new();
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("skills/lint")).expect("mkdir");
    std::fs::write(
        dir.path().join("skills/lint/SKILL.md"),
        "---\ndescription: Lint files\n---\nRun it.",
    )
    .expect("write");
    let skills_dir = dir.path().join("skills").display().to_string();
    let order: Log = Default::default();
    let o1 = order.clone();
    let mut ext = extension_on("a", "resources_discover", move |e, _| {
        let ExtensionEvent::ResourcesDiscover { reason, .. } = e else {
            return Ok(None);
        };
        o1.lock().expect("lock").push(format!("discover:{reason}"));
        Ok(Some(json!({"skillPaths": [skills_dir.clone()]})))
    });
    let o2 = order.clone();
    ext.on(
        "session_start",
        handler(move |e, _| {
            let ExtensionEvent::SessionStart { reason, .. } = e else {
                return Ok(None);
            };
            o2.lock().expect("lock").push(format!("start:{reason}"));
            Ok(None)
        }),
    );
    let options = rho_core::system_prompt::SystemPromptOptions {
        active_tools: Some(vec!["read".into()]),
        cwd: "/work".into(),
        ..Default::default()
    };
    let mut c = config(&provider);
    c.base_system_prompt = rho_core::system_prompt::build_system_prompt(&options);
    c.prompt_options = Some(options);
    c.extensions = vec![ext];
    let s = AgentSession::new(c);
    assert!(!s.system_prompt().contains("<name>lint</name>"));
    s.start("startup").await;
    assert_eq!(
        *order.lock().expect("lock"),
        ["start:startup", "discover:startup"]
    );
    assert!(s.skills().iter().any(|k| k.name == "lint"));
    assert!(s.system_prompt().contains("<name>lint</name>"));
}

#[tokio::test]
async fn ext_4_session_switch_events_and_cancel() {
    let provider = ScriptedProvider::new();
    let log: Log = Default::default();
    let mut ext = logger(
        "a",
        "a",
        &["session_shutdown", "session_start"],
        log.clone(),
    );
    let l2 = log.clone();
    ext.on(
        "session_before_switch",
        handler(move |e, _| {
            let ExtensionEvent::SessionBeforeSwitch { reason, .. } = e else {
                return Ok(None);
            };
            l2.lock()
                .expect("lock")
                .push(format!("before_switch:{reason}"));
            Ok((reason == "resume").then(|| json!({"cancel": true})))
        }),
    );
    let mut c = config(&provider);
    c.extensions = vec![ext];
    let s = AgentSession::new(c);
    let cancelled = s
        .switch_session(
            rho_session::SessionManager::in_memory("/work"),
            rho_core::agent_session::SwitchReason::Resume,
        )
        .await;
    assert!(cancelled);
    let cancelled = s
        .switch_session(
            rho_session::SessionManager::in_memory("/work"),
            rho_core::agent_session::SwitchReason::New,
        )
        .await;
    assert!(!cancelled);
    assert_eq!(
        *log.lock().expect("lock"),
        [
            "before_switch:resume",
            "before_switch:new",
            "a:session_shutdown",
            "a:session_start"
        ]
    );
}

/// pi 1.6's actionable `turn_end` through rho's own extension surface (the same runner as
/// pi's): the drafts are appended and the continuation makes one more call carrying them;
/// a failed reply stays a hard exit whatever a handler asks.
#[tokio::test]
async fn turn_end_boundary_through_an_in_process_extension() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("first"));
    provider.push(ScriptedReply::text("second"));
    provider.push(ScriptedReply::text("broken").fail("overloaded_error: boom"));
    let mut ext = Extension::new("native");
    ext.on(
        "turn_end",
        handler(move |e, _| {
            let ExtensionEvent::TurnEnd {
                turn_index,
                outcome,
                entries,
                ..
            } = e
            else {
                return Ok(None);
            };
            // Every completed first turn, and every failed one, asks for more.
            if turn_index > 0 && outcome == "completed" {
                return Ok(None);
            }
            let mut entries = entries;
            entries.push(json!({"type": "custom_message", "customType": "n", "content": format!("nudge after {outcome}"), "display": false}));
            Ok(Some(json!({ "entries": entries, "continue": true })))
        }),
    );
    let mut c = config(&provider);
    c.extensions = vec![ext];
    c.settings = fast_settings(json!({"retry": {"enabled": false}}));
    let s = AgentSession::new(c);
    s.prompt("x", PromptOptions::default()).await.expect("runs");
    assert_eq!(provider.call_count(), 2);
    let second = serde_json::to_value(&provider.requests()[1]).expect("json");
    assert!(
        second.to_string().contains("nudge after completed"),
        "{second}"
    );
    s.prompt("y", PromptOptions::default()).await.expect("runs");
    assert_eq!(provider.call_count(), 3, "a failed reply does not continue");
    let entries = s.with_session(|m| {
        m.tree()
            .branch()
            .iter()
            .map(|e| e.data.type_name().to_string())
            .collect::<Vec<_>>()
    });
    let custom_messages = entries.iter().filter(|t| *t == "custom_message").count();
    assert_eq!(
        custom_messages, 2,
        "the failed turn's entry is kept: {entries:?}"
    );
}
