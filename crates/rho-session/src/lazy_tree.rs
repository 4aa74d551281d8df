//! A session's entry tree, made when first needed for a session opened from its leaf summary
//! (`summary.rs`).
//!
//! Opening then reads the index's head, the summary and the header line, and nothing else:
//! the leaf's branch state, the session name and the context (cells pointing at the messages
//! on disk, made from the summary's items) answer start-up and `get_state`. Anything that
//! needs the entries (an append, navigation, the tree, an export) makes the tree first, from
//! the index as it was at open (its entries are appended to, never changed, so those bytes
//! are still there); the context's cells are then the entries' cells, shared as in a session
//! loaded whole. Should the index no longer hold them (another process wrote it again), the
//! file is loaded whole instead.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use rho_protocol::agent::{MessageFile, Origin, StoredMessage};

use super::context::{push_messages, SessionContext};
use super::entry::{EntryData, SessionEntry, SessionHeader};
use super::index::{self, Extent, Head, Stamp};
use super::lazy::{decode_entry_at, decode_message};
use super::load::{load_file, read_header, read_line, restore_entries};
use super::summary::{self, Item, Summary, SummaryKeeper};
use super::tree::SessionTree;

/// The tree, or what makes it when first asked for.
#[derive(Debug, Default)]
pub(crate) struct LazyTree {
    built: OnceLock<SessionTree>,
    summarized: Option<Box<Summarized>>,
}

/// A session file opened from its summary.
#[derive(Debug)]
pub(crate) struct Summarized {
    path: PathBuf,
    index: (Head, Extent),
    messages: Arc<MessageFile>,
    summary: Summary,
    /// The context's messages, made once from the summary (`None`: an item did not read back,
    /// so the context comes from the tree).
    context: OnceLock<Option<Vec<StoredMessage>>>,
}

/// What opening a session file from its summary gives.
pub(crate) struct Opened {
    pub header: SessionHeader,
    /// The index's head (its `covered` bytes are all of the file) and extent.
    pub index: (Head, Extent),
    pub keeper: Option<SummaryKeeper>,
    pub tree: LazyTree,
}

/// Opens `path` from its index and summary, when both describe the file as it is now.
pub(crate) fn open(path: &Path) -> Option<Opened> {
    let file = File::open(path).ok()?;
    let stamp = Stamp::of(&file.metadata().ok()?);
    let (head, extent) = index::read_current_head(path, stamp)?;
    let summary = summary::read(path, (head.covered, head.crc))?;
    let messages = MessageFile::new(path, file, decode_message);
    let header = read_header(&messages, head.header)?;
    let keeper = SummaryKeeper::new(path, summary.head(), summary.leaf.clone());
    let summarized = Summarized {
        path: path.to_path_buf(),
        index: (head, extent),
        messages,
        summary,
        context: OnceLock::new(),
    };
    Some(Opened {
        header,
        index: (head, extent),
        keeper,
        tree: LazyTree {
            built: OnceLock::new(),
            summarized: Some(Box::new(summarized)),
        },
    })
}

impl LazyTree {
    /// A tree already made.
    pub(crate) fn built(tree: SessionTree) -> Self {
        Self {
            built: OnceLock::from(tree),
            summarized: None,
        }
    }

    /// The tree, made now if it was not yet.
    pub(crate) fn get(&self) -> &SessionTree {
        self.built.get_or_init(|| match &self.summarized {
            Some(s) => s.tree(),
            None => SessionTree::default(),
        })
    }

    /// The tree to change; the summary no longer describes it.
    #[allow(clippy::expect_used, reason = "`get` has just made the tree")]
    pub(crate) fn get_mut(&mut self) -> &mut SessionTree {
        self.get();
        self.summarized = None;
        self.built.get_mut().expect("the tree was just made")
    }

    /// The summary, while the tree is not made.
    pub(crate) fn unmade(&self) -> Option<&Summarized> {
        self.summarized
            .as_deref()
            .filter(|_| self.built.get().is_none())
    }

    /// Whether the tree has been made.
    pub(crate) fn is_made(&self) -> bool {
        self.built.get().is_some()
    }
}

impl Summarized {
    /// The summary's answers.
    pub(crate) fn summary(&self) -> &Summary {
        &self.summary
    }

    /// The context at the leaf, from the summary; `None` when an item does not read back.
    pub(crate) fn context(&self) -> Option<SessionContext> {
        let messages = self.context.get_or_init(|| self.messages()).clone()?;
        let branch = &self.summary.leaf.branch;
        Some(SessionContext {
            messages,
            thinking_level: branch.thinking_level.clone(),
            has_thinking_level_change: branch.has_thinking_level_change,
            model: branch.model.clone(),
        })
    }

    /// The context's messages made from the items: the messages left on disk in one run of
    /// cells (checked first, so that the run is made whole), the others from their lines.
    fn messages(&self) -> Option<Vec<StoredMessage>> {
        let mut on_disk = 0;
        for item in self.summary.items() {
            on_disk += usize::from(matches!(item?, Item::Cell(_)));
        }
        let mut records = self
            .summary
            .items()
            .flatten()
            .filter_map(|item| match item {
                Item::Cell(m) => Some((m.offset, m.len, m.crc, m.role)),
                Item::Line { .. } => None,
            });
        // Never short: the items were just checked.
        let next = || records.next().unwrap_or((0, 0, 0, "user"));
        let run = StoredMessage::on_disk_run(&self.messages, on_disk, next);
        if on_disk == self.summary.len() {
            return Some(run);
        }
        let mut run = run.into_iter();
        let mut messages = Vec::with_capacity(self.summary.len());
        for item in self.summary.items().flatten() {
            match item {
                Item::Cell(_) => messages.extend(run.next()),
                Item::Line { start, end } => {
                    let text = read_line(&self.messages, start, end)?;
                    let decoded = decode_entry_at(&text, start, &self.messages).ok()?;
                    push_messages(&mut messages, &decoded.entry, None);
                }
            }
        }
        Some(messages)
    }

    /// The tree of the entries the index held at open, sharing the context's cells.
    fn tree(&self) -> SessionTree {
        let (head, extent) = self.index;
        let restored = index::read_as_was(&self.path, head, extent)
            .and_then(|index| restore_entries(&self.path, index, &self.messages));
        let mut entries = restored
            .or_else(|| load_file(&self.path).ok().map(|loaded| loaded.entries))
            .unwrap_or_default();
        if let Some(Some(cells)) = self.context.get() {
            share_cells(&mut entries, cells);
        }
        SessionTree::from_entries(entries)
    }
}

/// Puts the context's `cells` in the entries whose messages they are (the same place on
/// disk), so that the transcript and the session share them as after a whole load.
fn share_cells(entries: &mut [SessionEntry], cells: &[StoredMessage]) {
    let mut by_offset: Vec<(u64, &StoredMessage)> = cells
        .iter()
        .filter_map(|c| c.origin().map(|o| (o.offset(), c)))
        .collect();
    by_offset.sort_unstable_by_key(|(offset, _)| *offset);
    for entry in entries {
        let EntryData::Message(m) = &mut entry.data else {
            continue;
        };
        let Some(offset) = m.origin().map(Origin::offset) else {
            continue;
        };
        if let Ok(i) = by_offset.binary_search_by_key(&offset, |(o, _)| *o) {
            *m = by_offset[i].1.clone();
        }
    }
}
