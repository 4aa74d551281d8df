//! Keeping a session's entry index current while the session appends to its file.
//!
//! An open session appends its new entries to the file itself, so it knows exactly which bytes
//! follow the indexed ones: it adds each entry to the index as it writes it, with the CRC-32
//! of the covered bytes carried on from the line written (nothing is read back). The next open
//! then finds the file under the stamp the index records and restores every entry from the
//! index, instead of checking the whole file's bytes and parsing what this session added.
//!
//! The leaf summary beside the index (`summary.rs`) follows along: each entry the index takes
//! is applied to it too, while it can follow.
//!
//! The index stays a cache: an entry that does not land where the index ends (another process
//! appended too, a torn line was closed first), or an index that cannot be extended, ends the
//! keeping for this session, and the next open checks and extends it as usual.

use std::fs::File;
use std::path::Path;

use super::entry::SessionEntry;
use super::index::{self, Extent, Head, Stamp};
use super::load::{index_entry, Placed};
use super::summary::SummaryKeeper;

/// The index beside a session file that describes all of it, followed append by append. It
/// stays open: an index another process replaced meanwhile is then a file no longer there,
/// whose extending harms nothing (the next open checks the one there).
#[derive(Debug)]
pub(crate) struct IndexKeeper {
    file: File,
    head: Head,
    extent: Extent,
    /// The leaf summary beside the index, while this session can follow it.
    summary: Option<SummaryKeeper>,
}

impl IndexKeeper {
    /// Follows the index of the session file `path` that `(head, extent)` describe; `None`
    /// when it cannot be opened for writing.
    pub(crate) fn new(
        path: &Path,
        (head, extent): (Head, Extent),
        summary: Option<SummaryKeeper>,
    ) -> Option<Self> {
        let file = index::open_to_extend(path)?;
        Some(Self {
            file,
            head,
            extent,
            summary,
        })
    }

    /// Adds `entry`, just written to `file` as `line` (without its line break) at byte `at`.
    /// False when the index can no longer follow the file (the caller stops keeping it).
    pub(crate) fn add(&mut self, file: &File, at: u64, line: &[u8], entry: &SessionEntry) -> bool {
        if at != self.head.covered {
            return false;
        }
        let Ok(meta) = file.metadata() else {
            return false;
        };
        let mut crc = crc32fast::Hasher::new_with_initial(self.head.crc);
        crc.update(line);
        crc.update(b"\n");
        let head = Head {
            covered: at + line.len() as u64 + 1,
            crc: crc.finalize(),
            lines: self.head.lines + 1,
            header: self.head.header,
        };
        let placed = Placed {
            line: head.lines,
            start: at,
            end: head.covered,
        };
        let added = std::iter::once(index_entry(entry, &placed));
        let was = (&self.head, self.extent);
        match index::extend(&self.file, Stamp::of(&meta), was, &head, added) {
            Some(extent) => {
                (self.head, self.extent) = (head, extent);
                let bound = (head.covered, head.crc);
                let line = (at, head.covered);
                self.summary = (self.summary.take()).and_then(|s| s.add(entry, line, bound));
                true
            }
            None => false,
        }
    }
}
