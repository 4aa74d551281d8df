//! pi's `/tree` navigator: the whole session tree, one row per entry with branch glyphs, the
//! path to the current leaf highlighted and the leaf marked `• `. It opens on the leaf; typing
//! filters rows by their text, Enter yields the chosen entry's id.

use rho_protocol::session::SessionEntry;

use super::frame::{framed, inner_width};
use super::select_list::{edit_query, SELECT_ACTIONS};
use super::tree_rows::{tree_rows, TreeRow};
use crate::ansi::{truncate_with_ellipsis, visible_width};
use crate::input::{Dialog, DialogAction, Input};
use crate::keymap::{Action, Keymap};
use crate::theme::Theme;

/// Navigates the session tree; yields an entry id.
#[derive(Debug, Clone)]
pub struct TreeSelector {
    rows: Vec<TreeRow>,
    query: String,
    /// Indices into `rows` that match the query, in order.
    visible: Vec<usize>,
    /// Position in `visible`.
    selected: usize,
    max_rows: usize,
}

impl TreeSelector {
    /// A navigator over `entries` (a session's entries in file order) with `leaf_id` as the
    /// current position; shows up to 15 rows.
    pub fn new(entries: &[SessionEntry], leaf_id: Option<&str>) -> Self {
        let rows = tree_rows(entries, leaf_id);
        let mut s = Self {
            visible: (0..rows.len()).collect(),
            selected: 0,
            rows,
            query: String::new(),
            max_rows: 15,
        };
        s.selected = s.rows.iter().position(|r| r.is_leaf).unwrap_or(0);
        s
    }

    /// Shows at most `n` rows (at least one); the view scrolls to the selection.
    pub fn with_max_rows(mut self, n: usize) -> Self {
        self.max_rows = n.max(1);
        self
    }

    /// Every row, in display order (unfiltered).
    pub fn rows(&self) -> &[TreeRow] {
        &self.rows
    }

    /// The rows matching the filter, in display order.
    pub fn visible_rows(&self) -> Vec<&TreeRow> {
        self.visible.iter().map(|&i| &self.rows[i]).collect()
    }

    /// Id of the selected entry, if any row matches.
    pub fn selected_id(&self) -> Option<&str> {
        self.visible
            .get(self.selected)
            .map(|&i| self.rows[i].id.as_str())
    }

    fn matches(&self, row: &TreeRow) -> bool {
        let hay = match &row.label {
            Some(l) => format!("{} {}", row.text, l).to_lowercase(),
            None => row.text.to_lowercase(),
        };
        self.query
            .to_lowercase()
            .split_whitespace()
            .all(|w| hay.contains(w))
    }

    /// Re-applies the filter, keeping the selected entry when it still matches.
    fn refilter(&mut self) {
        let keep = self.visible.get(self.selected).copied();
        self.visible = (0..self.rows.len())
            .filter(|&i| self.matches(&self.rows[i]))
            .collect();
        self.selected = keep
            .and_then(|k| self.visible.iter().position(|&i| i == k))
            .unwrap_or(0);
    }

    fn step(&mut self, by: isize, wrap: bool) {
        let n = self.visible.len() as isize;
        if n == 0 {
            return;
        }
        let to = self.selected as isize + by;
        self.selected = if wrap {
            to.rem_euclid(n)
        } else {
            to.clamp(0, n - 1)
        } as usize;
    }

    fn edit_query(&mut self, input: &Input, keys: &Keymap) {
        if edit_query(&mut self.query, input, keys) {
            self.refilter();
        }
    }

    fn render_row(&self, row: &TreeRow, selected: bool, avail: usize, t: &Theme) -> String {
        let c = &t.colors;
        let mut line = if selected {
            t.fg(c.accent, "→ ")
        } else {
            "  ".to_string()
        };
        line.push_str(&t.fg(c.border_muted, &row.prefix));
        if row.is_leaf {
            line.push_str(&t.fg(c.accent, "• "));
        }
        if let Some(label) = &row.label {
            line.push_str(&t.fg(c.dim, &format!("[{label}] ")));
        }
        let room = avail.saturating_sub(visible_width(&line));
        let text = truncate_with_ellipsis(&row.text, room.max(1));
        let color = if selected {
            c.accent
        } else if row.on_path {
            c.text
        } else {
            c.muted
        };
        line.push_str(&t.fg(color, &text));
        line
    }
}

impl Dialog for TreeSelector {
    type Output = String;

    fn handle(&mut self, input: &Input, keys: &Keymap) -> DialogAction<String> {
        let page = self.max_rows as isize;
        match keys.first_match(input, SELECT_ACTIONS) {
            Some(Action::SelectCancel) => return DialogAction::Cancelled,
            Some(Action::SelectConfirm) => {
                return match self.selected_id() {
                    Some(id) => DialogAction::Done(id.to_string()),
                    None => DialogAction::Pending,
                }
            }
            Some(Action::SelectUp) => self.step(-1, true),
            Some(Action::SelectDown) => self.step(1, true),
            Some(Action::SelectPageUp) => self.step(-page, false),
            Some(Action::SelectPageDown) => self.step(page, false),
            _ => self.edit_query(input, keys),
        }
        DialogAction::Pending
    }

    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        let avail = inner_width(width);
        let mut body = Vec::new();
        if !self.query.is_empty() {
            let q = format!("{}{}", theme.fg(theme.colors.accent, "> "), self.query);
            body.push(q);
        }
        let n = self.visible.len();
        if n == 0 {
            body.push(theme.fg(theme.colors.dim, "  No matches"));
        }
        let start = self
            .selected
            .saturating_sub(self.max_rows / 2)
            .min(n.saturating_sub(self.max_rows));
        for k in start..(start + self.max_rows).min(n) {
            let row = &self.rows[self.visible[k]];
            body.push(self.render_row(row, k == self.selected, avail, theme));
        }
        if n > self.max_rows {
            let pos = format!("  ({}/{n})", self.selected + 1);
            body.push(theme.fg(theme.colors.dim, &pos));
        }
        let hint = "↑↓ navigate · type to filter · enter select · esc cancel";
        framed("Session tree", body, hint, width, theme)
    }
}
