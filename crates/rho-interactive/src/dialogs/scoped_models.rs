//! /scoped-models: which models Ctrl+P cycles through, for this session or saved to settings
//! (`enabledModels`, which `--models` overrides at start), as pi does.

use rho_tui::dialogs::{ScopedModels, ScopedModelsDialog};
use serde_json::Value;

use super::active::ActiveDialog;
use super::Dialogs;
use crate::screen::Screen;
use crate::shared::Shared;

impl Dialogs {
    /// Opens the dialog over the models that have credentials.
    pub fn open_scoped_models(&mut self, shared: &Shared, screen: &mut Screen) {
        let models = shared.models.available();
        if models.is_empty() {
            return screen.notice(
                "No models available: add a key with /login or /set api-key first".into(),
                true,
            );
        }
        let scope = shared.models.scope_ids();
        let dialog = ScopedModelsDialog::new(&models, scope.as_deref());
        self.open(ActiveDialog::ScopedModels(dialog));
    }

    /// Applies the dialog's choice; saves it to settings when asked.
    pub(super) fn apply_scope(
        &mut self,
        choice: ScopedModels,
        shared: &Shared,
        screen: &mut Screen,
    ) {
        let ids = choice.enabled.unwrap_or_default();
        shared.models.set_scope(&ids);
        let what = if ids.is_empty() {
            "all models".to_string()
        } else {
            format!("{} models", ids.len())
        };
        if !choice.save {
            return screen.notice(
                format!("Ctrl+P cycles through {what} (this session)"),
                false,
            );
        }
        let value = Value::Array(ids.into_iter().map(Value::String).collect());
        match shared.session.set_global_setting("enabledModels", value) {
            Ok(()) => screen.notice(
                format!("Ctrl+P cycles through {what} (saved to settings)"),
                false,
            ),
            Err(e) => screen.notice(e.to_string(), true),
        }
    }
}
