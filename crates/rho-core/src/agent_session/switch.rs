//! Replacing the session with extension events around it: `session_before_switch` /
//! `session_before_fork` (may cancel), `session_shutdown` for the old one, `session_start`
//! for the new one (EXT-3, EXT-4).

use super::AgentSession;
use crate::extensions::ExtensionEvent;
use crate::session::SessionManager;

/// Why the session is being replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SwitchReason {
    /// A new, empty session.
    New,
    /// Another session file was opened.
    Resume,
    /// Forked at an entry (`position`: `before` or `at`).
    Fork {
        /// The entry forked from.
        entry_id: String,
        /// `before` (fork) or `at` (clone).
        position: String,
    },
}

impl SwitchReason {
    fn name(&self) -> &'static str {
        match self {
            SwitchReason::New => "new",
            SwitchReason::Resume => "resume",
            SwitchReason::Fork { .. } => "fork",
        }
    }
}

impl AgentSession {
    /// Asks extensions, then replaces the store. Returns `true` when an extension cancelled.
    pub async fn switch_session(&self, next: SessionManager, reason: SwitchReason) -> bool {
        let ctx = self.ext_ctx();
        let runner = &self.inner.extensions;
        let target = next.path().map(|p| p.display().to_string());
        let before = match &reason {
            SwitchReason::Fork { entry_id, position } => ExtensionEvent::SessionBeforeFork {
                entry_id: entry_id.clone(),
                position: position.clone(),
            },
            other => ExtensionEvent::SessionBeforeSwitch {
                reason: other.name().into(),
                target_session_file: target.clone(),
            },
        };
        if runner
            .emit_session_before(before, &ctx)
            .await
            .is_some_and(|r| r.cancel)
        {
            return true;
        }
        let previous = self.with_session(|m| m.path().map(|p| p.display().to_string()));
        runner
            .emit(
                ExtensionEvent::SessionShutdown {
                    reason: reason.name().into(),
                    target_session_file: target,
                },
                &ctx,
            )
            .await;
        self.replace_session(next).await;
        runner
            .emit(
                ExtensionEvent::SessionStart {
                    reason: reason.name().into(),
                    previous_session_file: previous,
                },
                &self.ext_ctx(),
            )
            .await;
        false
    }
}
