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

use std::fs::File;
use std::path::{Path, PathBuf};

use super::batch_decode::{decode_in_order, BlockReader, Line};
use super::cycles::break_cycles;
use super::decode::{decode_entry, decode_header, Decoded};
use super::entry::{SessionEntry, SessionHeader, CURRENT_VERSION};
use super::error::{LineError, LoadWarning, StoreError};
use super::lazy::{decode_entry_at, decode_message};
use super::migrate::migrate_lines;
use rho_protocol::agent::MessageFile;

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
}

/// Reads `path` in blocks of whole lines; see the module docs for what is an error.
pub fn load_file(path: &Path) -> Result<LoadedFile, StoreError> {
    let io = |e| StoreError::io(path, e);
    let file = File::open(path).map_err(io)?;
    let messages = file.try_clone().map_err(io)?;
    let messages = MessageFile::new(path, messages, decode_message);
    let mut reader = BlockReader::new(file);
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
        let decode = |line: &Line, text: &str| decode_entry_at(text, line.start, &messages);
        decode_in_order(
            path,
            reader,
            rest,
            first.number,
            &decode,
            |line, decoded| state.take(line, decoded),
        )?;
    }
    state.finish()
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
    /// The line number of each entry, for warnings.
    entry_lines: Vec<usize>,
    warnings: Vec<LoadWarning>,
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
            entry_lines: Vec::new(),
            warnings: Vec::new(),
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
        let parsed = decoded.map(|d| self.keep(line.number, d));
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
            let line = self.entry_lines.get(cycle.index).copied().unwrap_or(0);
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
    fn keep(&mut self, line: usize, decoded: Decoded) {
        if let Some(message) = decoded.warning {
            self.warnings.push(LoadWarning {
                path: self.path.clone(),
                line,
                message,
            });
        }
        self.entries.push(decoded.entry);
        self.entry_lines.push(line);
    }

    fn corrupt(&self, line: usize, reason: LineError) -> StoreError {
        StoreError::Corrupt {
            path: self.path.clone(),
            line,
            reason,
        }
    }

    fn finish(mut self) -> Result<LoadedFile, StoreError> {
        let mut warnings = std::mem::take(&mut self.warnings);
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
                self.keep(numbers[i], decoded);
            }
            migrated = Some((from, lines));
        }
        self.report_cycles();
        warnings.append(&mut self.warnings);
        Ok(LoadedFile {
            header: self.header,
            entries: self.entries,
            warnings,
            valid_len: self.valid_len,
            needs_newline: self.needs_newline,
            migrated,
        })
    }
}
