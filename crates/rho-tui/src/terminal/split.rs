//! Cutting what the terminal sends into single sequences: one key, one mouse report, one reply
//! to a query, or one bracketed paste. Reads from a terminal arrive in arbitrary pieces (a mouse
//! report can come as `ESC`, `[<35`, `;20;5m`), and several keys can come in one read; the
//! splitter keeps an unfinished sequence until the rest arrives or its wait runs out (a lone
//! `ESC` is the Escape key after a few milliseconds). pi's stdin buffer does the same; this
//! follows its rules so both agree on what a run of bytes means.

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;
const PASTE_START: &[u8] = b"\x1b[200~";
const PASTE_END: &[u8] = b"\x1b[201~";

/// One whole thing the terminal sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// One key, report or reply (a single character is one piece).
    Seq(Vec<u8>),
    /// The text of a bracketed paste.
    Paste(String),
}

/// What the splitter waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pending {
    /// Nothing: wait for the next read as long as it takes.
    Nothing,
    /// A lone `ESC`: Escape unless more comes within the escape wait.
    Escape,
    /// An unfinished sequence: flushed as it is after the reader's sequence wait (pi's 50 ms).
    Sequence,
    /// A paste or a reply to a query that has begun: wait for its end as long as it takes.
    Unbounded,
}

/// Bytes waiting to become pieces.
#[derive(Debug, Default)]
pub struct Splitter {
    buf: Vec<u8>,
    /// Inside a bracketed paste: its text so far.
    paste: Option<Vec<u8>>,
    /// The character of the last unmodified kitty key, which some terminals send again as
    /// plain text right after (pi drops the repeat).
    echoed: Option<u32>,
}

/// How long the sequence at the start of a buffer is.
enum Len {
    /// Whole, this many bytes.
    Whole(usize),
    /// Needs more bytes.
    Short,
    /// A reply cancelled (CAN/SUB) or cut by a new sequence: drop this many bytes.
    Drop(usize),
}

impl Splitter {
    /// Adds `bytes` and appends the pieces they complete to `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<Piece>) {
        self.buf.extend_from_slice(bytes);
        loop {
            if let Some(paste) = self.paste.as_mut() {
                paste.append(&mut self.buf);
                let Some(end) = find(paste, PASTE_END) else {
                    return;
                };
                self.buf = paste.split_off(end + PASTE_END.len());
                paste.truncate(end);
                let text = String::from_utf8_lossy(paste).into_owned();
                self.paste = None;
                self.echoed = None;
                out.push(Piece::Paste(text));
                continue;
            }
            if let Some(start) = find(&self.buf, PASTE_START) {
                let mut rest = self.buf.split_off(start);
                let before = std::mem::take(&mut self.buf);
                let used = self.extract(&before, out);
                if used < before.len() {
                    self.push(before[used..].to_vec(), out);
                }
                self.paste = Some(rest.split_off(PASTE_START.len()));
                continue;
            }
            let buf = std::mem::take(&mut self.buf);
            let used = self.extract(&buf, out);
            self.buf = buf[used..].to_vec();
            return;
        }
    }

    /// What the bytes kept wait for.
    pub fn pending(&self) -> Pending {
        if self.paste.is_some() || is_reply_header(&self.buf) {
            Pending::Unbounded
        } else if self.buf.is_empty() {
            Pending::Nothing
        } else if self.buf == [ESC] {
            Pending::Escape
        } else {
            Pending::Sequence
        }
    }

    /// The wait ran out: what is kept becomes a piece as it is. An unfinished string sequence
    /// (`ESC ]`, `ESC P`, `ESC _`) was really Alt plus a key followed by typing: its first two
    /// bytes are one piece and the rest is read again.
    pub fn flush(&mut self, out: &mut Vec<Piece>) {
        if self.paste.is_some() {
            return;
        }
        let buf = std::mem::take(&mut self.buf);
        self.echoed = None;
        if buf.len() > 2 && is_string_start(&buf) {
            self.push(buf[..2].to_vec(), out);
            self.feed(&buf[2..], out);
        } else if !buf.is_empty() {
            self.push(buf, out);
        }
    }

    /// Splits the whole sequences at the start of `buf` into `out`; returns the bytes used.
    fn extract(&mut self, buf: &[u8], out: &mut Vec<Piece>) -> usize {
        let mut pos = 0;
        while pos < buf.len() {
            let rest = &buf[pos..];
            if rest[0] != ESC {
                let n = utf8_len(rest[0]);
                if rest.len() < n {
                    break;
                }
                self.push(rest[..n].to_vec(), out);
                pos += n;
                continue;
            }
            // WezTerm sends a kitty Escape as a raw ESC right before a sequence: ESC alone.
            if rest.len() > 2 && rest[1] == ESC && b"[]OP_".contains(&rest[2]) {
                self.push(vec![ESC], out);
                pos += 1;
                continue;
            }
            match sequence_len(rest) {
                Len::Whole(n) => {
                    self.push(rest[..n].to_vec(), out);
                    pos += n;
                }
                Len::Drop(n) => pos += n,
                Len::Short => break,
            }
        }
        pos
    }

    fn push(&mut self, seq: Vec<u8>, out: &mut Vec<Piece>) {
        let raw = std::str::from_utf8(&seq)
            .ok()
            .filter(|s| s.chars().count() == 1)
            .and_then(|s| s.chars().next())
            .map(u32::from);
        if raw.is_some() && raw == self.echoed {
            self.echoed = None;
            return;
        }
        self.echoed = plain_kitty_char(&seq);
        out.push(Piece::Seq(seq));
    }
}

/// The length of the `ESC`-led sequence at the start of `s`.
fn sequence_len(s: &[u8]) -> Len {
    if s.len() < 2 {
        return Len::Short;
    }
    match s[1] {
        b'[' if s.get(2) == Some(&b'M') => {
            if s.len() >= 6 {
                Len::Whole(6)
            } else {
                Len::Short
            }
        }
        b'[' => match s[2..].iter().position(|b| (0x40..=0x7e).contains(b)) {
            Some(i) => Len::Whole(i + 3),
            None => Len::Short,
        },
        b']' | b'P' | b'_' => string_len(s),
        b'O' => {
            if s.len() >= 3 {
                Len::Whole(3)
            } else {
                Len::Short
            }
        }
        b => {
            let n = 1 + utf8_len(b);
            if s.len() >= n {
                Len::Whole(n)
            } else {
                Len::Short
            }
        }
    }
}

/// The length of a string sequence (OSC ends with BEL or `ESC \`, DCS and APC with `ESC \`).
/// In a reply to a query, CAN or SUB cancel it and a new sequence cuts it off.
fn string_len(s: &[u8]) -> Len {
    let reply = is_reply_header(s);
    let mut i = 2;
    while i < s.len() {
        match s[i] {
            BEL if s[1] == b']' => return Len::Whole(i + 1),
            ESC if s.get(i + 1) == Some(&b'\\') => return Len::Whole(i + 2),
            0x18 | 0x1a if reply => return Len::Drop(i + 1),
            ESC if reply && i + 1 < s.len() => return Len::Drop(i),
            _ => {}
        }
        i += 1;
    }
    Len::Short
}

/// Whether `s` starts with the head of a reply rho asks for (colours, the colour scheme's
/// program status, XTVERSION, kitty graphics): until it ends, it is no typing.
fn is_reply_header(s: &[u8]) -> bool {
    let Some(body) = s.strip_prefix(&[ESC]) else {
        return false;
    };
    if let Some(osc) = body.strip_prefix(b"]") {
        if osc.starts_with(b"10;") || osc.starts_with(b"11;") || osc.starts_with(b"7501;?") {
            return true;
        }
        if let Some(index) = osc.strip_prefix(b"4;") {
            let digits = index.iter().take_while(|b| b.is_ascii_digit()).count();
            return (1..=3).contains(&digits) && index.get(digits) == Some(&b';');
        }
        return false;
    }
    body.starts_with(b"P>|") || (body.starts_with(b"_G") && body.contains(&b';'))
}

fn is_string_start(s: &[u8]) -> bool {
    s.len() >= 2 && s[0] == ESC && matches!(s[1], b']' | b'P' | b'_')
}

/// The character of an unmodified kitty key report (`CSI 97u`), if it is printable.
fn plain_kitty_char(seq: &[u8]) -> Option<u32> {
    let body = seq.strip_prefix(b"\x1b[")?.strip_suffix(b"u")?;
    let code = body.split(|b| *b == b':').next()?;
    if code.is_empty() || !code.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let rest = &body[code.len()..];
    if rest.contains(&b';') {
        return None;
    }
    let code: u32 = std::str::from_utf8(code).ok()?.parse().ok()?;
    (code >= 32).then_some(code)
}

/// The length of the UTF-8 character a byte starts (1 for a stray continuation byte).
fn utf8_len(first: u8) -> usize {
    match first {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]]) -> (Vec<Piece>, Pending) {
        let mut s = Splitter::default();
        let mut out = Vec::new();
        for c in chunks {
            s.feed(c, &mut out);
        }
        (out, s.pending())
    }

    fn seqs(pieces: &[Piece]) -> Vec<&[u8]> {
        pieces
            .iter()
            .map(|p| match p {
                Piece::Seq(s) => s.as_slice(),
                Piece::Paste(_) => b"<paste>".as_slice(),
            })
            .collect()
    }

    #[test]
    fn keys_in_one_read_come_apart() {
        let (out, pending) = split(&[b"ab\x1b[A\x1b[13;2u\r\x1bx\xc3\xa9"]);
        assert_eq!(
            seqs(&out),
            [
                b"a".as_slice(),
                b"b",
                b"\x1b[A",
                b"\x1b[13;2u",
                b"\r",
                b"\x1bx",
                "é".as_bytes()
            ]
        );
        assert_eq!(pending, Pending::Nothing);
    }

    #[test]
    fn a_sequence_cut_across_reads_is_joined() {
        let (out, _) = split(&[b"\x1b", b"[<35", b";20;5m"]);
        assert_eq!(seqs(&out), [b"\x1b[<35;20;5m".as_slice()]);
        let (out, pending) = split(&[b"\x1b[1;5"]);
        assert!(out.is_empty());
        assert_eq!(pending, Pending::Sequence);
        let (out, pending) = split(&[b"\x1b"]);
        assert!(out.is_empty());
        assert_eq!(pending, Pending::Escape);
    }

    #[test]
    fn a_lone_escape_flushes_as_escape_and_a_stray_osc_as_alt_then_typing() {
        let mut s = Splitter::default();
        let mut out = Vec::new();
        s.feed(b"\x1b", &mut out);
        s.flush(&mut out);
        assert_eq!(seqs(&out), [b"\x1b".as_slice()]);
        out.clear();
        s.feed(b"\x1b]ab", &mut out);
        assert_eq!(s.pending(), Pending::Sequence);
        s.flush(&mut out);
        assert_eq!(seqs(&out), [b"\x1b]".as_slice(), b"a", b"b"]);
    }

    #[test]
    fn pastes_are_whole_even_across_reads_and_keys_around_them_stay() {
        let (out, pending) = split(&[b"x\x1b[200~line\x1b[A", b"two\x1b[201~y"]);
        assert_eq!(
            out,
            [
                Piece::Seq(b"x".to_vec()),
                Piece::Paste("line\x1b[Atwo".into()),
                Piece::Seq(b"y".to_vec())
            ]
        );
        assert_eq!(pending, Pending::Nothing);
        let (_, pending) = split(&[b"\x1b[200~half"]);
        assert_eq!(pending, Pending::Unbounded);
    }

    #[test]
    fn replies_wait_for_their_end_and_a_cancelled_one_is_dropped() {
        let (out, pending) = split(&[b"\x1b]11;rgb:1e1e/1e1e"]);
        assert!(out.is_empty());
        assert_eq!(pending, Pending::Unbounded);
        let (out, _) = split(&[
            b"\x1b]11;rgb:1e1e/1e1e",
            b"/1e1e\x1b\\\x1b]10;rgb:ffff/ffff/ffff\x07",
        ]);
        assert_eq!(
            seqs(&out),
            [
                b"\x1b]11;rgb:1e1e/1e1e/1e1e\x1b\\".as_slice(),
                b"\x1b]10;rgb:ffff/ffff/ffff\x07"
            ]
        );
        let (out, _) = split(&[b"\x1b]11;rgb:00\x18a"]);
        assert_eq!(seqs(&out), [b"a".as_slice()]);
        let (out, _) = split(&[b"\x1b]11;rgb:00\x1b[A"]);
        assert_eq!(seqs(&out), [b"\x1b[A".as_slice()]);
    }

    #[test]
    fn a_kitty_escape_before_a_sequence_is_escape_alone() {
        let (out, _) = split(&[b"\x1b\x1b[27;1:3u"]);
        assert_eq!(seqs(&out), [b"\x1b".as_slice(), b"\x1b[27;1:3u"]);
    }

    #[test]
    fn a_character_repeated_after_its_kitty_report_is_dropped() {
        let (out, _) = split(&[b"\x1b[97ua", b"a"]);
        assert_eq!(seqs(&out), [b"\x1b[97u".as_slice(), b"a"]);
    }
}
