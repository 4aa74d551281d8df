//! The input box: multi-line text between two rules coloured by the thinking level (pi's editor
//! look), wrapped by characters, with the cursor drawn in reverse video. Rendering only: key
//! handling comes with the interactive loop.

use super::Component;
use crate::ansi::char_width;
use crate::theme::{inverse, Color, Theme};

/// The editor's content and cursor.
#[derive(Debug, Clone, PartialEq)]
pub struct EditorView {
    /// The text being typed (`\n` separates lines).
    pub text: String,
    /// Cursor as a byte offset into `text` (on a char boundary; clamped when drawn).
    pub cursor: usize,
    /// Colour of the two rules (pi: the thinking level's colour; bash mode's for `!`).
    pub border: Color,
    /// Spaces left and right of the text (`editorPaddingX`, 0–3).
    pub padding_x: usize,
}

impl EditorView {
    /// An empty editor.
    pub fn new(border: Color) -> Self {
        Self {
            text: String::new(),
            cursor: 0,
            border,
            padding_x: 0,
        }
    }

    fn cursor(&self) -> usize {
        let mut c = self.cursor.min(self.text.len());
        while !self.text.is_char_boundary(c) {
            c -= 1;
        }
        c
    }
}

/// Accumulates rows of at most `avail` columns, drawing the cursor where it falls.
struct Rows {
    avail: usize,
    rows: Vec<String>,
    row: String,
    row_w: usize,
}

impl Rows {
    fn push_char(&mut self, ch: char, at_cursor: bool) {
        let w = char_width(ch).max(if at_cursor { 1 } else { 0 });
        if self.row_w + w > self.avail && self.row_w > 0 {
            self.rows.push(std::mem::take(&mut self.row));
            self.row_w = 0;
        }
        if at_cursor {
            self.row.push_str(&inverse(ch.encode_utf8(&mut [0; 4])));
        } else {
            self.row.push(ch);
        }
        self.row_w += w;
    }

    fn end_line(&mut self) {
        self.rows.push(std::mem::take(&mut self.row));
        self.row_w = 0;
    }
}

impl Component for EditorView {
    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        let pad = " ".repeat(self.padding_x);
        let avail = width.saturating_sub(2 * self.padding_x).max(1);
        let cursor = self.cursor();
        let mut rows = Rows {
            avail,
            rows: Vec::new(),
            row: String::new(),
            row_w: 0,
        };
        let mut offset = 0;
        for (i, line) in self.text.split('\n').enumerate() {
            if i > 0 {
                rows.end_line();
                offset += 1;
            }
            for (j, ch) in line.char_indices() {
                rows.push_char(ch, offset + j == cursor);
            }
            offset += line.len();
            if cursor == offset {
                rows.push_char(' ', true);
            }
        }
        rows.end_line();
        let rule = theme.fg(self.border, &"─".repeat(width));
        let mut out = Vec::with_capacity(rows.rows.len() + 2);
        out.push(rule.clone());
        out.extend(rows.rows.into_iter().map(|r| format!("{pad}{r}")));
        out.push(rule);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ansi::visible_width;

    #[test]
    fn cursor_is_drawn_where_the_offset_points() {
        let t = Theme::dark();
        let mut e = EditorView::new(Color::Default);
        e.text = "ab\ncd".into();
        e.cursor = 1;
        assert_eq!(e.render(10, &t)[1], format!("a{}", inverse("b")));
        e.cursor = 2;
        assert_eq!(e.render(10, &t)[1], format!("ab{}", inverse(" ")));
        e.cursor = 5;
        assert_eq!(e.render(10, &t)[2], format!("cd{}", inverse(" ")));
    }

    #[test]
    fn a_full_row_moves_the_end_cursor_down_and_lines_fit() {
        let t = Theme::dark();
        let mut e = EditorView::new(Color::Default);
        e.text = "abcd".into();
        e.cursor = 4;
        let lines = e.render(4, &t);
        assert_eq!(lines[1], "abcd");
        assert_eq!(lines[2], inverse(" "));
        e.text = "日本語".into();
        e.cursor = 0;
        for l in e.render(5, &t) {
            assert!(visible_width(&l) <= 5, "{l:?}");
        }
    }
}
