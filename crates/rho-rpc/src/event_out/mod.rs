//! The one writer of an event stream (RPC's stdout, `--mode json`'s stdout): session events
//! and protocol lines reach it through one channel ([`Out`]; the session sends its events into
//! it, see `AgentSession::subscribe_into`) and are written by one task, so lines never
//! interleave and everything is written in the order it was sent: a line sent before an event
//! is written before it, one sent after it after it, with no side waiting for the other.
//!
//! Backpressure: the writer keeps taking events while the sink is slow, but encodes the next
//! queued item only while fewer than [`OUT_LIMIT`] bytes wait to be written. Queued items
//! are cheap (events hold their data behind an `Arc`), and the dialect decides which may be
//! joined ([`Delivery`]), so a reader that falls behind gets fewer, larger updates instead
//! of an ever-growing backlog:
//! - pi 0.73.1's `message_update` carries the whole partial message: a queued delta is
//!   merged into the next one of the same block (its partial is the newest, its `delta` the
//!   concatenation), whenever both are queued.
//! - pi 1.x's `message_update` is delta-only and cheap: deltas are joined only while the
//!   reader is behind (the unwritten output is full), then the joined update's `delta` is
//!   the concatenation and its `usage` the newest. json.md defines a delta as text to append
//!   to its block, so appending the joined delta builds the same block: no delta is lost,
//!   they wait, and what waits is the text not yet written rather than one queued event
//!   (and partial snapshot) per provider token. A reader that keeps up gets one record per
//!   delta, as from pi.
//!
//! Every other event and every response is written as it was, in order.

mod backlog;
mod encode;
mod pi073;
mod pi1;

use rho_core::agent_session::SessionEvent;
use rho_protocol::rpc::Dialect;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use backlog::Backlog;
pub use backlog::{delivery_v073, delivery_v1, Delivery};
use encode::Encoder;

/// Encoded bytes the writer holds before it stops encoding and only writes.
pub const OUT_LIMIT: usize = 256 * 1024;

/// One line produced in pieces as the writer asks for them (a large response such as
/// `get_messages`, read from the session file as it is written): nothing else is written
/// between its pieces, and the writer asks for the next piece only while its unwritten
/// output is under [`OUT_LIMIT`], so the whole line is never held at once. Each piece is
/// appended straight to the writer's output buffer, so its bytes are copied once, from the
/// session file into the buffer that goes to the sink.
pub trait LinePieces: Send {
    /// Appends the next piece to `out`; `false` once the line is complete (nothing appended).
    fn next_piece(&mut self, out: &mut Vec<u8>) -> bool;
}

/// A line given in pieces.
pub type Pieces = Box<dyn LinePieces>;

/// The process's stdout as a writer's sink: a duplicate of fd 1 written as it is, without
/// std's line buffering, which scans every write for a newline (a `get_messages` reply is
/// megabytes without one). Where fd 1 cannot be duplicated, `tokio::io::stdout()`; on
/// Windows always that, whose console writes turn UTF-8 into the console's text.
pub fn stdout() -> Box<dyn AsyncWrite + Send + Unpin> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = std::io::stdout().as_fd().try_clone_to_owned() {
            return Box::new(tokio::fs::File::from_std(std::fs::File::from(fd)));
        }
    }
    Box::new(tokio::io::stdout())
}

/// What the writer is sent, in the order it writes it.
pub enum Out {
    /// A session event, encoded in the writer's dialect.
    Event(SessionEvent),
    /// A line (compact JSON without the newline).
    Line(String),
    /// A line given in pieces (without the newline).
    Pieces(Pieces),
    /// Write what is pending, then stop.
    Finish,
}

impl From<SessionEvent> for Out {
    fn from(event: SessionEvent) -> Self {
        Out::Event(event)
    }
}

/// What the writer is set up with.
pub struct WriterConfig {
    /// The encoding of events.
    pub dialect: Dialect,
    /// Events for which this returns false are not written (JSON mode sends some to stderr).
    pub keep: fn(&SessionEvent) -> bool,
}

/// The coalescing rule of `dialect`'s event stream.
pub fn delivery_for(dialect: Dialect) -> fn(&SessionEvent) -> Delivery {
    match dialect {
        Dialect::Pi073 => delivery_v073,
        Dialect::Pi1 => delivery_v1,
    }
}

/// Encoded bytes not yet written.
struct Pending {
    bytes: Vec<u8>,
    written: usize,
}

impl Pending {
    fn unwritten(&self) -> &[u8] {
        &self.bytes[self.written..]
    }

    fn advance(&mut self, n: usize) {
        self.written += n;
        if self.written == self.bytes.len() {
            self.bytes.clear();
            self.written = 0;
            if self.bytes.capacity() > 4 * OUT_LIMIT {
                // Give back what one huge line needed.
                self.bytes = Vec::with_capacity(64 * 1024);
            }
        }
    }
}

/// Runs the writer until `Finish` (or until every sender is gone, or the sink fails).
pub async fn run<W: AsyncWrite + Unpin>(
    mut sink: W,
    mut items: mpsc::UnboundedReceiver<Out>,
    config: WriterConfig,
) {
    let mut backlog = Backlog::new(delivery_for(config.dialect));
    let mut encoder = Encoder::new(config.dialect);
    let mut out = Pending {
        bytes: Vec::with_capacity(64 * 1024),
        written: 0,
    };
    let mut open = true;
    let mut pieces: Option<Pieces> = None;
    loop {
        while out.bytes.len() < OUT_LIMIT {
            if let Some(line) = &mut pieces {
                if !line.next_piece(&mut out.bytes) {
                    out.bytes.push(b'\n');
                    pieces = None;
                }
                continue;
            }
            let Some(item) = backlog.pop() else { break };
            if let backlog::Item::Pieces(line) = item {
                pieces = Some(line);
                continue;
            }
            encoder.encode(item, &mut out.bytes);
        }
        if out.bytes.is_empty() && pieces.is_none() && backlog.is_empty() && !open {
            let _ = sink.flush().await;
            return;
        }
        let behind = out.bytes.len() >= OUT_LIMIT;
        tokio::select! {
            biased;
            item = items.recv(), if open => {
                // Everything queued is taken at once, so deltas that wait can be joined.
                let mut next = item;
                open = next.is_some();
                while let Some(item) = next {
                    open = take(item, &mut backlog, config.keep, behind);
                    next = if open { items.try_recv().ok() } else { None };
                }
            }
            written = sink.write(out.unwritten()), if !out.bytes.is_empty() => match written {
                Ok(0) | Err(_) => return,
                Ok(n) => out.advance(n),
            },
            else => return,
        }
    }
}

/// Queues one item; false once the writer was told to finish.
fn take(item: Out, backlog: &mut Backlog, keep: fn(&SessionEvent) -> bool, behind: bool) -> bool {
    match item {
        Out::Event(e) => {
            if keep(&e) {
                backlog.push_event(e, behind);
            }
        }
        Out::Line(line) => backlog.push_line(line),
        Out::Pieces(p) => backlog.push_pieces(p),
        Out::Finish => return false,
    }
    true
}

#[cfg(test)]
mod tests;
