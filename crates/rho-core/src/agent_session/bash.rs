//! Deferred bash results (seed diagram 11, BASH-3..7, D5): recorded while streaming, they wait
//! until the run ends, so a turn's tool calls stay next to their results.

use rho_agent::{AgentMessage, BashExecutionMessage};

use super::AgentSession;

impl AgentSession {
    /// Records a user-run command's result: queued while streaming, appended to state and
    /// session at once otherwise (BASH-4). No events either way.
    pub fn record_bash_result(&self, message: BashExecutionMessage) {
        if self.is_streaming() {
            self.state().pending_bash.push(message);
            return;
        }
        self.append_bash(message);
    }

    /// Whether results wait for the next flush.
    pub fn has_pending_bash_messages(&self) -> bool {
        !self.state().pending_bash.is_empty()
    }

    /// Moves every pending result, in order, into state and session (the three flush points).
    pub(crate) fn flush_pending_bash(&self) {
        let pending = std::mem::take(&mut self.state().pending_bash);
        for message in pending {
            self.append_bash(message);
        }
    }

    fn append_bash(&self, message: BashExecutionMessage) {
        let m = AgentMessage::BashExecution(message);
        self.inner.agent.append_message(m.clone());
        if let Err(e) = self.state().session.append_message(m) {
            self.inner.extensions.report(
                "<session>",
                "persist",
                format!("Could not save the bash result: {e}"),
            );
        }
    }
}
