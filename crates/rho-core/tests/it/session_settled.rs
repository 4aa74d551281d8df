//! pi 1.x's run-loop signals: `agent_settled` once after the whole run loop (retries,
//! compaction, queued messages included), and `agent_end`'s `will_retry`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::session_common as common;

use common::*;
use rho_agent::AgentEvent;
use rho_core::agent_session::{PromptOptions, SessionEvent, SessionOnlyEvent};
use rho_testkit::scripted::{ScriptedProvider, ScriptedReply, Step};

fn settled(events: &[SessionEvent]) -> Vec<bool> {
    events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::Session(SessionOnlyEvent::AgentSettled { aborted }) => Some(*aborted),
            _ => None,
        })
        .collect()
}

fn will_retry(events: &[SessionEvent]) -> Vec<bool> {
    events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::Agent(a) => match &**a {
                AgentEvent::AgentEnd { will_retry, .. } => Some(*will_retry),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_prompt_settles_once_after_its_last_event() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("hello"));
    let s = session(&provider);
    let mut rx = s.subscribe();
    s.prompt("go", PromptOptions::default()).await.expect("ok");
    let events = drain_all(&mut rx);
    assert_eq!(settled(&events), [false]);
    assert_eq!(types(&events).last(), Some(&"agent_settled"));
    assert_eq!(will_retry(&events), [false]);
}

#[tokio::test]
async fn retries_and_follow_ups_settle_once_at_the_very_end() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::new().fail("503 Service Unavailable"));
    provider.push(ScriptedReply::text("finally"));
    provider.push(ScriptedReply::text("and the follow-up"));
    let s = session(&provider);
    s.follow_up("later", vec![]).await.expect("queued");
    let mut rx = s.subscribe();
    s.prompt("go", PromptOptions::default()).await.expect("ok");
    let events = drain_all(&mut rx);
    assert_eq!(provider.call_count(), 3);
    assert_eq!(settled(&events), [false], "one settle for the whole loop");
    let t = types(&events);
    assert_eq!(t.last(), Some(&"agent_settled"));
    let retry_end = t
        .iter()
        .position(|x| *x == "auto_retry_end")
        .expect("retried");
    assert!(retry_end < t.len() - 1);
    assert_eq!(
        will_retry(&events).first(),
        Some(&true),
        "the failed run's agent_end announces the retry"
    );
    assert_eq!(will_retry(&events).last(), Some(&false));
}

#[tokio::test]
async fn exhausted_retries_promise_no_retry() {
    let provider = ScriptedProvider::new();
    for _ in 0..4 {
        provider.push(ScriptedReply::new().fail("429 rate limit exceeded"));
    }
    let s = session(&provider);
    let mut rx = s.subscribe();
    s.prompt("go", PromptOptions::default()).await.expect("ok");
    let events = drain_all(&mut rx);
    assert_eq!(will_retry(&events), [true, true, true, false]);
    assert_eq!(settled(&events), [false]);
}

#[tokio::test]
async fn an_aborted_run_settles_as_aborted_and_the_next_one_does_not() {
    let provider = ScriptedProvider::new();
    provider.push(
        ScriptedReply::new()
            .with_text(&["partial"])
            .step(Step::Hang),
    );
    provider.push(ScriptedReply::text("fresh"));
    let s = session(&provider);
    let mut rx = s.subscribe();
    let runner = {
        let s = s.clone();
        tokio::spawn(async move { s.prompt("go", PromptOptions::default()).await })
    };
    wait_for(&mut rx, "message_update").await;
    s.abort().await;
    runner.await.expect("join").expect("resolved");
    assert_eq!(settled(&drain_all(&mut rx)), [true]);
    s.prompt("again", PromptOptions::default())
        .await
        .expect("ok");
    assert_eq!(settled(&drain_all(&mut rx)), [false]);
}

#[tokio::test]
async fn an_idle_abort_settles_nothing() {
    let provider = ScriptedProvider::new();
    let s = session(&provider);
    let mut rx = s.subscribe();
    s.abort().await;
    assert!(drain_all(&mut rx).is_empty());
}

/// A steer sent while the run loop finishes (here: while its after-run hook runs, after the
/// post-run chain looked at the queues) is delivered by that loop: one more model call and
/// one `agent_settled`, instead of waiting in the queue for the next prompt.
#[tokio::test]
async fn a_steer_sent_while_the_loop_finishes_is_delivered_by_it() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{mpsc, Arc, Mutex};
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("first"));
    provider.push(ScriptedReply::text("second"));
    let s = session(&provider);
    let (entered, hook_entered) = mpsc::channel();
    let (release, released) = mpsc::channel::<()>();
    let released = Mutex::new(released);
    let first_time = AtomicBool::new(true);
    s.set_after_run(Arc::new(move || {
        if first_time.swap(false, Ordering::SeqCst) {
            let _ = entered.send(());
            let _ = released.lock().map(|r| r.recv());
        }
    }));
    let mut rx = s.subscribe();
    let run = spawn_prompt(&s, "go");
    tokio::task::spawn_blocking(move || hook_entered.recv())
        .await
        .expect("join")
        .expect("the hook ran");
    assert!(s.is_streaming(), "the loop has not settled yet");
    s.steer("one more thing", vec![]).await.expect("queued");
    release.send(()).expect("hook waiting");
    run.await.expect("join").expect("ok");
    assert_eq!(provider.call_count(), 2, "the steer got its model call");
    let last = request_texts(&provider.requests()[1]);
    assert_eq!(last.last().map(String::as_str), Some("user:one more thing"));
    assert_eq!(
        settled(&drain_all(&mut rx)),
        [false],
        "one run loop, settled once"
    );
    assert_eq!(s.pending_message_count(), 0);
}

/// An `agent_settled` handler may start a new session (pi's `ctx.newSession()`): the run it
/// follows has settled, so the replacement happens at once instead of waiting for that run.
#[tokio::test]
async fn an_agent_settled_handler_can_start_a_new_session() {
    use rho_extension_host::{Extension, ExtensionContext, SessionAction};
    use std::sync::Arc;
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("done"));
    let mut c = config(&provider);
    let mut ext = Extension::new("fresh-start");
    ext.on(
        "agent_settled",
        Arc::new(|_, ctx: ExtensionContext| {
            Box::pin(async move {
                ctx.host
                    .session_action(SessionAction::NewSession(Default::default()))
                    .await?;
                Ok(None)
            })
        }),
    );
    c.extensions = vec![ext];
    let s = rho_core::agent_session::AgentSession::new(c);
    s.bind_session_actions();
    let before = s.with_session(|m| m.session_id().to_string());
    let prompt = s.prompt("go", PromptOptions::default());
    tokio::time::timeout(std::time::Duration::from_secs(5), prompt)
        .await
        .expect("the handler's new session does not wait for the run it follows")
        .expect("ok");
    assert_ne!(s.with_session(|m| m.session_id().to_string()), before);
    assert!(s.messages().is_empty(), "the new session starts empty");
}
