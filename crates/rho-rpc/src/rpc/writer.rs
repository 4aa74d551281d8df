//! The single stdout writer of RPC mode (interfaces spec §1.2, §1.5), over
//! [`crate::event_out`]: session events and responses go through one channel and one task,
//! so lines never interleave and each is written in the order it was sent. A response never
//! overtakes the events its command caused (e.g. `queue_update` before the `steer`
//! response), and the `prompt` response, sent from the preflight the session calls before
//! the run's first event, is written before that event without anyone waiting for the
//! write. A slow client gets coalesced `message_update`s (see `event_out`); nothing else is
//! dropped.

use rho_core::agent_session::AgentSession;
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
        let _ = self.tx.send(Out::Line(line));
    }

    /// Queues one line given in pieces (see [`event_out::Pieces`]).
    pub fn send_pieces(&self, pieces: event_out::Pieces) {
        let _ = self.tx.send(Out::Pieces(pieces));
    }

    /// Writes `session`'s events from now on, in line with what is sent here.
    pub fn listen(&self, session: &AgentSession) {
        session.subscribe_into(self.tx.clone());
    }

    /// Asks the writer to flush and stop.
    pub fn finish(&self) {
        let _ = self.tx.send(Out::Finish);
    }
}

/// Starts the writer over `sink`; [`Output::listen`] connects a session's events.
pub fn spawn<W>(sink: W, dialect: Dialect) -> (Output, tokio::task::JoinHandle<()>)
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = mpsc::unbounded_channel();
    let config = WriterConfig {
        dialect,
        keep: |_| true,
    };
    let task = tokio::spawn(event_out::run(sink, rx, config));
    (Output { tx }, task)
}
