//! The single stdout writer (interfaces spec §1.2, §1.5): session events and responses go
//! through one task, so lines never interleave. Before a response is written, every event
//! already emitted is written first, so a response never overtakes the events its command
//! caused (e.g. `queue_update` before the `steer` response).

use rho_core::agent_session::SessionEvent;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

/// What the writer is asked to write.
enum Out {
    /// A response or UI request line; the optional ack fires once it is written.
    Line(String, Option<std::sync::mpsc::Sender<()>>),
    /// Write what is pending, then stop.
    Finish,
}

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
) -> (Output, tokio::task::JoinHandle<()>)
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = mpsc::unbounded_channel();
    let task = tokio::spawn(run(sink, events, rx));
    (Output { tx }, task)
}

async fn run<W: AsyncWrite + Unpin>(
    mut sink: W,
    mut events: mpsc::UnboundedReceiver<SessionEvent>,
    mut lines: mpsc::UnboundedReceiver<Out>,
) {
    let mut buf: Vec<u8> = Vec::with_capacity(8192);
    let mut events_open = true;
    loop {
        let mut acks = Vec::new();
        let mut finish = false;
        tokio::select! {
            biased;
            out = lines.recv() => {
                while let Ok(e) = events.try_recv() {
                    push_json(&mut buf, &e);
                }
                match out {
                    Some(Out::Line(v, ack)) => {
                        buf.extend_from_slice(v.as_bytes());
                        buf.push(b'\n');
                        acks.extend(ack);
                    }
                    Some(Out::Finish) | None => finish = true,
                }
            }
            e = events.recv(), if events_open => match e {
                Some(e) => {
                    push_json(&mut buf, &e);
                    while let Ok(e) = events.try_recv() {
                        push_json(&mut buf, &e);
                    }
                }
                None => events_open = false,
            },
        }
        if !buf.is_empty() {
            if sink.write_all(&buf).await.is_err() || sink.flush().await.is_err() {
                return;
            }
            buf.clear();
        }
        for ack in acks {
            let _ = ack.send(());
        }
        if finish {
            return;
        }
    }
}

/// Compact JSON plus `\n` (never pretty-printed).
fn push_json<T: serde::Serialize>(buf: &mut Vec<u8>, value: &T) {
    let start = buf.len();
    match serde_json::to_writer(&mut *buf, value) {
        Ok(()) => buf.push(b'\n'),
        Err(e) => {
            buf.truncate(start);
            eprintln!("rho rpc: could not serialize an output line: {e}");
        }
    }
}
