//! D18: with structured prompt sections the agent records pi 1.x's `system` messages (the
//! first request declares every section and tool, later ones only what changed) before the
//! messages they apply to, and the model is sent what the transcript's system messages
//! replay to. Without sections nothing is recorded (pi 0.73.1's agent).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use rho_agent::{AgentMessage, SystemMessage};
use rho_testkit::scripted::{ScriptedProvider, ScriptedReply};
use serde_json::json;

fn sections(list: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
    Some(
        list.iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect(),
    )
}

fn system_messages(agent: &rho_agent::Agent) -> Vec<SystemMessage> {
    agent
        .messages()
        .into_iter()
        .filter_map(|m| match m {
            AgentMessage::System(s) => Some(s),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn the_first_request_records_the_prompt_and_tools_and_sends_their_replay() {
    let provider = ScriptedProvider::new();
    let agent = agent(&provider);
    agent.set_tools(vec![TestTool::new("a", Behavior::Echo).arc()]);
    agent.set_system_sections(sections(&[
        ("preamble", "You help."),
        ("cwd", "<cwd>\n/p\n</cwd>"),
    ]));
    let mut rx = agent.subscribe();
    provider.push(ScriptedReply::text("one"));
    agent.prompt("hi").await.expect("ran");
    let events = run_events(&mut rx).await;
    assert_eq!(
        labels(&events)[..6],
        [
            "agent_start",
            "turn_start",
            "message_start:system",
            "message_end:system",
            "message_start:user",
            "message_end:user"
        ]
    );
    let recorded = system_messages(&agent);
    assert_eq!(recorded.len(), 1);
    let first = serde_json::to_value(&recorded[0]).expect("encodes");
    assert_eq!(
        first["sections"],
        json!({"preamble": "You help.", "cwd": "<cwd>\n/p\n</cwd>"})
    );
    assert_eq!(first["toolsAdded"][0]["name"], "a");
    let sent = &provider.requests()[0];
    assert_eq!(
        sent.system_prompt.as_deref(),
        Some("You help.\n\n<cwd>\n/p\n</cwd>")
    );
    assert_eq!(sent.tools.len(), 1);
    assert_eq!(
        request_texts(sent),
        ["user:hi"],
        "system messages are not sent as messages"
    );

    // Nothing changed: nothing more is recorded.
    provider.push(ScriptedReply::text("two"));
    agent.prompt("again").await.expect("ran");
    assert_eq!(system_messages(&agent).len(), 1);

    // A changed section and a new tool: one patch, before the prompt it applies to.
    agent.set_system_sections(sections(&[
        ("preamble", "You help."),
        ("cwd", "<cwd>\n/q\n</cwd>"),
    ]));
    agent.set_tools(vec![
        TestTool::new("a", Behavior::Echo).arc(),
        TestTool::new("b", Behavior::Echo).arc(),
    ]);
    provider.push(ScriptedReply::text("three"));
    agent.prompt("moved").await.expect("ran");
    let messages = agent.messages();
    let roles: Vec<&str> = messages.iter().map(AgentMessage::role).collect();
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "user",
            "assistant",
            "system",
            "user",
            "assistant"
        ]
    );
    let patch = serde_json::to_value(&system_messages(&agent)[1]).expect("encodes");
    assert_eq!(patch["sections"], json!({"cwd": "<cwd>\n/q\n</cwd>"}));
    assert_eq!(patch["toolsAdded"].as_array().map(Vec::len), Some(1));
    assert_eq!(patch["toolsAdded"][0]["name"], "b");
    assert!(patch.get("toolsRemoved").is_none());
    let sent = provider.requests().pop().expect("a request");
    assert_eq!(
        sent.system_prompt.as_deref(),
        Some("You help.\n\n<cwd>\n/q\n</cwd>")
    );
    let names: Vec<&str> = sent.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
}

#[tokio::test]
async fn a_forced_prompt_is_sent_but_not_recorded_and_no_sections_record_nothing() {
    let provider = ScriptedProvider::new();
    let agent = agent(&provider);
    agent.set_system_sections(sections(&[("preamble", "Recorded.")]));
    agent.set_forced_system_prompt(Some("Forced by an extension.".into()));
    provider.push(ScriptedReply::text("ok"));
    agent.prompt("hi").await.expect("ran");
    let sent = &provider.requests()[0];
    assert_eq!(
        sent.system_prompt.as_deref(),
        Some("Forced by an extension.")
    );
    let recorded = serde_json::to_value(&system_messages(&agent)[0]).expect("encodes");
    assert_eq!(recorded["sections"], json!({"preamble": "Recorded."}));

    let provider = ScriptedProvider::new();
    let plain_agent = agent_with(&provider, |_| {});
    plain_agent.set_system_prompt("Plain.");
    provider.push(ScriptedReply::text("ok"));
    plain_agent.prompt("hi").await.expect("ran");
    assert!(system_messages(&plain_agent).is_empty());
    assert_eq!(
        provider.requests()[0].system_prompt.as_deref(),
        Some("Plain.")
    );
}
