//! pi's thinking-level selector: the levels the model supports, each with pi's description of
//! its reasoning budget, the current one marked. Enter picks a level; `app.thinking.save`
//! (Ctrl+S) picks it as the default too.

use rho_protocol::ThinkingLevel;

use super::model_selector::save_hint;
use super::select_list::{SelectItem, SelectList};
use crate::input::{Dialog, DialogAction, Input};
use crate::keymap::{Action, Keymap};
use crate::theme::Theme;

/// pi's one-line description of a thinking level.
pub fn thinking_description(level: ThinkingLevel) -> &'static str {
    match level {
        ThinkingLevel::Off => "No reasoning",
        ThinkingLevel::Minimal => "Very brief reasoning (~1k tokens)",
        ThinkingLevel::Low => "Light reasoning (~2k tokens)",
        ThinkingLevel::Medium => "Moderate reasoning (~8k tokens)",
        ThinkingLevel::High => "Deep reasoning (~16k tokens)",
        ThinkingLevel::Xhigh => "Maximum reasoning (~32k tokens)",
        ThinkingLevel::Max => "The provider's maximum effort",
    }
}

/// Picks a thinking level; yields it and whether to make it the default.
#[derive(Debug, Clone)]
pub struct ThinkingSelector {
    levels: Vec<ThinkingLevel>,
    list: SelectList,
}

impl ThinkingSelector {
    /// A selector over `levels` (those the model supports, lowest first); `current` is marked
    /// and initially selected when it is among them.
    pub fn new(levels: Vec<ThinkingLevel>, current: ThinkingLevel) -> Self {
        let items = levels
            .iter()
            .map(|&l| SelectItem::new(l.as_str(), thinking_description(l)))
            .collect();
        let mut list =
            SelectList::new("Select thinking level", items).with_hint(save_hint("ctrl+s"));
        if let Some(i) = levels.iter().position(|&l| l == current) {
            list = list.with_selected(i).with_current(i);
        }
        Self { levels, list }
    }

    /// Names the key that sets the default in the hint (keybindings.json may move it).
    pub fn with_save_key(mut self, save_key: &str) -> Self {
        self.list = self.list.with_hint(save_hint(save_key));
        self
    }
}

impl Dialog for ThinkingSelector {
    type Output = (ThinkingLevel, bool);

    fn handle(&mut self, input: &Input, keys: &Keymap) -> DialogAction<(ThinkingLevel, bool)> {
        if keys.matches(input, Action::ThinkingSave) {
            return match self.list.selected_index().and_then(|i| self.levels.get(i)) {
                Some(&l) => DialogAction::Done((l, true)),
                None => DialogAction::Pending,
            };
        }
        match self.list.handle_key(input, keys) {
            DialogAction::Done(i) => match self.levels.get(i) {
                Some(&l) => DialogAction::Done((l, false)),
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
