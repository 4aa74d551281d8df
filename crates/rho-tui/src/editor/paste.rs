//! Bracketed pastes: normalized, and large ones kept aside behind a short marker
//! (`[paste #1 +42 lines]`) so the editor stays readable; submission puts the text back.

use std::collections::BTreeMap;
use std::ops::Range;

/// A paste with more lines than this is shown as a marker.
const MAX_LINES: usize = 10;
/// A paste with more characters than this is shown as a marker.
const MAX_CHARS: usize = 1000;

/// Line endings to `\n`, tabs to four spaces, other control characters dropped (the editor
/// draws none of them).
pub(crate) fn normalize(text: &str) -> String {
    text.replace("\r\n", "\n")
        .replace('\r', "\n")
        .replace('\t', "    ")
        .chars()
        .filter(|&c| c == '\n' || !c.is_control())
        .collect()
}

/// Large pastes of one editor, by number.
#[derive(Debug, Default)]
pub(crate) struct Pastes {
    stored: BTreeMap<usize, (String, String)>,
    counter: usize,
}

impl Pastes {
    /// What to insert for a (normalized) paste: the text itself, or a marker for a large one.
    pub fn insertion(&mut self, text: String) -> String {
        let lines = text.split('\n').count();
        let chars = text.chars().count();
        if lines <= MAX_LINES && chars <= MAX_CHARS {
            return text;
        }
        self.counter += 1;
        let id = self.counter;
        let marker = if lines > MAX_LINES {
            format!("[paste #{id} +{lines} lines]")
        } else {
            format!("[paste #{id} {chars} chars]")
        };
        self.stored.insert(id, (marker.clone(), text));
        marker
    }

    /// `text` with every known marker replaced by its paste.
    pub fn expand(&self, text: &str) -> String {
        self.stored
            .values()
            .fold(text.to_string(), |acc, (marker, pasted)| {
                acc.replace(marker, pasted)
            })
    }

    /// Byte ranges of the known markers present in `text`.
    pub fn markers(&self, text: &str) -> Vec<Range<usize>> {
        let mut out: Vec<Range<usize>> = self
            .stored
            .values()
            .flat_map(|(marker, _)| {
                text.match_indices(marker.as_str())
                    .map(|(i, m)| i..i + m.len())
            })
            .collect();
        out.sort_by_key(|r| r.start);
        out
    }

    /// Forgets every paste (after a submission or clear); numbering starts again.
    pub fn clear(&mut self) {
        self.stored.clear();
        self.counter = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_line_endings_and_tabs() {
        assert_eq!(normalize("a\r\nb\rc\td\x1b[1m\x07"), "a\nb\nc    d[1m");
    }

    #[test]
    fn small_pastes_go_in_as_is() {
        let mut p = Pastes::default();
        let ten = ["x"; 10].join("\n");
        assert_eq!(p.insertion(ten.clone()), ten);
        assert_eq!(p.insertion("y".repeat(1000)), "y".repeat(1000));
    }

    #[test]
    fn large_pastes_become_numbered_markers_that_expand() {
        let mut p = Pastes::default();
        let many = ["line"; 42].join("\n");
        let long = "z".repeat(1234);
        assert_eq!(p.insertion(many.clone()), "[paste #1 +42 lines]");
        assert_eq!(p.insertion(long.clone()), "[paste #2 1234 chars]");
        let wide = vec!["w".repeat(300); 5].join("\n");
        assert_eq!(p.insertion(wide), "[paste #3 1504 chars]");
        let text = "see [paste #1 +42 lines] and [paste #2 1234 chars]";
        assert_eq!(p.expand(text), format!("see {many} and {long}"));
        assert_eq!(p.markers(text), vec![4..24, 29..50]);
        assert!(p.markers("[paste #3 +42 lines]").is_empty());
    }
}
