//! The session task owns its own work as it owns a run: a manual compaction and a move in the
//! tree are its phases (`busy()` counts them, `is_streaming` does not), and a prompt sent
//! meanwhile is the session's to hold: it waits for that work and runs after it, with no
//! front-end holding it back.

use std::sync::Arc;

use rho_agent::AgentMessage;
use rho_testkit::scripted::{scripted_model, ScriptedProvider, ScriptedReply, Step};
use serde_json::json;
use tokio::sync::Notify;

use super::{
    AgentSession, AgentSessionConfig, NavigateTreeOptions, PromptOptions, RunPhase, SessionError,
    SessionEvent, StaticCredentials,
};
use crate::settings::Settings;

/// A session over `provider` whose compaction keeps only the last message.
fn session(provider: &ScriptedProvider) -> AgentSession {
    let mut c = AgentSessionConfig::new("/work");
    c.model = Some(scripted_model());
    c.credentials = Arc::new(StaticCredentials::new("scripted", "test-key"));
    c.stream_fn = provider.stream_fn();
    let settings = json!({"compaction": {"keepRecentTokens": 1}});
    c.settings = Settings::from_scopes(
        settings.as_object().cloned().unwrap_or_default(),
        serde_json::Map::new(),
    );
    AgentSession::new(c)
}

/// `prompt(text)` with no streaming behaviour, on its own task: a front-end sending it while
/// the session is busy, leaving the session to decide.
fn spawn_prompt(s: &AgentSession, text: &str) -> tokio::task::JoinHandle<Result<(), SessionError>> {
    let (s, text) = (s.clone(), text.to_string());
    tokio::spawn(async move { s.prompt(&text, PromptOptions::default()).await })
}

/// Every event delivered so far, by name.
fn names(rx: &mut tokio::sync::mpsc::UnboundedReceiver<SessionEvent>) -> Vec<&'static str> {
    let mut out = Vec::new();
    while let Ok(e) = rx.try_recv() {
        out.push(e.type_name());
    }
    out
}

/// What the provider was sent in its `n`th call.
fn request(provider: &ScriptedProvider, n: usize) -> String {
    format!("{:?}", provider.requests()[n].messages)
}

/// The session's own work holds a prompt: `busy` and `compacting` while it goes, not
/// `streaming`; the prompt is accepted to run after it and no model call starts meanwhile.
async fn holds_a_prompt_during(s: &AgentSession, provider: &ScriptedProvider, phase: RunPhase) {
    let calls = provider.call_count();
    let state = s.run_state();
    assert_eq!(state.phase, phase);
    assert!(state.busy() && s.is_compacting() && !s.is_streaming());
    let refused = s
        .navigate_tree("any", NavigateTreeOptions::default())
        .await
        .expect_err("nothing moves the tree beside the session's work");
    assert!(
        matches!(refused, SessionError::TreeWhileStreaming),
        "{refused:?}"
    );
    let prompt = spawn_prompt(s, "typed meanwhile");
    s.inner.run.until(|r| r.starting == 1).await;
    assert_eq!(s.run_state().phase, phase, "the prompt waits for the work");
    assert!(!prompt.is_finished(), "accepted, neither run nor refused");
    assert_eq!(provider.call_count(), calls, "no run beside the work");
}

#[tokio::test]
async fn a_manual_compaction_is_the_tasks_work_and_a_prompt_sent_during_it_runs_after_it() {
    let provider = ScriptedProvider::new();
    let summary = Arc::new(Notify::new());
    provider.push(ScriptedReply::text("first answer"));
    provider.push(ScriptedReply::text("THE SUMMARY").step(Step::Gate(summary.clone())));
    provider.push(ScriptedReply::text("after the summary"));
    let s = session(&provider);
    s.prompt("first question", PromptOptions::default())
        .await
        .expect("runs");
    let mut rx = s.subscribe();
    let compaction = tokio::spawn(s.compact(None));
    provider.wait_for_calls(2).await;
    holds_a_prompt_during(&s, &provider, RunPhase::ManualCompaction).await;
    summary.notify_one();
    compaction.await.expect("joined").expect("compacted");
    s.wait_for_idle().await;
    assert_eq!(provider.call_count(), 3);
    let sent = request(&provider, 2);
    assert!(
        sent.contains("typed meanwhile") && sent.contains("THE SUMMARY"),
        "{sent}"
    );
    let events = names(&mut rx);
    let end = events.iter().position(|e| *e == "compaction_end");
    let start = events.iter().position(|e| *e == "agent_start");
    assert!(end.is_some() && end < start, "{events:?}");
    assert!(!s.run_state().busy());
}

#[tokio::test]
async fn a_move_in_the_tree_is_the_tasks_work_and_a_prompt_sent_during_it_runs_after_it() {
    let provider = ScriptedProvider::new();
    let summary = Arc::new(Notify::new());
    provider.push(ScriptedReply::text("answer one"));
    provider.push(ScriptedReply::text("answer two"));
    provider.push(ScriptedReply::text("BRANCH SUMMARY").step(Step::Gate(summary.clone())));
    provider.push(ScriptedReply::text("on the new branch"));
    let s = session(&provider);
    for text in ["question one", "question two"] {
        s.prompt(text, PromptOptions::default())
            .await
            .expect("runs");
    }
    let first_answer = s.with_session(|m| {
        m.entries()
            .iter()
            .find(|e| matches!(e.message().as_deref(), Some(AgentMessage::Assistant(_))))
            .map(|e| e.id.clone())
            .expect("an answer")
    });
    let options = NavigateTreeOptions {
        summarize: true,
        ..NavigateTreeOptions::default()
    };
    let navigation = {
        let s = s.clone();
        tokio::spawn(async move { s.navigate_tree(&first_answer, options).await })
    };
    provider.wait_for_calls(3).await;
    holds_a_prompt_during(&s, &provider, RunPhase::Navigating).await;
    summary.notify_one();
    let outcome = navigation.await.expect("joined").expect("moved");
    assert!(!outcome.cancelled && outcome.summary_entry_id.is_some());
    s.wait_for_idle().await;
    let sent = request(&provider, 3);
    assert!(sent.contains("BRANCH SUMMARY"), "{sent}");
    assert!(
        sent.contains("typed meanwhile") && !sent.contains("question two"),
        "{sent}"
    );
}
