//! The one writer of an event stream (RPC's stdout, `--mode json`'s stdout): session events
//! and protocol lines go through one task, so lines never interleave, and a line is written
//! only after every event emitted before it was queued.
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
pub use backlog::{delivery_v073, delivery_v1, Ack, Delivery};
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
/// megabytes without one). Where fd 1 cannot be duplicated, `tokio::io::stdout()`.
pub fn stdout() -> Box<dyn AsyncWrite + Send + Unpin> {
    use std::os::fd::AsFd;
    match std::io::stdout().as_fd().try_clone_to_owned() {
        Ok(fd) => Box::new(tokio::fs::File::from_std(std::fs::File::from(fd))),
        Err(_) => Box::new(tokio::io::stdout()),
    }
}

/// A request to the writer.
pub enum Out {
    /// A line (compact JSON without the newline); the optional ack fires once it is written.
    Line(String, Option<Ack>),
    /// A line given in pieces (without the newline).
    Pieces(Pieces),
    /// Write what is pending, then stop.
    Finish,
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

/// Encoded bytes not yet written, and the acks of lines inside them.
struct Pending {
    bytes: Vec<u8>,
    written: usize,
    /// `(end offset in bytes, ack)`, in order.
    acks: Vec<(usize, Ack)>,
}

impl Pending {
    fn unwritten(&self) -> &[u8] {
        &self.bytes[self.written..]
    }

    fn advance(&mut self, n: usize) {
        self.written += n;
        let written = self.written;
        self.acks.retain(|(end, ack)| {
            let done = *end <= written;
            if done {
                let _ = ack.send(());
            }
            !done
        });
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

/// Runs the writer until `Finish` (or until both channels close, or the sink fails).
pub async fn run<W: AsyncWrite + Unpin>(
    mut sink: W,
    mut events: mpsc::UnboundedReceiver<SessionEvent>,
    mut lines: mpsc::UnboundedReceiver<Out>,
    config: WriterConfig,
) {
    let mut backlog = Backlog::new(delivery_for(config.dialect));
    let mut encoder = Encoder::new(config.dialect);
    let mut out = Pending {
        bytes: Vec::with_capacity(64 * 1024),
        written: 0,
        acks: Vec::new(),
    };
    let (mut events_open, mut lines_open) = (true, true);
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
            if let Some(ack) = encoder.encode(item, &mut out.bytes) {
                out.acks.push((out.bytes.len(), ack));
            }
        }
        out.advance(0);
        if out.bytes.is_empty() && pieces.is_none() && backlog.is_empty() && !lines_open {
            let _ = sink.flush().await;
            return;
        }
        let keep = config.keep;
        let behind = out.bytes.len() >= OUT_LIMIT;
        tokio::select! {
            biased;
            line = lines.recv(), if lines_open => {
                while let Ok(e) = events.try_recv() {
                    if keep(&e) { backlog.push_event(e, behind) }
                }
                match line {
                    Some(Out::Line(l, ack)) => backlog.push_line(l, ack),
                    Some(Out::Pieces(p)) => backlog.push_pieces(p),
                    Some(Out::Finish) | None => lines_open = false,
                }
            }
            e = events.recv(), if events_open => match e {
                Some(e) => {
                    if keep(&e) { backlog.push_event(e, behind) }
                    while let Ok(e) = events.try_recv() {
                        if keep(&e) { backlog.push_event(e, behind) }
                    }
                }
                None => events_open = false,
            },
            written = sink.write(out.unwritten()), if !out.bytes.is_empty() => match written {
                Ok(0) | Err(_) => return,
                Ok(n) => out.advance(n),
            },
            else => return,
        }
    }
}

#[cfg(test)]
mod tests;
