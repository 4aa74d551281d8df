//! Parent cycles in a damaged or hand-edited file: entries whose `parentId` chain loops back
//! on itself. Left alone they make the branch walk repeat messages; here each cycle is broken
//! in memory at its oldest edge (the parent link of the cycle's earliest entry in file order,
//! which is the one that points forward in time) and reported. The file is not rewritten.

use std::collections::HashMap;

use foldhash::fast::RandomState;

use super::entry::SessionEntry;

/// One broken cycle: the entry whose parent link was dropped, and that parent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokenCycle {
    /// Index of the entry (file order among entries).
    pub index: usize,
    /// The entry's id.
    pub id: String,
    /// The parent id that was ignored.
    pub parent: String,
    /// How many entries the cycle held.
    pub len: usize,
}

/// Finds every parent cycle and clears the oldest edge of each, in O(n).
pub fn break_cycles(entries: &mut [SessionEntry]) -> Vec<BrokenCycle> {
    let index: HashMap<&str, usize, RandomState> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.as_str(), i))
        .collect();
    let parent: Vec<Option<usize>> = entries
        .iter()
        .map(|e| e.parent_id.as_deref().and_then(|p| index.get(p).copied()))
        .collect();
    drop(index);
    // 0 = not seen, 1 = on the current walk, 2 = finished.
    let mut state = vec![0u8; entries.len()];
    let mut broken = Vec::new();
    let mut walk = Vec::new();
    for start in 0..entries.len() {
        walk.clear();
        let mut cursor = Some(start);
        while let Some(c) = cursor.filter(|&c| state[c] == 0) {
            state[c] = 1;
            walk.push(c);
            cursor = parent[c];
        }
        if let Some(c) = cursor.filter(|&c| state[c] == 1) {
            let at = walk.iter().position(|&w| w == c).unwrap_or(0);
            let members = &walk[at..];
            let oldest = members.iter().copied().min().unwrap_or(c);
            let entry = &mut entries[oldest];
            broken.push(BrokenCycle {
                index: oldest,
                id: entry.id.clone(),
                parent: entry.parent_id.take().unwrap_or_default(),
                len: members.len(),
            });
        }
        for &w in &walk {
            state[w] = 2;
        }
    }
    broken
}
