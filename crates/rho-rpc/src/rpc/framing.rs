//! Strict JSONL input framing (interfaces spec §1.2): records end at `\n` only; one `\r`
//! before it is stripped; U+2028/U+2029 and other separators are ordinary bytes; a record
//! longer than the limit is dropped (reported once) without buffering it whole.

/// One input record, or the report that a record was too long.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// The bytes of one record, without the terminator.
    Line(Vec<u8>),
    /// A record passed the byte limit; its bytes were discarded.
    TooLong,
}

/// Splits a byte stream into records. Pure: feed it chunks, collect frames.
#[derive(Debug)]
pub struct LineSplitter {
    buf: Vec<u8>,
    max: usize,
    discarding: bool,
}

impl LineSplitter {
    /// A splitter that rejects records longer than `max` bytes.
    pub fn new(max: usize) -> Self {
        Self {
            buf: Vec::new(),
            max,
            discarding: false,
        }
    }

    /// Adds `chunk`, appending every completed record to `out`.
    pub fn push(&mut self, mut chunk: &[u8], out: &mut Vec<Frame>) {
        while let Some(pos) = chunk.iter().position(|&b| b == b'\n') {
            let (head, rest) = chunk.split_at(pos);
            chunk = &rest[1..];
            if self.discarding {
                self.discarding = false;
                continue;
            }
            if self.buf.len() + head.len() > self.max + 1 {
                self.buf.clear();
                out.push(Frame::TooLong);
                continue;
            }
            self.buf.extend_from_slice(head);
            out.push(self.take_line());
        }
        if self.discarding {
            return;
        }
        self.buf.extend_from_slice(chunk);
        if self.buf.len() > self.max + 1 {
            self.buf = Vec::new();
            self.discarding = true;
            out.push(Frame::TooLong);
        }
    }

    /// End of input: a trailing unterminated record is still a record.
    pub fn finish(&mut self) -> Option<Frame> {
        if self.discarding || self.buf.is_empty() {
            return None;
        }
        Some(self.take_line())
    }

    fn take_line(&mut self) -> Frame {
        let mut line = std::mem::take(&mut self.buf);
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.len() > self.max {
            return Frame::TooLong;
        }
        Frame::Line(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]], max: usize) -> Vec<Frame> {
        let mut s = LineSplitter::new(max);
        let mut out = Vec::new();
        for c in chunks {
            s.push(c, &mut out);
        }
        out.extend(s.finish());
        out
    }

    fn line(s: &str) -> Frame {
        Frame::Line(s.as_bytes().to_vec())
    }

    #[test]
    fn splits_on_lf_only_and_strips_one_cr() {
        let frames = split(&[b"a\r\nb\r\r\nc\rd\n"], 100);
        assert_eq!(frames, vec![line("a"), line("b\r"), line("c\rd")]);
    }

    #[test]
    fn unicode_separators_are_not_line_breaks() {
        let text = "{\"m\":\"x\u{2028}y\u{2029}z\"}\n";
        assert_eq!(split(&[text.as_bytes()], 100), vec![line(text.trim_end())]);
    }

    #[test]
    fn records_span_chunks_including_split_utf8() {
        let bytes = "é\n".as_bytes();
        let frames = split(&[&bytes[..1], &bytes[1..]], 100);
        assert_eq!(frames, vec![line("é")]);
    }

    #[test]
    fn trailing_record_without_newline_is_kept_and_empty_lines_are_records() {
        assert_eq!(split(&[b"\nabc"], 100), vec![line(""), line("abc")]);
    }

    #[test]
    fn too_long_records_are_reported_once_and_the_next_one_survives() {
        let frames = split(&[b"0123456789", b"0123456789", b"xx\nok\n"], 8);
        assert_eq!(frames, vec![Frame::TooLong, line("ok")]);
        let frames = split(&[b"0123456789\nok"], 8);
        assert_eq!(frames, vec![Frame::TooLong, line("ok")]);
    }

    #[test]
    fn a_record_of_exactly_the_limit_passes() {
        assert_eq!(split(&[b"12345678\r\n"], 8), vec![line("12345678")]);
        assert_eq!(split(&[b"123456789\n"], 8), vec![Frame::TooLong]);
    }
}
