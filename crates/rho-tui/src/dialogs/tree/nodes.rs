//! The session tree laid out as pi 1.6's `/tree` lays it out. Entries are listed depth first,
//! the branch holding the current leaf first at every fork. A chain of single children stays
//! at one indentation; a fork indents its children, which start with `├─`/`└─` (`⊟`/`⊞` in
//! place of `─` on a branch that can be folded), and `│` carries open branches down. Entries a
//! filter hides are skipped: their children hang from the nearest shown ancestor, and the
//! layout is computed again over what is shown.

use std::collections::{HashMap, HashSet};

use rho_protocol::session::SessionEntry;

/// The tree by index into the entries.
#[derive(Debug, Clone)]
pub(super) struct Tree {
    /// Each entry's parent (an index), when it has one that exists.
    pub parent: Vec<Option<usize>>,
    /// Every entry in display order (depth first, active branch first).
    pub order: Vec<usize>,
    /// Entries on the path from the root to the leaf.
    pub active: HashSet<usize>,
    /// The current leaf.
    pub leaf: Option<usize>,
}

impl Tree {
    pub fn new(entries: &[SessionEntry], leaf_id: Option<&str>) -> Self {
        let index: HashMap<&str, usize> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.id.as_str(), i))
            .collect();
        let parent: Vec<Option<usize>> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                e.parent_id
                    .as_deref()
                    .and_then(|p| index.get(p).copied())
                    .filter(|&p| p != i)
            })
            .collect();
        let leaf = leaf_id.and_then(|id| index.get(id).copied());
        let mut active = HashSet::new();
        let mut cursor = leaf;
        while let Some(i) = cursor {
            if !active.insert(i) {
                break;
            }
            cursor = parent[i];
        }
        let mut children: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
        for (i, p) in parent.iter().enumerate() {
            children.entry(*p).or_default().push(i);
        }
        // The branch holding the leaf comes first at every fork (stable otherwise).
        for kids in children.values_mut() {
            kids.sort_by_key(|k| !active.contains(k));
        }
        let mut order = Vec::with_capacity(entries.len());
        let mut seen = HashSet::new();
        let mut stack: Vec<usize> = children.get(&None).cloned().unwrap_or_default();
        stack.reverse();
        while let Some(i) = stack.pop() {
            if !seen.insert(i) {
                continue;
            }
            order.push(i);
            if let Some(kids) = children.get(&Some(i)) {
                stack.extend(kids.iter().rev());
            }
        }
        Self {
            parent,
            order,
            active,
            leaf,
        }
    }

    /// Whether `i` lies under `ancestor` (strictly).
    pub fn descends_from(&self, i: usize, ancestors: &HashSet<usize>) -> bool {
        let mut cursor = self.parent[i];
        let mut steps = 0;
        while let Some(p) = cursor {
            if ancestors.contains(&p) {
                return true;
            }
            steps += 1;
            if steps > self.parent.len() {
                return false;
            }
            cursor = self.parent[p];
        }
        false
    }
}

/// Where a shown entry sits in the drawing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Place {
    pub indent: usize,
    pub connector: bool,
    pub is_last: bool,
    /// Columns (levels) with a branch line: `true` draws `│`, `false` a blank.
    pub gutters: Vec<(usize, bool)>,
}

/// The shown entries' tree: nearest shown parents and children, and each one's place.
#[derive(Debug, Clone, Default)]
pub(super) struct Layout {
    pub parent: HashMap<usize, Option<usize>>,
    pub children: HashMap<Option<usize>, Vec<usize>>,
    pub places: HashMap<usize, Place>,
    pub multiple_roots: bool,
}

impl Layout {
    /// The layout of `shown` (entries in display order).
    pub fn new(tree: &Tree, shown: &[usize]) -> Self {
        let visible: HashSet<usize> = shown.iter().copied().collect();
        let mut parent = HashMap::new();
        let mut children: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
        children.insert(None, Vec::new());
        for &i in shown {
            let mut cursor = tree.parent[i];
            let mut steps = 0;
            while let Some(p) = cursor {
                if visible.contains(&p) || steps > tree.parent.len() {
                    break;
                }
                steps += 1;
                cursor = tree.parent[p];
            }
            let up = cursor.filter(|p| visible.contains(p));
            parent.insert(i, up);
            children.entry(up).or_default().push(i);
        }
        let roots = children.get(&None).cloned().unwrap_or_default();
        let multiple_roots = roots.len() > 1;
        let mut places = HashMap::new();
        // (entry, indent, just branched, shows a connector, last child, gutters, virtual-root child)
        type Item = (usize, usize, bool, bool, bool, Vec<(usize, bool)>, bool);
        let mut stack: Vec<Item> = roots
            .iter()
            .enumerate()
            .rev()
            .map(|(k, &r)| {
                let indent = usize::from(multiple_roots);
                let last = k + 1 == roots.len();
                (
                    r,
                    indent,
                    multiple_roots,
                    multiple_roots,
                    last,
                    Vec::new(),
                    multiple_roots,
                )
            })
            .collect();
        while let Some((i, indent, branched, connector, last, gutters, virtual_child)) = stack.pop()
        {
            if places.contains_key(&i) {
                continue;
            }
            let shown_connector = connector && !virtual_child;
            places.insert(
                i,
                Place {
                    indent,
                    connector: shown_connector,
                    is_last: last,
                    gutters: gutters.clone(),
                },
            );
            let kids = children.get(&Some(i)).cloned().unwrap_or_default();
            let several = kids.len() > 1;
            let child_indent = if several || (branched && indent > 0) {
                indent + 1
            } else {
                indent
            };
            let display = if multiple_roots {
                indent.saturating_sub(1)
            } else {
                indent
            };
            let child_gutters = if shown_connector {
                let mut g = gutters.clone();
                g.push((display.saturating_sub(1), !last));
                g
            } else {
                gutters.clone()
            };
            for (k, &child) in kids.iter().enumerate().rev() {
                let child_last = k + 1 == kids.len();
                stack.push((
                    child,
                    child_indent,
                    several,
                    several,
                    child_last,
                    child_gutters.clone(),
                    false,
                ));
            }
        }
        Self {
            parent,
            children,
            places,
            multiple_roots,
        }
    }

    /// Whether `i` can be folded: it has shown children and is a root or the first entry of a
    /// branch (its shown parent forks).
    pub fn foldable(&self, i: usize) -> bool {
        if self.children.get(&Some(i)).is_none_or(Vec::is_empty) {
            return false;
        }
        match self.parent.get(&i).copied().flatten() {
            None => true,
            Some(p) => self.children.get(&Some(p)).is_some_and(|s| s.len() > 1),
        }
    }

    /// The glyphs before an entry's text (`│  ├⊟ `), `folded` marking a folded branch.
    pub fn prefix(&self, i: usize, foldable: bool, folded: bool) -> String {
        let Some(place) = self.places.get(&i) else {
            return String::new();
        };
        let display = if self.multiple_roots {
            place.indent.saturating_sub(1)
        } else {
            place.indent
        };
        let connector_at = place.connector.then(|| display.saturating_sub(1));
        let mut out = String::with_capacity(display * 3);
        for level in 0..display {
            if let Some(&(_, show)) = place.gutters.iter().find(|(p, _)| *p == level) {
                out.push_str(if show { "│  " } else { "   " });
            } else if connector_at == Some(level) {
                out.push(if place.is_last { '└' } else { '├' });
                out.push(if folded {
                    '⊞'
                } else if foldable {
                    '⊟'
                } else {
                    '─'
                });
                out.push(' ');
            } else {
                out.push_str("   ");
            }
        }
        out
    }
}
