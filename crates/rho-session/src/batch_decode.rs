//! Reading a session file in blocks and decoding its lines on worker threads.
//!
//! Parsing the JSON of a long session is most of the time it takes to open, and every line
//! decodes independently. So the file is read in blocks of about [`BLOCK_BYTES`] of whole
//! lines, straight into the block's buffer (no line is copied on the reading thread), and each
//! block is split into lines and decoded on one of up to [`MAX_WORKERS`] threads. Results are
//! handed back strictly in file order, with line numbers counted over the whole file: the
//! caller sees the same sequence of results, line numbers and warnings as a line-by-line load.
//! A file that fits in one block, or a machine with one core, is decoded on the calling
//! thread.

use std::collections::BTreeMap;
use std::io::{ErrorKind, Read};
use std::path::Path;
use std::sync::{mpsc, Arc, Mutex};

use super::decode::Decoded;
use super::error::{LineError, StoreError};

/// Bytes read per block: large enough that handing a block over costs nothing next to
/// decoding it, small enough that few are in flight.
const BLOCK_BYTES: usize = 256 * 1024;
/// Threads beyond this gain little (the ordered hand-back and the tree index stay serial).
const MAX_WORKERS: usize = 4;

/// One line of the file: its number (from 1, blank lines counted), where it starts and ends
/// (its line break included), and whether it ends in a newline.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Line {
    pub number: usize,
    pub start: u64,
    pub end: u64,
    pub has_newline: bool,
}

/// Buffers of decoded blocks, reused by the next ones: a fresh buffer of this size is a fresh
/// memory mapping, and faulting in its pages for every block cost more than a third of the
/// time to open a long session. Each buffer is fully initialized (its length is its size), so
/// reading into it needs no clearing.
#[derive(Default)]
struct Pool(Mutex<Vec<Vec<u8>>>);

impl Pool {
    fn take(&self) -> Vec<u8> {
        let reused = self.0.lock().ok().and_then(|mut p| p.pop());
        reused.unwrap_or_else(|| vec![0; BLOCK_BYTES])
    }

    fn give(&self, buf: Vec<u8>) {
        if let Ok(mut p) = self.0.lock() {
            p.push(buf);
        }
    }
}

/// Whole lines read from the file: `buf[from..filled]`, where `buf[0]` is at byte `start`;
/// only the file's last line may lack its newline.
pub(crate) struct Block {
    buf: Vec<u8>,
    from: usize,
    filled: usize,
    start: u64,
}

impl Block {
    /// Each line of the block (line numbers counted from 1 within it).
    fn lines(&self) -> impl Iterator<Item = (Line, &[u8])> {
        let text = &self.buf[..self.filled];
        let mut at = self.from;
        let mut number = 0;
        std::iter::from_fn(move || {
            if at >= text.len() {
                return None;
            }
            let (end, has_newline) = match memchr::memchr(b'\n', &text[at..]) {
                Some(i) => (at + i + 1, true),
                None => (text.len(), false),
            };
            let line = without_line_break(&text[at..end]);
            number += 1;
            let meta = Line {
                number,
                start: self.start + at as u64,
                end: self.start + end as u64,
                has_newline,
            };
            at = end;
            Some((meta, line))
        })
    }

    /// The first line that is not blank (its number counted within the block), its text,
    /// and the block of the lines after it; `Err` with the block's count of lines when every
    /// line is blank.
    pub(crate) fn split_first(mut self) -> Result<(Line, Vec<u8>, Block), usize> {
        let mut count = 0;
        let found = self.lines().find_map(|(line, text)| {
            count = line.number;
            (!is_blank(text)).then(|| (line, text.to_vec()))
        });
        let (line, text) = found.ok_or(count)?;
        self.from = (line.end - self.start) as usize;
        Ok((line, text, self))
    }

    /// Each line that is not blank, undecoded (for a file in an older format, which is
    /// migrated as text).
    pub(crate) fn nonblank_lines(&self) -> impl Iterator<Item = (Line, &[u8])> {
        self.lines().filter(|(_, text)| !is_blank(text))
    }

    /// How many lines (blank ones included) the block holds.
    pub(crate) fn line_count(&self) -> usize {
        self.lines().count()
    }

    /// Splits the block into lines and decodes every one that is not blank, in order; also
    /// says how many lines (blank ones included) the block held.
    fn decode(
        self,
        decode: &impl Fn(&Line, &str) -> Result<Decoded, LineError>,
        pool: &Pool,
    ) -> Done {
        let mut count = 0;
        let lines = self
            .lines()
            .inspect(|(line, _)| count = line.number)
            .filter(|(_, text)| !is_blank(text))
            .map(|(line, text)| {
                let decoded = std::str::from_utf8(text)
                    .map_err(|_| LineError::NotUtf8)
                    .and_then(|text| decode(&line, text));
                (line, decoded)
            })
            .collect();
        pool.give(self.buf);
        Done { lines, count }
    }
}

/// A line's text: its bytes without the `\n` or `\r\n` that ends it.
pub(crate) fn without_line_break(line: &[u8]) -> &[u8] {
    match line.strip_suffix(b"\n") {
        Some(text) => text.strip_suffix(b"\r").unwrap_or(text),
        None => line,
    }
}

fn is_blank(text: &[u8]) -> bool {
    text.iter().all(u8::is_ascii_whitespace)
}

/// Reads a file into [`Block`]s of whole lines.
pub(crate) struct BlockReader<R> {
    source: R,
    /// Shared with the workers, which hand back the buffers of blocks they decoded.
    pool: Arc<Pool>,
    /// The start of the next block (the partial line the last block ended before).
    pending: Option<(Vec<u8>, usize)>,
    /// File offset of the next block's first byte.
    offset: u64,
    eof: bool,
    /// The CRC-32 of the bytes handed out in blocks so far, kept only for a load that writes
    /// the session's index (others do not pay for it).
    crc: Option<crc32fast::Hasher>,
}

impl<R: Read> BlockReader<R> {
    /// Reads on from byte `offset`, which `source` is at; with `crc`, the CRC-32 of the bytes
    /// before, keeps that of all bytes read ([`Self::read_so_far`]).
    pub(crate) fn resume(source: R, offset: u64, crc: Option<u32>) -> Self {
        Self {
            source,
            pool: Arc::default(),
            pending: None,
            offset,
            eof: false,
            crc: crc.map(|crc| crc32fast::Hasher::new_with_initial_len(crc, offset)),
        }
    }

    /// The bytes handed out in blocks so far: how many, and their CRC-32 if it was kept.
    pub(crate) fn read_so_far(&self) -> (u64, Option<u32>) {
        (
            self.offset,
            self.crc.clone().map(crc32fast::Hasher::finalize),
        )
    }

    /// The next block (`None` at the end of the file): reads until the buffer is full, then
    /// ends the block after its last newline and keeps the rest for the next one. A line
    /// longer than the buffer grows it.
    pub(crate) fn next_block(&mut self) -> std::io::Result<Option<Block>> {
        let (mut buf, mut filled) = self.pending.take().unwrap_or_else(|| (self.pool.take(), 0));
        let mut searched = 0;
        let end = loop {
            while filled < buf.len() && !self.eof {
                match self.source.read(&mut buf[filled..]) {
                    Ok(0) => self.eof = true,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            if self.eof {
                break filled;
            }
            match memchr::memrchr(b'\n', &buf[searched..filled]) {
                Some(i) => break searched + i + 1,
                None => {
                    searched = filled;
                    let grown = buf.len() * 2;
                    buf.resize(grown, 0);
                }
            }
        };
        if end == 0 {
            self.pool.give(buf);
            return Ok(None);
        }
        if end < filled {
            let mut next = self.pool.take();
            let rest = filled - end;
            if next.len() < rest {
                next.resize(rest, 0);
            }
            next[..rest].copy_from_slice(&buf[end..filled]);
            self.pending = Some((next, rest));
        }
        let start = self.offset;
        self.offset += end as u64;
        if let Some(crc) = &mut self.crc {
            crc.update(&buf[..end]);
        }
        Ok(Some(Block {
            buf,
            from: 0,
            filled: end,
            start,
        }))
    }
}

/// Decodes (with `decode`, given each line and its UTF-8 text) the lines of `first` and of
/// every later block of `reader`, and passes each nonblank line's result to `take` in file
/// order. `lines_before` is the number of lines before `first`'s text.
pub(crate) fn decode_in_order<R: Read>(
    path: &Path,
    reader: &mut BlockReader<R>,
    first: Block,
    lines_before: usize,
    decode: &(impl Fn(&Line, &str) -> Result<Decoded, LineError> + Sync),
    mut take: impl FnMut(Line, Result<Decoded, LineError>) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let io = |e| StoreError::io(path, e);
    let mut order = InOrder::new(lines_before);
    let second = reader.next_block().map_err(io)?;
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_WORKERS));
    let pool = Arc::clone(&reader.pool);
    let pool = &*pool;
    let second = match second {
        Some(second) if workers >= 2 => second,
        second => {
            order.accept_next(first.decode(decode, pool), &mut take)?;
            let mut block = second;
            while let Some(b) = block {
                order.accept_next(b.decode(decode, pool), &mut take)?;
                block = reader.next_block().map_err(io)?;
            }
            return Ok(());
        }
    };
    let (jobs, job_rx) = mpsc::sync_channel::<(usize, Block)>(workers * 2);
    let job_rx = Mutex::new(job_rx);
    std::thread::scope(|scope| {
        let (done_tx, done) = mpsc::channel();
        for _ in 0..workers {
            let (job_rx, done_tx) = (&job_rx, done_tx.clone());
            scope.spawn(move || work(job_rx, done_tx, decode, pool));
        }
        drop(done_tx);
        let mut block = Some(first);
        let mut next = Some(second);
        while let Some(b) = block {
            if jobs.send((order.sent, b)).is_err() {
                return Err(worker_lost(path));
            }
            order.sent += 1;
            while let Ok(result) = done.try_recv() {
                order.accept(result, &mut take)?;
            }
            block = match next.take() {
                Some(b) => Some(b),
                None => reader.next_block().map_err(io)?,
            };
        }
        drop(jobs);
        for result in done {
            order.accept(result, &mut take)?;
        }
        match order.next == order.sent {
            true => Ok(()),
            false => Err(worker_lost(path)),
        }
    })
}

/// A decoded block: its nonblank lines (numbered within the block) with how each decoded,
/// and how many lines it held.
struct Done {
    lines: Vec<(Line, Result<Decoded, LineError>)>,
    count: usize,
}

/// A worker: decodes blocks until the queue closes.
fn work(
    jobs: &Mutex<mpsc::Receiver<(usize, Block)>>,
    done: mpsc::Sender<(usize, Done)>,
    decode: &impl Fn(&Line, &str) -> Result<Decoded, LineError>,
    pool: &Pool,
) {
    loop {
        let job = match jobs.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        let Ok((seq, block)) = job else { return };
        if done.send((seq, block.decode(decode, pool))).is_err() {
            return;
        }
    }
}

/// Hands decoded blocks on in the order they were sent, numbering their lines in the file.
struct InOrder {
    sent: usize,
    next: usize,
    waiting: BTreeMap<usize, Done>,
    /// Lines in the file before the next block to hand on.
    lines_before: usize,
}

impl InOrder {
    fn new(lines_before: usize) -> Self {
        Self {
            sent: 0,
            next: 0,
            waiting: BTreeMap::new(),
            lines_before,
        }
    }

    fn accept(
        &mut self,
        (seq, done): (usize, Done),
        take: &mut impl FnMut(Line, Result<Decoded, LineError>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.waiting.insert(seq, done);
        while let Some(done) = self.waiting.remove(&self.next) {
            self.next += 1;
            self.accept_next(done, take)?;
        }
        Ok(())
    }

    /// Hands on the block that comes next in the file.
    fn accept_next(
        &mut self,
        done: Done,
        take: &mut impl FnMut(Line, Result<Decoded, LineError>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        for (mut line, result) in done.lines {
            line.number += self.lines_before;
            take(line, result)?;
        }
        self.lines_before += done.count;
        Ok(())
    }
}

fn worker_lost(path: &Path) -> StoreError {
    StoreError::io(path, std::io::Error::other("a decoding thread stopped"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks end after a newline whatever the read sizes, a line longer than the buffer
    /// grows it, and the lines of all blocks are the file's lines with their offsets.
    #[test]
    fn blocks_hold_whole_lines_with_their_offsets() {
        let long = "x".repeat(BLOCK_BYTES * 2 + 17);
        let mut text = String::new();
        for i in 0..20_000 {
            text.push_str(&format!("line {i}\r\n"));
            if i == 7_000 {
                text.push_str(&long);
                text.push('\n');
            }
        }
        text.push_str("torn");
        let mut reader = BlockReader::resume(text.as_bytes(), 0, None);
        let (mut seen, mut number) = (Vec::new(), 0);
        while let Some(block) = reader.next_block().unwrap_or_else(|e| panic!("{e}")) {
            let last = block.buf[block.filled - 1];
            let lines: Vec<_> = block.lines().map(|(l, t)| (l, t.to_vec())).collect();
            for (line, bytes) in lines {
                let start = line.start as usize;
                let end = line.end as usize;
                let raw = &text.as_bytes()[start..end];
                assert!(raw.starts_with(&bytes), "line {}", number + line.number);
                assert_eq!(line.has_newline, raw.ends_with(b"\n"));
                seen.push(String::from_utf8(bytes).unwrap_or_default());
            }
            number += block.lines().count();
            assert!(last == b'\n' || reader.eof, "a block ends after a newline");
        }
        let expected: Vec<&str> = text
            .split('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .collect();
        assert_eq!(seen, expected);
        assert_eq!(number, expected.len());
    }
}
