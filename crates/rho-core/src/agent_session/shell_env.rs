//! What the model's shell commands learn about the session they run in: pi 1.6's
//! `PI_SESSION_ID`, `PI_SESSION_FILE` (none for a session that is not saved), `PI_PROVIDER`,
//! `PI_MODEL` and `PI_REASONING_LEVEL`, read when each command starts. The `bash` tool is
//! built before the session exists, so it gets a [`SessionEnvSource`] the session binds
//! itself to when it is made.

use std::sync::{Arc, OnceLock, Weak};

use rho_tools::shell::SessionEnv;

use super::{AgentSession, Inner};

/// The session a tool's commands describe, bound once the session exists.
#[derive(Clone, Default)]
pub struct SessionEnvSource(Arc<OnceLock<Weak<Inner>>>);

impl SessionEnvSource {
    /// The variables of the bound session, asked for at each command (none before the session
    /// exists or after it ended).
    pub fn provider(&self) -> SessionEnv {
        let slot = self.0.clone();
        SessionEnv(Arc::new(move || {
            slot.get()
                .and_then(Weak::upgrade)
                .map(|inner| AgentSession { inner }.shell_env_vars())
                .unwrap_or_default()
        }))
    }

    pub(super) fn bind(&self, inner: Weak<Inner>) {
        let _ = self.0.set(inner);
    }
}

impl AgentSession {
    /// The session's variables for a command the model runs now.
    pub fn shell_env_vars(&self) -> Vec<(&'static str, String)> {
        let s = self.state();
        let mut vars = vec![("PI_SESSION_ID", s.session.session_id().to_string())];
        if let Some(file) = s.session.path() {
            vars.push(("PI_SESSION_FILE", file.display().to_string()));
        }
        if let Some(model) = &s.model {
            vars.push(("PI_PROVIDER", model.provider.clone()));
            vars.push(("PI_MODEL", model.id.clone()));
        }
        vars.push(("PI_REASONING_LEVEL", s.thinking_level.as_str().to_string()));
        vars
    }
}
