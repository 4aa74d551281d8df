//! pi 1.x's system messages in a run: with structured prompt sections set on the agent,
//! every request is preceded by the `system` message that records a change of prompt or
//! tools against what the transcript's system messages replay to (the first request of a
//! transcript records them all), and the model is sent that replay: what the transcript
//! says, not what the session would build now, so the prompt's prefix stays the same
//! across reloads (D18).

use rho_protocol::agent::SystemState;
use rho_protocol::message::Tool;

use crate::message::{AgentMessage, SystemMessage};
use crate::stored::{ReadError, StoredMessage};

/// What the transcript's system messages replay to (only they are decoded); `None` when it
/// has none.
pub(crate) fn replay(messages: &[StoredMessage]) -> Result<Option<SystemState>, ReadError> {
    let mut system = Vec::new();
    for m in messages.iter().filter(|m| m.role() == "system") {
        if let AgentMessage::System(s) = &*m.get()? {
            system.push(s.clone());
        }
    }
    Ok(SystemState::replay(&system))
}

/// The system message bringing `state` (the transcript's replay, if any) to `sections` and
/// `tools`, and the state after it.
pub(crate) fn declare(
    state: Option<SystemState>,
    sections: &[(String, String)],
    tools: &[Tool],
) -> (Option<AgentMessage>, Option<SystemState>) {
    let now = rho_protocol::message::now_ms();
    let patch: Option<SystemMessage> = match &state {
        Some(s) => s.patch(sections, tools, now),
        None => rho_protocol::agent::initial_system_message(sections, tools, now),
    };
    let Some(patch) = patch else {
        return (None, state);
    };
    let mut after = state.unwrap_or(SystemState {
        timestamp: now,
        ..SystemState::default()
    });
    after.apply(&patch);
    (Some(AgentMessage::System(patch)), Some(after))
}

/// The system message a request opens with for `context_with_system` when the transcript
/// records none: the prompt and tools the request would be sent.
pub(crate) fn request_head(prompt: Option<&str>, tools: &[Tool], timestamp: i64) -> AgentMessage {
    let mut head = rho_protocol::agent::initial_system_message(&[], tools, timestamp).unwrap_or(
        SystemMessage {
            content: rho_protocol::message::UserContent::Text(String::new()),
            sections: None,
            tools_added: None,
            tools_removed: None,
            timestamp,
        },
    );
    head.content = rho_protocol::message::UserContent::Text(prompt.unwrap_or_default().into());
    AgentMessage::System(head)
}

/// The prompt and tools `messages`' system messages replay to: what a request rewritten by
/// `context_with_system` is sent (`None` and no tools when it kept no system message).
pub(crate) fn projected(messages: &[AgentMessage]) -> (Option<String>, Vec<Tool>) {
    let system = messages.iter().filter_map(|m| match m {
        AgentMessage::System(s) => Some(s),
        _ => None,
    });
    match SystemState::replay(system) {
        Some(state) => {
            let text = state.text();
            ((!text.is_empty()).then_some(text), state.tools())
        }
        None => (None, Vec::new()),
    }
}
