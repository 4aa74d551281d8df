//! Reading a session file: in blocks of whole lines, strict in the middle, tolerant at the end.
//!
//! - Line 1 must be a session header, else [`StoreError::NotASession`].
//! - A whole line (ending in a newline) that is not a valid entry is skipped with a
//!   [`LoadWarning`] naming file and line, and stays in the file verbatim (pi skips such lines
//!   too). Nothing is repaired or rewritten.
//! - A parent cycle is broken in memory at its oldest edge and reported (see `cycles.rs`).
//! - A last line without its newline that does not parse is what a process killed mid-write
//!   leaves: it is not loaded ([`LoadWarning`]) but stays in the file; a writer ends it with a
//!   newline before appending, so it becomes a whole bad line and nothing the user had is lost.
//! - Files older than format 3 are migrated in memory; the caller rewrites them (§4.6).

use std::borrow::Cow;
use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::batch_decode::{decode_in_order, without_line_break, BlockReader, Line};
use super::cycles::break_cycles;
use super::decode::{decode_entry, decode_header, Decoded};
use super::disk_message::DiskMessage;
use super::entry::{EntryData, SessionEntry, SessionHeader, CURRENT_VERSION};
use super::error::{LineError, LoadWarning, StoreError};
use super::index::{self, Head, Index, Indexed, Place, Stamp};
use super::lazy::{decode_entry_at, decode_message};
use super::migrate::migrate_lines;
use rho_protocol::agent::{read_exact_at, MessageFile};

/// What [`load_file`] read.
#[derive(Debug)]
pub struct LoadedFile {
    /// Line 1 (version already updated when migrated).
    pub header: SessionHeader,
    /// The entries in file order.
    pub entries: Vec<SessionEntry>,
    /// What was tolerated (a torn last line).
    pub warnings: Vec<LoadWarning>,
    /// Bytes of the file an append goes after (all of it: a torn tail is kept).
    pub valid_len: u64,
    /// True when the file does not end in `\n` (an append must add one first).
    pub needs_newline: bool,
    /// For a file older than format 3: its version and the migrated lines to write back.
    pub migrated: Option<(u32, Vec<String>)>,
    /// Bytes at the start of the file whose entries came from its index instead of being
    /// parsed (0 when the file was read whole).
    pub indexed: u64,
    /// The index now beside the file, when it describes all of it (for the session to keep
    /// it current as it appends).
    pub(crate) index: Option<(Head, index::Extent)>,
    /// Where the header (first) and each entry were read, while the index describes the file
    /// (for the leaf summary; an entry restored from the index with its message has none).
    pub(crate) placed: Vec<Placed>,
}

/// Reads `path` in blocks of whole lines; see the module docs for what is an error. The
/// entries of a file opened before come from its index (`index.rs`) when that is still
/// valid, and only lines added since are parsed; the result is the same either way. Writes
/// nothing (an export or a look at a session leaves no file behind).
pub fn load_file(path: &Path) -> Result<LoadedFile, StoreError> {
    load(path, false)
}

/// [`load_file`], then keeps the entry index beside the file up to date (written or
/// extended), for a session opened to be used and opened again later.
pub fn load_file_and_index(path: &Path) -> Result<LoadedFile, StoreError> {
    load(path, true)
}

fn load(path: &Path, keep_index: bool) -> Result<LoadedFile, StoreError> {
    let io = |e| StoreError::io(path, e);
    let mut file = File::open(path).map_err(io)?;
    let stamp = Stamp::of(&file.metadata().map_err(io)?);
    let messages = MessageFile::new(path, file.try_clone().map_err(io)?, decode_message);
    let restored = index::read(path, stamp).and_then(|(index, same)| {
        let (head, extent) = (index.head, index.extent());
        let state = match same {
            true => State::restore(path, index, &messages),
            // The file's bytes are checked while the entries are restored.
            false => std::thread::scope(|scope| {
                let check = scope.spawn(|| index::holds(&file, head.covered, head.crc));
                let state = State::restore(path, index, &messages);
                state.filter(|_| check.join().unwrap_or(false))
            }),
        }?;
        Some((state, (head, extent), same))
    });
    let Some((mut state, was, same)) = restored else {
        let reader = BlockReader::resume(file, 0, keep_index.then_some(0));
        let (state, reader) = read_whole(path, reader, &messages)?;
        let (mut loaded, placed) = state.finish()?;
        if keep_index {
            loaded.index = save_index(
                path,
                stamp,
                &loaded,
                placed.as_deref(),
                reader.read_so_far(),
            );
            keep_placed(&mut loaded, placed);
        }
        return Ok(loaded);
    };
    let head = was.0;
    file.seek(SeekFrom::Start(head.covered)).map_err(io)?;
    let mut reader = BlockReader::resume(file, head.covered, keep_index.then_some(head.crc));
    if let Some(first) = reader.next_block().map_err(io)? {
        let decode = |line: &Line, text: &str| decode_entry_at(text, line.start, &messages);
        let take = |line, decoded| state.take(line, decoded);
        decode_in_order(path, &mut reader, first, head.lines, &decode, take)?;
    }
    let (mut loaded, placed) = state.finish()?;
    loaded.indexed = head.covered;
    let read = reader.read_so_far();
    loaded.index = match read.0 > head.covered {
        _ if !keep_index => None,
        true => extend_index(
            path,
            stamp,
            (&head, was.1),
            &loaded,
            placed.as_deref(),
            read,
        ),
        false if !same => index::restamp(path, stamp).then_some(was),
        false => Some(was),
    };
    keep_placed(&mut loaded, placed);
    Ok(loaded)
}

/// Keeps where the lines were read when the index describes the file.
fn keep_placed(loaded: &mut LoadedFile, placed: Option<Vec<Placed>>) {
    if loaded.index.is_some() {
        loaded.placed = placed.unwrap_or_default();
    }
}

/// Adds to the index `was` (whose entries were restored) the entries read after it, when
/// the whole file could be indexed (as [`save_index`] decides).
fn extend_index(
    path: &Path,
    stamp: Stamp,
    was: (&Head, index::Extent),
    loaded: &LoadedFile,
    placed: Option<&[Placed]>,
    read: (u64, Option<u32>),
) -> Option<(Head, index::Extent)> {
    let (head, placed) = indexable(loaded, placed, read)?;
    let entries = loaded.entries.iter().zip(&placed[1..]).skip(was.1.count());
    let added = entries.map(|(e, p)| index_entry(e, p));
    let file = index::open_to_extend(path)?;
    index::extend(&file, stamp, was, &head, added).map(|extent| (head, extent))
}

/// Reads the whole file: its header, then every entry (or, for an older format, every line
/// to migrate). Also gives the reader, which knows what it read.
fn read_whole(
    path: &Path,
    mut reader: BlockReader<File>,
    messages: &Arc<MessageFile>,
) -> Result<(State, BlockReader<File>), StoreError> {
    let io = |e| StoreError::io(path, e);
    // The header is the first line that is not blank.
    let mut lines_before = 0;
    let (mut first, text, rest) = loop {
        let block = reader.next_block().map_err(io)?;
        let block = block.ok_or_else(|| not_session(path, LineError::Empty))?;
        match block.split_first() {
            Ok(found) => break found,
            Err(count) => lines_before += count,
        }
    };
    first.number += lines_before;
    let header = std::str::from_utf8(&text)
        .map_err(|_| LineError::HeaderNotUtf8)
        .and_then(decode_header)
        .map_err(|reason| not_session(path, reason))?;
    let mut state = State::new(path, header, &first);
    if state.header.version < CURRENT_VERSION {
        state.raw_lines = Some(vec![String::from_utf8_lossy(&text).into_owned()]);
        let mut block = Some(rest);
        let mut lines_before = first.number;
        while let Some(b) = block {
            for (mut line, text) in b.nonblank_lines() {
                line.number += lines_before;
                state.take_old(line, text)?;
            }
            lines_before += b.line_count();
            block = reader.next_block().map_err(io)?;
        }
    } else {
        let decode = |line: &Line, text: &str| decode_entry_at(text, line.start, messages);
        let take = |line, decoded| state.take(line, decoded);
        decode_in_order(path, &mut reader, rest, first.number, &decode, take)?;
    }
    Ok((state, reader))
}

/// Writes the index of a file loaded without a warning whose bytes `read` (how many, their
/// CRC-32) end with an entry's line (so its last line is the last one placed).
fn save_index(
    path: &Path,
    stamp: Stamp,
    loaded: &LoadedFile,
    placed: Option<&[Placed]>,
    read: (u64, Option<u32>),
) -> Option<(Head, index::Extent)> {
    let (head, placed) = indexable(loaded, placed, read)?;
    let entries = loaded.entries.iter().zip(&placed[1..]);
    let entries = entries.map(|(e, p)| index_entry(e, p));
    index::write(path, stamp, &head, entries).map(|extent| (head, extent))
}

/// The head of an index of the `covered` bytes read (of CRC-32 `crc`), when they end with
/// an entry's line and the load kept where each entry was read.
fn indexable<'p>(
    loaded: &LoadedFile,
    placed: Option<&'p [Placed]>,
    (covered, crc): (u64, Option<u32>),
) -> Option<(Head, &'p [Placed])> {
    let (placed, crc) = (placed?, crc?);
    if loaded.needs_newline || loaded.valid_len != covered {
        return None;
    }
    let (header, last) = (placed.first()?, placed.last()?);
    let head = Head {
        covered,
        crc,
        lines: last.line,
        header: (header.start, header.end),
    };
    Some((head, placed))
}

/// How `entry`, read from (or written as) the line `placed`, is restored: from the index
/// when its message is of a role left on disk and known to be in the file, else from its
/// line.
pub(crate) fn index_entry<'a>(entry: &'a SessionEntry, placed: &Placed) -> Indexed<'a> {
    let line = Place::Line {
        start: placed.start,
        end: placed.end,
    };
    let on_disk = match &entry.data {
        EntryData::Message(m) => DiskMessage::of(m),
        _ => None,
    };
    let place = match on_disk {
        Some(message) => Place::Message {
            id: Cow::Borrowed(&entry.id),
            parent_id: entry.parent_id.as_deref().map(Cow::Borrowed),
            timestamp: Cow::Borrowed(&entry.timestamp),
            message,
        },
        None => line,
    };
    Indexed {
        line: placed.line,
        place,
    }
}

fn not_session(path: &Path, reason: LineError) -> StoreError {
    StoreError::NotASession {
        path: path.to_path_buf(),
        reason,
    }
}

/// The accumulating result; a failed line waits here until we know whether it was the last.
struct State {
    path: PathBuf,
    header: SessionHeader,
    entries: Vec<SessionEntry>,
    raw_lines: Option<Vec<String>>,
    raw_numbers: Vec<usize>,
    /// Where the header (first) and each entry (after it) were read, for warnings and the
    /// index.
    placed: Vec<Placed>,
    warnings: Vec<LoadWarning>,
    /// How many of the warnings are entries kept verbatim (which an index restores with
    /// their warning; any other warning means the file gets no index).
    kept_verbatim: usize,
    /// Entries restored from an index, which was written only for a file without a parent
    /// cycle: they hold none among themselves.
    restored: usize,
    pending_failure: Option<(usize, LineError)>,
    valid_len: u64,
    needs_newline: bool,
}

impl State {
    fn new(path: &Path, header: SessionHeader, first: &Line) -> Self {
        Self {
            path: path.to_path_buf(),
            header,
            entries: Vec::new(),
            raw_lines: None,
            raw_numbers: vec![first.number],
            placed: vec![Placed::of(first)],
            warnings: Vec::new(),
            kept_verbatim: 0,
            restored: 0,
            pending_failure: None,
            valid_len: first.end,
            needs_newline: !first.has_newline,
        }
    }

    /// Takes a line of a file older than format 3: kept as text for the migration.
    fn take_old(&mut self, line: Line, text: &[u8]) -> Result<(), StoreError> {
        self.skip_pending();
        let raw = self.raw_lines.get_or_insert_with(Vec::new);
        let parsed = match std::str::from_utf8(text) {
            Ok(text) => serde_json::from_str::<serde_json::Value>(text)
                .map(|_| {
                    raw.push(text.to_string());
                    self.raw_numbers.push(line.number);
                })
                .map_err(LineError::Json),
            Err(_) => Err(LineError::NotUtf8),
        };
        self.settle(line, parsed)
    }

    /// Takes a decoded line of a current-format file.
    fn take(&mut self, line: Line, decoded: Result<Decoded, LineError>) -> Result<(), StoreError> {
        self.skip_pending();
        let parsed = decoded.map(|d| self.keep(Placed::of(&line), d));
        self.settle(line, parsed)
    }

    /// A line that failed without a newline turns out not to be the last: a skipped line.
    fn skip_pending(&mut self) {
        if let Some((bad, reason)) = self.pending_failure.take() {
            self.skip(bad, reason);
        }
    }

    /// Records how a line went: an entry was kept, or why not.
    fn settle(&mut self, line: Line, parsed: Result<(), LineError>) -> Result<(), StoreError> {
        match parsed {
            Ok(()) => {
                self.valid_len = line.end;
                self.needs_newline = !line.has_newline;
            }
            Err(reason) if !line.has_newline => {
                // A torn write: kept in the file, closed by the next append's newline.
                self.pending_failure = Some((line.number, reason));
                self.valid_len = line.end;
                self.needs_newline = true;
            }
            // An old-format file is rewritten by its migration, which would drop the line:
            // such a file is refused instead.
            Err(reason) if self.raw_lines.is_some() => {
                return Err(self.corrupt(line.number, reason))
            }
            Err(reason) => {
                // A whole bad line: skipped, but it stays in the file (appends go after it).
                self.skip(line.number, reason);
                self.valid_len = line.end;
                self.needs_newline = false;
            }
        }
        Ok(())
    }

    fn skip(&mut self, line: usize, reason: LineError) {
        self.warnings.push(LoadWarning {
            path: self.path.clone(),
            line,
            message: format!("skipped a line that is not a valid session entry ({reason}); it stays in the file unchanged"),
        });
    }

    /// Breaks parent cycles and reports each at the line of the entry whose link was dropped.
    fn report_cycles(&mut self) {
        for cycle in break_cycles(&mut self.entries) {
            let line = self.placed.get(cycle.index + 1).map_or(0, |p| p.line);
            self.warnings.push(LoadWarning {
                path: self.path.clone(),
                line,
                message: format!(
                    "parent cycle of {} entries: ignored the parent {} of entry {} (the oldest link); the file is unchanged",
                    cycle.len, cycle.parent, cycle.id
                ),
            });
        }
    }

    /// Adds a decoded entry, reporting it when it was kept verbatim instead of decoded.
    fn keep(&mut self, placed: Placed, decoded: Decoded) {
        if let Some(message) = decoded.warning {
            self.kept_verbatim += 1;
            self.warnings.push(LoadWarning {
                path: self.path.clone(),
                line: placed.line,
                message,
            });
        }
        self.entries.push(decoded.entry);
        self.placed.push(placed);
    }

    fn corrupt(&self, line: usize, reason: LineError) -> StoreError {
        StoreError::Corrupt {
            path: self.path.clone(),
            line,
            reason,
        }
    }

    /// The loaded file, and where its header and entries were read when an index can
    /// restore what was found (no warning other than entries kept verbatim).
    fn finish(mut self) -> Result<(LoadedFile, Option<Vec<Placed>>), StoreError> {
        let mut warnings = std::mem::take(&mut self.warnings);
        let only_kept_verbatim = warnings.len() == self.kept_verbatim;
        if let Some((bad, reason)) = self.pending_failure.take() {
            warnings.push(LoadWarning {
                path: self.path.clone(),
                line: bad,
                message: format!(
                    "incomplete last line (interrupted write?) not loaded; it stays in the file, \
                     and new entries start on the next line: {reason}"
                ),
            });
        }
        self.entries.shrink_to_fit();
        let mut migrated = None;
        if let Some(raw) = self.raw_lines.take() {
            let from = self.header.version;
            let numbers = std::mem::take(&mut self.raw_numbers);
            let lines = migrate_lines(&raw, from)
                .map_err(|e| self.corrupt(numbers[e.index], LineError::Migrate(e.reason)))?;
            self.header = decode_header(&lines[0]).map_err(|r| not_session(&self.path, r))?;
            for (i, line) in lines.iter().enumerate().skip(1) {
                let decoded = decode_entry(line).map_err(|r| self.corrupt(numbers[i], r))?;
                let placed = Placed {
                    line: numbers[i],
                    start: 0,
                    end: 0,
                };
                self.keep(placed, decoded);
            }
            migrated = Some((from, lines));
        }
        // A cycle among appended entries and restored ones needs an appended one.
        if self.entries.len() > self.restored {
            self.report_cycles();
        }
        let indexable = only_kept_verbatim && self.warnings.is_empty() && migrated.is_none();
        warnings.append(&mut self.warnings);
        let loaded = LoadedFile {
            header: self.header,
            entries: self.entries,
            warnings,
            valid_len: self.valid_len,
            needs_newline: self.needs_newline,
            migrated,
            indexed: 0,
            index: None,
            placed: Vec::new(),
        };
        Ok((loaded, indexable.then_some(self.placed)))
    }

    /// The state after the bytes `index` covers, restored from it: `None` when any of its
    /// lines does not read back as the entry it was (the file is then read whole).
    fn restore(path: &Path, index: Index, messages: &Arc<MessageFile>) -> Option<Self> {
        let head = index.head;
        let text = read_line(messages, head.header.0, head.header.1)?;
        let header = decode_header(&text).ok()?;
        // The header's line number counts only as the last line of a file of no entries.
        let first = Line {
            number: head.lines,
            start: head.header.0,
            end: head.header.1,
            has_newline: true,
        };
        let mut state = State::new(path, header, &first);
        state.entries.reserve_exact(index.len());
        state.placed.reserve_exact(index.len());
        for indexed in index.entries() {
            let (decoded, placed) = restore_entry(indexed?, messages)?;
            state.keep(placed, decoded);
        }
        state.restored = state.entries.len();
        state.valid_len = head.covered;
        Some(state)
    }
}

/// Where a line was read: its number and bytes (line break included).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Placed {
    pub line: usize,
    pub start: u64,
    pub end: u64,
}

impl Placed {
    fn of(line: &Line) -> Self {
        Self {
            line: line.number,
            start: line.start,
            end: line.end,
        }
    }
}

/// The entry `indexed` describes, and where it was read.
fn restore_entry(indexed: Indexed<'_>, messages: &Arc<MessageFile>) -> Option<(Decoded, Placed)> {
    let (start, end) = match indexed.place {
        Place::Line { start, end } => (start, end),
        Place::Message {
            id,
            parent_id,
            timestamp,
            message,
        } => {
            let entry = Decoded {
                entry: SessionEntry {
                    id: id.into_owned(),
                    parent_id: parent_id.map(Cow::into_owned),
                    timestamp: timestamp.into_owned(),
                    data: EntryData::Message(message.stored(messages)),
                },
                warning: None,
            };
            let placed = Placed {
                line: indexed.line,
                start: 0,
                end: 0,
            };
            return Some((entry, placed));
        }
    };
    let text = read_line(messages, start, end)?;
    let decoded = decode_entry_at(&text, start, messages).ok()?;
    let placed = Placed {
        line: indexed.line,
        start,
        end,
    };
    Some((decoded, placed))
}

/// The entries of the file restored from `index` alone (see [`State::restore`]), for a
/// session opened from its leaf summary; `None` when one does not read back.
pub(crate) fn restore_entries(
    path: &Path,
    index: Index,
    messages: &Arc<MessageFile>,
) -> Option<Vec<SessionEntry>> {
    let (loaded, _) = State::restore(path, index, messages)?.finish().ok()?;
    loaded.warnings.is_empty().then_some(loaded.entries)
}

/// The header on bytes `start..end` of the file.
pub(crate) fn read_header(
    messages: &MessageFile,
    (start, end): (u64, u64),
) -> Option<SessionHeader> {
    decode_header(&read_line(messages, start, end)?).ok()
}

/// The text of the line at bytes `start..end` of the file, without its line break.
pub(crate) fn read_line(messages: &MessageFile, start: u64, end: u64) -> Option<String> {
    let len = usize::try_from(end.checked_sub(start)?).ok()?;
    let mut bytes = vec![0; len];
    read_exact_at(messages.file(), &mut bytes, start).ok()?;
    let text = without_line_break(&bytes);
    String::from_utf8(text.to_vec()).ok()
}
