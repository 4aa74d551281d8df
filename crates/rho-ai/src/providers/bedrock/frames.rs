//! AWS event-stream framing: the binary body of Bedrock's `converse-stream` reply, one
//! message per event (a prelude with the lengths, headers, a JSON payload, CRCs). Each
//! message becomes one [`SseEvent`] named after its union member (`messageStart`,
//! `contentBlockDelta`, … or an exception such as `throttlingException`), so the Bedrock
//! parser folds events through the same machinery as every SSE API.
//!
//! Frames are read with `aws-smithy-eventstream`, which checks both CRCs.

use aws_smithy_types::event_stream::{HeaderValue, Message};

use crate::sse::{EventDecoder, NoEvents, SseEvent};

/// The event name of a frame the decoder could not read (its data: why): the parser ends
/// the reply with it.
pub(crate) const CORRUPT: &str = ":corrupt";

/// The event name of an `error` message (unmodeled errors); its data is
/// `{"code": …, "message": …}` from the `:error-code` and `:error-message` headers.
pub(crate) const ERROR: &str = ":error";

/// Longest message the format allows (16 MiB of payload plus headers and framing).
const MAX_MESSAGE: usize = 16 * 1024 * 1024 + 128 * 1024 + 16;

/// Smallest possible message: prelude (12 bytes) and message CRC (4).
const MIN_MESSAGE: usize = 16;

/// How many leading bytes are kept to describe a body that held no message.
const HEAD_BYTES: usize = 200;

/// Splits a byte stream into event-stream messages.
#[derive(Debug, Default)]
pub struct FrameDecoder {
    buf: Vec<u8>,
    head: Vec<u8>,
    messages: usize,
    /// Set when a frame could not be read: nothing after it is trusted.
    broken: bool,
}

impl FrameDecoder {
    /// A decoder at the start of a body.
    pub fn new() -> Self {
        Self::default()
    }

    fn drain(&mut self, on_event: &mut dyn FnMut(SseEvent)) {
        while !self.broken && self.buf.len() >= 4 {
            let total =
                u32::from_be_bytes([self.buf[0], self.buf[1], self.buf[2], self.buf[3]]) as usize;
            if !(MIN_MESSAGE..=MAX_MESSAGE).contains(&total) {
                self.fail(format!("a message claims {total} bytes"), on_event);
                return;
            }
            if self.buf.len() < total {
                return;
            }
            let decoded = aws_smithy_eventstream::frame::read_message_from(&self.buf[..total]);
            self.buf.drain(..total);
            match decoded {
                Ok(message) => {
                    self.messages += 1;
                    on_event(to_event(&message));
                }
                Err(e) => self.fail(e.to_string(), on_event),
            }
        }
    }

    /// A frame that cannot be read: after messages it ends the reply with an error; before
    /// any, the body was not an event stream at all ([`FrameDecoder::no_events`] says so).
    fn fail(&mut self, why: String, on_event: &mut dyn FnMut(SseEvent)) {
        self.broken = true;
        self.buf.clear();
        if self.messages > 0 {
            on_event(SseEvent {
                event: Some(CORRUPT.to_string()),
                data: why,
            });
        }
    }
}

impl EventDecoder for FrameDecoder {
    fn feed(&mut self, chunk: &[u8], on_event: &mut dyn FnMut(SseEvent)) {
        if self.head.len() < HEAD_BYTES {
            let room = HEAD_BYTES - self.head.len();
            self.head.extend_from_slice(&chunk[..room.min(chunk.len())]);
        }
        if self.broken {
            return;
        }
        self.buf.extend_from_slice(chunk);
        self.drain(on_event);
    }

    /// A message cut off at the end of the body is dropped: the reply then lacks its
    /// terminal event and ends early.
    fn finish(&mut self, _on_event: &mut dyn FnMut(SseEvent)) {
        self.buf.clear();
    }

    fn no_events(&self) -> Option<NoEvents> {
        if self.messages > 0 {
            return None;
        }
        Some(NoEvents::describe_head(&self.head).map_or(NoEvents::Empty, NoEvents::NoFrames))
    }
}

fn header<'a>(message: &'a Message, name: &str) -> Option<&'a str> {
    message
        .headers()
        .iter()
        .find(|h| h.name().as_str() == name)
        .and_then(|h| match h.value() {
            HeaderValue::String(s) => Some(s.as_str()),
            _ => None,
        })
}

/// The event a message stands for: events by `:event-type`, exceptions by
/// `:exception-type`, `error` messages as [`ERROR`].
fn to_event(message: &Message) -> SseEvent {
    let payload = String::from_utf8_lossy(message.payload()).into_owned();
    match header(message, ":message-type") {
        Some("exception") => SseEvent {
            event: header(message, ":exception-type").map(str::to_string),
            data: payload,
        },
        Some("error") => SseEvent {
            event: Some(ERROR.to_string()),
            data: serde_json::json!({
                "code": header(message, ":error-code"),
                "message": header(message, ":error-message"),
            })
            .to_string(),
        },
        _ => SseEvent {
            event: header(message, ":event-type").map(str::to_string),
            data: payload,
        },
    }
}
