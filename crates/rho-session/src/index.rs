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

use std::borrow::Cow;
use std::fs::{File, Metadata};
use std::io::Write;
use std::path::{Path, PathBuf};

use rho_protocol::agent::read_exact_at;

use super::writer::create_private_file;

const MAGIC: &[u8; 20] = b"rho-session-index-1\n";
/// The stamp's place: right after the magic, outside the checksummed body, so that a file
/// found unchanged under a new stamp is re-stamped in place.
const STAMP_AT: usize = MAGIC.len();
const STAMP_LEN: usize = 24;
const BODY_AT: usize = STAMP_AT + STAMP_LEN;
/// Bytes read at once when checking the file's indexed bytes.
const CHECK_CHUNK: usize = 1 << 20;

/// The roles a message left on disk can have, by their number in the index.
pub(crate) const ROLES: [&str; 3] = ["user", "assistant", "toolResult"];

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
    /// A message entry whose message stays on disk: `len` bytes at `offset`, CRC-32 `crc`.
    Message {
        id: Cow<'a, str>,
        parent_id: Option<Cow<'a, str>>,
        timestamp: Cow<'a, str>,
        role: &'static str,
        offset: u64,
        len: u64,
        crc: u32,
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

/// An index read from disk (its checksum verified); its entries are decoded as they are
/// taken, straight into the strings the session keeps.
pub(crate) struct Index {
    pub head: Head,
    count: usize,
    bytes: Vec<u8>,
    /// Where the entries start in `bytes`.
    entries_at: usize,
}

impl Index {
    /// The entries in file order; an item is `None` where the bytes do not decode (possible
    /// only for an index written by a different build, whose checksum still matched).
    pub(crate) fn entries(&self) -> impl Iterator<Item = Option<Indexed<'static>>> + '_ {
        let end = self.bytes.len() - 4;
        let mut r = Reader(&self.bytes[self.entries_at..end]);
        (0..self.count).map(move |_| read_entry(&mut r))
    }

    /// How many entries it holds.
    pub(crate) fn len(&self) -> usize {
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
pub(crate) fn write<'a>(
    path: &Path,
    stamp: Stamp,
    head: &Head,
    entries: impl ExactSizeIterator<Item = Indexed<'a>>,
) {
    let target = sidecar(path);
    let temp = target.with_extension(format!("idx.{}", std::process::id()));
    let written = create_private_file(&temp)
        .and_then(|mut f| f.write_all(&encode(stamp, head, entries)))
        .and_then(|()| std::fs::rename(&temp, &target));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
}

/// Records that the file stamped `stamp` still has the indexed bytes (a torn write only
/// means the bytes are checked again next time).
pub(crate) fn restamp(path: &Path, stamp: Stamp) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        if let Ok(f) = std::fs::OpenOptions::new().write(true).open(sidecar(path)) {
            let _ = f.write_all_at(&stamp.bytes(), STAMP_AT as u64);
        }
    }
    #[cfg(not(unix))]
    let _ = (path, stamp);
}

/// Removes the index kept beside the session file `path` (when the session is deleted).
pub fn remove(path: &Path) {
    let _ = std::fs::remove_file(sidecar(path));
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
) -> Vec<u8> {
    let mut out = Vec::with_capacity(BODY_AT + 64 + entries.len() * 100);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&stamp.bytes());
    let mut w = Writer(&mut out);
    w.u64(head.covered);
    w.u32(head.crc);
    w.u64(head.lines as u64);
    w.u64(head.header.0);
    w.u64(head.header.1);
    w.u64(entries.len() as u64);
    for entry in entries {
        w.u64(entry.line as u64);
        match &entry.place {
            Place::Message {
                id,
                parent_id,
                timestamp,
                role,
                offset,
                len,
                crc,
            } => {
                w.u8(ROLES.iter().position(|r| r == role).unwrap_or(0) as u8);
                w.str(id);
                match parent_id {
                    Some(p) => {
                        w.u8(1);
                        w.str(p);
                    }
                    None => w.u8(0),
                }
                w.str(timestamp);
                w.u64(*offset);
                w.u64(*len);
                w.u32(*crc);
            }
            Place::Line { start, end } => {
                w.u8(u8::MAX);
                w.u64(*start);
                w.u64(*end);
            }
        }
    }
    let crc = crc32fast::hash(&out[BODY_AT..]);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// The stamp bytes and the index, if `bytes` is a whole index.
fn decode(bytes: Vec<u8>) -> Option<([u8; STAMP_LEN], Index)> {
    let body = bytes.strip_prefix(MAGIC)?.get(STAMP_LEN..)?;
    let (body, crc) = body.split_at_checked(body.len().checked_sub(4)?)?;
    if crc32fast::hash(body).to_le_bytes() != crc {
        return None;
    }
    let stamp = bytes.get(STAMP_AT..BODY_AT)?.try_into().ok()?;
    let mut r = Reader(body);
    let head = Head {
        covered: r.u64()?,
        crc: r.u32()?,
        lines: usize::try_from(r.u64()?).ok()?,
        header: (r.u64()?, r.u64()?),
    };
    let count = usize::try_from(r.u64()?).ok()?;
    let entries_at = BODY_AT + (body.len() - r.0.len());
    let index = Index {
        head,
        count,
        bytes,
        entries_at,
    };
    Some((stamp, index))
}

/// One entry from `r`.
fn read_entry(r: &mut Reader) -> Option<Indexed<'static>> {
    let line = usize::try_from(r.u64()?).ok()?;
    let place = match r.u8()? {
        u8::MAX => Place::Line {
            start: r.u64()?,
            end: r.u64()?,
        },
        role => Place::Message {
            role: ROLES.get(usize::from(role))?,
            id: r.str()?,
            parent_id: match r.u8()? {
                0 => None,
                _ => Some(r.str()?),
            },
            timestamp: r.str()?,
            offset: r.u64()?,
            len: r.u64()?,
            crc: r.u32()?,
        },
    };
    Some(Indexed { line, place })
}

struct Writer<'a>(&'a mut Vec<u8>);

impl Writer<'_> {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*head)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take::<1>().map(|[b]| b)
    }
    fn u32(&mut self) -> Option<u32> {
        self.take().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take().map(u64::from_le_bytes)
    }
    fn str(&mut self) -> Option<Cow<'static, str>> {
        let len = usize::try_from(self.u64()?).ok()?;
        let (s, rest) = self.0.split_at_checked(len)?;
        self.0 = rest;
        String::from_utf8(s.to_vec()).ok().map(Cow::Owned)
    }
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
                    role: "assistant",
                    offset: 150,
                    len: 900,
                    crc: 7,
                },
            },
            Indexed {
                line: 3,
                place: Place::Message {
                    id: "b2".into(),
                    parent_id: Some("a1".into()),
                    timestamp: "t".into(),
                    role: "toolResult",
                    offset: 1_060,
                    len: 30,
                    crc: 8,
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
        let bytes = encode(stamp(), &head(), entries().into_iter());
        assert_eq!(decoded(&bytes), Some((stamp().bytes(), head(), entries())));
    }

    /// Every byte of the body counts: a flipped or missing byte anywhere makes it no index.
    #[test]
    fn a_damaged_or_cut_index_is_no_index() {
        let bytes = encode(stamp(), &head(), entries().into_iter());
        for at in (0..bytes.len()).filter(|at| !(STAMP_AT..BODY_AT).contains(at)) {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x40;
            assert!(decode(flipped).is_none(), "byte {at} flipped");
        }
        for len in 0..bytes.len() {
            assert!(decode(bytes[..len].to_vec()).is_none(), "cut at {len}");
        }
    }

    #[test]
    fn the_sidecar_is_a_hidden_file_beside_the_session() {
        assert_eq!(
            sidecar(Path::new("/s/2026-12-05_ab.jsonl")),
            Path::new("/s/.2026-12-05_ab.jsonl.idx")
        );
    }
}
