//! A filterable list (pi's SelectList): type to narrow it with fuzzy matching, move with the
//! arrows, Enter picks. Other selectors (models, thinking levels, sessions) are built on it.

use crossterm::event::{KeyCode, KeyModifiers};

use super::frame::{edit_line, framed, inner_width};
use crate::ansi::{truncate_with_ellipsis, visible_width};
use crate::fuzzy::fuzzy_rank;
use crate::input::{Dialog, DialogAction, Input};
use crate::keymap::{Action, Keymap};
use crate::theme::Theme;

/// The hint line of a plain list.
pub const SELECT_HINT: &str = "↑↓ navigate · enter select · esc cancel";

/// One row of a [`SelectList`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectItem {
    /// The row's main text (searched, drawn in the accent colour when selected).
    pub label: String,
    /// Shown dim after the label, aligned in a column; may be empty.
    pub description: String,
}

impl SelectItem {
    /// An item with a label and a description.
    pub fn new(label: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            label: label.into(),
            description: description.into(),
        }
    }
}

/// A modal list that yields the index (into the items it was given) of the chosen row.
#[derive(Debug, Clone)]
pub struct SelectList {
    title: String,
    hint: String,
    items: Vec<SelectItem>,
    search: Vec<String>,
    current: Option<usize>,
    cut_labels: bool,
    initial: usize,
    max_rows: usize,
    query: String,
    /// Original indices of the rows shown, in display order.
    visible: Vec<usize>,
    /// Position in `visible`.
    selected: usize,
}

impl SelectList {
    /// A list showing all `items`, the first selected, at most 10 rows at a time.
    pub fn new(title: impl Into<String>, items: Vec<SelectItem>) -> Self {
        let search = items.iter().map(|i| i.label.clone()).collect();
        let mut list = Self {
            title: title.into(),
            hint: SELECT_HINT.to_string(),
            items,
            search,
            current: None,
            cut_labels: false,
            initial: 0,
            max_rows: 10,
            query: String::new(),
            visible: Vec::new(),
            selected: 0,
        };
        list.refilter();
        list
    }

    /// Starts with item `index` selected (ignored when out of range); also where the selection
    /// returns when the filter is cleared.
    pub fn with_selected(mut self, index: usize) -> Self {
        if index < self.items.len() {
            self.initial = index;
            self.refilter();
        }
        self
    }

    /// Shows at most `n` rows at once (at least one); the list scrolls to the selection.
    pub fn with_max_rows(mut self, n: usize) -> Self {
        self.max_rows = n.max(1);
        self
    }

    /// Marks item `index` as the current value with a `✓` after its label.
    pub fn with_current(mut self, index: usize) -> Self {
        self.current = Some(index);
        self
    }

    /// Cuts labels at the label column (half the width at most) so every description shows,
    /// aligned; by default a long label pushes its description right instead.
    pub fn with_aligned_descriptions(mut self) -> Self {
        self.cut_labels = true;
        self
    }

    /// Replaces the hint line (selectors with extra keys name them here).
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = hint.into();
        self
    }

    /// Makes typing match these texts instead of the labels (one per item, same order; a
    /// missing entry falls back to the label). Lets a row be found by text it does not show
    /// in its label, such as a model's provider.
    pub fn with_search_keys(mut self, keys: Vec<String>) -> Self {
        self.search = (0..self.items.len())
            .map(|i| keys.get(i).unwrap_or(&self.items[i].label).clone())
            .collect();
        self.refilter();
        self
    }

    /// Replaces the title.
    pub fn set_title(&mut self, title: impl Into<String>) {
        self.title = title.into();
    }

    /// Replaces the items (and their search keys), keeping the query; the selection moves to
    /// the best match, or the first row when the query is empty.
    pub fn set_items(&mut self, items: Vec<SelectItem>, search_keys: Vec<String>) {
        self.items = items;
        self.search = (0..self.items.len())
            .map(|i| search_keys.get(i).unwrap_or(&self.items[i].label).clone())
            .collect();
        self.current = None;
        self.initial = 0;
        self.refilter();
    }

    /// Changes the label of item `index` in place (the selection and filter stay): for rows
    /// that show a state, such as a check mark.
    pub fn set_label(&mut self, index: usize, label: impl Into<String>) {
        if let Some(item) = self.items.get_mut(index) {
            item.label = label.into();
        }
    }

    /// The filter typed so far.
    pub fn query(&self) -> &str {
        &self.query
    }

    /// Selects the row of item `index` when it is shown.
    pub fn select_item(&mut self, index: usize) {
        if let Some(k) = self.visible.iter().position(|&i| i == index) {
            self.selected = k;
        }
    }

    /// Original index of the selected row, if any row matches.
    pub fn selected_index(&self) -> Option<usize> {
        self.visible.get(self.selected).copied()
    }

    /// Original indices of the matching rows, in display order.
    pub fn visible_indices(&self) -> &[usize] {
        &self.visible
    }

    /// The items as given.
    pub fn items(&self) -> &[SelectItem] {
        &self.items
    }

    fn refilter(&mut self) {
        if self.query.trim().is_empty() {
            self.visible = (0..self.items.len()).collect();
            self.selected = self.initial.min(self.items.len().saturating_sub(1));
        } else {
            self.visible = fuzzy_rank(&self.query, self.search.iter().map(String::as_str));
            self.selected = 0;
        }
    }

    fn step(&mut self, forward: bool) {
        let n = self.visible.len();
        if n == 0 {
            return;
        }
        self.selected = if forward {
            (self.selected + 1) % n
        } else {
            (self.selected + n - 1) % n
        };
    }

    fn page(&mut self, forward: bool) {
        let last = self.visible.len().saturating_sub(1);
        self.selected = if forward {
            (self.selected + self.max_rows).min(last)
        } else {
            self.selected.saturating_sub(self.max_rows)
        };
    }

    fn edit_query(&mut self, input: &Input, keys: &Keymap) {
        if edit_query(&mut self.query, input, keys) {
            self.refilter();
        }
    }

    /// First visible row for the current selection: the selection sits mid-window when it can.
    fn window_start(&self) -> usize {
        let n = self.visible.len();
        self.selected
            .saturating_sub(self.max_rows / 2)
            .min(n.saturating_sub(self.max_rows))
    }

    fn row(&self, index: usize, selected: bool, label_w: usize, avail: usize, t: &Theme) -> String {
        let item = &self.items[index];
        let marker = if selected {
            t.fg(t.colors.accent, "→ ")
        } else {
            "  ".to_string()
        };
        let avail = avail.saturating_sub(2);
        let check = if self.current == Some(index) {
            " ✓"
        } else {
            ""
        };
        let room = if self.cut_labels && !item.description.is_empty() {
            label_w
        } else {
            avail
        };
        let label_room = room.saturating_sub(visible_width(check)).max(1);
        let label = truncate_with_ellipsis(&one_line(&item.label), label_room);
        let mut shown = visible_width(&label) + visible_width(check);
        let mut line = marker;
        line.push_str(&if selected {
            t.fg(t.colors.accent, &label)
        } else {
            label
        });
        line.push_str(&t.fg(t.colors.success, check));
        let desc_room = avail.saturating_sub(label_w.max(shown) + 2);
        if !item.description.is_empty() && desc_room >= 4 {
            line.push_str(&" ".repeat(label_w.saturating_sub(shown) + 2));
            shown = label_w.max(shown) + 2;
            let desc = truncate_with_ellipsis(&one_line(&item.description), avail - shown);
            line.push_str(&t.fg(t.colors.dim, &desc));
        }
        line
    }

    /// The rows' lines without the frame, for selectors that lay out their own dialog.
    pub fn body(&self, width: usize, theme: &Theme) -> Vec<String> {
        let avail = inner_width(width);
        let mut out = vec![self.filter_line(avail, theme)];
        if self.visible.is_empty() {
            out.push(theme.fg(theme.colors.dim, "  No matches"));
            return out;
        }
        let start = self.window_start();
        let shown = &self.visible[start..(start + self.max_rows).min(self.visible.len())];
        let widest = shown
            .iter()
            .map(|&i| visible_width(&one_line(&self.items[i].label)) + self.check_w(i))
            .max()
            .unwrap_or(0);
        let label_w = widest.min(avail.saturating_sub(2) / 2);
        for (k, &i) in shown.iter().enumerate() {
            out.push(self.row(i, start + k == self.selected, label_w, avail, theme));
        }
        if self.visible.len() > self.max_rows {
            let pos = format!("  ({}/{})", self.selected + 1, self.visible.len());
            out.push(theme.fg(theme.colors.dim, &pos));
        }
        out
    }

    fn check_w(&self, i: usize) -> usize {
        if self.current == Some(i) {
            2
        } else {
            0
        }
    }

    fn filter_line(&self, avail: usize, theme: &Theme) -> String {
        let prompt = theme.fg(theme.colors.accent, "> ");
        let chars: Vec<char> = self.query.chars().collect();
        let mut line = format!(
            "{prompt}{}",
            edit_line(&chars, chars.len(), avail.saturating_sub(2))
        );
        if chars.is_empty() {
            line.push_str(&theme.fg(theme.colors.dim, " type to search"));
        }
        line
    }

    /// Handles navigation, filtering, Enter and Esc; shared by the selectors built on the list.
    pub fn handle_key(&mut self, input: &Input, keys: &Keymap) -> DialogAction<usize> {
        match keys.first_match(input, SELECT_ACTIONS) {
            Some(Action::SelectCancel) => return DialogAction::Cancelled,
            Some(Action::SelectConfirm) => {
                return match self.selected_index() {
                    Some(i) => DialogAction::Done(i),
                    None => DialogAction::Pending,
                }
            }
            Some(Action::SelectUp) => self.step(false),
            Some(Action::SelectDown) => self.step(true),
            Some(Action::SelectPageUp) => self.page(false),
            Some(Action::SelectPageDown) => self.page(true),
            _ => self.edit_query(input, keys),
        }
        DialogAction::Pending
    }
}

/// The keys a list takes, in the order they are tried.
pub(crate) const SELECT_ACTIONS: &[Action] = &[
    Action::SelectCancel,
    Action::SelectConfirm,
    Action::SelectUp,
    Action::SelectDown,
    Action::SelectPageUp,
    Action::SelectPageDown,
];

/// Typing into a list's filter: characters and pastes add, the editor's delete-backward key
/// removes the last character. True when the query changed.
pub(crate) fn edit_query(query: &mut String, input: &Input, keys: &Keymap) -> bool {
    if let Input::Paste(text) = input {
        query.extend(text.chars().filter(|c| !c.is_control()));
        return true;
    }
    if keys.matches(input, Action::EditorDeleteCharBackward) {
        return query.pop().is_some();
    }
    match input.as_key() {
        Some(k) => match k.code {
            KeyCode::Char(c) if (k.modifiers - KeyModifiers::SHIFT).is_empty() => {
                query.push(c);
                true
            }
            _ => false,
        },
        None => false,
    }
}

/// The first line of `s` (rows are one line each), with tabs as spaces.
pub(crate) fn one_line(s: &str) -> String {
    s.lines().next().unwrap_or("").replace('\t', " ")
}

impl Dialog for SelectList {
    type Output = usize;

    fn handle(&mut self, input: &Input, keys: &Keymap) -> DialogAction<usize> {
        self.handle_key(input, keys)
    }

    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        framed(
            &self.title,
            self.body(width, theme),
            &self.hint,
            width,
            theme,
        )
    }
}
