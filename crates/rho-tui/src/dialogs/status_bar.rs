//! Extension statuses (`ctx.ui.setStatus(key, text)`): one dim line of every status, in key
//! order, joined by `  ·  `. A component drawn under the editor, not a dialog.

use std::collections::BTreeMap;

use crate::ansi::truncate_with_ellipsis;
use crate::components::Component;
use crate::theme::Theme;

/// The statuses extensions have set, by key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatusBar {
    statuses: BTreeMap<String, String>,
}

impl StatusBar {
    /// No statuses.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `key`'s status, or clears it with `None` (or an empty text).
    pub fn set(&mut self, key: impl Into<String>, text: Option<String>) {
        let key = key.into();
        match text.filter(|t| !t.trim().is_empty()) {
            Some(t) => self.statuses.insert(key, t),
            None => self.statuses.remove(&key),
        };
    }

    /// True when nothing is set (then it renders no line).
    pub fn is_empty(&self) -> bool {
        self.statuses.is_empty()
    }
}

impl Component for StatusBar {
    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        if self.statuses.is_empty() {
            return Vec::new();
        }
        let joined = self
            .statuses
            .values()
            .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
            .join("  ·  ");
        let line = truncate_with_ellipsis(&joined, width);
        vec![theme.fg(theme.colors.dim, &line)]
    }
}
