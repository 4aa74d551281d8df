//! The entry index kept beside a session file, so that reopening a long session reads the
//! index instead of parsing the file.
//!
//! Opening a 50,000-entry session spends most of its time finding each line's envelope (id,
//! parent, timestamp, and the message's role and place) in 58 MB of JSON. None of that changes
//! once written, since a session file only grows. So after a load that found nothing to warn
//! about, rho writes what it found to `.<file name>.idx` beside the file; the next load takes
//! the entries from there and parses only the lines added since.
//!
//! The index is a cache: it never changes what a load finds, and anything unexpected means a
//! full load, as without it.
//! - Its own bytes carry a CRC-32, so a torn or foreign index is ignored.
//! - It records the file's length, modification time and inode. While all three match, the
//!   file is the one indexed. Otherwise (a copy, a touch, an append) the file's first
//!   `covered` bytes are read back and their CRC-32 compared, and a file rewritten in place is
//!   loaded in full.
//! - Only the entries a load leaves on disk (bulk-role messages, see `lazy.rs`) are stored:
//!   their envelope and where the message is. Every other entry is read back from its line
//!   and decoded as a full load decodes it.
//!
//! Lines added since the index was written are indexed by appending their entries to it, not
//! by writing it again: a fixed-size head (with a checksum of its own) says how many bytes of
//! entries there are and their CRC-32, which continues from the old one. The entries go
//! first and the head last, so an append cut short leaves the old head over the old entries,
//! and bytes past the entries the head counts are never read.

use std::borrow::Cow;
use std::fs::{File, Metadata};
use std::path::{Path, PathBuf};

use rho_protocol::agent::read_exact_at;

use super::codec::{sealed, unsealed, Reader, Writer};
use super::disk_message::DiskMessage;
use super::writer::{write_atomic, Durability};

const MAGIC: &[u8; 20] = b"rho-session-index-2\n";
/// The stamp's place: right after the magic, outside the checksums, so that a file found
/// unchanged under a new stamp is re-stamped in place.
const STAMP_AT: usize = MAGIC.len();
const STAMP_LEN: usize = 24;
/// The head: the [`Head`], the [`Extent`] of the entries, and the CRC-32 of those bytes.
const HEAD_AT: usize = STAMP_AT + STAMP_LEN;
const HEAD_LEN: usize = 8 + 4 + 8 + 8 + 8 + 8 + 8 + 4 + 4;
const ENTRIES_AT: usize = HEAD_AT + HEAD_LEN;
/// Bytes read at once when checking the file's indexed bytes.
const CHECK_CHUNK: usize = 1 << 20;

/// What identifies the file as it was indexed without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    len: u64,
    modified_ns: u64,
    inode: u64,
}

impl Stamp {
    pub(crate) fn of(meta: &Metadata) -> Self {
        let modified_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(meta);
        #[cfg(not(unix))]
        let inode = 0;
        Self {
            len: meta.len(),
            modified_ns,
            inode,
        }
    }

    fn bytes(&self) -> [u8; STAMP_LEN] {
        let mut out = [0; STAMP_LEN];
        out[..8].copy_from_slice(&self.len.to_le_bytes());
        out[8..16].copy_from_slice(&self.modified_ns.to_le_bytes());
        out[16..].copy_from_slice(&self.inode.to_le_bytes());
        out
    }
}

/// One entry of the indexed bytes, with its line number (for warnings). Written from the
/// loaded entries' strings, read back into strings of its own.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Indexed<'a> {
    pub line: usize,
    pub place: Place<'a>,
}

/// How an indexed entry is restored.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Place<'a> {
    /// A message entry whose message stays on disk.
    Message {
        id: Cow<'a, str>,
        parent_id: Option<Cow<'a, str>>,
        timestamp: Cow<'a, str>,
        message: DiskMessage,
    },
    /// Any other entry: decoded from its line, bytes `start..end` (line break included).
    Line { start: u64, end: u64 },
}

/// What the index says of the file's first `covered` bytes, beside its entries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Head {
    pub covered: u64,
    pub crc: u32,
    /// Lines in the covered bytes, blank ones included.
    pub lines: usize,
    /// The header line's bytes, line break included.
    pub header: (u64, u64),
}

/// How much of an index's entries its head counts: how many, their bytes and their CRC-32
/// (which an append continues).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Extent {
    count: usize,
    len: u64,
    crc: u32,
}

/// An index read from disk (its checksums verified); its entries are decoded as they are
/// taken, straight into the strings the session keeps.
pub(crate) struct Index {
    pub head: Head,
    extent: Extent,
    bytes: Vec<u8>,
}

impl Index {
    /// The entries in file order; an item is `None` where the bytes do not decode (possible
    /// only for an index written by a different build, whose checksum still matched).
    pub(crate) fn entries(&self) -> impl Iterator<Item = Option<Indexed<'static>>> + '_ {
        let mut r = Reader(&self.bytes[ENTRIES_AT..]);
        (0..self.extent.count).map(move |_| read_entry(&mut r))
    }

    /// How many entries it holds.
    pub(crate) fn len(&self) -> usize {
        self.extent.count
    }

    /// What its head counts, for [`extend`].
    pub(crate) fn extent(&self) -> Extent {
        self.extent
    }
}

impl Extent {
    /// How many entries.
    pub(crate) fn count(&self) -> usize {
        self.count
    }
}

/// Where the index of the session file `path` is kept.
pub(crate) fn sidecar(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.idx"))
}

/// The index kept beside `path`, if there is one that can describe the file stamped `now`;
/// also whether it was written under that stamp. When it was not, [`holds`] must confirm
/// that the file still starts with the indexed bytes.
pub(crate) fn read(path: &Path, now: Stamp) -> Option<(Index, bool)> {
    let bytes = std::fs::read(sidecar(path)).ok()?;
    let (stamp, index) = decode(bytes)?;
    (now.len >= index.head.covered).then(|| (index, stamp == now.bytes()))
}

/// Whether `file` starts with the `covered` bytes of CRC-32 `crc` an index describes.
pub(crate) fn holds(file: &File, covered: u64, crc: u32) -> bool {
    prefix_crc(file, covered).is_ok_and(|found| found == crc)
}

/// Writes `index` of the file stamped `stamp` beside `path` (whole or not at all), private as
/// the session file is; a session folder that cannot be written to just has no index.
/// Gives what the new index's head counts, `None` when it could not be written.
pub(crate) fn write<'a>(
    path: &Path,
    stamp: Stamp,
    head: &Head,
    entries: impl ExactSizeIterator<Item = Indexed<'a>>,
) -> Option<Extent> {
    let target = sidecar(path);
    let (bytes, extent) = encode(stamp, head, entries);
    let written = write_atomic(&target, &bytes, Durability::Flush);
    written.ok().map(|()| extent)
}

/// The index beside the session file `path`, opened to be extended.
pub(crate) fn open_to_extend(path: &Path) -> Option<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).open(sidecar(path)).ok()
}

/// Adds `entries`, the lines read after those the index `was` counts, to the index `file`
/// ([`open_to_extend`]), which then describes the session file stamped `stamp` up to `head`.
/// The entries go after the old ones and the new head over the old one, in that order (see
/// the module docs). An index that is no longer the one read (another process wrote it
/// since) is left alone. Gives what the head now counts, `None` when it was not extended.
pub(crate) fn extend<'a>(
    file: &File,
    stamp: Stamp,
    was: (&Head, Extent),
    head: &Head,
    entries: impl ExactSizeIterator<Item = Indexed<'a>>,
) -> Option<Extent> {
    let mut found = [0; HEAD_LEN];
    let unchanged = read_exact_at(file, &mut found, HEAD_AT as u64).is_ok()
        && found == head_bytes(was.0, was.1);
    if !unchanged {
        return None;
    }
    let mut added = Vec::with_capacity(entries.len() * 100);
    let count = was.1.count + entries.len();
    for entry in entries {
        write_entry(&mut Writer(&mut added), &entry);
    }
    let mut crc = crc32fast::Hasher::new_with_initial(was.1.crc);
    crc.update(&added);
    let extent = Extent {
        count,
        len: was.1.len + added.len() as u64,
        crc: crc.finalize(),
    };
    let mut stamped_head = stamp.bytes().to_vec();
    stamped_head.extend_from_slice(&head_bytes(head, extent));
    write_at(file, &added, ENTRIES_AT as u64 + was.1.len)
        .and_then(|()| write_at(file, &stamped_head, STAMP_AT as u64))
        .ok()
        .map(|()| extent)
}

/// Records that the file stamped `stamp` still has the indexed bytes (a torn write only
/// means the bytes are checked again next time).
pub(crate) fn restamp(path: &Path, stamp: Stamp) -> bool {
    open_to_extend(path).is_some_and(|f| write_at(&f, &stamp.bytes(), STAMP_AT as u64).is_ok())
}

/// Writes `bytes` at `offset` of `file`: by position on unix (`pwrite`, no seek), elsewhere
/// by moving the handle's cursor, which no reader of a sidecar relies on.
pub(crate) fn write_at(file: &File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut file = file;
        file.seek(SeekFrom::Start(offset))?;
        file.write_all(bytes)
    }
}

/// Removes the index and the leaf summary kept beside the session file `path` (when the
/// session is deleted).
pub fn remove(path: &Path) {
    let _ = std::fs::remove_file(sidecar(path));
    super::summary::remove(path);
}

/// The CRC-32 of `file`'s first `len` bytes.
fn prefix_crc(file: &File, len: u64) -> std::io::Result<u32> {
    let mut hasher = crc32fast::Hasher::new();
    let mut buf = vec![0; CHECK_CHUNK];
    let mut at = 0;
    while at < len {
        let n = usize::try_from(len - at).map_or(CHECK_CHUNK, |left| left.min(CHECK_CHUNK));
        read_exact_at(file, &mut buf[..n], at)?;
        hasher.update(&buf[..n]);
        at += n as u64;
    }
    Ok(hasher.finalize())
}

fn encode<'a>(
    stamp: Stamp,
    head: &Head,
    entries: impl ExactSizeIterator<Item = Indexed<'a>>,
) -> (Vec<u8>, Extent) {
    let count = entries.len();
    let mut out = vec![0; ENTRIES_AT];
    out.reserve(count * 100);
    out[..STAMP_AT].copy_from_slice(MAGIC);
    out[STAMP_AT..HEAD_AT].copy_from_slice(&stamp.bytes());
    for entry in entries {
        write_entry(&mut Writer(&mut out), &entry);
    }
    let written = &out[ENTRIES_AT..];
    let extent = Extent {
        count,
        len: written.len() as u64,
        crc: crc32fast::hash(written),
    };
    out[HEAD_AT..ENTRIES_AT].copy_from_slice(&head_bytes(head, extent));
    (out, extent)
}

/// The head's bytes: `head`, `extent`, and their CRC-32.
fn head_bytes(head: &Head, extent: Extent) -> [u8; HEAD_LEN] {
    let mut bytes = Vec::with_capacity(HEAD_LEN);
    let mut w = Writer(&mut bytes);
    w.u64(head.covered);
    w.u32(head.crc);
    w.u64(head.lines as u64);
    w.u64(head.header.0);
    w.u64(head.header.1);
    w.u64(extent.count as u64);
    w.u64(extent.len);
    w.u32(extent.crc);
    sealed(bytes)
}

fn write_entry(w: &mut Writer, entry: &Indexed) {
    w.u64(entry.line as u64);
    match &entry.place {
        Place::Message {
            id,
            parent_id,
            timestamp,
            message,
        } => {
            w.u8(message.tag());
            w.str(id);
            w.opt_str(parent_id.as_deref());
            w.str(timestamp);
            message.write_place(w);
        }
        Place::Line { start, end } => {
            w.u8(u8::MAX);
            w.u64(*start);
            w.u64(*end);
        }
    }
}

/// The stamp bytes and the index, if `bytes` is a whole index: its head's checksum matches,
/// and so does that of the entries it counts.
fn decode(bytes: Vec<u8>) -> Option<([u8; STAMP_LEN], Index)> {
    let (stamp, head, extent) = decode_head(&bytes)?;
    whole(bytes, head, extent).map(|index| (stamp, index))
}

/// The index of `bytes` whose head is `head` and `extent`, if the entries it counts are there
/// with their checksum (bytes after them are not read).
fn whole(mut bytes: Vec<u8>, head: Head, extent: Extent) -> Option<Index> {
    let end = ENTRIES_AT.checked_add(usize::try_from(extent.len).ok()?)?;
    if crc32fast::hash(bytes.get(ENTRIES_AT..end)?) != extent.crc {
        return None;
    }
    bytes.truncate(end);
    Some(Index {
        head,
        extent,
        bytes,
    })
}

/// The stamp bytes, head and extent at the start of `bytes`, if they are an index's and the
/// head's checksum matches.
fn decode_head(bytes: &[u8]) -> Option<([u8; STAMP_LEN], Head, Extent)> {
    if !bytes.starts_with(MAGIC) {
        return None;
    }
    let stamp = bytes.get(STAMP_AT..HEAD_AT)?.try_into().ok()?;
    let mut r = unsealed(bytes.get(HEAD_AT..)?, HEAD_LEN)?;
    let head = Head {
        covered: r.u64()?,
        crc: r.u32()?,
        lines: usize::try_from(r.u64()?).ok()?,
        header: (r.u64()?, r.u64()?),
    };
    let extent = Extent {
        count: usize::try_from(r.u64()?).ok()?,
        len: r.u64()?,
        crc: r.u32()?,
    };
    Some((stamp, head, extent))
}

/// The head and extent of the index beside `path`, read without its entries, when it was
/// written under the stamp `now` for all of the file (nothing was appended since).
pub(crate) fn read_current_head(path: &Path, now: Stamp) -> Option<(Head, Extent)> {
    let mut bytes = [0; ENTRIES_AT];
    read_exact_at(&File::open(sidecar(path)).ok()?, &mut bytes, 0).ok()?;
    let (stamp, head, extent) = decode_head(&bytes)?;
    (stamp == now.bytes() && head.covered == now.len).then_some((head, extent))
}

/// The index beside `path` as its head was `head` and `extent` ([`read_current_head`]): its
/// entries, if they are still there (an index extended since keeps them; one written again
/// by another process may not).
pub(crate) fn read_as_was(path: &Path, head: Head, extent: Extent) -> Option<Index> {
    let bytes = std::fs::read(sidecar(path)).ok()?;
    whole(bytes, head, extent)
}

/// One entry from `r`.
fn read_entry(r: &mut Reader) -> Option<Indexed<'static>> {
    let line = usize::try_from(r.u64()?).ok()?;
    let place = match r.u8()? {
        u8::MAX => Place::Line {
            start: r.u64()?,
            end: r.u64()?,
        },
        tag => Place::Message {
            id: r.str()?,
            parent_id: r.opt_str()?,
            timestamp: r.str()?,
            message: DiskMessage::read_place(tag, r)?,
        },
    };
    Some(Indexed { line, place })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head() -> Head {
        Head {
            covered: 4_321,
            crc: 0xdead_beef,
            lines: 4,
            header: (0, 120),
        }
    }

    fn entries() -> Vec<Indexed<'static>> {
        vec![
            Indexed {
                line: 2,
                place: Place::Message {
                    id: "a1".into(),
                    parent_id: None,
                    timestamp: "2026-12-05T00:00:00.000Z".into(),
                    message: DiskMessage {
                        role: "assistant",
                        offset: 150,
                        len: 900,
                        crc: 7,
                    },
                },
            },
            Indexed {
                line: 3,
                place: Place::Message {
                    id: "b2".into(),
                    parent_id: Some("a1".into()),
                    timestamp: "t".into(),
                    message: DiskMessage {
                        role: "toolResult",
                        offset: 1_060,
                        len: 30,
                        crc: 8,
                    },
                },
            },
            Indexed {
                line: 4,
                place: Place::Line {
                    start: 1_100,
                    end: 4_321,
                },
            },
        ]
    }

    fn stamp() -> Stamp {
        Stamp {
            len: 4_321,
            modified_ns: 9,
            inode: 3,
        }
    }

    /// The head, and every entry, or `None` if any fails.
    fn decoded(bytes: &[u8]) -> Option<([u8; STAMP_LEN], Head, Vec<Indexed<'static>>)> {
        let (stamp, index) = decode(bytes.to_vec())?;
        let entries = index.entries().collect::<Option<Vec<_>>>()?;
        Some((stamp, index.head, entries))
    }

    #[test]
    fn an_index_reads_back_as_written() {
        let bytes = encode(stamp(), &head(), entries().into_iter()).0;
        assert_eq!(decoded(&bytes), Some((stamp().bytes(), head(), entries())));
    }

    /// Every byte of the body counts: a flipped or missing byte anywhere makes it no index.
    #[test]
    fn a_damaged_or_cut_index_is_no_index() {
        let bytes = encode(stamp(), &head(), entries().into_iter()).0;
        for at in (0..bytes.len()).filter(|at| !(STAMP_AT..HEAD_AT).contains(at)) {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x40;
            assert!(decode(flipped).is_none(), "byte {at} flipped");
        }
        for len in 0..bytes.len() {
            assert!(decode(bytes[..len].to_vec()).is_none(), "cut at {len}");
        }
    }

    /// An append cut short (entries written, the head not yet) leaves the old index.
    #[test]
    fn bytes_past_the_counted_entries_are_not_read() {
        let mut bytes = encode(stamp(), &head(), entries().into_iter()).0;
        let mut more = Vec::new();
        write_entry(&mut Writer(&mut more), &entries()[0]);
        bytes.extend_from_slice(&more[..more.len() / 2]);
        assert_eq!(decoded(&bytes), Some((stamp().bytes(), head(), entries())));
    }

    /// Extending gives exactly the index written whole; an index whose head is no longer the
    /// one read is left alone.
    #[test]
    fn an_extended_index_is_the_index_written_whole() {
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("s.jsonl");
        let (first, more) = (entries()[..2].to_vec(), entries()[2..].to_vec());
        let extent = write(&session, stamp(), &head(), first.clone().into_iter()).unwrap();
        let file = open_to_extend(&session).unwrap();
        let grown = Head {
            covered: 9_000,
            lines: 9,
            ..head()
        };
        let stale = Head {
            covered: 1,
            ..head()
        };
        let refused = extend(
            &file,
            stamp(),
            (&stale, extent),
            &grown,
            more.clone().into_iter(),
        );
        assert_eq!(refused, None);
        let extended = extend(&file, stamp(), (&head(), extent), &grown, more.into_iter());
        assert!(extended.is_some());
        let whole = encode(stamp(), &grown, entries().into_iter()).0;
        assert_eq!(std::fs::read(sidecar(&session)).unwrap(), whole);
    }

    #[test]
    fn the_sidecar_is_a_hidden_file_beside_the_session() {
        assert_eq!(
            sidecar(Path::new("/s/2026-12-05_ab.jsonl")),
            Path::new("/s/.2026-12-05_ab.jsonl.idx")
        );
    }
}
