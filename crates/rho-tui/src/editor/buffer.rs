//! The editor's text and cursor, and the edits and motions on them. The cursor is a byte offset
//! that every operation keeps on a char boundary, so slicing `text` at it never panics.

/// Text (`\n` separates lines) and a cursor into it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Buffer {
    pub text: String,
    pub cursor: usize,
}

/// Word motions stop between runs of word characters and runs of punctuation. pi counts only
/// ASCII punctuation as punctuation, so `_`, letters of any script and emoji are word
/// characters.
fn is_word(c: char) -> bool {
    !"(){}[]<>.,;:'\"!?+-=*/\\|&%^$#@~`".contains(c)
}

impl Buffer {
    /// Inserts `s` at the cursor and moves the cursor after it.
    pub fn insert(&mut self, s: &str) {
        self.text.insert_str(self.cursor, s);
        self.cursor += s.len();
    }

    /// Replaces the whole text; the cursor goes to the end.
    pub fn set(&mut self, text: &str) {
        self.text = text.to_string();
        self.cursor = self.text.len();
    }

    /// Removes `start..end` (char boundaries) and puts the cursor at `start`.
    pub fn delete(&mut self, start: usize, end: usize) {
        self.text.replace_range(start..end, "");
        self.cursor = start;
    }

    /// The char boundary before `at` (0 at the start).
    pub fn prev(&self, at: usize) -> usize {
        self.text[..at]
            .char_indices()
            .next_back()
            .map_or(0, |(i, _)| i)
    }

    /// The char boundary after `at` (the end at the end).
    pub fn next(&self, at: usize) -> usize {
        self.text[at..]
            .chars()
            .next()
            .map_or(self.text.len(), |c| at + c.len_utf8())
    }

    /// Start of the line holding `at`.
    pub fn line_start(&self, at: usize) -> usize {
        self.text[..at].rfind('\n').map_or(0, |i| i + 1)
    }

    /// End of the line holding `at` (the position of its `\n`, or the text's end).
    pub fn line_end(&self, at: usize) -> usize {
        self.text[at..]
            .find('\n')
            .map_or(self.text.len(), |i| at + i)
    }

    /// Where Ctrl/Alt+Left lands: the start of the word before the cursor. At a line's start it
    /// goes to the previous line's end.
    pub fn word_left(&self) -> usize {
        let start = self.line_start(self.cursor);
        if self.cursor == start {
            return self.prev(self.cursor);
        }
        let line = &self.text[start..self.cursor];
        let mut chars = line.char_indices().rev().peekable();
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        let Some(&(_, first)) = chars.peek() else {
            return start;
        };
        let kind = is_word(first);
        let mut pos = self.cursor - start;
        while let Some((i, _)) = chars.next_if(|(_, c)| !c.is_whitespace() && is_word(*c) == kind) {
            pos = i;
        }
        start + pos
    }

    /// Where Ctrl/Alt+Right lands: the end of the word after the cursor. At a line's end it goes
    /// to the next line's start.
    pub fn word_right(&self) -> usize {
        let end = self.line_end(self.cursor);
        if self.cursor == end {
            return self.next(self.cursor);
        }
        let line = &self.text[self.cursor..end];
        let mut chars = line.char_indices().peekable();
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        let Some(&(_, first)) = chars.peek() else {
            return end;
        };
        let kind = is_word(first);
        while chars
            .next_if(|(_, c)| !c.is_whitespace() && is_word(*c) == kind)
            .is_some()
        {}
        chars.peek().map_or(end, |(i, _)| self.cursor + i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, cursor: usize) -> Buffer {
        Buffer {
            text: text.into(),
            cursor,
        }
    }

    #[test]
    fn char_steps_respect_multibyte_boundaries() {
        let b = at("a日🎉", 0);
        assert_eq!(b.next(0), 1);
        assert_eq!(b.next(1), 4);
        assert_eq!(b.next(4), 8);
        assert_eq!(b.next(8), 8);
        assert_eq!(b.prev(8), 4);
        assert_eq!(b.prev(4), 1);
        assert_eq!(b.prev(0), 0);
    }

    #[test]
    fn word_motions_stop_at_words_and_punctuation() {
        let text = "foo bar.baz  qux";
        let b = at(text, text.len());
        assert_eq!(b.word_left(), 13);
        assert_eq!(at(text, 13).word_left(), 8);
        assert_eq!(at(text, 8).word_left(), 7);
        assert_eq!(at(text, 7).word_left(), 4);
        assert_eq!(at(text, 4).word_left(), 0);
        assert_eq!(at(text, 0).word_right(), 3);
        assert_eq!(at(text, 3).word_right(), 7);
        assert_eq!(at(text, 7).word_right(), 8);
        assert_eq!(at(text, 11).word_right(), 16);
    }

    #[test]
    fn word_motions_cross_lines_one_step_at_a_time() {
        let b = at("ab\ncd", 3);
        assert_eq!(b.word_left(), 2);
        assert_eq!(at("ab\ncd", 2).word_right(), 3);
        assert_eq!(at("ab\n  cd", 5).word_left(), 3);
    }

    #[test]
    fn line_bounds() {
        let b = at("ab\ncd\n", 4);
        assert_eq!(b.line_start(4), 3);
        assert_eq!(b.line_end(4), 5);
        assert_eq!(b.line_start(6), 6);
        assert_eq!(b.line_end(6), 6);
    }
}
