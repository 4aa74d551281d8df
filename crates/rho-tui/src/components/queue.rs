//! The queued-messages indicator above the editor: one line per steering and follow-up message
//! waiting for the agent, plus the hint for taking them back into the editor.

use super::Component;
use crate::ansi::truncate_with_ellipsis;
use crate::theme::Theme;

/// The queues as the last `queue_update` reported them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct QueueView {
    /// Steering messages (delivered at the next turn boundary).
    pub steering: Vec<String>,
    /// Follow-up messages (delivered when the agent would stop).
    pub follow_up: Vec<String>,
}

impl Component for QueueView {
    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        if self.steering.is_empty() && self.follow_up.is_empty() {
            return Vec::new();
        }
        let dim = theme.colors.dim;
        let line = |label: &str, text: &str| {
            let one_line = text.replace('\n', " ");
            theme.fg(
                dim,
                &truncate_with_ellipsis(&format!("{label}: {one_line}"), width),
            )
        };
        let mut out = vec![String::new()];
        out.extend(self.steering.iter().map(|t| line("Steering", t)));
        out.extend(self.follow_up.iter().map(|t| line("Follow-up", t)));
        let hint = "↳ Alt+Up to edit all queued messages";
        out.push(theme.fg(dim, &truncate_with_ellipsis(hint, width)));
        out
    }
}
