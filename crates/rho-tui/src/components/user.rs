//! The user's message: markdown on the user-message background, one line of padding around.

use super::{boxed, Component};
use crate::markdown::render_markdown;
use crate::theme::Theme;

/// A user message as shown in the transcript.
#[derive(Debug, Clone, PartialEq)]
pub struct UserMessageView {
    /// The message text (images are not drawn inline).
    pub text: String,
}

impl Component for UserMessageView {
    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        let body = render_markdown(&self.text, width.saturating_sub(2), theme);
        let body = body
            .into_iter()
            .map(|l| theme.fg(theme.colors.user_message_text, &l))
            .collect();
        let mut out = vec![String::new()];
        out.extend(boxed(body, width, theme.colors.user_message_bg, 1, 1));
        out
    }
}
