//! A one-off message (`ctx.ui.notify(text, kind)` and rho's own notices): info in the muted
//! colour, warnings and errors labelled and coloured. A component, not a dialog.

use crate::ansi::wrap;
use crate::components::Component;
use crate::theme::Theme;

/// How serious a notification is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NotificationKind {
    /// Plain information.
    #[default]
    Info,
    /// Something the user may want to act on.
    Warning,
    /// Something failed.
    Error,
}

impl NotificationKind {
    /// Reads pi's `notify` type names (`info`, `warning`, `error`); anything else is info.
    pub fn parse(s: &str) -> Self {
        match s {
            "warning" => NotificationKind::Warning,
            "error" => NotificationKind::Error,
            _ => NotificationKind::Info,
        }
    }
}

/// One notification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notification {
    /// Its severity.
    pub kind: NotificationKind,
    /// The message (may span lines; wrapped to the width).
    pub text: String,
}

impl Component for Notification {
    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        let c = &theme.colors;
        let (color, text) = match self.kind {
            NotificationKind::Info => (c.muted, self.text.clone()),
            NotificationKind::Warning => (c.warning, format!("Warning: {}", self.text)),
            NotificationKind::Error => (c.error, format!("Error: {}", self.text)),
        };
        wrap(&text, width.max(1))
            .into_iter()
            .map(|l| theme.fg(color, &l))
            .collect()
    }
}
