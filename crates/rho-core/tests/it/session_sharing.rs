//! The conversation is held once: the agent's transcript and the session's entries share each
//! message (issue 20: a 50,000-entry session must not be copied when it is opened or grows).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::session_common as common;

use std::sync::Arc;

use common::*;
use rho_agent::AgentMessage;
use rho_core::agent_session::{AgentSession, PromptOptions};
use rho_session::{EntryData, SessionManager};
use rho_testkit::scripted::{ScriptedProvider, ScriptedReply};

fn entry_messages(s: &AgentSession) -> Vec<Arc<AgentMessage>> {
    s.with_session(|m| {
        m.tree()
            .entries()
            .iter()
            .filter_map(|e| match &e.data {
                EntryData::Message(m) => Some(m.get().expect("held")),
                _ => None,
            })
            .collect()
    })
}

fn assert_shared(agent: &[Arc<AgentMessage>], entries: &[Arc<AgentMessage>]) {
    assert_eq!(agent.len(), entries.len());
    for (a, e) in agent.iter().zip(entries) {
        assert!(Arc::ptr_eq(a, e), "{} message copied", a.role());
    }
}

#[tokio::test]
async fn messages_of_a_run_are_shared_with_their_entries() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("one"));
    provider.push(ScriptedReply::text("two"));
    let s = session(&provider);
    s.prompt("a", PromptOptions::default()).await.expect("ran");
    s.prompt("b", PromptOptions::default()).await.expect("ran");
    assert_shared(&s.shared_messages().expect("held"), &entry_messages(&s));
    assert_eq!(s.shared_messages().expect("held").len(), 4);
}

#[tokio::test]
async fn a_resumed_conversation_is_shared_with_the_entries() {
    let mut store = SessionManager::in_memory("/work");
    for text in ["first", "second"] {
        store
            .append_message(AgentMessage::User(rho_ai::UserMessage::text(text)))
            .expect("append");
    }
    let provider = ScriptedProvider::new();
    let mut c = config(&provider);
    c.session = store;
    let s = AgentSession::new(c);
    assert_shared(&s.shared_messages().expect("held"), &entry_messages(&s));
    assert_eq!(s.shared_messages().expect("held").len(), 2);
}
