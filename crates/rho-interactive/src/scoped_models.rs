//! /scoped-models: which models Ctrl+P cycles through, for this session or saved to settings
//! (`enabledModels`, which `--models` overrides at start), as pi does.

use rho_tui::dialogs::{ScopedModels, ScopedModelsDialog};
use serde_json::Value;

use super::app::App;
use super::dialogs::ActiveDialog;

impl App {
    /// Opens the dialog over the models that have credentials.
    pub(super) fn open_scoped_models(&mut self) {
        let models = self.models.available();
        if models.is_empty() {
            return self.notice(
                "No models available: add a key with /login or /set api-key first".into(),
                true,
            );
        }
        let scope = self.models.scope_ids();
        let dialog = ScopedModelsDialog::new(&models, scope.as_deref());
        self.open(ActiveDialog::ScopedModels(dialog));
    }

    /// Applies the dialog's choice; saves it to settings when asked.
    pub(super) fn apply_scope(&mut self, choice: ScopedModels) {
        let ids = choice.enabled.unwrap_or_default();
        self.models.set_scope(&ids);
        let what = if ids.is_empty() {
            "all models".to_string()
        } else {
            format!("{} models", ids.len())
        };
        if !choice.save {
            return self.notice(
                format!("Ctrl+P cycles through {what} (this session)"),
                false,
            );
        }
        let value = Value::Array(ids.into_iter().map(Value::String).collect());
        match self.session.set_global_setting("enabledModels", value) {
            Ok(()) => self.notice(
                format!("Ctrl+P cycles through {what} (saved to settings)"),
                false,
            ),
            Err(e) => self.notice(e.to_string(), true),
        }
    }
}
