//! Messages live in the session file, not in memory (issues 17 and 20): after a run, every
//! message that is durably on disk is let go and read back from the file when the next
//! request needs it; a session without a file keeps its messages. The test runs in a process
//! of its own, since it reads the process-wide count of messages decoded from files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::session_common as common;

use std::sync::Arc;

use common::*;
use rho_agent::stored::decoded_from_file;
use rho_ai::Model;
use rho_core::agent_session::{AgentSession, AgentSessionConfig, PromptOptions, StaticCredentials};
use rho_session::SessionManager;
use rho_testkit::anthropic::{text_reply, Usage};
use rho_testkit::{MockResponse, MockServer};
use serde_json::{json, Value};

/// A config over the Anthropic API at `server` (a loopback mock) with `session` as its store.
pub(crate) fn config(server: &MockServer, session: SessionManager) -> AgentSessionConfig {
    let mut c = AgentSessionConfig::new("/work");
    let model: Model = serde_json::from_value(json!({
            "id": "claude-test", "name": "Claude Test", "api": "anthropic-messages",
            "provider": "anthropic", "baseUrl": server.url(), "contextWindow": 200000,
        "maxTokens": 8192, "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}
    }))
    .expect("model");
    c.model = Some(model);
    c.credentials = Arc::new(StaticCredentials::new("anthropic", "sk-test"));
    c.settings = fast_settings(json!({}));
    c.session = session;
    c
}

fn reply(text: &str) -> MockResponse {
    let usage = Usage {
        input: 10,
        output: 2,
        ..Default::default()
    };
    MockResponse::sse(text_reply("msg_t", "claude-test", &[text], usage))
}

/// Every text the request sent, in order.
fn texts(body: &Value) -> Vec<String> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    messages
        .iter()
        .flat_map(|m| match &m["content"] {
            Value::String(s) => vec![s.clone()],
            Value::Array(blocks) => blocks
                .iter()
                .filter_map(|b| b["text"].as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

async fn prompt(s: &AgentSession, text: &str) {
    s.prompt(text, PromptOptions::default())
        .await
        .expect("prompt runs");
}

/// Both tests in one: the count of decoded messages is process-wide.
#[tokio::test]
async fn released_messages_are_read_back_and_unsaved_ones_stay() {
    if !rho_testkit::own_process::runs_here(
        "messages_on_disk::released_messages_are_read_back_and_unsaved_ones_stay",
    ) {
        return;
    }
    let server = MockServer::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    server.push(reply("noted: kumquat"));
    server.push(reply("kumquat"));
    let s = AgentSession::new(config(&server, SessionManager::create(dir.path(), "/work")));
    prompt(&s, "remember the word kumquat").await;
    let stored = s.agent().stored_messages();
    assert_eq!(stored.len(), 2);
    assert!(
        stored
            .iter()
            .all(|m| m.origin().is_some() && m.held().is_none()),
        "after the run both messages are on disk and not held"
    );
    let before = decoded_from_file();
    prompt(&s, "what was the word?").await;
    assert_eq!(
        decoded_from_file() - before,
        2,
        "the two released messages were read back from the file"
    );
    let sent = texts(&server.requests()[1].json());
    assert_eq!(
        sent,
        [
            "remember the word kumquat",
            "noted: kumquat",
            "what was the word?"
        ],
        "the second request carries the whole conversation"
    );

    server.push(reply("noted: fig"));
    server.push(reply("fig"));
    let s = AgentSession::new(config(&server, SessionManager::in_memory("/work")));
    prompt(&s, "remember the word fig").await;
    assert!(
        s.agent()
            .stored_messages()
            .iter()
            .all(|m| m.held().is_some()),
        "without a file the messages stay in memory"
    );
    let before = decoded_from_file();
    prompt(&s, "what was the word?").await;
    assert_eq!(decoded_from_file(), before, "nothing was read from a file");
    let sent = texts(&server.requests()[3].json());
    assert_eq!(
        sent,
        ["remember the word fig", "noted: fig", "what was the word?"]
    );
}
