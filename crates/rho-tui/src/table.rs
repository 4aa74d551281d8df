//! Markdown pipe tables (`| a | b |` over `|---|---|`), drawn with box characters when they fit
//! the width; rows that would not fit fall back to `a │ b` lines, wrapped.

use crate::ansi::{pad_to_width, visible_width, wrap};
use crate::markdown::inline;
use crate::theme::{bold, Theme};

/// True when `lines` form a table: a header row, then a separator row like `|---|:--:|`.
pub fn is_table(lines: &[&str]) -> bool {
    lines.len() >= 2 && lines[0].contains('|') && is_separator(lines[1])
}

fn is_separator(line: &str) -> bool {
    let t = line.trim();
    t.contains('-') && t.contains('|') && t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

fn cells(line: &str) -> Vec<&str> {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    t.split('|').map(str::trim).collect()
}

/// Renders a table block (see [`is_table`]) to lines no wider than `width`.
pub fn render_table(lines: &[&str], width: usize, theme: &Theme) -> Vec<String> {
    let border = |s: &str| theme.fg(theme.colors.md_code_block_border, s);
    let mut rows: Vec<Vec<String>> = Vec::new();
    for (i, line) in lines.iter().enumerate().filter(|(i, _)| *i != 1) {
        let styled = cells(line).into_iter().map(|c| inline(c, theme));
        rows.push(if i == 0 {
            styled.map(|c| bold(&c)).collect()
        } else {
            styled.collect()
        });
    }
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0; cols];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(visible_width(cell));
        }
    }
    let total: usize = widths.iter().sum::<usize>() + 3 * cols + 1;
    if total > width {
        let sep = border(" │ ");
        return rows
            .iter()
            .flat_map(|r| wrap(&r.join(&sep), width))
            .collect();
    }
    let rule = |l: &str, m: &str, r: &str| {
        let parts: Vec<String> = widths.iter().map(|w| "─".repeat(w + 2)).collect();
        border(&format!("{l}{}{r}", parts.join(m)))
    };
    let mut out = vec![rule("┌", "┬", "┐")];
    for (i, row) in rows.iter().enumerate() {
        let mut line = border("│");
        for (c, w) in widths.iter().enumerate() {
            let mut cell = format!(" {}", row.get(c).map_or("", String::as_str));
            pad_to_width(&mut cell, w + 2);
            line.push_str(&cell);
            line.push_str(&border("│"));
        }
        out.push(line);
        if i == 0 {
            out.push(rule("├", "┼", "┤"));
        }
    }
    out.push(rule("└", "┴", "┘"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ansi::strip_ansi;

    const T: [&str; 4] = [
        "| name | size |",
        "|------|-----:|",
        "| `a.rs` | 10 |",
        "| b | 2000 |",
    ];

    #[test]
    fn draws_a_box_when_it_fits() {
        let got: Vec<String> = render_table(&T, 40, &Theme::dark())
            .iter()
            .map(|l| strip_ansi(l))
            .collect();
        assert_eq!(
            got,
            [
                "┌──────┬──────┐",
                "│ name │ size │",
                "├──────┼──────┤",
                "│ a.rs │ 10   │",
                "│ b    │ 2000 │",
                "└──────┴──────┘",
            ]
        );
    }

    #[test]
    fn narrow_tables_become_wrapped_rows() {
        assert!(is_table(&T[..2]) && !is_table(&["a | b", "c | d"]));
        let got = render_table(&T, 10, &Theme::dark());
        assert!(got.iter().all(|l| visible_width(l) <= 10));
        assert_eq!(strip_ansi(&got[0]), "name │");
    }
}
