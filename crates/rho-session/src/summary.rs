//! The leaf's summary kept beside a session file, so that reopening a long session answers
//! start-up (the model, the thinking level, the name, the agent's context) without making its
//! entries.
//!
//! Reopening a 50,000-entry session from its entry index still made 50,000 entries, their
//! tree and the context, although the first response needs only what the last entry's branch
//! sets and where the context's messages are. So beside the index (`.<file>.idx`) rho keeps
//! `.<file>.sum`: the branch state at the file's last entry (the leaf a reopened session
//! starts at), the session name, and one item per context message: where a message's JSON is
//! (its offset, length and CRC-32, as the index records them), or the line of an entry whose
//! message is made from the entry (a compaction's summary, an extension message, a branch
//! summary, a message of another role).
//!
//! It is a cache bound to one state of the file: its head names the bytes it describes (their
//! length and CRC-32, those of the index's head), and it is used only while the index is
//! current for the file as it is (same stamp, nothing after its bytes). Items are written
//! first, then the state, then the head (with the checksums of both), so a summary cut short
//! is no summary. A session that appends keeps it current ([`SummaryKeeper`]) while each entry
//! extends the branch it describes in a way it can follow; anything else (moving the leaf, a
//! compaction, a context edit) leaves a summary of older bytes, which is not used, and the next
//! open restores the entries and writes it again.

use std::borrow::Cow;
use std::fs::File;
use std::path::{Path, PathBuf};

use rho_protocol::agent::{read_exact_at, AgentMessage, StoredMessage};

use super::codec::{sealed, unsealed, Reader, Writer};
use super::context::{branch_state, contributing_entries, BranchState, ModelRef};
use super::disk_message::DiskMessage;
use super::entry::{EntryData, SessionEntry};
use super::index::{self, write_at};
use super::load::Placed;
use super::tree::SessionTree;
use super::writer::{write_atomic, Durability};

const MAGIC: &[u8; 22] = b"rho-session-summary-1\n";
/// Bound bytes (length, CRC-32), items (count, CRC-32), state (length, CRC-32), and the
/// head's own CRC-32.
const HEAD_LEN: usize = 8 + 4 + 8 + 4 + 8 + 4 + 4;
const ITEMS_AT: usize = MAGIC.len() + HEAD_LEN;
/// Each item: a tag (a role's number, see [`DiskMessage::tag`], or [`LINE`]), two numbers and
/// a CRC-32.
const ITEM_LEN: usize = 1 + 8 + 8 + 4;
const LINE: u8 = u8::MAX;

/// What the file's last entry has: its id, the branch's state and the session's name.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Leaf {
    pub id: Option<String>,
    pub branch: BranchState,
    pub name: Option<String>,
}

/// One message of the context at the leaf.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Item {
    /// A message left on disk.
    Cell(DiskMessage),
    /// The messages the entry on bytes `start..end` (line break included) gives the context.
    Line { start: u64, end: u64 },
}

/// The file's bytes a summary describes: their length and CRC-32.
pub(crate) type Bound = (u64, u32);

/// What a summary's head says, for extending it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Head {
    bound: Bound,
    items: u64,
    items_crc: u32,
    state_len: u64,
    state_crc: u32,
}

/// A summary read from disk, its checksums verified.
#[derive(Debug)]
pub(crate) struct Summary {
    pub leaf: Leaf,
    head: Head,
    /// The file's bytes up to the end of the items.
    bytes: Vec<u8>,
}

impl Summary {
    /// The context's items in order; `None` for bytes that do not decode.
    pub(crate) fn items(&self) -> impl Iterator<Item = Option<Item>> + '_ {
        self.bytes[ITEMS_AT..].chunks_exact(ITEM_LEN).map(read_item)
    }

    /// How many items there are (a compaction's gives two messages).
    pub(crate) fn len(&self) -> usize {
        (self.bytes.len() - ITEMS_AT) / ITEM_LEN
    }

    /// Its head, to keep it current.
    pub(crate) fn head(&self) -> Head {
        self.head
    }
}

/// Where the summary of the session file `path` is kept: beside its index, `.<name>.sum`.
fn sidecar(path: &Path) -> PathBuf {
    super::index::sidecar(path).with_extension("sum")
}

/// Removes the summary kept beside `path`.
pub(crate) fn remove(path: &Path) {
    let _ = std::fs::remove_file(sidecar(path));
}

/// The summary beside `path`, if it is whole and describes the bytes `bound`.
pub(crate) fn read(path: &Path, bound: Bound) -> Option<Summary> {
    let bytes = std::fs::read(sidecar(path)).ok()?;
    let head = decode_head(bytes.get(..ITEMS_AT)?)?;
    if head.bound != bound {
        return None;
    }
    let items_len = usize::try_from(head.items).ok()?.checked_mul(ITEM_LEN)?;
    let items = bytes.get(ITEMS_AT..ITEMS_AT.checked_add(items_len)?)?;
    let state_at = ITEMS_AT + items_len;
    let state_end = state_at.checked_add(usize::try_from(head.state_len).ok()?)?;
    let state = bytes.get(state_at..state_end)?;
    if crc32fast::hash(items) != head.items_crc || crc32fast::hash(state) != head.state_crc {
        return None;
    }
    let leaf = read_leaf(&mut Reader(state))?;
    let mut bytes = bytes;
    bytes.truncate(ITEMS_AT + items_len);
    Some(Summary { leaf, head, bytes })
}

/// The leaf and the context's items of `tree`, whose leaf must be its last entry (as just
/// loaded); `line_of(i)` is where the `i`th entry's line is. `None` when the context cannot
/// be told as items (an edit replaces a message's content, a line's place is unknown).
pub(crate) fn of_tree(
    tree: &SessionTree,
    line_of: impl Fn(usize) -> Option<(u64, u64)>,
) -> Option<(Leaf, Vec<Item>)> {
    let last = tree.entries().len().checked_sub(1);
    if tree.leaf_id() != last.map(|i| tree.entries()[i].id.as_str()) {
        return None;
    }
    let path = tree.branch();
    let mut items = Vec::new();
    for entry in contributing_entries(&path)? {
        let item = match cell_item(entry) {
            Some(item) => item,
            None => {
                let (start, end) = line_of(tree.position(entry)?)?;
                Item::Line { start, end }
            }
        };
        items.push(item);
    }
    let leaf = Leaf {
        id: tree.leaf_id().map(str::to_string),
        branch: branch_state(tree),
        name: tree.name().map(str::to_string),
    };
    Some((leaf, items))
}

/// Writes the summary of `tree`, just loaded from the file `path` whose lines were `placed`
/// (header first) and whose index has the head `index`; gives the keeper of it.
pub(crate) fn save(
    path: &Path,
    tree: &SessionTree,
    placed: &[Placed],
    index: &index::Head,
) -> Option<SummaryKeeper> {
    let line_of = |i: usize| {
        let p = placed.get(i + 1)?;
        (p.end > p.start).then_some((p.start, p.end))
    };
    let (leaf, items) = of_tree(tree, line_of)?;
    let head = write(path, (index.covered, index.crc), &leaf, &items)?;
    SummaryKeeper::new(path, head, leaf)
}

/// The item of a message entry whose message is on disk and of a role left there.
fn cell_item(entry: &SessionEntry) -> Option<Item> {
    let EntryData::Message(m) = &entry.data else {
        return None;
    };
    DiskMessage::of(m).map(Item::Cell)
}

/// Writes the summary of the bytes `bound` beside `path` (whole or not at all). Gives its
/// head, `None` when it could not be written.
pub(crate) fn write(path: &Path, bound: Bound, leaf: &Leaf, items: &[Item]) -> Option<Head> {
    let target = sidecar(path);
    let mut bytes = vec![0; ITEMS_AT];
    bytes[..MAGIC.len()].copy_from_slice(MAGIC);
    bytes.reserve(items.len() * ITEM_LEN + 128);
    for item in items {
        write_item(&mut Writer(&mut bytes), item);
    }
    let items_crc = crc32fast::hash(&bytes[ITEMS_AT..]);
    let state = state_bytes(leaf);
    bytes.extend_from_slice(&state);
    let head = Head {
        bound,
        items: items.len() as u64,
        items_crc,
        state_len: state.len() as u64,
        state_crc: crc32fast::hash(&state),
    };
    bytes[MAGIC.len()..ITEMS_AT].copy_from_slice(&head_bytes(&head));
    let written = write_atomic(&target, &bytes, Durability::Flush);
    written.ok().map(|()| head)
}

/// Keeps the summary beside an open session's file current as the session appends (see the
/// module docs).
#[derive(Debug)]
pub(crate) struct SummaryKeeper {
    file: File,
    head: Head,
    leaf: Leaf,
}

impl SummaryKeeper {
    /// Follows the summary beside `path` whose head is `head` and whose leaf is `leaf`.
    pub(crate) fn new(path: &Path, head: Head, leaf: Leaf) -> Option<Self> {
        let mut options = std::fs::OpenOptions::new();
        let file = options.read(true).write(true).open(sidecar(path)).ok()?;
        Some(Self { file, head, leaf })
    }

    /// The summary once `entry`, written on bytes `line` of the file, made it describe the
    /// bytes `bound`; `None` when it cannot follow (the summary left is of older bytes).
    pub(crate) fn add(
        mut self,
        entry: &SessionEntry,
        line: (u64, u64),
        bound: Bound,
    ) -> Option<Self> {
        if entry.parent_id != self.leaf.id {
            return None;
        }
        // A keeper that cannot follow is dropped, so the leaf is changed in place.
        let item = follow(&mut self.leaf, entry, line)?;
        let mut found = [0; HEAD_LEN];
        read_exact_at(&self.file, &mut found, MAGIC.len() as u64).ok()?;
        if found != head_bytes(&self.head) {
            return None;
        }
        let mut added = Vec::with_capacity(ITEM_LEN + 128);
        let mut items_crc = self.head.items_crc;
        if let Some(item) = &item {
            write_item(&mut Writer(&mut added), item);
            let mut crc = crc32fast::Hasher::new_with_initial(items_crc);
            crc.update(&added);
            items_crc = crc.finalize();
        }
        let state = state_bytes(&self.leaf);
        added.extend_from_slice(&state);
        let head = Head {
            bound,
            items: self.head.items + u64::from(item.is_some()),
            items_crc,
            state_len: state.len() as u64,
            state_crc: crc32fast::hash(&state),
        };
        let at = ITEMS_AT as u64 + self.head.items * ITEM_LEN as u64;
        write_at(&self.file, &added, at).ok()?;
        write_at(&self.file, &head_bytes(&head), MAGIC.len() as u64).ok()?;
        self.head = head;
        Some(self)
    }
}

/// Applies `entry`, a child of `leaf`'s entry written on bytes `line`, to `leaf`: gives the
/// context item it adds, if any; `None` when it changes the context otherwise.
fn follow(leaf: &mut Leaf, entry: &SessionEntry, line: (u64, u64)) -> Option<Option<Item>> {
    let on_line = Item::Line {
        start: line.0,
        end: line.1,
    };
    let branch = &mut leaf.branch;
    let item = match &entry.data {
        EntryData::Message(m) => {
            if m.role() == "assistant" {
                branch.model = Some(assistant_model(m)?);
            }
            Some(cell_item(entry).unwrap_or(on_line))
        }
        EntryData::CustomMessage { .. } => Some(on_line),
        EntryData::BranchSummary { summary, .. } => (!summary.is_empty()).then_some(on_line),
        EntryData::ThinkingLevelChange { thinking_level } => {
            branch.thinking_level.clone_from(thinking_level);
            branch.has_thinking_level_change = true;
            None
        }
        EntryData::ModelChange { provider, model_id } => {
            let model = ModelRef {
                provider: provider.clone(),
                model_id: model_id.clone(),
            };
            branch.model = Some(model.clone());
            branch.model_change = Some(model);
            None
        }
        EntryData::SessionInfo { name } => {
            leaf.name.clone_from(name);
            None
        }
        EntryData::Compaction(_) | EntryData::ContextEdit { .. } => return None,
        EntryData::Usage(_)
        | EntryData::Custom { .. }
        | EntryData::Label { .. }
        | EntryData::Unknown { .. } => None,
    };
    leaf.branch.has_messages |= item.is_some();
    leaf.id = Some(entry.id.clone());
    Some(item)
}

/// The model an assistant message names.
fn assistant_model(m: &StoredMessage) -> Option<ModelRef> {
    let message = m.get().ok()?;
    let AgentMessage::Assistant(a) = &*message else {
        return None;
    };
    Some(ModelRef {
        provider: a.provider.clone(),
        model_id: a.model.clone(),
    })
}

fn head_bytes(head: &Head) -> [u8; HEAD_LEN] {
    let mut bytes = Vec::with_capacity(HEAD_LEN);
    let mut w = Writer(&mut bytes);
    w.u64(head.bound.0);
    w.u32(head.bound.1);
    w.u64(head.items);
    w.u32(head.items_crc);
    w.u64(head.state_len);
    w.u32(head.state_crc);
    sealed(bytes)
}

fn decode_head(bytes: &[u8]) -> Option<Head> {
    let mut r = unsealed(bytes.strip_prefix(MAGIC)?, HEAD_LEN)?;
    Some(Head {
        bound: (r.u64()?, r.u32()?),
        items: r.u64()?,
        items_crc: r.u32()?,
        state_len: r.u64()?,
        state_crc: r.u32()?,
    })
}

fn write_item(w: &mut Writer, item: &Item) {
    match *item {
        Item::Cell(message) => {
            w.u8(message.tag());
            message.write_place(w);
        }
        Item::Line { start, end } => {
            w.u8(LINE);
            w.u64(start);
            w.u64(end);
            w.u32(0);
        }
    }
}

fn read_item(bytes: &[u8]) -> Option<Item> {
    let mut r = Reader(bytes);
    match r.u8()? {
        LINE => Some(Item::Line {
            start: r.u64()?,
            end: r.u64()?,
        }),
        tag => DiskMessage::read_place(tag, &mut r).map(Item::Cell),
    }
}

fn state_bytes(leaf: &Leaf) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(128);
    let mut w = Writer(&mut bytes);
    let b = &leaf.branch;
    w.opt_str(leaf.id.as_deref());
    w.str(&b.thinking_level);
    w.u8(u8::from(b.has_thinking_level_change));
    write_model(&mut w, b.model.as_ref());
    write_model(&mut w, b.model_change.as_ref());
    w.u8(u8::from(b.has_messages));
    w.opt_str(leaf.name.as_deref());
    bytes
}

fn read_leaf(r: &mut Reader) -> Option<Leaf> {
    let id = r.opt_str()?.map(Cow::into_owned);
    let branch = BranchState {
        thinking_level: r.str()?.into_owned(),
        has_thinking_level_change: r.u8()? != 0,
        model: read_model(r)?,
        model_change: read_model(r)?,
        has_messages: r.u8()? != 0,
    };
    let name = r.opt_str()?.map(Cow::into_owned);
    Some(Leaf { id, branch, name })
}

fn write_model(w: &mut Writer, model: Option<&ModelRef>) {
    w.u8(u8::from(model.is_some()));
    if let Some(m) = model {
        w.str(&m.provider);
        w.str(&m.model_id);
    }
}

fn read_model(r: &mut Reader) -> Option<Option<ModelRef>> {
    match r.u8()? {
        0 => Some(None),
        _ => Some(Some(ModelRef {
            provider: r.str()?.into_owned(),
            model_id: r.str()?.into_owned(),
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf() -> Leaf {
        Leaf {
            id: Some("ab12cd34".into()),
            branch: BranchState {
                thinking_level: "high".into(),
                has_thinking_level_change: true,
                model: Some(ModelRef {
                    provider: "anthropic".into(),
                    model_id: "claude".into(),
                }),
                model_change: None,
                has_messages: true,
            },
            name: Some("a name".into()),
        }
    }

    fn items() -> Vec<Item> {
        vec![
            Item::Line {
                start: 90,
                end: 400,
            },
            Item::Cell(DiskMessage {
                role: "toolResult",
                offset: 420,
                len: 33,
                crc: 7,
            }),
        ]
    }

    #[test]
    fn a_summary_reads_back_as_written_for_its_bytes_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        write(&path, (500, 9), &leaf(), &items()).unwrap();
        let read_back = read(&path, (500, 9)).unwrap();
        assert_eq!(read_back.leaf, leaf());
        let found: Option<Vec<Item>> = read_back.items().collect();
        assert_eq!(found, Some(items()));
        assert!(read(&path, (500, 8)).is_none());
        assert!(read(&path, (501, 9)).is_none());
    }

    /// A flipped byte anywhere, or a file cut short, is no summary.
    #[test]
    fn a_damaged_or_cut_summary_is_no_summary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        write(&path, (500, 9), &leaf(), &items()).unwrap();
        let bytes = std::fs::read(sidecar(&path)).unwrap();
        for at in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x40;
            std::fs::write(sidecar(&path), &flipped).unwrap();
            assert!(read(&path, (500, 9)).is_none(), "byte {at} flipped");
        }
        for len in 0..bytes.len() {
            std::fs::write(sidecar(&path), &bytes[..len]).unwrap();
            assert!(read(&path, (500, 9)).is_none(), "cut at {len}");
        }
    }
}
