//! Incremental Server-Sent Events parser (providers spec §3.0 "SSE framing").
//!
//! Bytes arrive in arbitrary chunks; lines end in `\n`, `\r\n` or `\r`; a blank line
//! dispatches; `:` lines are comments; `data:` lines are joined with `\n`; a pending event is
//! flushed at EOF.
//!
//! Invalid UTF-8 is decoded lossily, line by line, on every API: each bad byte becomes U+FFFD
//! and the stream goes on, so it still has to reach its API's terminal event to count as
//! complete (pi 1.6 decodes with a non-fatal `TextDecoder`, which does the same). A multi-byte
//! character split across network chunks is joined first, never replaced.
//!
//! The parser also remembers the first bytes of the body and whether any event came of it, so
//! a body that is not an event stream at all can be named in the error ([`NoEvents`]).

use std::fmt;

/// How many leading bytes of a body are kept to describe it when it held no event.
const HEAD_BYTES: usize = 200;

/// One dispatched SSE event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` name, if any.
    pub event: Option<String>,
    /// The joined `data:` lines.
    pub data: String,
}

/// Feeds on byte chunks, yields whole events.
#[derive(Debug, Default)]
pub struct SseParser {
    buf: Vec<u8>,
    /// Set when the previous chunk ended in `\r`, so a leading `\n` is not a second line end.
    skip_lf: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
    /// The first [`HEAD_BYTES`] bytes fed, for [`SseParser::no_events`].
    head: Vec<u8>,
    dispatched: bool,
}

/// What a body that ended without a single SSE event held: an empty body (a proxy or server
/// that answered 200 and closed), or something else (an HTML page, a JSON document from an
/// endpoint that does not stream). Its text follows the API's "ended early" text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoEvents {
    /// Not one byte.
    Empty,
    /// Bytes, but no event: the start of the body, escaped so control bytes stay visible.
    Other(String),
    /// Bytes, but no AWS event-stream message (Bedrock): the start of the body, escaped.
    NoFrames(String),
}

impl fmt::Display for NoEvents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoEvents::Empty => f.write_str("the response body was empty"),
            NoEvents::Other(start) => write!(
                f,
                "the response held no server-sent events (it began: \"{start}\"); check that the \
                 model's baseUrl points to this API's streaming endpoint"
            ),
            NoEvents::NoFrames(start) => write!(
                f,
                "the response held no event-stream messages (it began: \"{start}\"); check that \
                 the model's baseUrl points to the Bedrock runtime endpoint"
            ),
        }
    }
}

impl NoEvents {
    /// What a body that held no event began with: its first bytes, trimmed, escaped so control
    /// bytes stay visible; `None` for an empty body.
    pub(crate) fn describe_head(head: &[u8]) -> Option<String> {
        if head.is_empty() {
            return None;
        }
        let text = String::from_utf8_lossy(head);
        Some(text.trim().chars().flat_map(char::escape_debug).collect())
    }
}

/// Turns a response body into events for a [`crate::provider::WireParser`]: SSE for most
/// APIs ([`SseParser`]), AWS event-stream frames for Bedrock.
pub trait EventDecoder: Send {
    /// Adds bytes and calls `on_event` for every event they complete.
    fn feed(&mut self, chunk: &[u8], on_event: &mut dyn FnMut(SseEvent));
    /// Flushes whatever is pending at end of input.
    fn finish(&mut self, on_event: &mut dyn FnMut(SseEvent));
    /// `None` once an event came out; otherwise what the body held instead.
    fn no_events(&self) -> Option<NoEvents>;
}

impl EventDecoder for SseParser {
    fn feed(&mut self, chunk: &[u8], on_event: &mut dyn FnMut(SseEvent)) {
        SseParser::feed(self, chunk, on_event);
    }

    fn finish(&mut self, on_event: &mut dyn FnMut(SseEvent)) {
        SseParser::finish(self, on_event);
    }

    fn no_events(&self) -> Option<NoEvents> {
        SseParser::no_events(self)
    }
}

impl SseParser {
    /// A fresh parser.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds bytes and calls `on_event` for every event they complete.
    pub fn feed(&mut self, mut chunk: &[u8], mut on_event: impl FnMut(SseEvent)) {
        if self.head.len() < HEAD_BYTES {
            let room = HEAD_BYTES - self.head.len();
            self.head.extend_from_slice(&chunk[..room.min(chunk.len())]);
        }
        if self.skip_lf {
            if let Some(rest) = chunk.strip_prefix(b"\n") {
                chunk = rest;
            }
            self.skip_lf = false;
        }
        let mut start = 0;
        let mut i = 0;
        while i < chunk.len() {
            let b = chunk[i];
            if b == b'\n' || b == b'\r' {
                let line_end = i;
                if b == b'\r' {
                    if i + 1 < chunk.len() {
                        if chunk[i + 1] == b'\n' {
                            i += 1;
                        }
                    } else {
                        self.skip_lf = true;
                    }
                }
                if self.buf.is_empty() {
                    self.line(&chunk[start..line_end], &mut on_event);
                } else {
                    self.buf.extend_from_slice(&chunk[start..line_end]);
                    let line = std::mem::take(&mut self.buf);
                    self.line(&line, &mut on_event);
                }
                start = i + 1;
            }
            i += 1;
        }
        if start < chunk.len() {
            self.buf.extend_from_slice(&chunk[start..]);
        }
    }

    /// Flushes whatever is pending at end of input.
    pub fn finish(&mut self, mut on_event: impl FnMut(SseEvent)) {
        if !self.buf.is_empty() {
            let line = std::mem::take(&mut self.buf);
            self.line(&line, &mut on_event);
        }
        self.dispatch(&mut on_event);
    }

    /// `None` once an event was dispatched; otherwise what the body held instead.
    pub fn no_events(&self) -> Option<NoEvents> {
        if self.dispatched {
            return None;
        }
        Some(NoEvents::describe_head(&self.head).map_or(NoEvents::Empty, NoEvents::Other))
    }

    fn line(&mut self, line: &[u8], on_event: &mut impl FnMut(SseEvent)) {
        if line.is_empty() {
            self.dispatch(on_event);
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (field, value) = match line.iter().position(|&c| c == b':') {
            Some(p) => {
                let v = &line[p + 1..];
                (&line[..p], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                match std::str::from_utf8(value) {
                    Ok(text) => self.data.push_str(text),
                    Err(_) => self.data.push_str(&String::from_utf8_lossy(value)),
                }
                self.has_data = true;
            }
            b"event" => {
                self.event = Some(match std::str::from_utf8(value) {
                    Ok(name) => name.to_owned(),
                    Err(_) => String::from_utf8_lossy(value).into_owned(),
                })
            }
            _ => {}
        }
    }

    fn dispatch(&mut self, on_event: &mut impl FnMut(SseEvent)) {
        if !self.has_data && self.event.is_none() {
            return;
        }
        let event = SseEvent {
            event: self.event.take(),
            data: std::mem::take(&mut self.data),
        };
        self.has_data = false;
        self.dispatched = true;
        on_event(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_chunks(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        for c in chunks {
            p.feed(c, |e| out.push(e));
        }
        p.finish(|e| out.push(e));
        out
    }

    #[test]
    fn joins_data_lines_and_reads_event_names() {
        let out = parse_chunks(&[b"event: a\ndata: x\ndata:y\n\n: comment\ndata: z\n\n"]);
        assert_eq!(
            out,
            vec![
                SseEvent {
                    event: Some("a".into()),
                    data: "x\ny".into()
                },
                SseEvent {
                    event: None,
                    data: "z".into()
                }
            ]
        );
    }

    #[test]
    fn handles_crlf_and_cr_split_across_chunks() {
        let out = parse_chunks(&[b"data: 1\r", b"\n\r", b"\ndata: 2\r\r"]);
        let data: Vec<_> = out.iter().map(|e| e.data.as_str()).collect();
        assert_eq!(data, ["1", "2"]);
    }

    #[test]
    fn line_split_in_the_middle_of_a_field() {
        let out = parse_chunks(&[b"da", b"ta: hel", b"lo\n", b"\n"]);
        assert_eq!(out[0].data, "hello");
    }

    #[test]
    fn flushes_pending_event_at_eof() {
        let out = parse_chunks(&[b"data: tail"]);
        assert_eq!(out[0].data, "tail");
    }

    #[test]
    fn invalid_utf8_is_lossy_not_a_panic() {
        let out = parse_chunks(&[b"data: \xff\xfe\n\n"]);
        assert_eq!(out[0].data, "\u{fffd}\u{fffd}");
    }

    #[test]
    fn a_character_split_across_chunks_is_joined_not_replaced() {
        let out = parse_chunks(&[b"data: \xc3", b"\xa9t\xc3", b"\xa9\n\n"]);
        assert_eq!(out[0].data, "été");
    }

    fn no_events(chunks: &[&[u8]]) -> Option<NoEvents> {
        let mut p = SseParser::new();
        for c in chunks {
            p.feed(c, |_| {});
        }
        p.finish(|_| {});
        p.no_events()
    }

    #[test]
    fn a_body_without_events_is_described_by_its_start() {
        assert_eq!(no_events(&[]), Some(NoEvents::Empty));
        assert_eq!(no_events(&[b""]), Some(NoEvents::Empty));
        assert_eq!(no_events(&[b"data: x\n\n"]), None);
        assert_eq!(
            no_events(&[b"<html>", b"\x01oops</html>\n"]),
            Some(NoEvents::Other("<html>\\u{1}oops</html>".into()))
        );
        assert_eq!(
            no_events(&[b": keep-alive\n\n"]),
            Some(NoEvents::Other(": keep-alive".into()))
        );
        let long = vec![b'x'; 3 * HEAD_BYTES];
        let Some(NoEvents::Other(start)) = no_events(&[&long[..100], &long[100..]]) else {
            panic!("a long body without events");
        };
        assert_eq!(start.len(), HEAD_BYTES);
    }
}
