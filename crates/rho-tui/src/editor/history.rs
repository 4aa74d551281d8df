//! Previous submissions, recalled with Up/Down. Browsing keeps the unsent draft so Down past the
//! newest entry gives it back.

/// pi keeps the last 100 prompts.
const MAX_ENTRIES: usize = 100;

/// Submitted texts, newest first, and where browsing stands.
#[derive(Debug, Default)]
pub(crate) struct History {
    entries: Vec<String>,
    /// The entry shown, when browsing.
    index: Option<usize>,
    /// The text that was in the editor when browsing started.
    draft: String,
}

impl History {
    /// Records a submission (trimmed; blank ones and repeats of the newest are skipped).
    pub fn add(&mut self, text: &str) {
        let text = text.trim();
        if text.is_empty() || self.entries.first().is_some_and(|e| e == text) {
            return;
        }
        self.entries.insert(0, text.to_string());
        self.entries.truncate(MAX_ENTRIES);
    }

    /// True while an entry (not the draft) is shown.
    pub fn browsing(&self) -> bool {
        self.index.is_some()
    }

    /// Stops browsing (the shown text became a new draft by being edited).
    pub fn reset(&mut self) {
        self.index = None;
    }

    /// The next older entry, saving `current` as the draft when browsing starts; `None` when
    /// there is nothing older.
    pub fn older(&mut self, current: &str) -> Option<&str> {
        let next = self.index.map_or(0, |i| i + 1);
        if next >= self.entries.len() {
            return None;
        }
        if self.index.is_none() {
            self.draft = current.to_string();
        }
        self.index = Some(next);
        Some(&self.entries[next])
    }

    /// The next newer entry, or the draft after the newest; `None` when not browsing.
    pub fn newer(&mut self) -> Option<&str> {
        match self.index? {
            0 => {
                self.index = None;
                Some(&self.draft)
            }
            i => {
                self.index = Some(i - 1);
                Some(&self.entries[i - 1])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_back_newest_first_and_returns_to_the_draft() {
        let mut h = History::default();
        h.add("one");
        h.add("two");
        assert_eq!(h.older("draft"), Some("two"));
        assert_eq!(h.older("two"), Some("one"));
        assert_eq!(h.older("one"), None);
        assert!(h.browsing());
        assert_eq!(h.newer(), Some("two"));
        assert_eq!(h.newer(), Some("draft"));
        assert!(!h.browsing());
        assert_eq!(h.newer(), None);
    }

    #[test]
    fn skips_blanks_and_immediate_repeats_and_trims() {
        let mut h = History::default();
        h.add("  a  ");
        h.add("a");
        h.add("   ");
        h.add("b");
        h.add("a");
        assert_eq!(h.entries, vec!["a", "b", "a"]);
    }

    #[test]
    fn keeps_at_most_a_hundred() {
        let mut h = History::default();
        for i in 0..150 {
            h.add(&i.to_string());
        }
        assert_eq!(h.entries.len(), MAX_ENTRIES);
        assert_eq!(h.entries[0], "149");
    }
}
