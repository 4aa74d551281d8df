//! Telling the user that the session file cannot be written (issue 17 #8: prompts went on,
//! nothing was saved, and the only sign was an `extension_error` event). The conversation
//! goes on in memory and the store retries with every entry; the user hears once per failure.

use super::events::SessionOnlyEvent;
use super::{lock, AgentSession};

impl AgentSession {
    /// Announces a save failure that began since the last call: as an error notice where the
    /// mode has a UI (the interactive screen; RPC's `notify` request with `notifyType:
    /// "error"`, which pi clients show), else as an `extension_error` from `<session>` (print
    /// and JSON modes write it to stderr as a warning).
    pub(crate) fn announce_save_failure(&self) {
        let Some(error) = self.state().session.take_new_save_failure() else {
            return;
        };
        let text = format!(
            "The session is not being saved: {error}. The conversation goes on in memory \
             and rho tries again with every new entry; make the folder writable or export it."
        );
        let ui = lock(&self.inner.services.ui).clone();
        if ui.has_ui() {
            ui.notify(text, "error".into());
        } else {
            self.emit_session(SessionOnlyEvent::ExtensionError {
                extension_path: SESSION_SOURCE.into(),
                event: "save".into(),
                error: text,
            });
        }
    }
}

/// The `extensionPath` of errors that come from the session store, not an extension.
pub const SESSION_SOURCE: &str = "<session>";
