//! The single stdout writer of RPC mode (interfaces spec §1.2, §1.5), over
//! [`crate::event_out`]: session events and responses go through one task, so lines never
//! interleave, and a response never overtakes the events its command caused (e.g.
//! `queue_update` before the `steer` response). A slow client gets coalesced
//! `message_update`s (see `event_out`); nothing else is dropped.

use rho_core::agent_session::SessionEvent;
use rho_protocol::rpc::Dialect;
use tokio::io::AsyncWrite;
use tokio::sync::mpsc;

use crate::event_out::{self, Out, WriterConfig};

/// A cheap handle for sending protocol lines to stdout.
#[derive(Clone)]
pub struct Output {
    tx: mpsc::UnboundedSender<Out>,
}

impl Output {
    /// Queues one line (compact JSON without the newline).
    pub fn send(&self, line: String) {
        let _ = self.tx.send(Out::Line(line, None));
    }

    /// Queues one line given in pieces (see [`event_out::Pieces`]).
    pub fn send_pieces(&self, pieces: event_out::Pieces) {
        let _ = self.tx.send(Out::Pieces(pieces));
    }

    /// Queues one line and blocks the calling thread until it is written (the `prompt`
    /// response must precede the run's first event). Multi-thread runtime only.
    pub fn send_and_wait(&self, line: String) {
        let (ack, done) = std::sync::mpsc::channel();
        if self.tx.send(Out::Line(line, Some(ack))).is_ok() {
            tokio::task::block_in_place(|| {
                let _ = done.recv();
            });
        }
    }

    /// Asks the writer to flush and stop.
    pub fn finish(&self) {
        let _ = self.tx.send(Out::Finish);
    }
}

/// Starts the writer over `sink`, forwarding `events` as they come.
pub fn spawn<W>(
    sink: W,
    events: mpsc::UnboundedReceiver<SessionEvent>,
    dialect: Dialect,
) -> (Output, tokio::task::JoinHandle<()>)
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = mpsc::unbounded_channel();
    let config = WriterConfig {
        dialect,
        keep: |_| true,
    };
    let task = tokio::spawn(event_out::run(sink, events, rx, config));
    (Output { tx }, task)
}
