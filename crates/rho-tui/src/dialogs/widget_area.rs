//! Extension widgets (`ctx.ui.setWidget(key, lines)`): blocks of lines shown above or below the
//! editor, in the order they were first set. The interactive loop keeps one area per placement.
//! A component, not a dialog.

use crate::ansi::truncate_to_width;
use crate::components::Component;
use crate::theme::Theme;

/// Where a widget goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WidgetPlacement {
    /// Between the transcript and the editor (pi's default).
    #[default]
    AboveEditor,
    /// Under the editor.
    BelowEditor,
}

/// Widgets by key, in first-set order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WidgetArea {
    widgets: Vec<(String, Vec<String>)>,
}

impl WidgetArea {
    /// No widgets.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `key`'s lines (replacing them in place when the key exists), or removes the widget
    /// with `None`.
    pub fn set(&mut self, key: impl Into<String>, lines: Option<Vec<String>>) {
        let key = key.into();
        let at = self.widgets.iter().position(|(k, _)| *k == key);
        match (lines, at) {
            (Some(l), Some(i)) => self.widgets[i].1 = l,
            (Some(l), None) => self.widgets.push((key, l)),
            (None, Some(i)) => {
                self.widgets.remove(i);
            }
            (None, None) => {}
        }
    }

    /// True when no widget is set.
    pub fn is_empty(&self) -> bool {
        self.widgets.is_empty()
    }
}

impl Component for WidgetArea {
    /// Every widget's lines, cut to the width (extension lines may carry their own styles; a
    /// cut line gets a reset so they do not leak).
    fn render(&self, width: usize, _theme: &Theme) -> Vec<String> {
        self.widgets
            .iter()
            .flat_map(|(_, lines)| lines.iter().flat_map(|l| l.split('\n')))
            .map(|l| truncate_to_width(&l.replace('\t', "   "), width))
            .collect()
    }
}
