//! The line shown while the agent works, as extensions shape it: pi's `setWorkingMessage`
//! (the text), `setWorkingVisible` (the line at all) and `setWorkingIndicator` (frames shown
//! verbatim in turn; none hides the indicator). Unset parts stay rho's own.

use rho_extension_host::render::{WorkingIndicator, WorkingUpdate};

/// pi's frame pace when an indicator gives none.
const DEFAULT_INTERVAL_MS: u64 = 80;

/// What extensions set for the working line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkingLine {
    /// The text after the indicator, in place of rho's.
    pub message: Option<String>,
    /// An extension hid the line.
    pub hidden: bool,
    /// The frames in place of rho's spinner.
    pub indicator: Option<WorkingIndicator>,
}

impl WorkingLine {
    /// Takes an update; a hidden-thinking label is not the working line's and is handed back
    /// (for the transcript).
    pub fn apply(&mut self, update: WorkingUpdate) -> Option<Option<String>> {
        match update {
            WorkingUpdate::Message(message) => self.message = message,
            WorkingUpdate::Visible(visible) => self.hidden = !visible,
            WorkingUpdate::Indicator(indicator) => self.indicator = indicator,
            WorkingUpdate::HiddenThinkingLabel(label) => return Some(label),
        }
        None
    }

    /// The extension's frame `elapsed_ms` into the run: `None` when rho's spinner shows,
    /// `Some("")` when the extension hid the indicator.
    pub fn frame(&self, elapsed_ms: u64) -> Option<&str> {
        let indicator = self.indicator.as_ref()?;
        let count = indicator.frames.len() as u64;
        if count == 0 {
            return Some("");
        }
        let interval = indicator.interval_ms.unwrap_or(DEFAULT_INTERVAL_MS).max(1);
        let at = (elapsed_ms / interval) % count;
        indicator.frames.get(at as usize).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pulse() -> WorkingUpdate {
        WorkingUpdate::Indicator(Some(WorkingIndicator {
            frames: vec!["a".into(), "b".into(), "c".into()],
            interval_ms: Some(120),
        }))
    }

    #[test]
    fn frames_follow_their_interval_and_wrap() {
        let mut line = WorkingLine::default();
        assert_eq!(
            line.frame(500),
            None,
            "rho's spinner until an extension sets one"
        );
        assert_eq!(line.apply(pulse()), None);
        assert_eq!(line.frame(0), Some("a"));
        assert_eq!(line.frame(119), Some("a"));
        assert_eq!(line.frame(120), Some("b"));
        assert_eq!(line.frame(360), Some("a"));
        line.apply(WorkingUpdate::Indicator(Some(WorkingIndicator::default())));
        assert_eq!(line.frame(360), Some(""), "no frames: no indicator");
        line.apply(WorkingUpdate::Indicator(None));
        assert_eq!(line.frame(360), None, "reset: rho's spinner again");
    }

    #[test]
    fn message_and_visibility_are_kept_and_the_label_handed_back() {
        let mut line = WorkingLine::default();
        line.apply(WorkingUpdate::Message(Some("Thinking hard".into())));
        line.apply(WorkingUpdate::Visible(false));
        assert_eq!(line.message.as_deref(), Some("Thinking hard"));
        assert!(line.hidden);
        let label = line.apply(WorkingUpdate::HiddenThinkingLabel(Some("hmm".into())));
        assert_eq!(label, Some(Some("hmm".into())));
        line.apply(WorkingUpdate::Message(None));
        line.apply(WorkingUpdate::Visible(true));
        assert_eq!(line, WorkingLine::default());
    }
}
