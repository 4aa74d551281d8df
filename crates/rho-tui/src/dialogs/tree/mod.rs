//! pi 1.6's `/tree` navigator: the whole session tree, the path to the current leaf marked
//! `•`, opening on the leaf. Typing searches; Enter picks an entry to move to. pi's
//! `app.tree.*` keys fold a branch or jump between branch starts, edit an entry's label (and
//! show when labels were set), and switch filters (`default` hides bookkeeping entries,
//! `no-tools` tool results too, `user-only`, `labeled-only`, `all`; `treeFilterMode` sets the
//! first); `app.message.copy` copies an entry's text.
//!
//! The navigator only decides: labels and copies are done by the caller, which tells the
//! navigator ([`TreeSelector::labelled`]) and keeps it open.

mod nodes;
mod text;
mod time;
mod view;

use std::collections::{HashMap, HashSet};

use rho_protocol::session::{EntryData, SessionEntry};

use nodes::{Layout, Tree};
use text::Call;

use super::line_edit::LineEdit;
use crate::input::{Dialog, DialogAction, Input};
use crate::keymap::{Action, Keymap};
use crate::theme::Theme;

/// Which entries the tree shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeFilter {
    /// Everything but bookkeeping (labels, model and thinking changes, titles, extension state).
    Default,
    /// The default without tool results.
    NoTools,
    /// User messages only.
    UserOnly,
    /// Labelled entries only.
    LabeledOnly,
    /// Every entry.
    All,
}

impl TreeFilter {
    const CYCLE: [TreeFilter; 5] = [
        TreeFilter::Default,
        TreeFilter::NoTools,
        TreeFilter::UserOnly,
        TreeFilter::LabeledOnly,
        TreeFilter::All,
    ];

    /// The filter a `treeFilterMode` setting names (pi's values); unknown ones are `Default`.
    pub fn from_setting(value: &str) -> Self {
        match value {
            "no-tools" => TreeFilter::NoTools,
            "user-only" => TreeFilter::UserOnly,
            "labeled-only" => TreeFilter::LabeledOnly,
            "all" => TreeFilter::All,
            _ => TreeFilter::Default,
        }
    }

    fn step(self, forward: bool) -> Self {
        let i = Self::CYCLE.iter().position(|f| *f == self).unwrap_or(0);
        let n = Self::CYCLE.len();
        Self::CYCLE[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }]
    }

    /// The mark after the position line (` [no-tools]`).
    fn mark(self) -> &'static str {
        match self {
            TreeFilter::Default => "",
            TreeFilter::NoTools => " [no-tools]",
            TreeFilter::UserOnly => " [user]",
            TreeFilter::LabeledOnly => " [labeled]",
            TreeFilter::All => " [all]",
        }
    }
}

/// What the navigator asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreePick {
    /// Move to this entry (closes the navigator).
    Go(String),
    /// Label this entry (`None`: remove its label); the navigator stays open.
    Label(String, Option<String>),
    /// Copy this text (the selected entry's); the navigator stays open. `None`: the entry
    /// holds no text.
    Copy(Option<String>),
}

/// One entry as the navigator knows it.
#[derive(Debug, Clone)]
struct Node {
    id: String,
    entry: SessionEntry,
    label: Option<String>,
    /// When the label was set (the label entry's time, ISO 8601).
    label_time: Option<String>,
    /// Lower-case text typing is matched against.
    search: String,
}

/// Navigates the session tree; see the module notes.
#[derive(Debug, Clone)]
pub struct TreeSelector {
    nodes: Vec<Node>,
    tree: Tree,
    calls: HashMap<String, Call>,
    filter: TreeFilter,
    query: String,
    folded: HashSet<usize>,
    /// The entries shown, in order.
    shown: Vec<usize>,
    layout: Layout,
    /// Position in `shown`.
    selected: usize,
    /// The entry selected last (kept across filters that hide it).
    last_selected: Option<usize>,
    label_times: bool,
    /// Editing the label of an entry.
    editing: Option<(usize, LineEdit)>,
    max_rows: usize,
    home: Option<String>,
    help: view::Help,
}

fn is_bookkeeping(data: &EntryData) -> bool {
    matches!(
        data,
        EntryData::Label { .. }
            | EntryData::ContextEdit { .. }
            | EntryData::Custom { .. }
            | EntryData::ModelChange { .. }
            | EntryData::ThinkingLevelChange { .. }
            | EntryData::SessionInfo { .. }
    )
}

impl TreeSelector {
    /// A navigator over `entries` (a session's entries in file order) with `leaf_id` as the
    /// current position, filtered by `filter` at first; `keys` names the keys in the help.
    pub fn new(
        entries: &[SessionEntry],
        leaf_id: Option<&str>,
        filter: TreeFilter,
        keys: &Keymap,
    ) -> Self {
        let mut labels: HashMap<&str, (Option<&str>, &str)> = HashMap::new();
        for e in entries {
            if let EntryData::Label { target_id, label } = &e.data {
                labels.insert(target_id.as_str(), (label.as_deref(), e.timestamp.as_str()));
            }
        }
        let nodes = entries
            .iter()
            .map(|e| {
                let (label, time) = match labels.get(e.id.as_str()) {
                    Some((Some(l), t)) => (Some(l.to_string()), Some(t.to_string())),
                    _ => (None, None),
                };
                Node {
                    id: e.id.clone(),
                    search: text::searchable(e, label.as_deref()),
                    entry: e.clone(),
                    label,
                    label_time: time,
                }
            })
            .collect();
        let tree = Tree::new(entries, leaf_id);
        let mut s = Self {
            nodes,
            calls: text::tool_calls(entries),
            last_selected: tree.leaf,
            tree,
            filter,
            query: String::new(),
            folded: HashSet::new(),
            shown: Vec::new(),
            layout: Layout::default(),
            selected: 0,
            label_times: false,
            editing: None,
            max_rows: 15,
            home: None,
            help: view::Help::of(keys),
        };
        s.apply_filter();
        s
    }

    /// Shows at most `n` rows (pi: half the terminal's height, at least five).
    pub fn with_max_rows(mut self, n: usize) -> Self {
        self.max_rows = n.max(1);
        self
    }

    /// Paths under `home` are written `~/…`.
    pub fn with_home(mut self, home: Option<String>) -> Self {
        self.home = home;
        self
    }

    /// Whether the tree has no entries at all.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The ids of the rows shown, in order.
    pub fn shown_ids(&self) -> Vec<&str> {
        self.shown
            .iter()
            .map(|&i| self.nodes[i].id.as_str())
            .collect()
    }

    /// Id of the selected entry, if any row is shown.
    pub fn selected_id(&self) -> Option<&str> {
        self.shown
            .get(self.selected)
            .map(|&i| self.nodes[i].id.as_str())
    }

    /// The filter in effect.
    pub fn filter(&self) -> TreeFilter {
        self.filter
    }

    /// The caller labelled `id` (`time`: when, ISO 8601).
    pub fn labelled(&mut self, id: &str, label: Option<String>, time: &str) {
        if let Some(node) = self.nodes.iter_mut().find(|n| n.id == id) {
            node.label_time = label.as_ref().map(|_| time.to_string());
            node.label = label;
            node.search = text::searchable(&node.entry, node.label.as_deref());
        }
        self.apply_filter();
    }

    fn passes(&self, i: usize) -> bool {
        let node = &self.nodes[i];
        let data = &node.entry.data;
        if matches!(data, EntryData::Usage(_)) {
            return false;
        }
        if self.tree.leaf != Some(i) && !text::assistant_shown(&node.entry) {
            return false;
        }
        let role = match data {
            EntryData::Message(m) => Some(m.role()),
            _ => None,
        };
        let keep = match self.filter {
            TreeFilter::UserOnly => role == Some("user"),
            TreeFilter::NoTools => !is_bookkeeping(data) && role != Some("toolResult"),
            TreeFilter::LabeledOnly => node.label.is_some(),
            TreeFilter::All => true,
            TreeFilter::Default => !is_bookkeeping(data),
        };
        let words = self.query.to_lowercase();
        keep && words.split_whitespace().all(|w| node.search.contains(w))
    }

    /// Recomputes what is shown; the selection stays on its entry, or the nearest shown entry
    /// above it.
    fn apply_filter(&mut self) {
        if let Some(&i) = self.shown.get(self.selected) {
            self.last_selected = Some(i);
        }
        let mut shown: Vec<usize> = self
            .tree
            .order
            .iter()
            .copied()
            .filter(|&i| self.passes(i))
            .collect();
        if !self.folded.is_empty() {
            shown.retain(|&i| !self.tree.descends_from(i, &self.folded));
        }
        self.layout = Layout::new(&self.tree, &shown);
        self.shown = shown;
        self.selected = self.nearest_shown(self.last_selected);
        if let Some(&i) = self.shown.get(self.selected) {
            self.last_selected = Some(i);
        }
    }

    fn nearest_shown(&self, from: Option<usize>) -> usize {
        let position: HashMap<usize, usize> = self
            .shown
            .iter()
            .enumerate()
            .map(|(k, &i)| (i, k))
            .collect();
        let mut cursor = from;
        let mut steps = 0;
        while let Some(i) = cursor {
            if let Some(&k) = position.get(&i) {
                return k;
            }
            steps += 1;
            if steps > self.nodes.len() {
                break;
            }
            cursor = self.tree.parent[i];
        }
        self.shown.len().saturating_sub(1)
    }

    fn set_filter(&mut self, filter: TreeFilter) {
        self.filter = filter;
        self.folded.clear();
        self.apply_filter();
    }

    fn toggle_filter(&mut self, filter: TreeFilter) {
        let next = if self.filter == filter {
            TreeFilter::Default
        } else {
            filter
        };
        self.set_filter(next);
    }

    /// The start of the next branch above (`up`) or below the selection (pi's fold/unfold
    /// keys when there is nothing to fold).
    fn branch_start(&self, up: bool) -> usize {
        let Some(&start) = self.shown.get(self.selected) else {
            return self.selected;
        };
        let position: HashMap<usize, usize> = self
            .shown
            .iter()
            .enumerate()
            .map(|(k, &i)| (i, k))
            .collect();
        let at = |i: usize| position.get(&i).copied().unwrap_or(self.selected);
        let kids = |i: Option<usize>| self.layout.children.get(&i).cloned().unwrap_or_default();
        let mut current = start;
        for _ in 0..=self.nodes.len() {
            if up {
                let Some(parent) = self.layout.parent.get(&current).copied().flatten() else {
                    return at(current);
                };
                if kids(Some(parent)).len() > 1 && at(current) < self.selected {
                    return at(current);
                }
                current = parent;
            } else {
                let children = kids(Some(current));
                match children.as_slice() {
                    [] => return at(current),
                    [only] => current = *only,
                    [first, ..] => return at(*first),
                }
            }
        }
        self.selected
    }

    fn move_to(&mut self, k: usize) {
        self.selected = k;
        if let Some(&i) = self.shown.get(k) {
            self.last_selected = Some(i);
        }
    }

    fn label_key(&mut self, input: &Input, keys: &Keymap) -> DialogAction<TreePick> {
        let Some((i, mut edit)) = self.editing.take() else {
            return DialogAction::Pending;
        };
        if keys.matches(input, Action::SelectConfirm) {
            let label = edit.text().trim().to_string();
            let label = (!label.is_empty()).then_some(label);
            return DialogAction::Done(TreePick::Label(self.nodes[i].id.clone(), label));
        }
        if !keys.matches(input, Action::SelectCancel) {
            edit.apply(input, keys);
            self.editing = Some((i, edit));
        }
        DialogAction::Pending
    }

    /// The keys while the tree shows, in pi's order.
    fn tree_key(&mut self, input: &Input, keys: &Keymap) -> DialogAction<TreePick> {
        use Action as A;
        const ACTIONS: &[Action] = &[
            A::SelectUp,
            A::SelectDown,
            A::TreeFoldOrUp,
            A::TreeUnfoldOrDown,
            A::EditorCursorLeft,
            A::SelectPageUp,
            A::EditorCursorRight,
            A::SelectPageDown,
            A::SelectConfirm,
            A::MessageCopy,
            A::SelectCancel,
            A::TreeFilterDefault,
            A::TreeFilterNoTools,
            A::TreeFilterUserOnly,
            A::TreeFilterLabeledOnly,
            A::TreeFilterAll,
            A::TreeFilterCycleBackward,
            A::TreeFilterCycleForward,
            A::EditorDeleteCharBackward,
            A::TreeEditLabel,
            A::TreeToggleLabelTimestamp,
        ];
        let n = self.shown.len();
        let page = self.max_rows;
        let current = self.shown.get(self.selected).copied();
        match keys.first_match(input, ACTIONS) {
            Some(A::SelectUp) if n > 0 => self.move_to((self.selected + n - 1) % n),
            Some(A::SelectDown) if n > 0 => self.move_to((self.selected + 1) % n),
            Some(A::TreeFoldOrUp) => match current {
                Some(i) if self.layout.foldable(i) && !self.folded.contains(&i) => {
                    self.folded.insert(i);
                    self.apply_filter();
                }
                _ => self.move_to(self.branch_start(true)),
            },
            Some(A::TreeUnfoldOrDown) => match current {
                Some(i) if self.folded.contains(&i) => {
                    self.folded.remove(&i);
                    self.apply_filter();
                }
                _ => self.move_to(self.branch_start(false)),
            },
            Some(A::EditorCursorLeft | A::SelectPageUp) => {
                self.move_to(self.selected.saturating_sub(page))
            }
            Some(A::EditorCursorRight | A::SelectPageDown) => {
                self.move_to((self.selected + page).min(n.saturating_sub(1)))
            }
            Some(A::SelectConfirm) => {
                if let Some(id) = self.selected_id() {
                    return DialogAction::Done(TreePick::Go(id.to_string()));
                }
            }
            Some(A::MessageCopy) => {
                let text = current.and_then(|i| text::copy_text(&self.nodes[i].entry));
                return DialogAction::Done(TreePick::Copy(text));
            }
            Some(A::SelectCancel) if !self.query.is_empty() => {
                self.query.clear();
                self.folded.clear();
                self.apply_filter();
            }
            Some(A::SelectCancel) => return DialogAction::Cancelled,
            Some(A::TreeFilterDefault) => self.set_filter(TreeFilter::Default),
            Some(A::TreeFilterNoTools) => self.toggle_filter(TreeFilter::NoTools),
            Some(A::TreeFilterUserOnly) => self.toggle_filter(TreeFilter::UserOnly),
            Some(A::TreeFilterLabeledOnly) => self.toggle_filter(TreeFilter::LabeledOnly),
            Some(A::TreeFilterAll) => self.toggle_filter(TreeFilter::All),
            Some(A::TreeFilterCycleBackward) => self.set_filter(self.filter.step(false)),
            Some(A::TreeFilterCycleForward) => self.set_filter(self.filter.step(true)),
            Some(A::EditorDeleteCharBackward) => {
                if self.query.pop().is_some() {
                    self.folded.clear();
                    self.apply_filter();
                }
            }
            Some(A::TreeEditLabel) => {
                if let Some(i) = current {
                    let edit = LineEdit::new(self.nodes[i].label.as_deref().unwrap_or(""));
                    self.editing = Some((i, edit));
                }
            }
            Some(A::TreeToggleLabelTimestamp) => self.label_times = !self.label_times,
            _ => self.type_char(input),
        }
        DialogAction::Pending
    }

    /// A character or paste without control characters extends the search.
    fn type_char(&mut self, input: &Input) {
        let typed = match input {
            Input::Paste(text) => text.clone(),
            Input::Key(k) => match k.code {
                crossterm::event::KeyCode::Char(c)
                    if (k.modifiers - crossterm::event::KeyModifiers::SHIFT).is_empty() =>
                {
                    c.to_string()
                }
                _ => return,
            },
            _ => return,
        };
        if typed.is_empty() || typed.chars().any(char::is_control) {
            return;
        }
        self.query.push_str(&typed);
        self.folded.clear();
        self.apply_filter();
    }
}

impl Dialog for TreeSelector {
    type Output = TreePick;

    fn handle(&mut self, input: &Input, keys: &Keymap) -> DialogAction<TreePick> {
        if self.editing.is_some() {
            return self.label_key(input, keys);
        }
        self.tree_key(input, keys)
    }

    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        view::render(self, width, theme)
    }
}
