//! Small accessors the RPC mode needs beyond the interactive API: credential status for the
//! available-model list, global settings writes, context usage and session-file facts.

use std::sync::Arc;

use rho_ai::Model;
use serde_json::Value;

use super::credentials::AuthStatus;
use super::AgentSession;
use crate::settings::SettingsError;
use rho_compaction::from_session::path_entries;
use rho_compaction::{context_usage, ContextUsage};

impl AgentSession {
    /// Whether `provider` has credentials (no command is run); decides which models are
    /// "available" to `set_model` / `cycle_model` / `get_available_models`.
    pub fn auth_status(&self, provider: &str) -> AuthStatus {
        self.inner.services.credentials.status(provider)
    }

    /// Every known model (built-ins, refreshed catalogs and models.json), built on first use.
    pub fn models(&self) -> Arc<Vec<Model>> {
        self.inner.services.models.get()
    }

    /// The shared handle of [`AgentSession::models`] (a refresh invalidates it).
    pub fn model_list(&self) -> rho_ai::ModelList {
        self.inner.services.models.clone()
    }

    /// Reads the effective settings (short; the state is locked meanwhile).
    pub fn with_settings<R>(&self, f: impl FnOnce(&crate::settings::Settings) -> R) -> R {
        f(&self.state().settings)
    }

    /// Writes a top-level key of the global `settings.json` and the in-memory view.
    pub fn set_global_setting(&self, key: &str, value: Value) -> Result<(), SettingsError> {
        self.state().settings.set_global(key, value)
    }

    /// Sets one field of a top-level object setting (`compaction.enabled`, `retry.enabled`),
    /// keeping the object's other fields.
    pub fn set_global_setting_field(
        &self,
        key: &str,
        field: &str,
        value: Value,
    ) -> Result<(), SettingsError> {
        let mut s = self.state();
        let mut object = match s.settings.raw().get(key) {
            Some(Value::Object(m)) => m.clone(),
            _ => serde_json::Map::new(),
        };
        object.insert(field.to_string(), value);
        s.settings.set_global(key, Value::Object(object))
    }

    /// How full the context is for `model` (interfaces spec §1.4 `get_session_stats`);
    /// `None` when the window is unknown.
    pub fn context_usage(&self, model: &Model) -> Option<ContextUsage> {
        let messages = self.inner.services.agent.shared_messages().ok()?;
        let s = self.state();
        let branch = s.session.tree().branch();
        let path = path_entries(&branch).ok()?;
        context_usage(&path, &messages, model.context_window)
    }
}
