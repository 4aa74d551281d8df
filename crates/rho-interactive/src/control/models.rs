//! /model and /thinking: the model and thinking level, picked in a selector or named.

use rho_ai::Model;
use rho_tui::dialogs::{ModelSelector, ThinkingSelector};
use rho_tui::{Action, Dialog, Input};

use super::Control;
use crate::dialogs::{ActiveDialog, Dialogs};
use crate::screen::Screen;
use crate::shared::Shared;

impl Control {
    /// /model: with an argument that matches exactly one model, switches at once; otherwise
    /// opens the selector (filtered by the argument).
    pub(super) fn open_model_selector(
        &mut self,
        search: Option<String>,
        shared: &Shared,
        screen: &mut Screen,
        dialogs: &mut Dialogs,
    ) {
        let available = shared.models.available();
        if available.is_empty() {
            return screen.notice(
                "No models available: set an API key (/login) or configure models.json".into(),
                true,
            );
        }
        if let Some(q) = &search {
            let q = q.to_lowercase();
            let hits: Vec<&Model> = available
                .iter()
                .filter(|m| {
                    m.id.to_lowercase() == q
                        || format!("{}/{}", m.provider, m.id).to_lowercase() == q
                })
                .collect();
            if let [one] = hits.as_slice() {
                let model = (*one).clone();
                return self.switch_model(model, false, shared);
            }
        }
        let current = shared.session.model();
        let mut selector = ModelSelector::new(
            available,
            current
                .as_ref()
                .map(|m| (m.provider.as_str(), m.id.as_str())),
        )
        .with_save_key(&shared.keymap.display(Action::ModelsSave));
        if let Some(q) = search {
            for c in q.chars() {
                selector.handle(&Input::char(c), &shared.keymap);
            }
        }
        dialogs.open(ActiveDialog::Model(selector));
    }

    /// Switches to `model` in a task (and makes it the default when `save`, pi's Ctrl+S in
    /// /model); the result is a notice.
    pub(super) fn switch_model(&mut self, model: Model, save: bool, shared: &Shared) {
        let models = shared.models.clone();
        let tx = self.notices.clone();
        tokio::spawn(async move {
            let label = format!("{}/{}", model.provider, model.id);
            let what = if save { "Default model" } else { "Model" };
            let (text, error) = match models.select_model(model, None, save).await {
                Ok(()) => (format!("{what}: {label}"), false),
                Err(e) => (e.to_string(), true),
            };
            tx.notice(text, error);
        });
    }

    /// /thinking without a level: the levels the model supports.
    pub(super) fn open_thinking_selector(
        &mut self,
        shared: &Shared,
        screen: &mut Screen,
        dialogs: &mut Dialogs,
    ) {
        let Some(model) = shared.session.model().filter(|m| m.reasoning) else {
            return screen.notice("Current model does not support thinking".into(), false);
        };
        let selector = ThinkingSelector::new(
            model.supported_thinking_levels(),
            shared.session.thinking_level(),
        )
        .with_save_key(&shared.keymap.display(Action::ThinkingSave));
        dialogs.open(ActiveDialog::Thinking(selector));
    }
}
