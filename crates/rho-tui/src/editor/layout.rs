//! Where the text's characters land on screen, for Up/Down by visual position. Wraps exactly as
//! [`crate::components::EditorView`] draws: by characters, a character that does not fit the
//! row starts the next one.

use crate::ansi::char_width;

/// One screen row: a byte range of the text, and whether it ends its logical line (then the
/// cursor may sit at `end`; otherwise `end` belongs to the next row).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Row {
    pub start: usize,
    pub end: usize,
    pub last: bool,
}

/// The rows of `text` at `width` columns.
pub(crate) fn rows(text: &str, width: usize) -> Vec<Row> {
    let width = width.max(1);
    let mut out = Vec::new();
    let mut offset = 0;
    for line in text.split('\n') {
        let mut start = offset;
        let mut used = 0;
        for (i, ch) in line.char_indices() {
            let w = char_width(ch);
            if used + w > width && used > 0 {
                out.push(Row {
                    start,
                    end: offset + i,
                    last: false,
                });
                start = offset + i;
                used = 0;
            }
            used += w;
        }
        out.push(Row {
            start,
            end: offset + line.len(),
            last: true,
        });
        offset += line.len() + 1;
    }
    out
}

/// The row holding `cursor`.
pub(crate) fn row_of(rows: &[Row], cursor: usize) -> usize {
    rows.iter()
        .position(|r| cursor >= r.start && (cursor < r.end || (r.last && cursor == r.end)))
        .unwrap_or(rows.len().saturating_sub(1))
}

/// The cursor's column within its row.
pub(crate) fn column(text: &str, row: Row, cursor: usize) -> usize {
    text[row.start..cursor].chars().map(char_width).sum()
}

/// The offset in `row` closest to column `col` (never past a wrapped row's end).
pub(crate) fn offset_at(text: &str, row: Row, col: usize) -> usize {
    let mut used = 0;
    for (i, ch) in text[row.start..row.end].char_indices() {
        let w = char_width(ch);
        if used + w > col {
            return row.start + i;
        }
        used += w;
    }
    if row.last {
        row.end
    } else {
        text[row.start..row.end]
            .char_indices()
            .next_back()
            .map_or(row.start, |(i, _)| row.start + i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_by_width_and_splits_lines() {
        let r = rows("abcdef\ngh", 4);
        let spans: Vec<_> = r.iter().map(|r| (r.start, r.end, r.last)).collect();
        assert_eq!(spans, vec![(0, 4, false), (4, 6, true), (7, 9, true)]);
        assert_eq!(row_of(&r, 4), 1);
        assert_eq!(row_of(&r, 6), 1);
        assert_eq!(row_of(&r, 7), 2);
    }

    #[test]
    fn wide_characters_do_not_straddle_rows() {
        let text = "a日本";
        let r = rows(text, 4);
        assert_eq!(r.len(), 2);
        assert_eq!(&text[r[0].start..r[0].end], "a日");
        assert_eq!(column(text, r[0], 4), 3);
        assert_eq!(offset_at(text, r[1], 1), r[1].start);
        assert_eq!(offset_at(text, r[0], 2), 1);
        assert_eq!(offset_at(text, r[0], 9), 1);
    }
}
