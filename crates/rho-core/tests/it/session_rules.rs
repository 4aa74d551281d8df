//! One test per remaining rule of session-behavior.md (index: docs/rules.md) that rho implements, named after it.
//! Where rho follows the seed instead of pi 0.73.1 (decisions.md), the test proves rho's
//! behaviour and says which decision applies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::session_common as common;

use std::sync::{Arc, Mutex};

use common::*;
use rho_agent::AgentMessage;
use rho_ai::{ContentBlock, ImageContent, UserMessage};
use rho_core::agent_session::{AgentSession, Disposition, PromptOptions, StreamingBehavior};
use rho_core::resources::templates::parse_template;
use rho_extension_host::{CommandDef, DeliverAs, Extension, ExtensionEvent};
use rho_session::SessionManager;
use rho_testkit::scripted::{scripted_model, ScriptedProvider, ScriptedReply, Step};
use serde_json::json;

fn image(data: &str) -> ImageContent {
    ImageContent {
        data: data.into(),
        mime_type: "image/png".into(),
    }
}

#[tokio::test]
async fn p_1_defaults_expand_templates_and_source_interactive() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let seen: Log = Default::default();
    let s2 = seen.clone();
    let mut c = config(&provider);
    c.templates = vec![parse_template("t", "EXPANDED", "/t.md".into())];
    c.extensions = vec![extension_on("a", "input", move |e, _| {
        if let ExtensionEvent::Input { source, .. } = e {
            s2.lock().expect("lock").push(source);
        }
        Ok(None)
    })];
    let s = AgentSession::new(c);
    s.prompt("/t", PromptOptions::default())
        .await
        .expect("runs");
    assert_eq!(*seen.lock().expect("lock"), ["interactive"]);
    assert_eq!(request_texts(&provider.requests()[0]), ["user:EXPANDED"]);
}

#[tokio::test]
async fn p_2_input_sees_raw_text_before_agent_start_sees_expanded() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let log: Log = Default::default();
    let (l1, l2) = (log.clone(), log.clone());
    let mut c = config(&provider);
    c.templates = vec![parse_template("t", "BODY $1", "/t.md".into())];
    c.extensions = vec![
        extension_on("a", "input", move |e, _| {
            if let ExtensionEvent::Input { text, .. } = e {
                l1.lock().expect("lock").push(format!("input:{text}"));
            }
            Ok(None)
        }),
        extension_on("b", "before_agent_start", move |e, _| {
            if let ExtensionEvent::BeforeAgentStart { prompt, .. } = e {
                l2.lock().expect("lock").push(format!("bas:{prompt}"));
            }
            Ok(None)
        }),
    ];
    let s = AgentSession::new(c);
    s.prompt("/t x", PromptOptions::default())
        .await
        .expect("runs");
    assert_eq!(*log.lock().expect("lock"), ["input:/t x", "bas:BODY x"]);
}

#[tokio::test]
async fn p_8_pre_prompt_check_compacts_on_an_aborted_reply_above_threshold() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("SUMMARY"));
    provider.push(ScriptedReply::text("SUMMARY"));
    provider.push(ScriptedReply::text("fresh answer"));
    let mut store = SessionManager::in_memory("/work");
    store
        .append_message(AgentMessage::User(UserMessage::text("big question")))
        .expect("append");
    let mut big = rho_ai::AssistantMessage::empty("scripted", "scripted", "scripted-model");
    big.content = vec![ContentBlock::text("long answer")];
    big.stop_reason = rho_ai::StopReason::Aborted;
    big.usage.input = 120_000;
    big.usage.total_tokens = 120_000;
    store
        .append_message(AgentMessage::Assistant(big))
        .expect("append");
    let mut c = config(&provider);
    c.session = store;
    c.settings = fast_settings(json!({"compaction": {"keepRecentTokens": 1}}));
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.prompt("next", PromptOptions::default())
        .await
        .expect("runs");
    let events = json_events(&drain(&mut rx));
    let start = events
        .iter()
        .position(|e| e["type"] == "compaction_start")
        .expect("compacted");
    assert_eq!(events[start]["reason"], "threshold");
    let user = events
        .iter()
        .position(|e| e["type"] == "message_start" && e["message"]["role"] == "user")
        .expect("user message");
    assert!(
        start < user,
        "COMP-4: the pre-prompt check runs before the new user message"
    );
}

#[tokio::test]
async fn p_11_and_p_12_preflight_fires_once_before_the_run_starts() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let s = session(&provider);
    let rx = Arc::new(Mutex::new(s.subscribe()));
    // (the preflight's disposition, events seen before it)
    type Calls = Arc<Mutex<Vec<(Option<Disposition>, usize)>>>;
    let calls: Calls = Default::default();
    let (rx2, calls2) = (rx.clone(), calls.clone());
    let opts = PromptOptions {
        preflight: Some(Box::new(move |ok| {
            let seen = drain(&mut rx2.lock().expect("lock")).len();
            calls2.lock().expect("lock").push((ok, seen));
        })),
        ..Default::default()
    };
    s.prompt("x", opts).await.expect("runs");
    assert_eq!(
        *calls.lock().expect("lock"),
        [(Some(Disposition::Started), 0)],
        "fired once, before agent_start"
    );
}

#[tokio::test]
async fn p_14_prompt_during_retry_back_off_is_a_streaming_prompt_in_the_seed_loop_d1() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().fail("503 Service Unavailable"));
    provider.push(ScriptedReply::text("retried"));
    provider.push(ScriptedReply::text("follow-up answered"));
    let mut c = config(&provider);
    c.settings = fast_settings(json!({"retry": {"baseDelayMs": 60000}}));
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    let run = spawn_prompt(&s, "go");
    wait_for(&mut rx, "auto_retry_start").await;
    let err = s
        .prompt("during back-off", PromptOptions::default())
        .await
        .expect_err("busy");
    assert!(
        matches!(
            err,
            rho_core::agent_session::SessionError::StreamingWithoutBehavior
        ),
        "{err:?}"
    );
    let opts = PromptOptions {
        streaming_behavior: Some(StreamingBehavior::FollowUp),
        ..Default::default()
    };
    s.prompt("during back-off", opts).await.expect("queued");
    s.abort_retry();
    run.await.expect("join").expect("resolves");
    assert_eq!(
        s.pending_message_count(),
        1,
        "queued messages survive a cancelled retry"
    );
}

#[tokio::test]
async fn in_2_handlers_run_in_load_then_registration_order() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let mut a = Extension::new("a");
    a.on(
        "input",
        handler(|e, _| {
            let ExtensionEvent::Input { text, .. } = e else {
                return Ok(None);
            };
            Ok(Some(
                json!({"action": "transform", "text": format!("{text}1")}),
            ))
        }),
    );
    a.on(
        "input",
        handler(|e, _| {
            let ExtensionEvent::Input { text, .. } = e else {
                return Ok(None);
            };
            Ok(Some(
                json!({"action": "transform", "text": format!("{text}2")}),
            ))
        }),
    );
    let b = extension_on("b", "input", |e, _| {
        let ExtensionEvent::Input { text, .. } = e else {
            return Ok(None);
        };
        Ok(Some(
            json!({"action": "transform", "text": format!("{text}3")}),
        ))
    });
    let mut c = config(&provider);
    c.extensions = vec![a, b];
    let s = AgentSession::new(c);
    s.prompt("x", PromptOptions::default()).await.expect("runs");
    assert_eq!(request_texts(&provider.requests()[0]), ["user:x123"]);
}

#[tokio::test]
async fn in_8_transform_to_a_command_does_not_run_it_but_templates_apply() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let ran: Log = Default::default();
    let r2 = ran.clone();
    let mut cmd = extension_on("a", "input", |_, _| {
        Ok(Some(json!({"action": "transform", "text": "/hello world"})))
    });
    cmd.register_command(CommandDef {
        complete: None,
        name: "hello".into(),
        description: None,
        handler: Arc::new(move |_, _| {
            r2.lock().expect("lock").push("ran".into());
            Box::pin(async { Ok(()) })
        }),
    });
    let mut c = config(&provider);
    c.extensions = vec![cmd];
    let s = AgentSession::new(c);
    s.prompt("mkcmd", PromptOptions::default())
        .await
        .expect("runs");
    assert!(ran.lock().expect("lock").is_empty());
    assert_eq!(
        request_texts(&provider.requests()[0]),
        ["user:/hello world"]
    );
}

#[tokio::test]
async fn in_9_steer_does_not_emit_input() {
    let provider = ScriptedProvider::new();
    let calls: Log = Default::default();
    let c2 = calls.clone();
    let mut c = config(&provider);
    c.extensions = vec![extension_on("a", "input", move |_, _| {
        c2.lock().expect("lock").push("input".into());
        Ok(None)
    })];
    let s = AgentSession::new(c);
    s.steer("x", vec![]).await.expect("queued");
    s.follow_up("y", vec![]).await.expect("queued");
    assert!(calls.lock().expect("lock").is_empty());
}

#[tokio::test]
async fn cmd_4_unknown_command_text_goes_to_the_llm() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let s = session(&provider);
    s.prompt("/nocmd hi", PromptOptions::default())
        .await
        .expect("runs");
    assert_eq!(request_texts(&provider.requests()[0]), ["user:/nocmd hi"]);
}

#[tokio::test]
async fn cmd_6_preflight_fires_only_after_the_command_settled() {
    let provider = ScriptedProvider::new();
    let gate = Arc::new(tokio::sync::Notify::new());
    let started = Arc::new(tokio::sync::Notify::new());
    let (g2, st2) = (gate.clone(), started.clone());
    let mut ext = Extension::new("a");
    ext.register_command(CommandDef {
        complete: None,
        name: "slow".into(),
        description: None,
        handler: Arc::new(move |_, _| {
            let (g, st) = (g2.clone(), st2.clone());
            Box::pin(async move {
                st.notify_one();
                g.notified().await;
                Ok(())
            })
        }),
    });
    let mut c = config(&provider);
    c.extensions = vec![ext];
    let s = AgentSession::new(c);
    let fired = Arc::new(Mutex::new(Vec::new()));
    let f2 = fired.clone();
    let opts = PromptOptions {
        preflight: Some(Box::new(move |ok| f2.lock().expect("lock").push(ok))),
        ..Default::default()
    };
    let run = {
        let s = s.clone();
        tokio::spawn(async move { s.prompt("/slow", opts).await })
    };
    started.notified().await;
    assert!(
        fired.lock().expect("lock").is_empty(),
        "not before the handler settled"
    );
    gate.notify_one();
    run.await.expect("join").expect("handled");
    assert_eq!(*fired.lock().expect("lock"), [Some(Disposition::Handled)]);
}

#[tokio::test]
async fn sk_1_and_q_1_and_tpl_7_steer_expands_skills_and_templates() {
    let provider = ScriptedProvider::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("dbg/SKILL.md");
    std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
    std::fs::write(&file, "---\ndescription: d\n---\nDo it.").expect("write");
    let (skills, _) =
        rho_core::resources::skills::load_skills(&[rho_core::resources::skills::SkillSource {
            path: dir.path().into(),
            top_level_md: true,
        }]);
    let mut c = config(&provider);
    c.skills = skills;
    c.templates = vec![parse_template("comp", "Component $1", "/comp.md".into())];
    let s = AgentSession::new(c);
    s.steer("/skill:dbg x", vec![]).await.expect("queued");
    s.steer("/comp a b", vec![]).await.expect("queued");
    let queued = s.steering_messages();
    assert!(queued[0].starts_with("<skill name=\"dbg\"") && queued[0].ends_with("</skill>\n\nx"));
    assert_eq!(queued[1], "Component a");
}

#[tokio::test]
async fn sk_10_skill_expansion_does_not_depend_on_enable_skill_commands() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("s")).expect("mkdir");
    std::fs::write(
        dir.path().join("s/SKILL.md"),
        "---\ndescription: d\n---\nBody",
    )
    .expect("write");
    let (skills, _) =
        rho_core::resources::skills::load_skills(&[rho_core::resources::skills::SkillSource {
            path: dir.path().into(),
            top_level_md: true,
        }]);
    let mut c = config(&provider);
    c.skills = skills;
    c.settings = fast_settings(json!({"enableSkillCommands": false}));
    let s = AgentSession::new(c);
    s.prompt("/skill:s", PromptOptions::default())
        .await
        .expect("runs");
    assert!(request_texts(&provider.requests()[0])[0].contains("Body\n</skill>"));
}

#[tokio::test]
async fn sk_5_unreadable_skill_reports_and_sends_the_text() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("gone/SKILL.md");
    std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
    std::fs::write(&file, "---\ndescription: d\n---\nx").expect("write");
    let (skills, _) =
        rho_core::resources::skills::load_skills(&[rho_core::resources::skills::SkillSource {
            path: dir.path().into(),
            top_level_md: true,
        }]);
    std::fs::remove_file(&file).expect("rm");
    let mut c = config(&provider);
    c.skills = skills;
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.prompt("/skill:gone hi", PromptOptions::default())
        .await
        .expect("runs");
    let err = json_events(&drain(&mut rx))
        .into_iter()
        .find(|e| e["type"] == "extension_error")
        .expect("reported");
    assert_eq!(err["event"], "skill_expansion");
    assert_eq!(err["extensionPath"], file.display().to_string());
    assert_eq!(
        request_texts(&provider.requests()[0]),
        ["user:/skill:gone hi"]
    );
}

#[tokio::test]
async fn auth_6_rejected_prompt_emits_nothing_and_keeps_next_turn_messages() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let mut c = config(&provider);
    c.model = None;
    let s = AgentSession::new(c);
    s.send_custom_message(
        rho_extension_host::CustomMessageInput {
            custom_type: "n".into(),
            content: rho_ai::UserContent::Text("aside".into()),
            display: true,
            details: None,
        },
        rho_core::agent_session::SendMessageOptions {
            trigger_turn: false,
            deliver_as: Some(DeliverAs::NextTurn),
        },
    )
    .await
    .expect("queued");
    let mut rx = s.subscribe();
    s.prompt("hi", PromptOptions::default())
        .await
        .expect_err("no model");
    assert!(drain(&mut rx).is_empty(), "no events for a rejected prompt");
    s.set_model(scripted_model()).await.expect("model set");
    s.prompt("hi again", PromptOptions::default())
        .await
        .expect("runs");
    assert_eq!(
        request_texts(&provider.requests()[0]),
        ["user:hi again", "user:aside"]
    );
}

#[tokio::test]
async fn auth_10_set_model_without_credentials_is_refused() {
    let provider = ScriptedProvider::new();
    let s = session(&provider);
    let mut other = scripted_model();
    other.provider = "nokey".into();
    other.id = "m".into();
    let err = s.set_model(other).await.expect_err("no key");
    assert_eq!(err.to_string(), "No API key for nokey/m");
}

#[tokio::test]
async fn msg_2_user_message_is_text_then_images_in_order() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let s = session(&provider);
    let opts = PromptOptions {
        images: vec![image("AAAA"), image("BBBB")],
        ..Default::default()
    };
    s.prompt("look", opts).await.expect("runs");
    let rho_ai::Message::User(u) = &provider.requests()[0].messages[0] else {
        panic!("user first")
    };
    let blocks = u.content.to_blocks();
    assert_eq!(blocks.len(), 3);
    assert_eq!(blocks[0].as_text(), Some("look"));
    assert!(matches!(&blocks[2], ContentBlock::Image(i) if i.data == "BBBB"));
}

#[tokio::test]
async fn loop_1_prompt_resolves_after_agent_end() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let s = session(&provider);
    let mut rx = s.subscribe();
    s.prompt("x", PromptOptions::default()).await.expect("runs");
    assert_eq!(types(&drain(&mut rx)).last(), Some(&"agent_end"));
    assert!(!s.is_streaming());
}

#[tokio::test]
async fn loop_4_the_seed_prompt_waits_for_threshold_compaction_d1() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("big").with_usage(120_000, 10));
    provider.push(ScriptedReply::text("SUMMARY"));
    provider.push(ScriptedReply::text("SUMMARY"));
    let mut c = config(&provider);
    c.settings = fast_settings(json!({"compaction": {"keepRecentTokens": 1}}));
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.prompt("x", PromptOptions::default()).await.expect("runs");
    let events = json_events(&drain(&mut rx));
    let end = events
        .iter()
        .find(|e| e["type"] == "compaction_end")
        .expect("compaction_end before prompt() returned");
    assert_eq!(end["reason"], "threshold");
    assert_eq!(end["willRetry"], false);
    assert_eq!(types(&drain(&mut rx)).len(), 0);
}

#[tokio::test]
async fn post_8_threshold_compaction_then_queued_follow_up_in_the_same_prompt() {
    let provider = ScriptedProvider::from_fn(|n| match n {
        0 => ScriptedReply::text("big").with_usage(120_000, 10),
        _ => ScriptedReply::text("SUMMARY"),
    });
    let once = Arc::new(Mutex::new(false));
    let mut ext = Extension::new("a");
    ext.on(
        "agent_end",
        Arc::new(move |_, ctx| {
            let first = !std::mem::replace(&mut *once.lock().expect("lock"), true);
            Box::pin(async move {
                if first {
                    ctx.host
                        .send_user_message("queued later".into(), vec![], Some(DeliverAs::FollowUp))
                        .await?;
                }
                Ok(None)
            })
        }),
    );
    let mut c = config(&provider);
    c.stream_fn = provider.stream_fn();
    c.extensions = vec![ext];
    c.settings = fast_settings(json!({"compaction": {"keepRecentTokens": 1}}));
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.prompt("x", PromptOptions::default()).await.expect("runs");
    let t = types(&drain(&mut rx));
    let compaction_end = t
        .iter()
        .position(|x| *x == "compaction_end")
        .expect("compacted");
    let last_agent_start = t
        .iter()
        .rposition(|x| *x == "agent_start")
        .expect("continuation");
    assert!(
        compaction_end < last_agent_start,
        "D2: compaction, then the queued message: {t:?}"
    );
    let roles: Vec<&str> = s.messages().iter().map(|m| m.role()).collect();
    assert_eq!(roles.first(), Some(&"compactionSummary"));
    assert!(s
        .messages()
        .iter()
        .any(|m| matches!(m, AgentMessage::User(u) if u.content.text() == "queued later")));
}

#[tokio::test]
async fn post_7_and_ext_19_follow_up_queued_by_an_agent_end_handler_is_delivered() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("first"));
    provider.push(ScriptedReply::text("second"));
    let once = Arc::new(Mutex::new(false));
    let mut ext = Extension::new("a");
    ext.on(
        "agent_end",
        Arc::new(move |_, ctx| {
            let first = !std::mem::replace(&mut *once.lock().expect("lock"), true);
            Box::pin(async move {
                if first {
                    ctx.host
                        .send_user_message("more please".into(), vec![], Some(DeliverAs::FollowUp))
                        .await?;
                }
                Ok(None)
            })
        }),
    );
    let mut c = config(&provider);
    c.extensions = vec![ext];
    let s = AgentSession::new(c);
    s.prompt("x", PromptOptions::default()).await.expect("runs");
    assert_eq!(
        provider.call_count(),
        2,
        "delivered by a continuation inside the same prompt()"
    );
    assert_eq!(
        request_texts(&provider.requests()[1])
            .last()
            .map(String::as_str),
        Some("user:more please")
    );
}

#[tokio::test]
async fn post_1_run_failure_without_a_recorded_reply_does_nothing() {
    let provider = ScriptedProvider::new();
    let mut c = config(&provider);
    c.stream_fn =
        Arc::new(|model, _, _| Err(rho_ai::ProviderError::NoApiKey(model.provider.clone())));
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.prompt("x", PromptOptions::default())
        .await
        .expect("resolves");
    let t = types(&drain(&mut rx));
    assert!(!t
        .iter()
        .any(|x| x.starts_with("auto_retry") || x.starts_with("compaction")));
}

#[tokio::test]
async fn retry_2_and_retry_3_classification_at_the_session() {
    for (text, retried) in [
        ("400 bad request", false),
        ("prompt is too long: 5 tokens > 4 maximum", false),
        // pi 1.6 matches whole status codes only (pi 0.73.1 retried this).
        ("bad value 5000", false),
        ("fetch failed", true),
        ("503 service unavailable", true),
        ("429 insufficient_quota", false),
    ] {
        let provider = ScriptedProvider::new();
        provider.push(ScriptedReply::new().fail(text));
        provider.push(ScriptedReply::text("ok"));
        let mut c = config(&provider);
        c.settings = fast_settings(json!({"compaction": {"enabled": false}}));
        let s = AgentSession::new(c);
        s.prompt("x", PromptOptions::default())
            .await
            .expect("resolves");
        assert_eq!(provider.call_count() == 2, retried, "{text}");
    }
}

#[tokio::test]
async fn retry_8_and_10_continuation_has_no_user_events_and_follows_agent_end() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().fail("503 Service Unavailable"));
    provider.push(ScriptedReply::text("ok"));
    let s = session(&provider);
    let mut rx = s.subscribe();
    s.prompt("x", PromptOptions::default()).await.expect("runs");
    let t = types(&drain(&mut rx));
    let start = t
        .iter()
        .position(|x| *x == "auto_retry_start")
        .expect("retry");
    assert_eq!(
        &t[start - 1..start + 5],
        &[
            "agent_end",
            "auto_retry_start",
            "entry_appended",
            "agent_start",
            "turn_start",
            "message_start"
        ]
    );
    let events = json_events(&drain(&mut rx));
    assert!(events.is_empty());
    // pi 1.6 keeps the failed attempt in the file and omits it with a context edit.
    let kinds: Vec<String> = s.with_session(|m| {
        m.entries()
            .iter()
            .map(|e| e.data.type_name().to_string())
            .collect()
    });
    let failed = kinds
        .iter()
        .rposition(|k| k == "context_edit")
        .expect("an edit");
    assert_eq!(kinds[failed - 1], "message", "{kinds:?}");
    let context = s.with_session(|m| m.build_context().messages.len());
    assert_eq!(context, 2, "the prompt and the good reply");
}

#[tokio::test]
async fn retry_12_and_15_state_during_back_off_and_abort_retry() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().fail("503 Service Unavailable"));
    let mut c = config(&provider);
    c.settings = fast_settings(json!({"retry": {"baseDelayMs": 60000}}));
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    let run = spawn_prompt(&s, "x");
    wait_for(&mut rx, "auto_retry_start").await;
    assert!(s.is_retrying());
    assert_eq!(s.retry_attempt(), 1);
    assert!(
        !s.agent().is_streaming(),
        "the agent itself is idle during back-off"
    );
    s.abort_retry();
    tokio::time::timeout(std::time::Duration::from_secs(2), run)
        .await
        .expect("resolves at once")
        .expect("join")
        .expect("ok");
    assert!(!s.is_retrying());
}

#[tokio::test]
async fn ab_1_and_ab_2_abort_returns_after_agent_end() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().step(Step::Hang));
    let s = session(&provider);
    let mut rx = s.subscribe();
    let run = spawn_prompt(&s, "x");
    wait_for(&mut rx, "message_start").await;
    provider.wait_for_calls(1).await;
    s.agent().abort();
    s.abort().await;
    assert!(!s.is_streaming());
    assert!(types(&drain(&mut rx)).contains(&"agent_end"));
    run.await.expect("join").expect("ok");
}

#[tokio::test]
async fn ab_8_ctx_abort_from_a_tool_call_handler_aborts_the_run() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::tool_calls(&[("t1", "nope", json!({}))]));
    provider.push(ScriptedReply::new().step(Step::Hang));
    let mut c = config(&provider);
    c.extensions = vec![extension_on("a", "tool_call", |_, ctx| {
        ctx.host.abort();
        Ok(None)
    })];
    c.tools = vec![StubTool::new("nope", "done")];
    let s = AgentSession::new(c);
    tokio::time::timeout(
        std::time::Duration::from_secs(5),
        s.prompt("x", PromptOptions::default()),
    )
    .await
    .expect("the run ends")
    .expect("ok");
    s.wait_for_idle().await;
    let last = s
        .messages()
        .last()
        .and_then(|m| m.as_assistant().cloned())
        .expect("assistant");
    assert_eq!(last.stop_reason, rho_ai::StopReason::Aborted);
}

#[tokio::test]
async fn se_1_slow_handler_keeps_event_order() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let mut c = config(&provider);
    let mut ext = Extension::new("slow");
    ext.on(
        "message_start",
        Arc::new(|_, _| {
            Box::pin(async {
                tokio::task::yield_now().await;
                Ok(None)
            })
        }),
    );
    c.extensions = vec![ext];
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.prompt("x", PromptOptions::default()).await.expect("runs");
    let t = types(&drain(&mut rx));
    assert_eq!(t.first(), Some(&"agent_start"));
    assert_eq!(t.last(), Some(&"agent_end"));
    let ms = t.iter().filter(|x| **x == "message_start").count();
    let me = t.iter().filter(|x| **x == "message_end").count();
    assert_eq!((ms, me), (2, 2));
}

#[tokio::test]
async fn se_5_message_end_replacement_reaches_listeners_state_and_file() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let mut c = config(&provider);
    c.extensions = vec![extension_on("a", "message_end", |e, _| {
        let ExtensionEvent::MessageEnd { message } = e else {
            return Ok(None);
        };
        let mut v = serde_json::to_value(&message).expect("json");
        if v["role"] != "assistant" {
            return Ok(None);
        }
        v["usage"]["cost"]["total"] = json!(0.123);
        Ok(Some(json!({"message": v})))
    })];
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.prompt("x", PromptOptions::default()).await.expect("runs");
    let end = json_events(&drain(&mut rx))
        .into_iter()
        .find(|e| e["type"] == "message_end" && e["message"]["role"] == "assistant")
        .expect("end");
    assert_eq!(end["message"]["usage"]["cost"]["total"], 0.123);
    let state = s
        .messages()
        .last()
        .and_then(|m| m.as_assistant().cloned())
        .expect("assistant");
    assert_eq!(state.usage.cost.total, 0.123);
    let stored = s.with_session(|m| {
        m.entries()
            .last()
            .and_then(|e| e.message().map(|m| (*m).clone()))
    });
    let stored = stored
        .and_then(|m| m.as_assistant().cloned())
        .expect("stored");
    assert_eq!(stored.usage.cost.total, 0.123);
}

#[tokio::test]
async fn se_7_session_only_events_never_reach_handlers() {
    let provider = ScriptedProvider::new();
    let calls: Log = Default::default();
    let c2 = calls.clone();
    let mut c = config(&provider);
    c.extensions = vec![extension_on("a", "queue_update", move |_, _| {
        c2.lock().expect("lock").push("called".into());
        Ok(None)
    })];
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.follow_up("x", vec![]).await.expect("queued");
    assert_eq!(types(&drain(&mut rx)), ["queue_update"]);
    assert!(calls.lock().expect("lock").is_empty());
}

#[tokio::test]
async fn se_8_dropped_subscribers_are_forgotten() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let s = session(&provider);
    drop(s.subscribe());
    let mut kept = s.subscribe();
    s.prompt("x", PromptOptions::default()).await.expect("runs");
    assert!(!drain(&mut kept).is_empty());
}

#[tokio::test]
async fn q_2_queueing_emits_growing_lists() {
    let provider = ScriptedProvider::new();
    let s = session(&provider);
    let mut rx = s.subscribe();
    s.follow_up("F1", vec![]).await.expect("queued");
    s.follow_up("F2", vec![]).await.expect("queued");
    s.steer("S1", vec![]).await.expect("queued");
    assert_eq!(
        json_events(&drain(&mut rx)),
        vec![
            json!({"type": "queue_update", "steering": [], "followUp": ["F1"]}),
            json!({"type": "queue_update", "steering": [], "followUp": ["F1", "F2"]}),
            json!({"type": "queue_update", "steering": ["S1"], "followUp": ["F1", "F2"]}),
        ]
    );
}

#[tokio::test]
async fn q_7_steering_has_priority_over_follow_ups() {
    let provider = ScriptedProvider::new();
    for text in ["a", "b", "c", "d"] {
        provider.push(ScriptedReply::text(text));
    }
    let s = session(&provider);
    s.follow_up("F1", vec![]).await.expect("queued");
    s.follow_up("F2", vec![]).await.expect("queued");
    s.steer("S1", vec![]).await.expect("queued");
    s.prompt("go", PromptOptions::default())
        .await
        .expect("runs");
    let order: Vec<String> = provider
        .requests()
        .iter()
        .filter_map(|r| request_texts(r).last().cloned())
        .collect();
    assert_eq!(order, ["user:S1", "user:F1", "user:F2"]);
}

#[tokio::test]
async fn q_8_all_mode_delivers_the_whole_queue_at_once() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("a"));
    let mut c = config(&provider);
    c.settings = fast_settings(json!({"steeringMode": "all"}));
    let s = AgentSession::new(c);
    s.steer("S1", vec![]).await.expect("queued");
    s.steer("S2", vec![]).await.expect("queued");
    s.prompt("go", PromptOptions::default())
        .await
        .expect("runs");
    assert_eq!(provider.call_count(), 1);
    assert_eq!(
        request_texts(&provider.requests()[0]),
        ["user:go", "user:S1", "user:S2"]
    );
}

#[tokio::test]
async fn q_9_and_post_6_seed_post_run_still_delivers_a_follow_up_after_an_error_d2() {
    let provider = ScriptedProvider::new();
    let gate = Arc::new(tokio::sync::Notify::new());
    provider.push(
        ScriptedReply::new()
            .step(Step::Gate(gate.clone()))
            .fail("400 bad request"),
    );
    provider.push(ScriptedReply::text("answered"));
    let s = session(&provider);
    let mut rx = s.subscribe();
    let run = spawn_prompt(&s, "go");
    wait_for(&mut rx, "message_start").await;
    provider.wait_for_calls(1).await;
    s.follow_up("later", vec![]).await.expect("queued");
    gate.notify_one();
    run.await.expect("join").expect("ok");
    assert_eq!(
        provider.call_count(),
        2,
        "D2: the queue stage runs after an error reply"
    );
    assert_eq!(s.pending_message_count(), 0);
}

#[tokio::test]
async fn q_11_pending_count_ignores_custom_messages() {
    let provider = ScriptedProvider::new();
    let s = session(&provider);
    s.follow_up("a", vec![]).await.expect("queued");
    assert_eq!(s.pending_message_count(), 1);
    assert_eq!(s.follow_up_messages(), ["a"]);
    assert!(s.steering_messages().is_empty());
}

#[tokio::test]
async fn bash_3_and_5_shape_and_flush_before_the_new_prompt() {
    let provider = ScriptedProvider::new();
    let gate = Arc::new(tokio::sync::Notify::new());
    provider.push(
        ScriptedReply::new()
            .step(Step::Gate(gate.clone()))
            .with_text(&["a"]),
    );
    provider.push(ScriptedReply::text("b"));
    let s = session(&provider);
    let mut rx = s.subscribe();
    let run = spawn_prompt(&s, "one");
    wait_for(&mut rx, "message_start").await;
    s.record_bash_result(rho_agent::BashExecutionMessage {
        command: "ls".into(),
        output: "x".into(),
        exit_code: Some(1),
        cancelled: false,
        truncated: false,
        full_output_path: None,
        timestamp: rho_ai::now_ms(),
        exclude_from_context: None,
    })
    .await;
    gate.notify_one();
    run.await.expect("join").expect("ok");
    s.prompt("two", PromptOptions::default())
        .await
        .expect("runs");
    let texts = request_texts(&provider.requests()[1]);
    assert_eq!(
        texts[texts.len() - 2],
        "user:Ran `ls`\n```\nx\n```\n\nCommand exited with code 1"
    );
    assert_eq!(texts.last().map(String::as_str), Some("user:two"));
    let json = serde_json::to_value(
        s.messages()
            .iter()
            .find(|m| m.role() == "bashExecution")
            .expect("bash"),
    )
    .expect("json");
    assert_eq!(json["role"], "bashExecution");
    assert_eq!(json["exitCode"], 1);
}
