//! AgentSession prompt(): the seven stages, early returns and preflight points (seed
//! diagram 1; P-, IN-, AUTH-, MSG- rules; D7, D8).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::session_common as common;

use std::sync::{Arc, Mutex};

use common::*;
use rho_core::agent_session::{
    AgentSession, AuthStatus, CredentialError, CredentialStore, Disposition, PromptOptions,
    SessionError, StreamingBehavior,
};
use rho_core::resources::templates::parse_template;
use rho_extension_host::{CommandDef, DeliverAs, Extension, ExtensionEvent};
use rho_testkit::scripted::{ScriptedProvider, ScriptedReply, Step};
use serde_json::json;

/// `Some(disposition)` when accepted (pi 1.x's prompt ack), `None` when refused.
fn preflight_log() -> (Arc<Mutex<Vec<Option<Disposition>>>>, PromptOptions) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let l = log.clone();
    let opts = PromptOptions {
        preflight: Some(Box::new(move |ok| l.lock().expect("lock").push(ok))),
        ..Default::default()
    };
    (log, opts)
}

fn command_ext(name: &str, log: common::Log) -> Extension {
    let mut e = Extension::new("cmd.ext");
    e.register_command(CommandDef {
        complete: None,
        name: name.into(),
        description: None,
        handler: Arc::new(move |args, _| {
            let log = log.clone();
            Box::pin(async move {
                log.lock().expect("lock").push(args);
                Ok(())
            })
        }),
    });
    e
}

#[tokio::test]
async fn p3_extension_command_runs_and_returns_without_llm_call() {
    let provider = ScriptedProvider::new();
    let log: common::Log = Default::default();
    let mut c = config(&provider);
    c.extensions = vec![command_ext("hello", log.clone())];
    let s = AgentSession::new(c);
    let (pf, opts) = preflight_log();
    s.prompt("/hello  a b ", opts).await.expect("handled");
    assert_eq!(*log.lock().expect("lock"), [" a b "]);
    assert_eq!(*pf.lock().expect("lock"), [Some(Disposition::Handled)]);
    assert_eq!(provider.call_count(), 0);
    assert!(s.messages().is_empty());
}

#[tokio::test]
async fn cmd_10_expansion_off_skips_commands() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let log: common::Log = Default::default();
    let mut c = config(&provider);
    c.extensions = vec![command_ext("hello", log.clone())];
    let s = AgentSession::new(c);
    let opts = PromptOptions {
        expand_prompt_templates: false,
        ..Default::default()
    };
    s.prompt("/hello", opts).await.expect("sent");
    assert!(log.lock().expect("lock").is_empty());
    assert_eq!(request_texts(&provider.requests()[0]), ["user:/hello"]);
}

#[tokio::test]
async fn p4_and_in_3_input_handled_returns_early_with_preflight_true() {
    let provider = ScriptedProvider::new();
    let mut c = config(&provider);
    c.extensions = vec![extension_on("a", "input", |_, _| {
        Ok(Some(json!({"action": "handled"})))
    })];
    let s = AgentSession::new(c);
    let (pf, opts) = preflight_log();
    s.prompt("hi", opts).await.expect("handled");
    assert_eq!(*pf.lock().expect("lock"), [Some(Disposition::Handled)]);
    assert_eq!(provider.call_count(), 0);
}

#[tokio::test]
async fn in_4_and_in_1_and_in_5_transforms_chain_and_reach_the_llm_with_source() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let sources: common::Log = Default::default();
    let s2 = sources.clone();
    let mut c = config(&provider);
    c.extensions = vec![
        extension_on("a", "input", move |e, _| {
            let ExtensionEvent::Input { text, source, .. } = e else {
                return Ok(None);
            };
            s2.lock().expect("lock").push(source);
            Ok(Some(
                json!({"action": "transform", "text": format!("A<{text}")}),
            ))
        }),
        extension_on("b", "input", |e, _| {
            let ExtensionEvent::Input { text, .. } = e else {
                return Ok(None);
            };
            Ok(Some(
                json!({"action": "transform", "text": format!("{text}>B")}),
            ))
        }),
        extension_on("c", "input", |_, _| Ok(Some(json!({"action": "continue"})))),
    ];
    let s = AgentSession::new(c);
    let opts = PromptOptions {
        source: rho_core::agent_session::InputSource::Rpc,
        ..Default::default()
    };
    s.prompt("hello", opts).await.expect("runs");
    assert_eq!(request_texts(&provider.requests()[0]), ["user:A<hello>B"]);
    assert_eq!(*sources.lock().expect("lock"), ["rpc"]);
}

#[tokio::test]
async fn in_6_failing_input_handler_is_isolated_and_reported() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let mut c = config(&provider);
    c.extensions = vec![extension_on("bad.ext", "input", |_, _| Err("boom".into()))];
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.prompt("x", PromptOptions::default()).await.expect("runs");
    let events = json_events(&drain(&mut rx));
    assert!(events.contains(&json!({"type": "extension_error", "extensionPath": "bad.ext", "event": "input", "error": "boom"})));
    assert_eq!(provider.call_count(), 1);
}

#[tokio::test]
async fn p5_template_expansion_after_input_event() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let seen: common::Log = Default::default();
    let s2 = seen.clone();
    let mut c = config(&provider);
    c.templates = vec![parse_template(
        "review",
        "Review $1 carefully",
        "/t/review.md".into(),
    )];
    c.extensions = vec![extension_on("a", "input", move |e, _| {
        let ExtensionEvent::Input { text, .. } = e else {
            return Ok(None);
        };
        s2.lock().expect("lock").push(text);
        Ok(None)
    })];
    let s = AgentSession::new(c);
    s.prompt("/review main.rs", PromptOptions::default())
        .await
        .expect("runs");
    assert_eq!(
        *seen.lock().expect("lock"),
        ["/review main.rs"],
        "input sees the raw text"
    );
    assert_eq!(
        request_texts(&provider.requests()[0]),
        ["user:Review main.rs carefully"]
    );
}

#[tokio::test]
async fn p6_streaming_without_behavior_errors_and_with_behavior_queues() {
    let provider = ScriptedProvider::new();
    let gate = Arc::new(tokio::sync::Notify::new());
    provider.push(
        ScriptedReply::new()
            .step(Step::Gate(gate.clone()))
            .with_text(&["first"]),
    );
    provider.push(ScriptedReply::text("after follow-up"));
    let s = session(&provider);
    let mut rx = s.subscribe();
    let runner = {
        let s = s.clone();
        tokio::spawn(async move { s.prompt("start", PromptOptions::default()).await })
    };
    wait_for(&mut rx, "message_start").await;
    provider.wait_for_calls(1).await;
    let (pf, opts) = preflight_log();
    let err = s
        .prompt("more", opts)
        .await
        .expect_err("refused while streaming");
    assert!(
        matches!(err, SessionError::StreamingWithoutBehavior),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
    );
    assert_eq!(*pf.lock().expect("lock"), [None]);
    let (pf, mut opts) = preflight_log();
    opts.streaming_behavior = Some(StreamingBehavior::FollowUp);
    s.prompt("more", opts).await.expect("queued");
    assert_eq!(*pf.lock().expect("lock"), [Some(Disposition::Queued)]);
    assert_eq!(s.follow_up_messages(), ["more"]);
    gate.notify_one();
    runner.await.expect("join").expect("run ok");
    assert_eq!(
        provider.call_count(),
        2,
        "the follow-up was delivered in the same prompt()"
    );
    assert_eq!(
        request_texts(&provider.requests()[1]),
        ["user:start", "assistant:first", "user:more"]
    );
    assert!(s.follow_up_messages().is_empty());
}

#[tokio::test]
async fn auth_2_and_p_10_no_model_gives_d7_text_and_preflight_false() {
    let provider = ScriptedProvider::new();
    let mut c = config(&provider);
    c.model = None;
    let s = AgentSession::new(c);
    let (pf, opts) = preflight_log();
    let err = s.prompt("hi", opts).await.expect_err("no model");
    assert_eq!(
        err.to_string(),
        "No model selected. Run '/model <name>' to select a model."
    );
    assert_eq!(*pf.lock().expect("lock"), [None]);
}

struct FixedStatus(AuthStatus);

impl CredentialStore for FixedStatus {
    fn status(&self, _: &str) -> AuthStatus {
        self.0.clone()
    }
    fn api_key(&self, _: &str) -> Result<Option<String>, CredentialError> {
        Ok(None)
    }
}

#[tokio::test]
async fn auth_4_and_auth_5_and_auth_7_missing_key_and_oauth_texts() {
    let provider = ScriptedProvider::new();
    let mut model = rho_testkit::scripted::scripted_model();
    model.provider = "anthropic".into();
    let mut c = config(&provider);
    c.model = Some(model.clone());
    c.credentials = Arc::new(FixedStatus(AuthStatus::Missing));
    let s = AgentSession::new(c);
    let err = s
        .prompt("hi", PromptOptions::default())
        .await
        .expect_err("no key");
    assert_eq!(
        err.to_string(),
        "No API key found for anthropic. Run '/set api-key anthropic <key>' to configure, or set the ANTHROPIC_API_KEY environment variable."
    );
    let mut c = config(&provider);
    c.model = Some(model);
    c.credentials = Arc::new(FixedStatus(AuthStatus::OAuthUnavailable));
    let s = AgentSession::new(c);
    let err = s
        .prompt("hi", PromptOptions::default())
        .await
        .expect_err("oauth");
    assert_eq!(
        err.to_string(),
        "Authentication failed for \"anthropic\". Credentials may have expired or network is unavailable. Run '/login anthropic' to re-authenticate."
    );
    assert_eq!(provider.call_count(), 0);
}

#[tokio::test]
async fn p7_and_auth_1_and_bash_4_bash_flushed_even_when_auth_fails() {
    let provider = ScriptedProvider::new();
    let mut c = config(&provider);
    c.model = None;
    let s = AgentSession::new(c);
    s.record_bash_result(bash("ls")).await;
    assert_eq!(
        s.messages().len(),
        1,
        "idle bash is appended at once (BASH-4)"
    );
    s.prompt("hi", PromptOptions::default())
        .await
        .expect_err("no model");
    assert_eq!(s.messages()[0].role(), "bashExecution");
}

pub fn bash(command: &str) -> rho_agent::BashExecutionMessage {
    rho_agent::BashExecutionMessage {
        command: command.into(),
        output: "out".into(),
        exit_code: Some(0),
        cancelled: false,
        truncated: false,
        full_output_path: None,
        timestamp: rho_ai::now_ms(),
        exclude_from_context: None,
    }
}

#[tokio::test]
async fn msg_1_and_3_and_6_and_8_and_p_9_and_cm_2_and_8_and_se_4_order_user_then_next_turn_then_before_agent_start_messages(
) {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    let mut c = config(&provider);
    c.extensions = vec![extension_on("a", "before_agent_start", |_, _| {
        Ok(Some(
            json!({"message": {"customType": "bas", "content": "from hook", "display": false}}),
        ))
    })];
    let s = AgentSession::new(c);
    for text in ["aside1", "aside2"] {
        s.send_custom_message(
            rho_extension_host::CustomMessageInput {
                custom_type: "note".into(),
                content: rho_ai::UserContent::Text(text.into()),
                display: true,
                details: None,
            },
            rho_core::agent_session::SendMessageOptions {
                trigger_turn: false,
                deliver_as: Some(DeliverAs::NextTurn),
            },
        )
        .await
        .expect("queued for next turn");
    }
    assert!(
        s.messages().is_empty(),
        "CM-2: next-turn messages wait silently"
    );
    s.prompt("go", PromptOptions::default())
        .await
        .expect("runs");
    assert_eq!(
        request_texts(&provider.requests()[0]),
        ["user:go", "user:aside1", "user:aside2", "user:from hook"]
    );
    let roles: Vec<String> = s.with_session(|m| {
        m.entries()
            .iter()
            .map(|e| e.data.type_name().to_string())
            .collect()
    });
    assert_eq!(
        roles,
        [
            "message",
            "custom_message",
            "custom_message",
            "custom_message",
            "message"
        ]
    );
}

#[tokio::test]
async fn msg_7_and_4_and_5_system_prompt_override_lasts_one_run_then_resets_to_base() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("one"));
    provider.push(ScriptedReply::text("two"));
    let calls = Arc::new(Mutex::new(0));
    let c2 = calls.clone();
    let mut c = config(&provider);
    c.base_system_prompt = "BASE".into();
    c.extensions = vec![extension_on("a", "before_agent_start", move |e, _| {
        let mut n = c2.lock().expect("lock");
        *n += 1;
        let ExtensionEvent::BeforeAgentStart { system_prompt, .. } = e else {
            return Ok(None);
        };
        assert_eq!(system_prompt, "BASE", "MSG-4: handlers see the base prompt");
        Ok((*n == 1).then(|| json!({"systemPrompt": "BASE+A"})))
    })];
    let s = AgentSession::new(c);
    s.prompt("1", PromptOptions::default()).await.expect("runs");
    assert_eq!(
        s.system_prompt(),
        "BASE",
        "D1: the override is reset after the run"
    );
    s.prompt("2", PromptOptions::default()).await.expect("runs");
    let reqs = provider.requests();
    assert_eq!(reqs[0].system_prompt.as_deref(), Some("BASE+A"));
    assert_eq!(reqs[1].system_prompt.as_deref(), Some("BASE"));
}

#[tokio::test]
async fn p13_provider_failure_resolves_prompt_with_error_message() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().fail("400 bad request"));
    let s = session(&provider);
    s.prompt("x", PromptOptions::default())
        .await
        .expect("resolves");
    let last = s
        .messages()
        .last()
        .and_then(|m| m.as_assistant().cloned())
        .expect("assistant");
    assert_eq!(last.stop_reason, rho_ai::StopReason::Error);
    assert_eq!(provider.call_count(), 1, "400 is not retryable");
}

#[tokio::test]
async fn msg_9_changing_active_tools_rebuilds_the_base_prompt() {
    let provider = ScriptedProvider::new();
    let options = rho_core::system_prompt::SystemPromptOptions {
        active_tools: Some(vec!["read".into()]),
        cwd: "/work".into(),
        ..Default::default()
    };
    let mut c = config(&provider);
    c.base_system_prompt = rho_core::system_prompt::build_system_prompt(&options);
    c.prompt_options = Some(options);
    let s = AgentSession::new(c);
    s.agent().set_system_prompt("OVERRIDE");
    s.set_active_tools(vec![Arc::new(rho_tools::LsTool::new("/work"))]);
    let prompt = s.system_prompt();
    assert!(prompt.contains("- ls: List directory contents"), "{prompt}");
    assert!(!prompt.contains("- read:"));
    assert!(!prompt.contains("OVERRIDE"));
    assert_eq!(s.agent().with_state(|st| st.tools.len()), 1);
}
