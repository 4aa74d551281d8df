//! pi's `/scoped-models`: which models Ctrl+P cycles through. Enter toggles the selected
//! model, Ctrl+A enables all, Ctrl+X clears; typing searches id and provider. Esc closes with
//! the choice kept for this session only; Ctrl+S closes and saves it to settings
//! (`enabledModels`).

use rho_protocol::Model;

use super::select_list::{SelectItem, SelectList};
use crate::input::{Dialog, DialogAction, Input};
use crate::keymap::{Action, Keymap};
use crate::theme::Theme;

/// What the dialog closed with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopedModels {
    /// `provider/id` of the enabled models in list order; `None`: all (no scope).
    pub enabled: Option<Vec<String>>,
    /// Save to settings (Ctrl+S) rather than for this session only.
    pub save: bool,
}

/// Toggles models in and out of the cycling scope.
#[derive(Debug, Clone)]
pub struct ScopedModelsDialog {
    ids: Vec<String>,
    enabled: Option<Vec<bool>>,
    list: SelectList,
}

const HINT: &str =
    "enter toggle · ctrl+a all · ctrl+x clear · ctrl+s save · esc close (session only)";

impl ScopedModelsDialog {
    /// A dialog over `models`; `enabled` lists the `provider/id`s in the scope (`None`: all).
    pub fn new(models: &[Model], enabled: Option<&[String]>) -> Self {
        let ids: Vec<String> = models
            .iter()
            .map(|m| format!("{}/{}", m.provider, m.id))
            .collect();
        let enabled = enabled.map(|on| ids.iter().map(|id| on.contains(id)).collect());
        let items = models
            .iter()
            .map(|m| SelectItem::new(&m.id, format!("[{}]", m.provider)))
            .collect();
        let keys = models
            .iter()
            .map(|m| format!("{} {}", m.id, m.provider))
            .collect();
        let list = SelectList::new("Models for Ctrl+P cycling", items)
            .with_search_keys(keys)
            .with_hint(HINT);
        let mut dialog = Self { ids, enabled, list };
        dialog.relabel();
        dialog
    }

    fn is_on(&self, i: usize) -> bool {
        self.enabled.as_ref().is_none_or(|on| on[i])
    }

    fn relabel(&mut self) {
        for i in 0..self.ids.len() {
            let id = self.ids[i]
                .split_once('/')
                .map_or("", |(_, id)| id)
                .to_string();
            let mark = if self.is_on(i) { "✓ " } else { "  " };
            self.list.set_label(i, format!("{mark}{id}"));
        }
        let count = match &self.enabled {
            None => "all enabled".to_string(),
            Some(on) => format!("{}/{} enabled", on.iter().filter(|b| **b).count(), on.len()),
        };
        self.list
            .set_title(format!("Models for Ctrl+P cycling ({count})"));
    }

    fn toggle(&mut self, i: usize) {
        let n = self.ids.len();
        let on = self.enabled.get_or_insert_with(|| vec![true; n]);
        on[i] = !on[i];
        self.relabel();
    }

    fn set_all(&mut self, on: bool) {
        self.enabled = if on {
            None
        } else {
            Some(vec![false; self.ids.len()])
        };
        self.relabel();
    }

    fn result(&self, save: bool) -> ScopedModels {
        let enabled = self.enabled.as_ref().map(|on| {
            self.ids
                .iter()
                .zip(on)
                .filter(|(_, on)| **on)
                .map(|(id, _)| id.clone())
                .collect()
        });
        ScopedModels { enabled, save }
    }
}

impl Dialog for ScopedModelsDialog {
    type Output = ScopedModels;

    fn handle(&mut self, input: &Input, keys: &Keymap) -> DialogAction<ScopedModels> {
        let enable_all = keys.matches(input, Action::ModelsEnableAll);
        if enable_all || keys.matches(input, Action::ModelsClearAll) {
            self.set_all(enable_all);
            return DialogAction::Pending;
        }
        if keys.matches(input, Action::ModelsSave) {
            return DialogAction::Done(self.result(true));
        }
        match self.list.handle_key(input, keys) {
            DialogAction::Done(i) => {
                self.toggle(i);
                DialogAction::Pending
            }
            DialogAction::Cancelled => DialogAction::Done(self.result(false)),
            DialogAction::Pending => DialogAction::Pending,
        }
    }

    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        self.list.render(width, theme)
    }
}
