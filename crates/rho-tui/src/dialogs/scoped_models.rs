//! pi's `/scoped-models`: which models Ctrl+P cycles through, and in what order. Enter toggles
//! the selected model, Ctrl+A enables all (the matching ones while searching), Ctrl+X clears,
//! Ctrl+P toggles every model of the selected one's provider, Alt+Up/Down move an enabled model
//! in the cycle; enabled models are listed first, in cycle order. Typing searches id and
//! provider. Esc closes with the choice kept for this session only; Ctrl+S closes and saves it
//! to settings (`enabledModels`).

use rho_protocol::Model;

use super::select_list::{SelectItem, SelectList};
use crate::input::{Dialog, DialogAction, Input};
use crate::keymap::{Action, Keymap};
use crate::theme::Theme;

/// What the dialog closed with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopedModels {
    /// `provider/id` of the enabled models in cycle order; `None`: all (no scope).
    pub enabled: Option<Vec<String>>,
    /// Save to settings (Ctrl+S) rather than for this session only.
    pub save: bool,
}

/// Toggles models in and out of the cycling scope.
#[derive(Debug, Clone)]
pub struct ScopedModelsDialog {
    /// Every model's `provider/id`, in catalog order.
    all: Vec<String>,
    /// The enabled ones in cycle order; `None`: all.
    enabled: Option<Vec<String>>,
    /// The ids in display order (enabled first), parallel to the list's items.
    shown: Vec<String>,
    list: SelectList,
}

const HINT: &str = "enter toggle · ctrl+a all · ctrl+x clear · ctrl+p provider · alt+↑↓ reorder · ctrl+s save · esc close (session only)";

fn provider(id: &str) -> &str {
    id.split_once('/').map_or("", |(p, _)| p)
}

fn model_id(id: &str) -> &str {
    id.split_once('/').map_or(id, |(_, m)| m)
}

impl ScopedModelsDialog {
    /// A dialog over `models`; `enabled` lists the `provider/id`s in the scope, in cycle order
    /// (`None`: all).
    pub fn new(models: &[Model], enabled: Option<&[String]>) -> Self {
        let all: Vec<String> = models
            .iter()
            .map(|m| format!("{}/{}", m.provider, m.id))
            .collect();
        let enabled = enabled.map(|on| {
            on.iter()
                .filter(|id| all.contains(id))
                .cloned()
                .collect::<Vec<_>>()
        });
        let mut dialog = Self {
            all,
            enabled: None,
            shown: Vec::new(),
            list: SelectList::new("", Vec::new()).with_hint(HINT),
        };
        dialog.set(enabled);
        dialog
    }

    fn is_on(&self, id: &str) -> bool {
        self.enabled
            .as_ref()
            .is_none_or(|on| on.iter().any(|e| e == id))
    }

    /// An explicit list that holds every model is "all" again (pi).
    fn normalized(&self, list: Vec<String>) -> Option<Vec<String>> {
        let covers = list.len() == self.all.len() && self.all.iter().all(|id| list.contains(id));
        (!covers).then_some(list)
    }

    /// Replaces the enabled list and redraws the rows, keeping the selected model selected.
    fn set(&mut self, enabled: Option<Vec<String>>) {
        let keep = self.selected_id().map(str::to_string);
        self.enabled = enabled;
        self.shown = match &self.enabled {
            None => self.all.clone(),
            Some(on) => on
                .iter()
                .cloned()
                .chain(self.all.iter().filter(|id| !on.contains(id)).cloned())
                .collect(),
        };
        let items = self
            .shown
            .iter()
            .map(|id| {
                let mark = if self.is_on(id) { "✓ " } else { "  " };
                SelectItem::new(
                    format!("{mark}{}", model_id(id)),
                    format!("[{}]", provider(id)),
                )
            })
            .collect();
        let keys = self
            .shown
            .iter()
            .map(|id| format!("{} {}", model_id(id), provider(id)))
            .collect();
        self.list.set_items(items, keys);
        if let Some(i) = keep.and_then(|k| self.shown.iter().position(|id| *id == k)) {
            self.list.select_item(i);
        }
        let count = match &self.enabled {
            None => "all enabled".to_string(),
            Some(on) => format!("{}/{} enabled", on.len(), self.all.len()),
        };
        self.list
            .set_title(format!("Models for Ctrl+P cycling ({count})"));
    }

    fn selected_id(&self) -> Option<&str> {
        let i = self.list.selected_index()?;
        self.shown.get(i).map(String::as_str)
    }

    /// The models a bulk key acts on: those matching the search, or all.
    fn targets(&self) -> Vec<String> {
        if self.list.query().trim().is_empty() {
            return self.all.clone();
        }
        self.list
            .visible_indices()
            .iter()
            .map(|&i| self.shown[i].clone())
            .collect()
    }

    fn enable(&mut self, targets: &[String]) {
        let Some(mut on) = self.enabled.clone() else {
            return;
        };
        on.extend(
            targets
                .iter()
                .filter(|t| !on.contains(t))
                .cloned()
                .collect::<Vec<_>>(),
        );
        let next = self.normalized(on);
        self.set(next);
    }

    fn disable(&mut self, targets: &[String]) {
        let on = self.enabled.clone().unwrap_or_else(|| self.all.clone());
        let kept = on.into_iter().filter(|id| !targets.contains(id)).collect();
        self.set(Some(kept));
    }

    fn toggle(&mut self, id: &str) {
        let target = [id.to_string()];
        if self.is_on(id) {
            self.disable(&target);
        } else {
            self.enable(&target);
        }
    }

    fn toggle_provider(&mut self, id: &str) {
        let p = provider(id);
        let of_provider: Vec<String> = self
            .all
            .iter()
            .filter(|m| provider(m) == p)
            .cloned()
            .collect();
        if of_provider.iter().all(|m| self.is_on(m)) {
            self.disable(&of_provider);
        } else {
            self.enable(&of_provider);
        }
    }

    /// Moves enabled model `id` one place up (`-1`) or down in the cycle.
    fn reorder(&mut self, id: &str, delta: isize) {
        let Some(on) = self.enabled.clone() else {
            return;
        };
        let Some(at) = on.iter().position(|e| e == id) else {
            return;
        };
        let to = at as isize + delta;
        if to < 0 || to as usize >= on.len() {
            return;
        }
        let mut on = on;
        on.swap(at, to as usize);
        self.set(Some(on));
    }

    fn result(&self, save: bool) -> ScopedModels {
        ScopedModels {
            enabled: self.enabled.clone(),
            save,
        }
    }
}

impl Dialog for ScopedModelsDialog {
    type Output = ScopedModels;

    fn handle(&mut self, input: &Input, keys: &Keymap) -> DialogAction<ScopedModels> {
        use Action as A;
        const ACTIONS: &[Action] = &[
            A::ModelsEnableAll,
            A::ModelsClearAll,
            A::ModelsSave,
            A::ModelsToggleProvider,
            A::ModelsReorderUp,
            A::ModelsReorderDown,
        ];
        let selected = self.selected_id().map(str::to_string);
        match keys.first_match(input, ACTIONS) {
            Some(A::ModelsEnableAll) => {
                let targets = self.targets();
                self.enable(&targets);
                return DialogAction::Pending;
            }
            Some(A::ModelsClearAll) => {
                let targets = match (&self.enabled, self.list.query().trim().is_empty()) {
                    (Some(on), true) => on.clone(),
                    _ => self.targets(),
                };
                self.disable(&targets);
                return DialogAction::Pending;
            }
            Some(A::ModelsSave) => return DialogAction::Done(self.result(true)),
            Some(A::ModelsToggleProvider) => {
                if let Some(id) = selected {
                    self.toggle_provider(&id);
                }
                return DialogAction::Pending;
            }
            Some(A::ModelsReorderUp | A::ModelsReorderDown) => {
                let up = keys.matches(input, A::ModelsReorderUp);
                if let Some(id) = selected {
                    self.reorder(&id, if up { -1 } else { 1 });
                }
                return DialogAction::Pending;
            }
            _ => {}
        }
        match self.list.handle_key(input, keys) {
            DialogAction::Done(i) => {
                if let Some(id) = self.shown.get(i).cloned() {
                    self.toggle(&id);
                }
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
