//! A session reopened from its leaf summary (issue 41): the agent session is built and says
//! what `get_state` reports without the session making its entry tree; the first prompt then
//! sends the whole conversation and appends after the summary's leaf.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::messages_on_disk::config;
use rho_core::agent_session::{AgentSession, PromptOptions};
use rho_protocol::agent::AgentMessage;
use rho_protocol::{AssistantMessage, ContentBlock, UserContent, UserMessage};
use rho_session::SessionManager;
use rho_testkit::anthropic::{text_reply, Usage};
use rho_testkit::{MockResponse, MockServer};

/// A session file with two exchanges, opened once whole (which writes its sidecars).
fn written_session(dir: &std::path::Path) -> std::path::PathBuf {
    let mut session = SessionManager::create(dir, "/work");
    session
        .append_model_change("anthropic", "claude-test")
        .unwrap();
    session.append_thinking_level_change("low").unwrap();
    session.append_session_info("fruit").unwrap();
    for (question, answer) in [("a fruit?", "fig"), ("another?", "kumquat")] {
        let user = AgentMessage::User(UserMessage {
            content: UserContent::Text(question.into()),
            timestamp: 1,
        });
        let mut reply = AssistantMessage::empty("anthropic-messages", "anthropic", "claude-test");
        reply.content = vec![ContentBlock::text(answer)];
        session.append_message(user).unwrap();
        session
            .append_message(AgentMessage::Assistant(reply))
            .unwrap();
    }
    let path = session.path().unwrap().to_path_buf();
    drop(session);
    let whole = SessionManager::open(&path).unwrap();
    assert!(whole.is_tree_made());
    path
}

#[tokio::test]
async fn a_reopened_session_answers_without_making_its_tree_until_a_prompt() {
    let server = MockServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let path = written_session(dir.path());
    let session = SessionManager::open(&path).unwrap();
    assert!(!session.is_tree_made(), "opened from the summary");
    let s = AgentSession::new(config(&server, session));
    let (name, file, made) = s.with_session(|m| {
        (
            m.name().map(str::to_string),
            m.path().map(|p| p.to_path_buf()),
            m.is_tree_made(),
        )
    });
    assert_eq!(name.as_deref(), Some("fruit"));
    assert_eq!(file.as_deref(), Some(path.as_path()));
    assert_eq!(s.agent().stored_messages().len(), 4);
    assert!(!made, "building the agent session made no tree");

    let usage = Usage {
        input: 10,
        output: 2,
        ..Default::default()
    };
    server.push(MockResponse::sse(text_reply(
        "m",
        "claude-test",
        &["pear"],
        usage,
    )));
    s.prompt("and one more?", PromptOptions::default())
        .await
        .expect("prompt runs");
    let sent = server.requests()[0].json();
    let texts: Vec<String> = sent["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| match &m["content"] {
            serde_json::Value::String(s) => s.clone(),
            blocks => blocks[0]["text"].as_str().unwrap_or_default().to_string(),
        })
        .collect();
    assert_eq!(
        texts,
        ["a fruit?", "fig", "another?", "kumquat", "and one more?"]
    );
    let reopened = SessionManager::open(&path).unwrap();
    let whole = rho_session::load_file(&path).unwrap();
    assert_eq!(reopened.entries().len(), whole.entries.len());
    assert_eq!(whole.entries.len(), 9, "two more entries after the seven");
    assert_eq!(
        whole.entries[7].parent_id.as_deref(),
        Some(whole.entries[6].id.as_str()),
        "the prompt continued the summary's leaf"
    );
}
