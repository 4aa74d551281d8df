//! Input while a manual compaction runs: held on screen and sent after the summary, never a
//! second run beside the compaction (pi's interactive mode queues it the same way).

use std::sync::Arc;

use rho_testkit::scripted::{ScriptedProvider, ScriptedReply, Step};
use rho_tui::Input;
use serde_json::json;
use tokio::sync::Notify;

use super::Harness;

#[tokio::test]
async fn enter_during_a_compaction_waits_for_it_then_sends_the_message() {
    let provider = ScriptedProvider::new();
    let summary_gate = Arc::new(Notify::new());
    provider.push(ScriptedReply::text("first answer"));
    provider.push(ScriptedReply::text("THE SUMMARY").step(Step::Gate(summary_gate.clone())));
    provider.push(ScriptedReply::text("after the summary"));
    let mut h = Harness::configured(&provider, 120, |c| {
        let settings = json!({"compaction": {"keepRecentTokens": 1}});
        c.settings = rho_core::settings::Settings::from_scopes(
            settings.as_object().cloned().unwrap_or_default(),
            serde_json::Map::new(),
        );
    });
    h.keys(Input::typed("first question\n"));
    h.until_event("agent_end").await;
    h.keys(Input::typed("/compact\n"));
    provider.wait_for_calls(2).await;
    assert!(h.session.is_compacting());
    h.keys(Input::typed("typed while compacting\n"));
    let screen = h.screen();
    assert!(
        screen.contains("Queued message for after compaction"),
        "{screen}"
    );
    assert!(!h.session.is_streaming(), "no run beside the compaction");
    summary_gate.notify_one();
    h.until_event("compaction_end").await;
    provider.wait_for_calls(3).await;
    h.until_event("agent_end").await;
    let sent = format!("{:?}", provider.requests()[2].messages);
    assert!(sent.contains("typed while compacting"), "{sent}");
    assert!(
        sent.contains("THE SUMMARY"),
        "sent after the summary: {sent}"
    );
    assert!(h.screen().contains("after the summary"));
}
