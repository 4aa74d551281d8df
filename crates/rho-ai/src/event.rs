//! The stream that carries the event protocol (providers spec §2). The event type itself,
//! [`AssistantMessageEvent`], is plain data and lives in `rho_protocol::stream_event`.
//!
//! Events carry deltas, not snapshots of the partial message: copying a growing message per
//! token would make long replies quadratic. Consumers that need the partial message (the UI,
//! pi 0.73.1's `message_update`) fold events into a [`PartialMessage`] (in `rho_protocol`),
//! which yields the exact `partial` pi sends.

use tokio::sync::mpsc;

use crate::message::AssistantMessage;
use crate::usage::StopReason;
pub use rho_protocol::stream_event::AssistantMessageEvent;
pub use rho_protocol::PartialMessage;

/// The receiving end of a provider call. Ends after exactly one terminal event.
#[derive(Debug)]
pub struct AssistantStream {
    rx: mpsc::UnboundedReceiver<AssistantMessageEvent>,
    finished: bool,
}

/// The sending end used by providers. Drops everything after the first terminal event so a
/// provider bug can never produce two endings.
///
/// It also times the reply, as pi 1.x's stream does: the final message gets `durationMs`
/// from the channel's creation (so every provider, built-in or extension, is timed the same
/// way), unless it already has one or its `timestamp` predates the channel (a reply that
/// started elsewhere, such as a replayed one, stays untimed).
#[derive(Debug, Clone)]
pub struct EventSink {
    tx: mpsc::UnboundedSender<AssistantMessageEvent>,
    ended: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// When the channel was made: monotonic for the duration, wall clock (Unix ms) to tell
    /// replies that began earlier. `None` for replayed streams.
    started: Option<(std::time::Instant, i64)>,
}

impl EventSink {
    /// Sends one event; returns false once the stream has ended or the receiver is gone.
    pub fn push(&self, mut event: AssistantMessageEvent) -> bool {
        use std::sync::atomic::Ordering;
        if self.ended.load(Ordering::Acquire) {
            return false;
        }
        if event.is_terminal() {
            self.ended.store(true, Ordering::Release);
            self.time(&mut event);
        }
        self.tx.send(event).is_ok()
    }

    fn time(&self, event: &mut AssistantMessageEvent) {
        let (AssistantMessageEvent::Done { message, .. }
        | AssistantMessageEvent::Error { error: message, .. }) = event
        else {
            return;
        };
        let Some((at, wall_ms)) = self.started else {
            return;
        };
        if message.duration_ms.is_none() && message.timestamp >= wall_ms {
            message.duration_ms = Some(at.elapsed().as_millis() as u64);
        }
    }

    /// Whether a terminal event was sent.
    pub fn has_ended(&self) -> bool {
        self.ended.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Whether the consumer dropped the stream (nobody listens any more).
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}

impl AssistantStream {
    /// A connected sink/stream pair.
    pub fn channel() -> (EventSink, AssistantStream) {
        let (tx, rx) = mpsc::unbounded_channel();
        (
            EventSink {
                tx,
                ended: Default::default(),
                started: Some((std::time::Instant::now(), crate::message::now_ms())),
            },
            AssistantStream {
                rx,
                finished: false,
            },
        )
    }

    /// A stream that replays fixed events (scripted providers, tests).
    /// Replayed replies are not timed: they did not start with this stream.
    pub fn from_events(events: impl IntoIterator<Item = AssistantMessageEvent>) -> Self {
        let (mut sink, stream) = Self::channel();
        sink.started = None;
        for e in events {
            sink.push(e);
        }
        stream
    }

    /// The next event, `None` after the terminal one. If the producer vanished without a
    /// terminal event, a synthetic `error` event is returned so consumers always see an end.
    pub async fn next(&mut self) -> Option<AssistantMessageEvent> {
        if self.finished {
            return None;
        }
        match self.rx.recv().await {
            Some(e) => {
                if e.is_terminal() {
                    self.finished = true;
                }
                Some(e)
            }
            None => {
                self.finished = true;
                let mut error = AssistantMessage::empty("", "", "");
                error.stop_reason = StopReason::Error;
                error.error_message = Some("Provider stream ended without a result".into());
                Some(AssistantMessageEvent::Error {
                    reason: StopReason::Error,
                    error,
                })
            }
        }
    }

    /// Drains the stream and returns the final message (`done.message` or `error.error`).
    pub async fn result(mut self) -> AssistantMessage {
        let mut last = None;
        while let Some(e) = self.next().await {
            match e {
                AssistantMessageEvent::Done { message, .. } => last = Some(message),
                AssistantMessageEvent::Error { error, .. } => last = Some(error),
                _ => {}
            }
        }
        last.unwrap_or_else(|| AssistantMessage::empty("", "", ""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_terminal_event_and_later_pushes_dropped() {
        let (sink, mut stream) = AssistantStream::channel();
        let msg = AssistantMessage::empty("a", "p", "m");
        assert!(sink.push(AssistantMessageEvent::Start {
            partial: msg.clone()
        }));
        assert!(sink.push(AssistantMessageEvent::Done {
            reason: StopReason::Stop,
            message: msg.clone()
        }));
        assert!(!sink.push(AssistantMessageEvent::TextStart { content_index: 0 }));
        assert!(sink.has_ended());
        assert_eq!(stream.next().await.map(|e| e.type_name()), Some("start"));
        assert_eq!(stream.next().await.map(|e| e.type_name()), Some("done"));
        assert_eq!(stream.next().await, None);
    }

    #[tokio::test]
    async fn vanished_producer_yields_an_error_end() {
        let (sink, stream) = AssistantStream::channel();
        drop(sink);
        let result = stream.result().await;
        assert_eq!(result.stop_reason, StopReason::Error);
        assert!(result.error_message.is_some());
    }
}
