//! The kill ring (Emacs, as in pi): text removed by Ctrl+W, Alt+D, Ctrl+U and Ctrl+K is kept
//! so Ctrl+Y can put it back and Alt+Y can cycle to older kills. Consecutive kills grow one
//! entry instead of adding new ones.

/// Kills kept; older ones fall off.
const MAX_ENTRIES: usize = 30;

/// Killed texts, newest last.
#[derive(Debug, Default)]
pub(crate) struct KillRing {
    entries: Vec<String>,
}

impl KillRing {
    /// Records killed `text`. `accumulate`: the previous action was a kill too, so the text
    /// joins the newest entry (before it when `backward`, after it otherwise).
    pub fn push(&mut self, text: &str, backward: bool, accumulate: bool) {
        if text.is_empty() {
            return;
        }
        match self.entries.last_mut() {
            Some(last) if accumulate => {
                if backward {
                    last.insert_str(0, text);
                } else {
                    last.push_str(text);
                }
            }
            _ => {
                self.entries.push(text.to_string());
                if self.entries.len() > MAX_ENTRIES {
                    self.entries.remove(0);
                }
            }
        }
    }

    /// The newest entry (what Ctrl+Y inserts).
    pub fn peek(&self) -> Option<&str> {
        self.entries.last().map(String::as_str)
    }

    /// Makes the next older entry the newest (Alt+Y); the newest goes to the back.
    pub fn rotate(&mut self) {
        if let Some(last) = self.entries.pop() {
            self.entries.insert(0, last);
        }
    }

    /// How many entries there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consecutive_kills_join_in_reading_order() {
        let mut k = KillRing::default();
        k.push("world", true, false);
        k.push("hello ", true, true);
        assert_eq!(k.peek(), Some("hello world"));
        k.push("!", false, true);
        assert_eq!(k.peek(), Some("hello world!"));
        k.push("next", false, false);
        assert_eq!(k.peek(), Some("next"));
        assert_eq!(k.len(), 2);
    }

    #[test]
    fn rotate_cycles_to_older_entries() {
        let mut k = KillRing::default();
        for t in ["a", "b", "c"] {
            k.push(t, false, false);
        }
        k.rotate();
        assert_eq!(k.peek(), Some("b"));
        k.rotate();
        assert_eq!(k.peek(), Some("a"));
        k.rotate();
        assert_eq!(k.peek(), Some("c"));
        k.push("", false, false);
        assert_eq!(k.len(), 3);
    }
}
