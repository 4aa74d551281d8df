//! Decoding entry lines on worker threads while the file is still being read.
//!
//! Parsing the JSON of a long session is nearly all of the time it takes to open (a
//! 50,000-entry, 58 MB file spends about 90 % of its load in `decode_entry`), and every line
//! decodes independently. So lines are read in batches of about [`BATCH_BYTES`], decoded on up
//! to [`MAX_WORKERS`] threads, and handed back strictly in file order: the caller sees the same
//! sequence of results, line numbers and warnings as a single-threaded load. A file that fits in
//! one batch, or a machine with one core, is decoded on the calling thread.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{mpsc, Mutex};

use super::decode::Decoded;
use super::error::{LineError, StoreError};

/// Bytes of line text per batch: large enough that handing a batch over costs nothing
/// next to decoding it, small enough that few are in flight.
const BATCH_BYTES: usize = 256 * 1024;
/// Threads beyond this gain little (the ordered hand-back and the tree index stay serial).
const MAX_WORKERS: usize = 4;

/// Lines read but not decoded yet: each line's `meta` and its text (`text[starts[i]..ends[i]]`).
pub(crate) struct Batch<M> {
    meta: Vec<M>,
    text: Vec<u8>,
    ends: Vec<usize>,
}

/// Text buffers of decoded batches, reused by the next ones: a fresh buffer of this size is a
/// fresh memory mapping, and faulting in its pages for every batch cost more than a third of
/// the time to open a long session.
#[derive(Default)]
struct Pool(Mutex<Vec<Vec<u8>>>);

impl Pool {
    fn take(&self) -> Vec<u8> {
        let reused = self.0.lock().ok().and_then(|mut p| p.pop());
        reused.unwrap_or_else(|| Vec::with_capacity(BATCH_BYTES + 4096))
    }

    fn give(&self, mut text: Vec<u8>) {
        text.clear();
        if let Ok(mut p) = self.0.lock() {
            p.push(text);
        }
    }
}

impl<M> Batch<M> {
    fn new(pool: &Pool) -> Self {
        Self {
            meta: Vec::new(),
            text: pool.take(),
            ends: Vec::new(),
        }
    }

    /// Adds one line; returns whether the batch is full.
    pub(crate) fn push(&mut self, meta: M, text: &[u8]) -> bool {
        self.meta.push(meta);
        self.text.extend_from_slice(text);
        self.ends.push(self.text.len());
        self.text.len() >= BATCH_BYTES
    }

    /// Decodes every line, in order.
    fn decode(
        self,
        decode: &impl Fn(&M, &str) -> Result<Decoded, LineError>,
        pool: &Pool,
    ) -> Lines<M> {
        let mut start = 0;
        let text = self.text;
        let lines = self
            .meta
            .into_iter()
            .zip(self.ends)
            .map(|(meta, end)| {
                let line = &text[start..end];
                start = end;
                let decoded = std::str::from_utf8(line)
                    .map_err(|_| LineError::NotUtf8)
                    .and_then(|line| decode(&meta, line));
                (meta, decoded)
            })
            .collect();
        pool.give(text);
        lines
    }
}

/// Decodes (with `decode`, given each line's meta and its UTF-8 text) the batches `fill` reads
/// (it fills one and returns `false` once the input is exhausted) and passes each line's
/// result to `take` in input order.
pub(crate) fn decode_in_order<M: Send>(
    path: &Path,
    decode: &(impl Fn(&M, &str) -> Result<Decoded, LineError> + Sync),
    mut fill: impl FnMut(&mut Batch<M>) -> Result<bool, StoreError>,
    mut take: impl FnMut(M, Result<Decoded, LineError>) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let pool = Pool::default();
    let pool = &pool;
    let mut first = Batch::new(pool);
    let more = fill(&mut first)?;
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_WORKERS));
    if !more || workers < 2 {
        let (mut batch, mut more) = (first, more);
        loop {
            for (meta, result) in batch.decode(decode, pool) {
                take(meta, result)?;
            }
            if !more {
                return Ok(());
            }
            batch = Batch::new(pool);
            more = fill(&mut batch)?;
        }
    }
    let (jobs, job_rx) = mpsc::sync_channel::<(usize, Batch<M>)>(workers * 2);
    let job_rx = Mutex::new(job_rx);
    std::thread::scope(|scope| {
        let (done_tx, done) = mpsc::channel();
        for _ in 0..workers {
            let (job_rx, done_tx) = (&job_rx, done_tx.clone());
            scope.spawn(move || work(job_rx, done_tx, decode, pool));
        }
        drop(done_tx);
        let mut order = InOrder::default();
        let (mut batch, mut more) = (first, true);
        loop {
            if jobs.send((order.sent, batch)).is_err() {
                return Err(worker_lost(path));
            }
            order.sent += 1;
            while let Ok(result) = done.try_recv() {
                order.accept(result, &mut take)?;
            }
            if !more {
                break;
            }
            batch = Batch::new(pool);
            more = fill(&mut batch)?;
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

/// Each line's meta and how it decoded, in line order.
type Lines<M> = Vec<(M, Result<Decoded, LineError>)>;
/// A decoded batch and its place in the sequence.
type Done<M> = (usize, Lines<M>);

/// A worker: decodes batches until the queue closes.
fn work<M>(
    jobs: &Mutex<mpsc::Receiver<(usize, Batch<M>)>>,
    done: mpsc::Sender<Done<M>>,
    decode: &impl Fn(&M, &str) -> Result<Decoded, LineError>,
    pool: &Pool,
) {
    loop {
        let job = match jobs.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        let Ok((seq, batch)) = job else { return };
        if done.send((seq, batch.decode(decode, pool))).is_err() {
            return;
        }
    }
}

/// Hands decoded batches on in the order they were sent.
struct InOrder<M> {
    sent: usize,
    next: usize,
    waiting: BTreeMap<usize, Lines<M>>,
}

impl<M> Default for InOrder<M> {
    fn default() -> Self {
        Self {
            sent: 0,
            next: 0,
            waiting: BTreeMap::new(),
        }
    }
}

impl<M> InOrder<M> {
    fn accept(
        &mut self,
        (seq, lines): Done<M>,
        take: &mut impl FnMut(M, Result<Decoded, LineError>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.waiting.insert(seq, lines);
        while let Some(lines) = self.waiting.remove(&self.next) {
            self.next += 1;
            for (meta, result) in lines {
                take(meta, result)?;
            }
        }
        Ok(())
    }
}

fn worker_lost(path: &Path) -> StoreError {
    StoreError::io(path, std::io::Error::other("a decoding thread stopped"))
}
