//! pi's `/model` selector: every available model as `id  [provider]`, the current one marked
//! with `✓` and selected first; typing searches both the id and the provider.

use rho_protocol::Model;

use super::select_list::{SelectItem, SelectList};
use crate::input::{Dialog, DialogAction, Input};
use crate::keymap::Keymap;
use crate::theme::Theme;

/// Picks a model; yields a clone of the chosen [`Model`].
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
        let mut list = SelectList::new("Select model", items).with_search_keys(keys);
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

    /// The list underneath (for its query and selection).
    pub fn list(&self) -> &SelectList {
        &self.list
    }
}

impl Dialog for ModelSelector {
    type Output = Model;

    fn handle(&mut self, input: &Input, keys: &Keymap) -> DialogAction<Model> {
        match self.list.handle_key(input, keys) {
            DialogAction::Done(i) => match self.models.get(i) {
                Some(m) => DialogAction::Done(m.clone()),
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
