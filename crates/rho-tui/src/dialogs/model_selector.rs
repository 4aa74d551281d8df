//! pi's `/model` selector: every available model as `id  [provider]`, the current one marked
//! with `✓` and selected first; typing searches both the id and the provider. Enter picks a
//! model for this session; `app.models.save` (Ctrl+S) picks it as the default too.

use rho_protocol::Model;

use super::select_list::{SelectItem, SelectList};
use crate::input::{Dialog, DialogAction, Input};
use crate::keymap::{Action, Keymap};
use crate::theme::Theme;

/// pi's hint line, naming the key that sets the default.
pub fn save_hint(save_key: &str) -> String {
    format!("↑↓ navigate · enter select · {save_key} set as default · esc cancel")
}

/// Picks a model; yields a clone of the chosen [`Model`] and whether to make it the default.
#[derive(Debug, Clone)]
pub struct ModelSelector {
    models: Vec<Model>,
    list: SelectList,
}

impl ModelSelector {
    /// A selector over `models` (shown in the given order); `current` is the `(provider, id)`
    /// of the model in use, marked and initially selected.
    pub fn new(models: Vec<Model>, current: Option<(&str, &str)>) -> Self {
        let items = models
            .iter()
            .map(|m| SelectItem::new(&m.id, format!("[{}]", m.provider)))
            .collect();
        let keys = models
            .iter()
            .map(|m| format!("{} {}", m.id, m.provider))
            .collect();
        let mut list = SelectList::new("Select model", items)
            .with_search_keys(keys)
            .with_hint(save_hint("ctrl+s"));
        let at = current.and_then(|(provider, id)| {
            models
                .iter()
                .position(|m| m.provider == provider && m.id == id)
        });
        if let Some(i) = at {
            list = list.with_selected(i).with_current(i);
        }
        Self { models, list }
    }

    /// Names the key that sets the default in the hint (keybindings.json may move it).
    pub fn with_save_key(mut self, save_key: &str) -> Self {
        self.list = self.list.with_hint(save_hint(save_key));
        self
    }

    /// The list underneath (for its query and selection).
    pub fn list(&self) -> &SelectList {
        &self.list
    }
}

impl Dialog for ModelSelector {
    type Output = (Model, bool);

    fn handle(&mut self, input: &Input, keys: &Keymap) -> DialogAction<(Model, bool)> {
        if keys.matches(input, Action::ModelsSave) {
            return match self.list.selected_index().and_then(|i| self.models.get(i)) {
                Some(m) => DialogAction::Done((m.clone(), true)),
                None => DialogAction::Pending,
            };
        }
        match self.list.handle_key(input, keys) {
            DialogAction::Done(i) => match self.models.get(i) {
                Some(m) => DialogAction::Done((m.clone(), false)),
                None => DialogAction::Pending,
            },
            DialogAction::Cancelled => DialogAction::Cancelled,
            DialogAction::Pending => DialogAction::Pending,
        }
    }

    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        self.list.render(width, theme)
    }
}
