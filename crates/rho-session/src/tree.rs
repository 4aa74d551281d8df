//! The entry tree in memory: entries in file order, an id index, the current leaf, and the
//! label and name state that entries set (interfaces spec §4.3-§4.4).

use std::collections::HashMap;
use std::hash::BuildHasher;

use foldhash::fast::RandomState;
use hashbrown::hash_table::Entry;
use hashbrown::HashTable;

use super::entry::{EntryData, SessionEntry};
use super::error::StoreError;
use super::ids::new_entry_id;

/// Entries of one session and the current leaf.
#[derive(Debug, Default, Clone)]
pub struct SessionTree {
    entries: Vec<SessionEntry>,
    index: IdIndex,
    /// Each entry's parent (by position), resolved once: walking a 50,000-entry branch is
    /// then no hashing at all.
    parents: Vec<Option<usize>>,
    leaf: Option<usize>,
    labels: HashMap<String, String>,
    name: Option<String>,
}

impl SessionTree {
    /// A tree over loaded entries (kept in place, not copied); the leaf is the last entry.
    pub fn from_entries(entries: Vec<SessionEntry>) -> Self {
        let mut tree = SessionTree {
            index: IdIndex::with_capacity(entries.len()),
            entries,
            ..Default::default()
        };
        for i in 0..tree.entries.len() {
            tree.note(i);
        }
        let parents = (0..tree.entries.len()).map(|i| tree.position_of_parent_at(i));
        tree.parents = parents.collect();
        tree.leaf = tree.entries.len().checked_sub(1);
        tree
    }

    fn position_of_parent(&self, entry: &SessionEntry) -> Option<usize> {
        self.index.get(&self.entries, entry.parent_id.as_deref()?)
    }

    /// The parent of the entry at `i`: in a session file it is nearly always the entry
    /// before, which, while no id is repeated, is found without hashing.
    fn position_of_parent_at(&self, i: usize) -> Option<usize> {
        let parent = self.entries[i].parent_id.as_deref()?;
        let before = i.checked_sub(1).filter(|&b| self.entries[b].id == parent);
        match before {
            Some(b) if !self.index.repeats => Some(b),
            _ => self.index.get(&self.entries, parent),
        }
    }

    /// Adds an entry (its `parent_id` already set) and makes it the leaf.
    pub fn push(&mut self, entry: SessionEntry) {
        self.parents.push(self.position_of_parent(&entry));
        self.entries.push(entry);
        self.note(self.entries.len() - 1);
        self.leaf = Some(self.entries.len() - 1);
    }

    /// Indexes the entry at position `i` and applies the label/name it sets.
    fn note(&mut self, i: usize) {
        let entry = &self.entries[i];
        match &entry.data {
            EntryData::Label { target_id, label } => match label {
                Some(l) => {
                    self.labels.insert(target_id.clone(), l.clone());
                }
                None => {
                    self.labels.remove(target_id);
                }
            },
            EntryData::SessionInfo { name } => self.name = name.clone(),
            _ => {}
        }
        self.index.insert(&self.entries, i);
    }

    /// A fresh id not used in this tree.
    pub fn new_id(&self) -> String {
        new_entry_id(|id| self.index.get(&self.entries, id).is_some())
    }

    /// All entries in file order.
    pub fn entries(&self) -> &[SessionEntry] {
        &self.entries
    }

    /// The entry with `id`.
    pub fn get(&self, id: &str) -> Option<&SessionEntry> {
        self.index.get(&self.entries, id).map(|i| &self.entries[i])
    }

    /// Where `entry`, one of this tree's entries, is in [`Self::entries`].
    pub(crate) fn position(&self, entry: &SessionEntry) -> Option<usize> {
        let i = self.index.get(&self.entries, &entry.id)?;
        std::ptr::eq(&self.entries[i], entry).then_some(i)
    }

    /// The current leaf (`None`: before the first entry, the next append is a root).
    pub fn leaf(&self) -> Option<&SessionEntry> {
        self.leaf.map(|i| &self.entries[i])
    }

    /// The current leaf's id.
    pub fn leaf_id(&self) -> Option<&str> {
        self.leaf().map(|e| e.id.as_str())
    }

    /// Moves the leaf to `id` (tree navigation); `None` resets it to before the first entry.
    pub fn set_leaf(&mut self, id: Option<&str>) -> Result<(), StoreError> {
        self.leaf = match id {
            None => None,
            Some(id) => Some(
                self.index
                    .get(&self.entries, id)
                    .ok_or_else(|| StoreError::UnknownEntry { id: id.to_string() })?,
            ),
        };
        Ok(())
    }

    /// The entries from the root down to `id` (inclusive), root first.
    pub fn path_to(&self, id: &str) -> Vec<&SessionEntry> {
        let mut path = Vec::new();
        let mut cursor = self.index.get(&self.entries, id);
        while let Some(i) = cursor {
            if path.len() > self.entries.len() {
                break; // a parent cycle in a hand-edited file: stop rather than loop
            }
            path.push(&self.entries[i]);
            cursor = self.parents[i];
        }
        path.reverse();
        path
    }

    /// The branch from the root to the current leaf.
    pub fn branch(&self) -> Vec<&SessionEntry> {
        self.leaf_id()
            .map(|id| self.path_to(id))
            .unwrap_or_default()
    }

    /// Direct children of `id` (`None`: the roots), in file order.
    pub fn children(&self, id: Option<&str>) -> Vec<&SessionEntry> {
        self.entries
            .iter()
            .filter(|e| e.parent_id.as_deref() == id)
            .collect()
    }

    /// Every entry's children at once (`None` keys the roots), each list in file order: build
    /// this once to walk the whole tree, since [`Self::children`] scans all entries per call.
    pub fn child_index(&self) -> HashMap<Option<&str>, Vec<&SessionEntry>> {
        let mut map: HashMap<Option<&str>, Vec<&SessionEntry>> = HashMap::new();
        for entry in &self.entries {
            map.entry(entry.parent_id.as_deref())
                .or_default()
                .push(entry);
        }
        map
    }

    /// The label of `id`, from the last `label` entry targeting it.
    pub fn label(&self, id: &str) -> Option<&str> {
        self.labels.get(id).map(String::as_str)
    }

    /// The session name, from the last `session_info` entry in file order.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

/// Entry positions by id, hashing each id where it is in the entries: the index of a
/// 50,000-entry session then costs no copy of any id. foldhash, not SipHash: SipHash was a
/// few percent of the time to open such a session; foldhash is faster and still seeded per
/// process. A repeated id finds its latest entry.
#[derive(Debug, Default, Clone)]
struct IdIndex {
    positions: HashTable<usize>,
    hasher: RandomState,
    /// Whether some id was indexed twice (a hand-edited file).
    repeats: bool,
}

impl IdIndex {
    fn with_capacity(n: usize) -> Self {
        Self {
            positions: HashTable::with_capacity(n),
            hasher: RandomState::default(),
            repeats: false,
        }
    }

    /// The position of the entry `id` in `entries` (the entries this index was built over).
    fn get(&self, entries: &[SessionEntry], id: &str) -> Option<usize> {
        let hash = self.hasher.hash_one(id);
        let found = self.positions.find(hash, |&i| entries[i].id == id);
        found.copied()
    }

    /// Indexes `entries[i]`, replacing an earlier entry of the same id.
    fn insert(&mut self, entries: &[SessionEntry], i: usize) {
        let id = entries[i].id.as_str();
        let hash = self.hasher.hash_one(id);
        let hasher = &self.hasher;
        let rehash = |&j: &usize| hasher.hash_one(entries[j].id.as_str());
        match self.positions.entry(hash, |&j| entries[j].id == id, rehash) {
            Entry::Occupied(mut found) => {
                *found.get_mut() = i;
                self.repeats = true;
            }
            Entry::Vacant(slot) => {
                slot.insert(i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(id: &str, parent: Option<&str>) -> SessionEntry {
        SessionEntry {
            id: id.into(),
            parent_id: parent.map(Into::into),
            timestamp: String::new(),
            data: EntryData::SessionInfo { name: None },
        }
    }

    fn ids(path: Vec<&SessionEntry>) -> Vec<(&str, Option<&str>)> {
        path.iter()
            .map(|e| (e.id.as_str(), e.parent_id.as_deref()))
            .collect()
    }

    /// A repeated id means its latest entry, also for the entry right after its first one.
    #[test]
    fn a_parent_is_the_latest_entry_of_its_id() {
        let tree = SessionTree::from_entries(vec![
            label("a", None),
            label("b", Some("a")),
            label("a", Some("r")),
            label("r", None),
        ]);
        assert_eq!(
            ids(tree.path_to("b")),
            [("r", None), ("a", Some("r")), ("b", Some("a"))]
        );
        let linear = SessionTree::from_entries(vec![label("a", None), label("b", Some("a"))]);
        assert_eq!(ids(linear.path_to("b")), [("a", None), ("b", Some("a"))]);
    }
}
