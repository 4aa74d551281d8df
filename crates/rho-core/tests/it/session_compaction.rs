//! Compaction as AgentSession runs it (seed diagram 4 stage 2; COMP-8..17; D2, D3).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::session_common as common;

use common::*;
use rho_agent::AgentMessage;
use rho_ai::UserMessage;
use rho_core::agent_session::compaction_flow::OVERFLOW_RECOVERY_FAILED;
use rho_core::agent_session::{AgentSession, PromptOptions};
use rho_session::SessionManager;
use rho_testkit::scripted::{scripted_model, ScriptedProvider, ScriptedReply};
use serde_json::json;

const OVERFLOW: &str = "prompt is too long: 213462 tokens > 200000 maximum";

/// A session whose store already holds one exchange, with a tiny keep-recent budget so
/// there is history to summarise.
fn seeded(provider: &ScriptedProvider) -> AgentSession {
    let mut store = SessionManager::in_memory("/work");
    store
        .append_message(AgentMessage::User(UserMessage::text("earlier question")))
        .expect("append");
    let mut earlier = rho_ai::AssistantMessage::empty("scripted", "scripted", "scripted-model");
    earlier.content = vec![rho_ai::ContentBlock::text("earlier answer")];
    store
        .append_message(AgentMessage::Assistant(earlier))
        .expect("append");
    let mut c = config(provider);
    c.session = store;
    c.settings = fast_settings(json!({"compaction": {"keepRecentTokens": 1}}));
    AgentSession::new(c)
}

fn compaction_events(events: &[rho_core::agent_session::SessionEvent]) -> Vec<serde_json::Value> {
    json_events(events)
        .into_iter()
        .filter(|e| {
            e["type"]
                .as_str()
                .is_some_and(|t| t.starts_with("compaction"))
        })
        .collect()
}

#[tokio::test]
async fn comp_10_and_comp_14_and_comp_20_and_loop_7_overflow_compacts_once_then_continues() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().fail(OVERFLOW));
    provider.push(ScriptedReply::text("SUMMARY OF EARLIER"));
    provider.push(ScriptedReply::text("answer after compaction"));
    let s = seeded(&provider);
    let mut rx = s.subscribe();
    s.prompt("new question", PromptOptions::default())
        .await
        .expect("resolves");
    assert_eq!(provider.call_count(), 3);
    let events = compaction_events(&drain(&mut rx));
    assert_eq!(
        events[0],
        json!({"type": "compaction_start", "reason": "overflow"})
    );
    assert_eq!(events[1]["reason"], "overflow");
    assert_eq!(events[1]["willRetry"], true);
    assert_eq!(events[1]["aborted"], false);
    assert!(events[1]["result"]["summary"]
        .as_str()
        .is_some_and(|s| s.starts_with("SUMMARY OF EARLIER")));
    let roles: Vec<&str> = s.messages().iter().map(|m| m.role()).collect();
    assert_eq!(roles.first(), Some(&"compactionSummary"));
    assert_eq!(roles.last(), Some(&"assistant"));
    let last = s
        .messages()
        .last()
        .and_then(|m| m.as_assistant().cloned())
        .expect("reply");
    assert_eq!(last.text(), "answer after compaction");
    let third = request_texts(&provider.requests()[2]);
    assert!(
        third[0].contains("SUMMARY OF EARLIER"),
        "the continuation sends summary + kept tail"
    );
    assert!(!third.iter().any(|t| t.contains(OVERFLOW)));
}

#[tokio::test]
async fn comp_8_second_overflow_in_a_row_fails_without_compaction_start() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().fail(OVERFLOW));
    provider.push(ScriptedReply::text("SUMMARY"));
    provider.push(ScriptedReply::new().fail(OVERFLOW));
    let s = seeded(&provider);
    let mut rx = s.subscribe();
    s.prompt("q", PromptOptions::default())
        .await
        .expect("resolves");
    let events = compaction_events(&drain(&mut rx));
    assert_eq!(events.len(), 3);
    assert_eq!(
        events[2],
        json!({"type": "compaction_end", "reason": "overflow", "aborted": false, "willRetry": false,
               "errorMessage": OVERFLOW_RECOVERY_FAILED})
    );
    assert_eq!(provider.call_count(), 3, "no further attempt");
}

#[tokio::test]
async fn comp_15_failed_summary_reports_recovery_failure() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().fail(OVERFLOW));
    // Not a transient failure (a 500 would be retried first, as in pi 1.6).
    provider.push(ScriptedReply::new().fail("400 summary refused"));
    let s = seeded(&provider);
    let mut rx = s.subscribe();
    s.prompt("q", PromptOptions::default())
        .await
        .expect("resolves");
    let events = compaction_events(&drain(&mut rx));
    let msg = events[1]["errorMessage"].as_str().expect("error message");
    assert!(
        msg.starts_with(
            "Context overflow recovery failed: Summarization failed: 400 summary refused"
        ),
        "{msg}"
    );
}

#[tokio::test]
async fn comp_6_and_post_9_d3_overflow_from_another_model_is_not_compacted() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("fine"));
    let mut store = SessionManager::in_memory("/work");
    store
        .append_message(AgentMessage::User(UserMessage::text("old")))
        .expect("append");
    let mut old = rho_ai::AssistantMessage::empty("scripted", "scripted", "other-model");
    old.stop_reason = rho_ai::StopReason::Error;
    old.error_message = Some(OVERFLOW.into());
    store
        .append_message(AgentMessage::Assistant(old))
        .expect("append");
    let mut c = config(&provider);
    c.session = store;
    c.model = Some(scripted_model());
    let s = AgentSession::new(c);
    let mut rx = s.subscribe();
    s.prompt("q", PromptOptions::default())
        .await
        .expect("resolves");
    assert!(
        compaction_events(&drain(&mut rx)).is_empty(),
        "the pre-prompt check skips other models"
    );
    assert_eq!(provider.call_count(), 1);
}

#[tokio::test]
async fn comp_17_manual_compaction_then_already_compacted() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok"));
    provider.push(ScriptedReply::text("MANUAL SUMMARY"));
    provider.push(ScriptedReply::text("MANUAL SUMMARY"));
    let s = seeded(&provider);
    s.prompt("second question", PromptOptions::default())
        .await
        .expect("runs");
    let mut rx = s.subscribe();
    let result = s.compact(Some("focus on tests")).await.expect("compacted");
    assert!(
        result.summary.contains("MANUAL SUMMARY"),
        "{}",
        result.summary
    );
    let texts: Vec<String> = provider.requests()[1..]
        .iter()
        .map(|r| request_texts(r).join("\n"))
        .collect();
    assert!(
        texts.iter().any(|t| t.contains("focus on tests")),
        "custom instructions reach the summariser: {texts:?}"
    );
    let err = s.compact(None).await.expect_err("nothing new");
    assert_eq!(err.to_string(), "Already compacted");
    let events = compaction_events(&drain(&mut rx));
    assert_eq!(
        events[0],
        json!({"type": "compaction_start", "reason": "manual"})
    );
    assert_eq!(
        events[3],
        json!({"type": "compaction_end", "reason": "manual", "aborted": false, "willRetry": false,
               "errorMessage": "Compaction failed: Already compacted"})
    );
}

#[tokio::test]
async fn comp_13_and_comp_16_extension_cancel_and_supplied_summary() {
    let provider = ScriptedProvider::new();
    let mut c = config(&provider);
    c.session = {
        let mut m = SessionManager::in_memory("/work");
        for text in ["earlier", "q"] {
            m.append_message(AgentMessage::User(UserMessage::text(text)))
                .expect("append");
        }
        m
    };
    c.settings = fast_settings(json!({"compaction": {"keepRecentTokens": 1}}));
    c.extensions = vec![extension_on("c.ext", "session_before_compact", |e, _| {
        let rho_extension_host::ExtensionEvent::SessionBeforeCompact {
            custom_instructions,
            preparation,
            ..
        } = e
        else {
            return Ok(None);
        };
        if custom_instructions.as_deref() == Some("cancel") {
            return Ok(Some(json!({"cancel": true})));
        }
        Ok(Some(json!({"compaction": {"summary": "FROM EXTENSION",
            "firstKeptEntryId": preparation["firstKeptEntryId"], "tokensBefore": 5}})))
    })];
    let s = AgentSession::new(c);
    let err = s.compact(Some("cancel")).await.expect_err("cancelled");
    assert_eq!(err.to_string(), "Compaction cancelled");
    let r = s.compact(None).await.expect("supplied");
    assert_eq!(r.summary, "FROM EXTENSION");
    assert_eq!(provider.call_count(), 0, "no summariser request");
}

/// pi 1.x bookkeeping of a compaction: the entry records what the summary cost, the session
/// stats over the file count it and every message (compacted ones too), while the stats over
/// the context see only what is left; `after_compaction` reports both figures.
#[tokio::test]
async fn a_compaction_records_its_usage_and_file_stats_keep_compacted_messages() {
    use rho_core::agent_session::StatsScope;
    use rho_session::EntryData;
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("ok").with_usage(10, 2));
    provider.push(ScriptedReply::text("THE SUMMARY").with_usage(40, 8));
    provider.push(ScriptedReply::text("THE SUMMARY").with_usage(40, 8));
    let s = seeded(&provider);
    s.prompt("second question", PromptOptions::default())
        .await
        .expect("runs");
    s.compact(None).await.expect("compacted");
    let usage = s.with_session(|store| match store.tree().leaf().map(|e| &e.data) {
        Some(EntryData::Compaction(c)) => c.usage,
        other => panic!("leaf is not the compaction: {other:?}"),
    });
    let usage = usage.expect("the summary's usage is recorded");
    assert!(usage.input >= 40 && usage.output >= 8, "{usage:?}");
    let file = s.stats_over(StatsScope::File);
    let context = s.stats_over(StatsScope::Context);
    assert_eq!((file.user_messages, file.assistant_messages), (2, 2));
    assert!(
        context.total_messages < file.total_messages,
        "{context:?} / {file:?}"
    );
    assert_eq!(file.tokens.input, 10 + usage.input);
    let after = s.after_compaction();
    assert_eq!(after.usage, Some(usage));
    assert!(after.estimated_tokens_after > 0);
}
