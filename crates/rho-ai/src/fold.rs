//! Folds one response body's SSE events into the reply and ends the reply: the one place
//! that decides whether a reply stream is complete, shared by every wire API, over HTTP
//! ([`crate::provider::drive`]) and in memory ([`crate::provider::drive_bytes`]).
//!
//! A reply is complete only once its API's terminal event arrived, which the parser reports
//! with [`Flow::Terminal`] or [`Flow::Stop`]. A body that ends before it (cut off, followed by
//! garbage the parser skips, empty, or not an event stream at all) ends the reply as an error
//! with the API's [`WireParser::ended_early`] text, keeping what arrived, like any other
//! stream error: `stopReason: "error"`, so the session's auto-retry can act. A wire API added
//! later gets this by implementing [`WireParser`]; there is nothing to copy.

use crate::provider::{Flow, WireParser};
use crate::reply::ReplyBuilder;
use crate::sse::{NoEvents, SseEvent};
use crate::stream_error::StreamError;

/// A reply being folded from one body.
pub(crate) struct Fold<P> {
    parser: P,
    reply: ReplyBuilder,
    /// Whether the API's terminal event arrived.
    terminal: bool,
    /// False once the parser is done or failed: later events are not its business.
    reading: bool,
    /// The parser's error, which ended reading.
    error: Option<StreamError>,
}

impl<P: WireParser> Fold<P> {
    /// Starts folding; the reply starts now unless the parser starts it itself.
    pub(crate) fn new(parser: P, mut reply: ReplyBuilder) -> Self {
        if !parser.starts_reply() {
            reply.start();
        }
        Self {
            parser,
            reply,
            terminal: false,
            reading: true,
            error: None,
        }
    }

    /// Folds one event; false once reading should stop (the parser is done, or failed).
    pub(crate) fn event(&mut self, event: SseEvent) -> bool {
        if !self.reading {
            return false;
        }
        match self.parser.on_event(event, &mut self.reply) {
            Ok(Flow::Continue) => {}
            Ok(Flow::Terminal) => self.terminal = true,
            Ok(Flow::Stop) => {
                self.terminal = true;
                self.reading = false;
            }
            Err(e) => {
                self.error = Some(e);
                self.reading = false;
            }
        }
        self.reading
    }

    /// Ends the reply once reading is over: `read` is `Err` with the text of a failure that
    /// ended it (abort, stall, lost connection); `no_events` is what the body's decoder says
    /// the body held when not one event came of it.
    // `read`'s text is already the reply's `errorMessage`, worded per API: the wire text.
    pub(crate) fn conclude(mut self, read: Result<(), String>, no_events: Option<NoEvents>) {
        // A parser that starts the reply itself may have seen nothing to start it with.
        self.reply.start();
        if let Some(e) = self.error.take() {
            return self.reply.fail(crate::http::cap_error_text(e.to_string()));
        }
        if let Err(text) = read {
            return self.reply.fail(text);
        }
        // The parser closes what its API closes at the end of a body (Chat Completions and
        // Gemini end their open blocks, as pi does), complete or not.
        let finished = self.parser.finish(&mut self.reply);
        if !self.terminal {
            let early = StreamError::EndedEarly {
                text: self.parser.ended_early(),
                no_events,
            };
            return self.reply.fail(early.to_string());
        }
        match finished {
            Ok(reason) => self.reply.finish(reason, None),
            Err(e) => self.reply.fail(crate::http::cap_error_text(e.to_string())),
        }
    }
}
