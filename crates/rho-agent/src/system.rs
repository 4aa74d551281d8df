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
